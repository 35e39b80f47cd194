package arena

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/connect4"
	"github.com/zerokit/zerokit/env/tictactoe"
)

func c4(t testing.TB, cols, rows int) env.Game {
	t.Helper()
	g, err := connect4.New(connect4.Params{Columns: cols, Rows: rows})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

const header = PositionsMagic + "\n# game: connect4-5x4\n"

func TestReadPositions(t *testing.T) {
	g := c4(t, 5, 4)
	for _, tc := range []struct {
		name, text, err string
		n               int
	}{
		{"good", header + "# a comment\n\n- D20 2\n0123 W3 04\n", "", 2},
		{"no magic", "# game: connect4-5x4\n", "not a position set", 0},
		{"empty", "", "empty file", 0},
		{"no game", PositionsMagic + "\n- D20 2\n", "no \"# game", 0},
		{"other game", PositionsMagic + "\n# game: connect4\n", "not \"connect4-5x4\"", 0},
		{"fields", header + "- D20\n", "line 3: \"- D20\": want MOVES VALUE KEEP", 0},
		{"bad move", header + "9 D20 2\n", "line 3: moves \"9\": character 1 is not an action 0..4", 0},
		{"full column", header + "00000 D20 2\n", "column 0 is full", 0},
		{"game over", header + "0101010 W1 2\n", "the game is over", 0},
		{"bad value", header + "- X3 2\n", "want W, L or D", 0},
		{"value range", header + "- W99 2\n", "number of actions 0..20", 0},
		{"win in 0", header + "- W0 2\n", "at least one action", 0},
		{"keep illegal", header + "0000 W3 0\n", "action 0 is not legal", 0},
		{"keep order", header + "- D20 21\n", "not in increasing order", 0},
		{"keep empty", header + "- D20 -\n", "no action", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, err := ReadPositions(strings.NewReader(tc.text), g)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || len(set.Positions) != tc.n {
				t.Fatalf("%d positions, %v", len(set.Positions), err)
			}
			var b bytes.Buffer
			if err := WritePositions(&b, g, set); err != nil {
				t.Fatal(err)
			}
			again, err := ReadPositions(&b, g)
			if err != nil || len(again.Positions) != tc.n || !slices.Equal(again.Comments, set.Comments) {
				t.Fatalf("round trip: %+v, %v", again, err)
			}
			for i, p := range again.Positions {
				q := set.Positions[i]
				if !slices.Equal(p.Moves, q.Moves) || p.Solution != q.Solution || !slices.Equal(p.Keep, q.Keep) {
					t.Errorf("round trip of %+v: %+v", q, p)
				}
			}
		})
	}
	if _, err := ReadPositions(strings.NewReader(header), tictactoe.New()); err == nil {
		t.Error("a connect4 set read as tic-tac-toe")
	}
}

// The reader never panics and what it accepts writes back the same.
func FuzzReadPositions(f *testing.F) {
	g := c4(f, 5, 4)
	f.Add(header + "- D20 2\n0123 W3 04\n")
	f.Add(header + "0000 L4 1234\n")
	f.Add(header + "01 W1 x\n")
	f.Fuzz(func(t *testing.T, text string) {
		set, err := ReadPositions(strings.NewReader(text), g)
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := WritePositions(&b, g, set); err != nil {
			t.Fatalf("accepted %q but cannot write it: %v", text, err)
		}
		again, err := ReadPositions(&b, g)
		if err != nil || len(again.Positions) != len(set.Positions) {
			t.Fatalf("round trip of %q: %v", text, err)
		}
	})
}

// A generated set holds the solver's values; the perfect player keeps
// every value, the random one fewer, and the report splits by discs.
func TestGenerateAndAccuracy(t *testing.T) {
	g := c4(t, 5, 4)
	players := []agent.Factory{agent.RandomFactory()}
	ab, err := agent.AlphaBetaFactory(g, agent.AlphaBetaConfig{Depth: 2})
	if err != nil {
		t.Fatal(err)
	}
	players = append(players, ab)
	cfg := GenerateConfig{Game: g, Positions: 40, MinDiscs: 2, MaxDiscs: 14, Players: players, Workers: 2, Seed: 3, SolveTime: time.Minute}
	ps, st, err := GeneratePositions(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 40 || st.Candidates < 40 {
		t.Fatalf("%d positions, %+v", len(ps), st)
	}
	again, _, err := GeneratePositions(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ps {
		if !slices.Equal(ps[i].Moves, again[i].Moves) || !slices.Equal(ps[i].Keep, again[i].Keep) {
			t.Fatalf("position %d differs between two runs: %v and %v", i, ps[i], again[i])
		}
	}
	solver, err := g.(env.SolvableGame).NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		s, err := p.State(g)
		if err != nil {
			t.Fatal(err)
		}
		if p.Solution.Value < 0 || len(p.Keep) == len(s.LegalActions(nil)) {
			t.Errorf("a trivial position %v: %+v", p.Moves, p)
		}
		sol, err := solver.Solve(context.Background(), s)
		if err != nil || sol != p.Solution {
			t.Errorf("%v: solution %+v, the set's %+v (%v)", p.Moves, sol, p.Solution, err)
		}
	}
	perfect, err := agent.PerfectFactory(g, agent.PerfectConfig{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Accuracy(context.Background(), AccuracyConfig{Game: g, Workers: 2, BucketWidth: 4}, perfect, ps)
	if err != nil {
		t.Fatal(err)
	}
	if rep.All.Positions != 40 || rep.All.Kept != 40 || rep.All.Lo < 0.9 || len(rep.Buckets) < 2 {
		t.Errorf("perfect: %+v", rep)
	}
	n := 0
	for _, b := range rep.Buckets {
		n += b.Positions
		if b.MaxDiscs-b.MinDiscs != 3 {
			t.Errorf("bucket %+v", b)
		}
	}
	if n != 40 {
		t.Errorf("buckets hold %d positions", n)
	}
	rnd, err := Accuracy(context.Background(), AccuracyConfig{Game: g, MinDiscs: 6}, agent.RandomFactory(), ps)
	if err != nil {
		t.Fatal(err)
	}
	if rnd.All.Kept == rnd.All.Positions || len(rnd.Missed) == 0 || rnd.All.Positions >= 40 {
		t.Errorf("random: %+v", rnd.All)
	}
}
