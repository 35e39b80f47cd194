package benchgames

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/squatter"
	"github.com/zerokit/zerokit/env/wyb"
	"github.com/zerokit/zerokit/mcts"
)

// midgame plays plies seeded random moves from the initial position.
func midgame(b *testing.B, g env.Game, plies int) env.State {
	b.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	s := g.NewInitialState()
	var legal []int
	for i := 0; i < plies && !s.IsTerminal(); i++ {
		legal = s.LegalActions(legal)
		if err := s.ApplyAction(legal[rng.IntN(len(legal))]); err != nil {
			b.Fatal(err)
		}
	}
	if s.IsTerminal() {
		b.Fatalf("game over after %d random plies", plies)
	}
	return s
}

// benchSearch reports simulations per second of 800-simulation searches
// with the uniform evaluator, i.e. the search's own overhead per simulation
// (selection, one Clone + ApplyAction + LegalActions, expansion, backup);
// "solver" adds MCTS-Solver's lookahead (a Clone + ApplyAction per legal
// move of each expanded node).
func benchSearch(b *testing.B, g env.Game, plies int) {
	root := midgame(b, g, plies)
	for _, tc := range []struct {
		name   string
		mode   mcts.Mode
		leaves int
		solver bool
	}{
		{"puct", mcts.ModePUCT, 1, false},
		{"puct-leaves8", mcts.ModePUCT, 8, false},
		{"gumbel", mcts.ModeGumbel, 1, false},
		{"puct-solver", mcts.ModePUCT, 1, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cfg := mcts.DefaultConfig()
			cfg.Mode = tc.mode
			cfg.Simulations = 800
			cfg.LeavesInFlight = tc.leaves
			cfg.Solver = tc.solver
			cfg.ReuseTree = false
			s, err := mcts.NewSearch(cfg, mcts.UniformEvaluator{}, 1)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.Run(ctx, root); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(s.Stats().Simulations)/b.Elapsed().Seconds(), "sims/s")
		})
	}
}

func BenchmarkSearchWYB(b *testing.B) {
	benchSearch(b, wyb.New(wyb.Options{TurnLimit: wyb.DefaultTurnLimit}), 30)
}

func BenchmarkSearchSquatter8(b *testing.B) {
	g, err := squatter.New(8)
	if err != nil {
		b.Fatal(err)
	}
	benchSearch(b, g, 20)
}
