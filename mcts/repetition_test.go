package mcts

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/wyb"
)

// valueEvaluator gives uniform priors and the same value, for the player
// to move, to every position.
type valueEvaluator struct{ v float32 }

func (e valueEvaluator) Evaluate(ctx context.Context, s env.State, legal []int, priors []float32) (float32, error) {
	if _, err := (UniformEvaluator{}).Evaluate(ctx, s, legal, priors); err != nil {
		return 0, err
	}
	return e.v, nil
}

// deadlock is a Watch Your Back! position after the second shrink with
// every live square taken: both sides can only forfeit, forever.
func deadlock(t *testing.T, opts wyb.Options, turn int) *wyb.State {
	t.Helper()
	gone := strings.Repeat(" ", 15)
	return wybPosition(t, opts, turn, gone, gone, "    X O O X", "    O O O @", "    O O @ @", "    X @ @ X", gone, gone)
}

func TestRepetitionIsADraw(t *testing.T) {
	for _, c := range []struct {
		name     string
		opts     wyb.Options
		solver   bool
		repeated bool
	}{
		// Without a limit the position recurs after two forfeits: the
		// search scores that as a draw and goes no deeper.
		{"no limit", wyb.Options{}, false, true},
		{"no limit, solver", wyb.Options{}, true, true},
		// With a limit every turn is a new position (the game ends at the
		// limit), so the line is searched down to its end.
		{"turn limit", wyb.Options{TurnLimit: 1000}, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := testConfig(ModePUCT, 200)
			cfg.Solver = c.solver
			s, err := NewSearch(cfg, valueEvaluator{0.8}, 1)
			if err != nil {
				t.Fatal(err)
			}
			res := run(t, s, deadlock(t, c.opts, 300))
			if c.repeated {
				// Root, Black's forfeit, White's forfeit (the repetition).
				if s.TreeSize() != 3 || s.t.nodes[2].status != stRepeated {
					t.Fatalf("tree of %d nodes (node 2 %d); want 3 ending in a repetition", s.TreeSize(), s.t.nodes[2].status)
				}
				// One evaluation of Black's position (-0.8 for White), the
				// rest draws.
				if want := float32(-0.8 / 200); math.Abs(float64(res.Q[0]-want)) > 1e-6 || res.Proven {
					t.Errorf("Q = %v, proven %v; want %v, unproven (a repetition is no proof)", res.Q[0], res.Proven, want)
				}
				return
			}
			if s.TreeSize() < 100 {
				t.Errorf("tree of %d nodes; want the forfeits searched one deeper per simulation", s.TreeSize())
			}
		})
	}
}
