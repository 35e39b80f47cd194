package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/wyb"
	"github.com/zerokit/zerokit/mcts"
)

var wybOpts = wyb.Options{TurnLimit: wyb.DefaultTurnLimit}

// position builds a moving-phase position from a diagram whose rows are
// separated by "/" (symbols as in wyb.NewPosition).
func position(t testing.TB, rows string, turn int) *wyb.State {
	t.Helper()
	s, err := wyb.NewPosition(wybOpts, strings.ReplaceAll(rows, "/", "\n"), wyb.Moving, turn)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const emptyRows = "X - - - - - - X/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - - - - - - -/X - - - - - - X"

// Positions found by exhaustive search: White (to move) forces a win in
// exactly three plies (a double capture threat against Black's last two
// pieces), and cannot win in one.
var wybForcedWins = []string{
	"X - - - - - - X/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - O @ - - - -/- O - @ - O - -/X - - - - - - X",
	"X - - - - - - X/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - - O O - - -/- - - @ - - - -/- - - O - - - -/X - - @ - - - X",
	"X - - - - - - X/- - - - @ - - -/- - - O @ O - -/- - - - - - - -/- - - - - - O -/- - - - - - - -/- - - - - - - -/X - - - - - - X",
}

// winsWithin reports whether the player to move can force a win within n
// plies (plain search, for checking).
func winsWithin(s env.State, n int) bool {
	me := s.CurrentPlayer()
	for _, a := range s.LegalActions(nil) {
		c := s.Clone()
		if err := c.ApplyAction(a); err != nil {
			panic(err)
		}
		if c.IsTerminal() {
			if c.Returns()[me] > 0 {
				return true
			}
			continue
		}
		if n >= 3 && allRepliesLose(c, n-1, me) {
			return true
		}
	}
	return false
}

func allRepliesLose(c env.State, n, me int) bool {
	for _, b := range c.LegalActions(nil) {
		d := c.Clone()
		if err := d.ApplyAction(b); err != nil {
			panic(err)
		}
		if d.IsTerminal() {
			if d.Returns()[me] > 0 {
				continue
			}
			return false
		}
		if !winsWithin(d, n-1) {
			return false
		}
	}
	return true
}

func TestAlphaBetaWYBForcedWin(t *testing.T) {
	g := wyb.New(wybOpts)
	h, err := Evaluation(g)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := h.(Tactical); !ok {
		t.Fatal("the WYB evaluation is not Tactical")
	}
	for i, rows := range wybForcedWins {
		s := position(t, rows, 10)
		if winsWithin(s, 1) || !winsWithin(s, 3) {
			t.Fatalf("position %d is not a forced win in exactly 3", i)
		}
		for _, depth := range []int{3, 5} {
			ab, err := NewAlphaBeta(g, h, AlphaBetaConfig{Depth: depth, Seed: uint64(i)})
			if err != nil {
				t.Fatal(err)
			}
			res, err := ab.Search(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			if res.Score != WinScore-3 {
				t.Errorf("position %d depth %d: score %v, want %v", i, depth, res.Score, WinScore-3)
			}
			c := s.Clone()
			if err := c.ApplyAction(res.Action); err != nil {
				t.Fatal(err)
			}
			if !allRepliesLose(c, 2, 0) {
				t.Errorf("position %d depth %d: %s does not force the win", i, depth, s.ActionString(res.Action))
			}
		}
	}
}

func TestGreedyCapturesOnWYB(t *testing.T) {
	// White to move captures Black's (3,5), next to White's (2,5), by
	// stepping (4,6) -> (4,5); no other action changes the material.
	s := position(t, "X - - - - - - X/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - O @ - - - -/- - - - O - @ @/X - - - - - - X", 10)
	for seed := range uint64(5) {
		a, err := NewGreedy(HeuristicFunc(wyb.Material), seed).Act(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.ActionString(a); got != "4,6-4,5" {
			t.Errorf("seed %d: greedy played %s, want the capture 4,6-4,5", seed, got)
		}
	}
}

// countingEvaluator is mcts.UniformEvaluator counting its calls.
type countingEvaluator struct{ calls int }

func (e *countingEvaluator) Evaluate(ctx context.Context, s env.State, legal []int, priors []float32) (float32, error) {
	e.calls++
	return mcts.UniformEvaluator{}.Evaluate(ctx, s, legal, priors)
}

func TestForcedMoveNotSearched(t *testing.T) {
	gone := "               "
	// Both shrinks done, every live square taken: each side can only
	// forfeit (the 4x4 board of the referee's endless games).
	full := gone + "/" + gone + "/    X O O X/    O O O @/    O O @ @/    X @ @ X/" + gone + "/" + gone
	for _, reuse := range []bool{false, true} {
		cfg := mcts.PlayConfig(50)
		cfg.ReuseTree = reuse
		ev := &countingEvaluator{}
		m, err := NewMCTS("test", cfg, ev, 1)
		if err != nil {
			t.Fatal(err)
		}
		s := position(t, full, 200)
		for range 4 {
			legal := s.LegalActions(nil)
			a, err := m.Act(context.Background(), s)
			if err != nil || len(legal) != 1 || a != legal[0] {
				t.Fatalf("reuse %v: Act = %d, %v; legal %v", reuse, a, err, legal)
			}
			if r := m.LastResult(); r.Simulations != 0 || r.Action != a || len(r.Policy) != 1 || r.Policy[0] != 1 {
				t.Errorf("reuse %v: last result %+v; want the forced move, no simulations", reuse, r)
			}
			if err := s.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
		}
		if ev.calls != 0 {
			t.Errorf("reuse %v: %d evaluations for forced moves; want none", reuse, ev.calls)
		}
		// A position with a choice is searched.
		s = position(t, "X - - - - - - X/- - O O - - - -/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - - - @ @ - -/X - - - - - - X", 10)
		if _, err := m.Act(context.Background(), s); err != nil || ev.calls == 0 || m.LastResult().Simulations != 50 {
			t.Errorf("reuse %v: a free move: %v, %d evaluations, %d simulations; want 50", reuse, err, ev.calls, m.LastResult().Simulations)
		}
	}
}
