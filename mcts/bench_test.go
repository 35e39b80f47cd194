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

// BenchmarkBatcherOverhead measures the cost per evaluation of the batching
// machinery itself (encoding, hand-off, masked softmax) with a network that
// does nothing, from 16 concurrent callers.
func BenchmarkBatcherOverhead(b *testing.B) {
	g := tictactoe.New()
	batcher, err := NewBatcher(nopNet{}, g, BatcherConfig{MaxBatch: 16, MaxWait: 0})
	if err != nil {
		b.Fatal(err)
	}
	defer batcher.Close()
	st := g.NewInitialState()
	legal := st.LegalActions(nil)
	b.SetParallelism(8) // 16 goroutines on 2 cores
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		priors := make([]float32, len(legal))
		for pb.Next() {
			if _, err := batcher.Evaluate(context.Background(), st, legal, priors); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(batcher.Stats().MeanBatch(), "batch")
}

type nopNet struct{}

func (nopNet) Forward(obs []float32, n int, logits, values []float32) error { return nil }
