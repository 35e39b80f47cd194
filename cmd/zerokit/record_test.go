package main

import "testing"

func TestBuiltByGoRun(t *testing.T) {
	for _, c := range []struct {
		path string
		want bool
	}{
		{"/tmp/go-build4246717471/b001/exe/zerokit", true},
		{"/home/u/.cache/go-tmp/go-build123/b001/exe/zerokit", true},
		{"/work/runs/zk-play", false},
		{"/usr/local/bin/zerokit", false},
		{"/tmp/go-build4246717471/b001/zerokit.test", false}, // a test binary
		{"/srv/exe/zerokit", false},
	} {
		if got := builtByGoRun(c.path); got != c.want {
			t.Errorf("builtByGoRun(%q) = %v, want %v", c.path, got, c.want)
		}
	}
}
