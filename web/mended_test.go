package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent/spec"
	"github.com/zerokit/zerokit/gamefile"
	"github.com/zerokit/zerokit/rundir"
)

// zigzag returns n win probabilities that alternate around mid by ±amp
// with the side to move, as a network's do in a placing phase.
func zigzag(n int, mid, amp float32) []float32 {
	w := make([]float32, n)
	for i := range w {
		w[i] = mid + amp
		if i%2 == 1 {
			w[i] = mid - amp
		}
	}
	return w
}

// alternating returns the players to move of n positions, the last one
// over when over is set.
func alternating(n int, over bool) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i % 2
	}
	if over && n > 0 {
		s[n-1] = -1
	}
	return s
}

// The turning point is the position after the move that changed the
// estimate most between positions with the same side to move, not a
// zig-zag of the side to move. The first case is the reported game: a
// referee game lost at the first shrink, whose value graph rightly jumps
// from 91% to 99.5% at moving turn 128 (position 24+128), after a placing
// phase whose estimate zig-zags with the side to move; the old rule (the
// largest change between consecutive positions) circled a move of the
// placing phase (move 11 in the reported game).
func TestTurningPoint(t *testing.T) {
	shrink := 24 + 128
	// The placing phase climbs from 55% to 91% under a zig-zag of ±10
	// points, the moving phase holds 91% (±1), the shrink lifts it to
	// 99.5%.
	reported := zigzag(24, 0, 0.10)
	for i := range reported {
		reported[i] += 0.55 + 0.36*float32(i)/24
	}
	reported = append(reported, zigzag(shrink-24, 0.91, 0.01)...)
	reported = append(reported, zigzag(40, 0.995, 0.002)...)
	step := append(zigzag(30, 0.5, 0), zigzag(30, 0.8, 0)...)
	blunder := append(zigzag(50, 0.5, 0.05), 1)
	tests := []struct {
		name   string
		win    []float32
		toMove []int
		want   int
	}{
		{"reported game: the first shrink", reported, alternating(len(reported), false), shrink},
		{"a step", step, alternating(len(step), false), 30},
		{"a zig-zag only", zigzag(40, 0.5, 0.2), alternating(40, false), 0},
		{"a flat line", zigzag(10, 0.5, 0), alternating(10, false), 0},
		{"a losing last move", blunder, alternating(len(blunder), true), 50},
		{"two positions", []float32{0.5, 0.9}, []int{0, 1}, 1},
		{"one position", []float32{0.5}, []int{0}, 0},
		{"none", nil, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := turningPoint(tc.win, tc.toMove); got != tc.want {
				t.Errorf("turning point %d, want %d", got, tc.want)
			}
		})
	}
	// What the old rule chose on the reported game, to show the test
	// tells the two apart.
	old, best := 0, float32(0)
	for i := 1; i < len(reported); i++ {
		if d := abs32(reported[i] - reported[i-1]); d > best {
			old, best = i, d
		}
	}
	if old == shrink {
		t.Fatalf("the reported series does not tell the old rule from the new")
	}
}

// The analysis marks one position, the turning point.
func TestAnalyseMarksTurningPoint(t *testing.T) {
	ts := newTestServer(t, Config{Networks: testNetworks, DefaultNetwork: "default"})
	actions := mustRandom(t, "tictactoe", 5, 20)
	b, _ := json.Marshal(AnalyseRequest{Game: "tictactoe", Actions: actions})
	code, body := do(t, ts, "POST", "/api/analyse", string(b))
	var res []PositionAnalysis
	if err := json.Unmarshal(body, &res); code != 200 || err != nil {
		t.Fatalf("analyse: %d %v %s", code, err, body)
	}
	// The uniform network says 50% everywhere; only the end, decided,
	// differs, unless the game is a draw.
	marked := []int{}
	for i, a := range res {
		if a.Turning {
			marked = append(marked, i)
		}
	}
	last := res[len(res)-1]
	if last.WinFirst != 0.5 && (len(marked) != 1 || marked[0] != len(res)-1) {
		t.Errorf("positions %v marked, want the last, %d (the game ends %v)", marked, len(res)-1, last.WinFirst)
	}
	if last.WinFirst == 0.5 && len(marked) != 0 {
		t.Errorf("positions %v marked in a drawn game the network calls even throughout", marked)
	}
}

