package refbench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadUsage reads usage logs of one line per game (the adapters'
// format), an older single-object log, and broken ones.
func TestReadUsage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, text string
		games      int
		last       Usage
		err        string
	}{
		{"one game", `{"cpu_seconds": 1.5, "peak_memory_mb": 20, "exceeded": null, "fallback_moves": 2}` + "\n", 1, Usage{CPU: 1.5, PeakMB: 20}, ""},
		{"two games", `{"cpu_seconds": 1.5, "peak_memory_mb": 20}` + "\n" + `{"cpu_seconds": 7.6, "peak_memory_mb": 21, "exceeded": "used 7.60 s", "fallback_moves": null}` + "\n",
			2, Usage{CPU: 7.6, PeakMB: 21, Exceeded: "used 7.60 s"}, ""},
		{"no final newline", `{"cpu_seconds": 3}`, 1, Usage{CPU: 3}, ""},
		{"empty", "\n", 0, Usage{}, "no usage line"},
		{"broken line", `{"cpu_seconds": 3}` + "\n{\n", 0, Usage{}, "line 2"},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".json")
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		all, err := ReadUsages(path)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || len(all) != tc.games {
			t.Fatalf("%s: %d games, %v; want %d", tc.name, len(all), err, tc.games)
		}
		u, err := ReadUsage(path)
		fb := u.Fallbacks
		u.Fallbacks = nil
		if err != nil || u != tc.last {
			t.Errorf("%s: last game %+v, %v; want %+v", tc.name, u, err, tc.last)
		}
		if tc.name == "one game" && (fb == nil || *fb != 2) {
			t.Errorf("%s: fallback moves %v, want 2", tc.name, fb)
		}
	}
}
