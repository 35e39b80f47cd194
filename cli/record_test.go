package cli

import "testing"

func TestRelativePaths(t *testing.T) {
	tests := []struct{ arg, dir, want string }{
		{"/work/shared/referee/referee.py", "/work/main", "../shared/referee/referee.py"},
		{"net:path=/work/runs/wyb,sims=64", "/work/main", "net:path=../runs/wyb,sims=64"},
		{"-run=/work/main/runs/a", "/work/main", "-run=runs/a"},
		{"/tmp/zk/agent", "/work/main", "../../tmp/zk/agent"},
		{"alphabeta:depth=3", "/work/main", "alphabeta:depth=3"},
		{"agents/wyb", "/work/main", "agents/wyb"},
		{"", "/work/main", ""},
		{"a,,b=", "/work/main", "a,,b="},
		{"/abs", "", "/abs"},
	}
	for _, tt := range tests {
		if got := relativePaths(tt.arg, tt.dir); got != tt.want {
			t.Errorf("relativePaths(%q, %q) = %q, want %q", tt.arg, tt.dir, got, tt.want)
		}
	}
}
