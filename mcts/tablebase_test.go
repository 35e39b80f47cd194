package mcts

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/wyb"
)

// wybPosition builds a Watch Your Back! position of the moving phase from
// its diagram's rows.
func wybPosition(t *testing.T, opts wyb.Options, turn int, rows ...string) *wyb.State {
	t.Helper()
	s, err := wyb.NewPosition(opts, strings.Join(rows, "\n"), wyb.Moving, turn)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// exact is the table's value of the position after action from s, for
// the player to move at s, and its number of actions to the end from s.
func exact(t *testing.T, tb env.Tablebase, s env.State, action int) (float32, int) {
	t.Helper()
	c := s.Clone()
	if err := c.ApplyAction(action); err != nil {
		t.Fatal(err)
	}
	if c.IsTerminal() {
		return c.Returns()[s.CurrentPlayer()], 1
	}
	v, n, ok := tb.Probe(c)
	if !ok {
		t.Fatalf("position after %s not in the table", s.ActionString(action))
	}
	return -v, n + 1
}

// TestTablebaseLeaves checks that positions in the tablebase are leaves
// valued exactly: a root in the table is proven at once with the table's
// value and plays its fastest win (with the solver), every visit of a
// child gives its exact value (without), and a position one move before
// the second shrink is proven by its children only with the table.
func TestTablebaseLeaves(t *testing.T) {
	tb := wyb.New(wyb.Options{}).Tablebase()
	gone := strings.Repeat(" ", 15)
	// White to move wins in 5 actions.
	end := wybPosition(t, wyb.Options{}, 300, gone, gone, "    X - @ X", "    O @ - O", "    - O @ -", "    X - - X", gone, gone)
	want, wantN, ok := tb.Probe(end)
	if !ok || want != 1 || wantN != 5 {
		t.Fatalf("table: %v in %d (in it: %v); the test wants a win in 5", want, wantN, ok)
	}

	t.Run("solver", func(t *testing.T) {
		cfg := testConfig(ModePUCT, 100)
		cfg.Solver = true
		s, err := NewSearch(cfg, valueEvaluator{0}, 1)
		if err != nil {
			t.Fatal(err)
		}
		s.SetTablebase(tb)
		res := run(t, s, end)
		checkProofs(t, s)
		if !res.Proven || res.ProvenValue != want || res.ProvenMoves != wantN {
			t.Fatalf("proven %v value %v in %d; want the table's %v in %d", res.Proven, res.ProvenValue, res.ProvenMoves, want, wantN)
		}
		if v, n := exact(t, tb, end, res.Action); v != 1 || n != wantN {
			t.Fatalf("played %s: %v in %d; want the win in %d", end.ActionString(res.Action), v, n, wantN)
		}
	})

	t.Run("no solver", func(t *testing.T) {
		s, err := NewSearch(testConfig(ModePUCT, 200), valueEvaluator{0.3}, 1)
		if err != nil {
			t.Fatal(err)
		}
		s.SetTablebase(tb)
		res := run(t, s, end)
		for i, a := range res.Actions {
			if res.Visits[i] == 0 {
				continue
			}
			if v, _ := exact(t, tb, end, a); math.Abs(float64(res.Q[i]-v)) > 1e-6 {
				t.Errorf("%s: Q %v after %d visits; want the exact %v", end.ActionString(a), res.Q[i], res.Visits[i], v)
			}
		}
		if res.Proven || s.TreeSize() != 1+len(res.Actions) {
			t.Errorf("proven %v, tree of %d nodes; want unproven, the root and its %d children", res.Proven, s.TreeSize(), len(res.Actions))
		}
	})

	// Black to move; the second shrink follows its move.
	before := wybPosition(t, wyb.Options{}, 191, gone,
		"  X - - - - X",
		"  - - O - - -",
		"  - - O @ - -",
		"  - - @ O - -",
		"  - - - @ - O",
		"  X - - - - X",
		gone)
	best := float32(-2)
	for _, a := range before.LegalActions(nil) {
		c := before.Clone()
		if err := c.ApplyAction(a); err != nil {
			t.Fatal(err)
		}
		if c.IsTerminal() {
			t.Fatalf("%s ends the game; the test wants the table to decide", before.ActionString(a))
		}
		v, _ := exact(t, tb, before, a)
		best = max(best, v)
	}
	for _, withTable := range []bool{true, false} {
		cfg := testConfig(ModePUCT, 50)
		cfg.Solver = true
		s, err := NewSearch(cfg, valueEvaluator{0}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if withTable {
			s.SetTablebase(tb)
		}
		res := run(t, s, before)
		checkProofs(t, s)
		if withTable && (!res.Proven || res.ProvenValue != best) {
			t.Errorf("with the table: proven %v value %v; want the best child's exact %v", res.Proven, res.ProvenValue, best)
		}
		if !withTable && res.Proven {
			t.Errorf("without the table: proven %v; want unproven", res.ProvenValue)
		}
	}
}

// TestWeightedBudget: with Config.WeightedBudget a full search's
// simulations are multiplied by the position's time weight (3 in the 16
// moving turns before Watch Your Back!'s second shrink, 1 at turn 150),
// without it every search has the same.
func TestWeightedBudget(t *testing.T) {
	gone := strings.Repeat(" ", 15)
	board := []string{gone, "  X - - - - X", "  - O - - @ -", "  - - O @ - -", "  - - @ O - -", "  - @ - - O -", "  X - - - - X", gone}
	window := wybPosition(t, wyb.Options{}, 180, board...)
	ordinary := wybPosition(t, wyb.Options{}, 150, board...)
	if BudgetWeight(window) != wyb.SecondShrinkWeight || BudgetWeight(ordinary) != 1 {
		t.Fatalf("budget weights %v and %v, want %v and 1", BudgetWeight(window), BudgetWeight(ordinary), wyb.SecondShrinkWeight)
	}
	for _, c := range []struct {
		name     string
		weighted bool
		s        env.State
		want     int
	}{
		{"weighted, before the shrink", true, window, 3 * 40},
		{"weighted, ordinary move", true, ordinary, 40},
		{"unweighted, before the shrink", false, window, 40},
	} {
		cfg := PlayConfig(40)
		cfg.ReuseTree = false
		cfg.WeightedBudget = c.weighted
		s, err := NewSearch(cfg, UniformEvaluator{}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Run(context.Background(), c.s); err != nil {
			t.Fatal(err)
		}
		if got := s.Stats().Simulations; got != c.want {
			t.Errorf("%s: %d simulations, want %d", c.name, got, c.want)
		}
	}
	st := Settings{Simulations: 40, MoveTime: Duration(time.Second), WeightedBudget: true}
	if d := st.MoveTimeAt(window); d != 3*time.Second {
		t.Errorf("weighted move time before the shrink %v, want 3s", d)
	}
	st.WeightedBudget = false
	if d := st.MoveTimeAt(window); d != time.Second {
		t.Errorf("unweighted move time %v, want 1s", d)
	}
}
