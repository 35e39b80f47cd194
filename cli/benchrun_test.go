package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/arena/refbench"
)

// TestBenchCommandErrors checks that bench-fetch and bench-run name what is
// missing or wrong before doing anything.
func TestBenchCommandErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"version": 1, "agents": [{"name": "x", "game": "wyb", "repo": "abardac/si7", "commit": "`+strings.Repeat("a", 40)+`", "files": ["."], "module": "player", "runs": true, "why": "no"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BENCH_MIRRORS", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench-fetch", "-dir", dir}, "give -mirrors or set BENCH_MIRRORS"},
		{[]string{"bench-fetch", "-mirrors", dir, "-manifest", filepath.Join(dir, "none.json")}, "bench: manifest"},
		{[]string{"bench-fetch", "-mirrors", dir, "-manifest", bad}, "held out of the bench"},
		{[]string{"bench-run"}, "-referee is required"},
		{[]string{"bench-run", "-game", "squatter6"}, "-game squatter needs -java-referee"},
		{[]string{"bench-run", "-referee", "r.py", "-games", "0"}, "-games must be at least 1"},
		{[]string{"bench-run", "-referee", "r.py", "-manifest", bad}, "held out of the bench"},
		{[]string{"bench-run", "-game", "chess", "-referee", "r.py"}, "want wyb or squatterN"},
		{[]string{"bench-run", "-table", bad}, "records no matches"},
		{[]string{"bench-run", "-table", filepath.Join(dir, "none.json")}, "-table:"},
		{[]string{"bench-run", "-referee", "r.py", "-agent-temp", "-1"}, "-agent-temp -1"},
		{[]string{"bench-run", "-referee", "r.py", "-agent-temp", "1", "-agent-temp-moves", "0"}, "at least 1 move"},
		{[]string{"bench-run", "-referee", "r.py", "-colour", "red"}, `-colour "red"`},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), tc.args, nil, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error containing %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// TestBenchManifestDefault checks that the default manifest path names the
// repository's manifest.
func TestBenchManifestDefault(t *testing.T) {
	if _, err := os.Stat(filepath.Join("..", defaultManifest)); err != nil {
		t.Error(err)
	}
}

// TestBenchTable prints the table of a recorded bench.
func TestBenchTable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bench.json")
	rec := `{"matches": [{"opponent": "centre", "as_white": {"wins": 1, "score": 1}, "distinct_as_white": 1,
		"games": [{"opponent": "centre", "index": 0, "agent_colour": "white", "outcome": "win", "agent_cpu_seconds": 10, "agent_peak_mb": 50}]}]}`
	if err := os.WriteFile(file, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"bench-run", "-table", file}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "| centre | white | 1-0-0 | 1.000") {
		t.Errorf("table:\n%s", stdout.String())
	}
}

// TestEarlierBenchGames checks earlierGames on bench-run's record: -resume's reading of a recorded bench: its
// games when the agent (with the bench's noise) and limits match, an error
// naming the problem otherwise, and no overwriting without -resume.
func TestEarlierBenchGames(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bench.json")
	opts := refbench.Options{AgentID: "w, bench opening 2", TimeLimit: 60, SpaceLimit: 100, Opponents: []refbench.Opponent{{Spec: "centre"}}, Games: 4}
	if games, err := earlierGames(file, true, opts); err != nil || games != nil {
		t.Errorf("no file yet: %v, %v", games, err)
	}
	rec := `{"agent": "w, bench opening 2", "matches": [{"opponent": "centre", "agent": "w, bench opening 2", "time_limit": 60, "space_limit": 100,
		"games": [{"opponent": "centre", "index": 1, "agent_colour": "black", "outcome": "loss"}]}]}`
	if err := os.WriteFile(file, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := earlierGames(file, false, opts); err == nil || !strings.Contains(err.Error(), "give -resume") {
		t.Errorf("an existing file without -resume: %v", err)
	}
	games, err := earlierGames(file, true, opts)
	if err != nil || len(games) != 1 || games[0].Index != 1 || games[0].Outcome != refbench.Loss {
		t.Errorf("resume: %+v, %v", games, err)
	}
	opts.AgentID = "w, bench agent temperature 0.5 for 8 moves, styles' opening 2"
	if _, err := earlierGames(file, true, opts); err == nil || !strings.Contains(err.Error(), "are of agent") {
		t.Errorf("another noise: %v", err)
	}
}
