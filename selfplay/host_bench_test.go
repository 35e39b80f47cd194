package selfplay

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/env/wyb"
	"github.com/zerokit/zerokit/mcts"
)

// BenchmarkHostSelfPlay measures the CPU side of self-play as
// configs/wyb-gpu.yaml runs it (its search, batcher and self-play
// sections: 1,024 Watch Your Back! games, Gumbel with playout cap, 4
// leaves in flight, two network workers), with a stand-in network whose
// forward pass sleeps for the time a GPU batch takes: what the cores can
// feed a GPU, without one. Run it with -cpu 1,2,4,...,16 to see how the
// search scales with cores (scripts/gpu-check.sh does, on the GPU
// machine). Each iteration is one move (one search).
//
//	go test -run '^$' -bench HostSelfPlay -benchtime 20000x -cpu 1,2 ./selfplay
func BenchmarkHostSelfPlay(b *testing.B) {
	raw, err := os.ReadFile("../configs/wyb-gpu.yaml")
	if err != nil {
		b.Fatal(err)
	}
	var file struct {
		Search   mcts.Config        `yaml:"search"`
		Batcher  mcts.BatcherConfig `yaml:"batcher"`
		SelfPlay Config             `yaml:"selfplay"`
	}
	file.Search, file.SelfPlay = mcts.DefaultConfig(), DefaultConfig()
	if err := yaml.Unmarshal(raw, &file); err != nil {
		b.Fatal(err)
	}
	game := wyb.New(wyb.Options{})
	for _, delay := range []time.Duration{0, time.Millisecond} {
		b.Run(fmt.Sprintf("forward=%v", delay), func(b *testing.B) {
			nets := make([]mcts.Network, max(file.SelfPlay.Workers, 1))
			for i := range nets {
				nets[i] = gpuStandIn{delay}
			}
			e, err := mcts.NewNetEvaluator(nets, game, mcts.NetEvaluatorConfig{Batcher: file.Batcher, CacheSize: file.SelfPlay.CacheSize, Pad: true})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			gen, err := NewGenerator(game, file.SelfPlay, Options{Search: file.Search, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			sink := func(int64, *data.Record) error { return nil }
			// Warm up: every game in flight, past its first moves.
			if _, err := gen.Run(context.Background(), e, 0, Stop{Moves: int64(4 * file.SelfPlay.ParallelGames)}, sink); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			st, err := gen.Run(context.Background(), e, 0, Stop{Moves: int64(b.N)}, sink)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(st.PositionsPerSecond(), "positions/s")
			b.ReportMetric(st.SimulationsPerSecond(), "sims/s")
			b.ReportMetric(st.Eval.MeanBatch(), "batch")
		})
	}
}

// gpuStandIn is a network that costs the CPU nothing (as a GPU's forward
// pass costs it little) and answers after delay: uniform priors, value 0.
type gpuStandIn struct{ delay time.Duration }

func (g gpuStandIn) Forward(obs []float32, n int, logits, values []float32) error {
	if g.delay > 0 {
		time.Sleep(g.delay)
	}
	clear(logits)
	clear(values)
	return nil
}
