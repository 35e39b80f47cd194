package mcts

import (
	"context"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/tictactoe"
)

// benchSearch runs searches of cfg.Simulations simulations from the initial
// position of game (without tree reuse) and reports simulations per second.
func benchSearch(b *testing.B, game env.Game, cfg Config) {
	b.Helper()
	cfg.ReuseTree = false
	s, err := NewSearch(cfg, UniformEvaluator{}, 1)
	if err != nil {
		b.Fatal(err)
	}
	root := game.NewInitialState()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Run(ctx, root); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(s.Stats().Simulations)/b.Elapsed().Seconds(), "sims/s")
}

func BenchmarkSearchTicTacToe(b *testing.B) {
	for _, tc := range []struct {
		name   string
		mode   Mode
		leaves int
	}{
		{"puct", ModePUCT, 1},
		{"puct-leaves8", ModePUCT, 8},
		{"gumbel", ModeGumbel, 1},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Mode = tc.mode
			cfg.Simulations = 800
			cfg.LeavesInFlight = tc.leaves
			benchSearch(b, tictactoe.New(), cfg)
		})
	}
}