// Squatter's positions have a status: the move, the free cells, each
// side's score and territory (the page showed "undefined"); every game's
// position carries the field.
func TestPositionStatus(t *testing.T) {
	ts := newTestServer(t, Config{})
	for _, game := range []string{"squatter6", "squatter7", "wyb-nolimit", "tictactoe"} {
		code, b := do(t, ts, "POST", "/api/play", fmt.Sprintf(`{"game":%q,"agent":"random","colour":"second"}`, game))
		var raw struct {
			Position map[string]json.RawMessage `json:"position"`
		}
		if err := json.Unmarshal(b, &raw); code != 200 || err != nil {
			t.Fatalf("%s: %d %v %s", game, code, err, b)
		}
		if _, ok := raw.Position["status"]; !ok {
			t.Errorf("%s: the position has no status field: %s", game, b)
		}
	}
	rep, err := NewReplay(gamefile.Game{Game: "squatter7", Actions: mustRandom(t, "squatter7", 3, 100)})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range rep.Positions {
		if !strings.Contains(p.Status, "score") || !strings.Contains(p.Status, "territory") || !strings.Contains(p.Status, "of 49 cells free") {
			t.Fatalf("squatter7 position %d: status %q", i, p.Status)
		}
	}
	final := rep.Positions[len(rep.Positions)-1].Status
	if !strings.Contains(final, "0 of 49 cells free") {
		t.Errorf("the final position's status %q", final)
	}
}

// A -run directory that does not exist, or is a file, is an error that
// names it, where the dashboard waited forever; one removed while the
// server runs is answered with a 404 that says so.
func TestRunDirectories(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "metrics.jsonl")
	if err := os.WriteFile(file, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ run, want string }{
		{filepath.Join(dir, "runs", "typo"), "no such directory"},
		{file, "not a directory"},
	} {
		_, err := New(Config{Agents: spec.Default(), Runs: []string{dir, tc.run}})
		if err == nil || !strings.Contains(err.Error(), tc.run) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("-run %s: error %v, want one naming it and saying %q", tc.run, err, tc.want)
		}
	}
	run := filepath.Join(dir, "wyb")
	writeRun(t, run, []string{`{"step":1,"policy_loss":2}`})
	ts := newTestServer(t, Config{Runs: []string{run}})
	code, b := do(t, ts, "GET", "/api/runs/0/metrics", "")
	var m Metrics
	if err := json.Unmarshal(b, &m); code != 200 || err != nil || len(m.Records) != 1 || m.Modified == "" || m.Now == "" {
		t.Fatalf("metrics: %d %v %s", code, err, b)
	}
	if err := os.RemoveAll(run); err != nil {
		t.Fatal(err)
	}
	if code, b := do(t, ts, "GET", "/api/runs/0/metrics", ""); code != http.StatusNotFound || !strings.Contains(string(b), "no longer exists") {
		t.Errorf("metrics of a removed run: %d %s", code, b)
	}
}

// A run's self-play game is analysed with the run's network: the
// checkpoint of the step that played it while the run keeps it, else the
// run's latest.
func TestRunGameNetwork(t *testing.T) {
	run := filepath.Join(t.TempDir(), "wyb-a")
	writeRun(t, run, []string{`{"step":1}`})
	ts := newTestServer(t, Config{Runs: []string{run}})
	get := func() Replay {
		t.Helper()
		code, b := do(t, ts, "GET", "/api/runs/0/game?ref=shard-000001.zk%231", "")
		var rep Replay
		if err := json.Unmarshal(b, &rep); code != 200 || err != nil {
			t.Fatalf("game: %d %v %s", code, err, b)
		}
		return rep
	}
	if rep := get(); rep.Network != "net:path="+run || !strings.Contains(rep.NetworkTitle, "wyb-a's latest network") {
		t.Errorf("without checkpoints: network %q (%s)", rep.Network, rep.NetworkTitle)
	}
	ck := rundir.Run{Dir: run}.Checkpoints()
	if err := os.MkdirAll(ck.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const step = 42 // gamefiletest.SelfPlayRecord's
	if err := os.WriteFile(ck.Path(step), []byte("weights"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep := get(); rep.Network != "net:path="+ck.Path(step) || !strings.Contains(rep.NetworkTitle, "step 42, which played this game") {
		t.Errorf("with step 42's checkpoint: network %q (%s)", rep.Network, rep.NetworkTitle)
	}
}
