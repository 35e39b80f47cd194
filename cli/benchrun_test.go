package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent/neural"
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

// TestBenchAddTo adds a recorded bench to an agent's evaluation table: one
// entry per opponent with both colours, the distinct games, and the
// revisions and commands that played; a record of other weights or one
// that names no weights is an error that leaves the manifest as it was.
func TestBenchAddTo(t *testing.T) {
	dir := copyAgent(t, "squatter6")
	m, err := neural.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	before := len(m.Provenance.Evaluations)
	tmp := t.TempDir()
	record := func(name, agent, game string) string {
		rec := `{"agent": "` + agent + `", "game": "` + game + `", "revisions": ["abc123", "def456"], "commands": ["zerokit bench-run -games 10", "zerokit bench-run -games 20 -resume"],
		"matches": [
		{"opponent": "blocker:opening=2", "all": {"wins": 3, "draws": 1, "losses": 0, "score": 0.875, "low": 0.5, "high": 0.98},
		 "as_white": {"wins": 2, "score": 1}, "as_black": {"wins": 1, "draws": 1, "score": 0.75}, "distinct_as_white": 2, "distinct_as_black": 1,
		 "failed": 1, "mean_cpu_seconds": 2.5, "max_cpu_seconds": 3, "max_peak_mb": 30},
		{"opponent": "nobody", "all": {}}]}`
		file := filepath.Join(tmp, name)
		if err := os.WriteFile(file, []byte(rec), 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	good := record("good.json", "weights sha256 "+m.WeightsSHA256+", search sims800-1s-solver (puct), bench opening 2", "squatter7")
	for _, tc := range []struct{ file, want string }{
		{record("other.json", "weights sha256 "+strings.Repeat("0", 64)+", search x", "squatter7"), "holds other weights"},
		{record("none.json", "/tmp/some/agent", "squatter7"), "not an exported network agent"},
		{record("short.json", "weights sha256 abc, search x", "squatter7"), "not 64 hexadecimal digits"},
		{record("game.json", "weights sha256 "+m.WeightsSHA256+", search x", "chess"), "the bench's game"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), []string{"bench-run", "-table", tc.file, "-add-to", dir}, nil, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want an error containing %q", tc.file, code, stderr.String(), tc.want)
		}
	}
	if m2, err := neural.ReadManifest(dir); err != nil || len(m2.Provenance.Evaluations) != before {
		t.Fatalf("after the errors: %v, %d evaluations; want %d", err, len(m2.Provenance.Evaluations), before)
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"bench-run", "-table", good, "-add-to", dir}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "added 1 matches") {
		t.Errorf("stdout %q: want the count of matches added (1: the other has no scored game)", stdout.String())
	}
	m2, err := neural.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(m2.Provenance.Evaluations); got != before+1 {
		t.Fatalf("%d evaluations; want %d (the match with no scored game left out)", got, before+1)
	}
	e := m2.Provenance.Evaluations[before]
	if e.Opponent != "blocker:opening=2 (bench, Java referee, 7x7)" || e.Wins != 3 || e.Draws != 1 || e.Distinct != 3 || e.Excluded != 1 ||
		e.AsFirst == nil || e.AsFirst.Wins != 2 || e.AsSecond == nil || e.AsSecond.Draws != 1 ||
		e.Commit != "abc123, def456" || e.Command != "zerokit bench-run -games 10; then zerokit bench-run -games 20 -resume" ||
		e.Search != "sims800-1s-solver (puct), bench opening 2" || !strings.Contains(e.Resources, "max 3.0") {
		t.Errorf("evaluation %+v", e)
	}
}
