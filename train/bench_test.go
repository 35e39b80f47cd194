package train

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/model/torch"
	"github.com/zerokit/zerokit/selfplay"
)

func benchNet(b testing.TB, game env.Game, cfg torch.Config) *torch.Net {
	b.Helper()
	cfg.Threads = 2
	net, err := torch.New(cfg, neural.ShapeOf(game), 1)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(net.Close)
	return net
}

// BenchmarkForward measures the network's forward pass on Watch Your Back!
// observations at several batch sizes (positions/s is the figure).
func BenchmarkForward(b *testing.B) {
	game, err := games.New(games.DefaultConfig("wyb"))
	if err != nil {
		b.Fatal(err)
	}
	for _, arch := range []struct {
		name string
		cfg  torch.Config
	}{{"small", torch.SmallConfig()}, {"default", torch.DefaultConfig()}} {
		net := benchNet(b, game, arch.cfg)
		for _, n := range []int{1, 8, 32, 128} {
			b.Run(fmt.Sprintf("%s/batch=%d", arch.name, n), func(b *testing.B) {
				obs := make([]float32, n*game.ObservationShape().Size())
				s := game.NewInitialState()
				for i := range n {
					s.Observation(obs[i*game.ObservationShape().Size():])
				}
				logits := make([]float32, n*game.NumActions())
				values := make([]float32, n)
				b.ResetTimer()
				for range b.N {
					if err := net.Forward(obs, n, logits, values); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "positions/s")
			})
		}
	}
}

// BenchmarkSelfPlay measures self-play throughput on Watch Your Back! with
// the default configuration's search and the small network: one op is one
// searched move. It reports positions/s, sims/s, the mean batch and the
// share of wall time inside Forward, for batched (parallel games sharing a
// Batcher) and unbatched (one game, batch size 1) evaluation.
func BenchmarkSelfPlay(b *testing.B) {
	cfg := DefaultConfig()
	game, err := games.New(cfg.Game)
	if err != nil {
		b.Fatal(err)
	}
	net := benchNet(b, game, cfg.Model)
	for _, tc := range []struct {
		name             string
		parallel, leaves int
		maxBatch         int
	}{
		{"unbatched", 1, 1, 1},
		{"batched", cfg.SelfPlay.ParallelGames, cfg.Search.LeavesInFlight, cfg.Batcher.MaxBatch},
	} {
		b.Run(tc.name, func(b *testing.B) {
			search := cfg.Search
			search.LeavesInFlight = tc.leaves
			spc := cfg.SelfPlay
			spc.ParallelGames = tc.parallel
			spc.CacheSize = 0
			eval, err := mcts.NewNetEvaluator([]mcts.Network{net}, game, mcts.NetEvaluatorConfig{Batcher: mcts.BatcherConfig{MaxBatch: tc.maxBatch, MaxWait: cfg.Batcher.MaxWait}, Pad: true})
			if err != nil {
				b.Fatal(err)
			}
			defer eval.Close()
			g, err := selfplay.NewGenerator(game, spc, selfplay.Options{Search: search, Seed: 1})
			if err != nil {
				b.Fatal(err)
			}
			// One warm-up run outside the timer (libtorch prepares its
			// kernels on first use).
			if _, err := g.Run(context.Background(), eval, 0, selfplay.Stop{Moves: 64}, func(int64, *data.Record) error { return nil }); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			var total selfplay.Stats
			for total.Searches < int64(b.N) {
				st, err := g.Run(context.Background(), eval, 0, selfplay.Stop{Moves: int64(b.N) - total.Searches}, func(int64, *data.Record) error { return nil })
				if err != nil {
					b.Fatal(err)
				}
				total.Merge(st)
			}
			b.ReportMetric(total.PositionsPerSecond(), "positions/s")
			b.ReportMetric(total.SimulationsPerSecond(), "sims/s")
			b.ReportMetric(total.Eval.MeanBatch(), "batch")
			b.ReportMetric(100*total.ForwardShare(), "forward%")
		})
	}
}

// BenchmarkTrainStep measures one training step of the default
// configuration (small network, batch 256) on Watch Your Back! data.
func BenchmarkTrainStep(b *testing.B) {
	cfg := DefaultConfig()
	game, err := games.New(cfg.Game)
	if err != nil {
		b.Fatal(err)
	}
	net := benchNet(b, game, cfg.Model)
	tr, err := torch.NewTrainer(net, cfg.Optimizer)
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	n := cfg.Train.BatchSize
	size, na := game.ObservationShape().Size(), game.NumActions()
	batch := torch.Batch{N: n, Obs: make([]float32, n*size), Policy: make([]float32, n*na), Value: make([]float32, n), Legal: make([]bool, n*na)}
	s := game.NewInitialState()
	legal := s.LegalActions(nil)
	for i := range n {
		s.Observation(batch.Obs[i*size:])
		for _, a := range legal {
			batch.Legal[i*na+a] = true
			batch.Policy[i*na+a] = 1 / float32(len(legal))
		}
	}
	b.ResetTimer()
	for range b.N {
		if _, err := tr.Step(batch); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "samples/s")
}

func TestParseBenchParts(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want BenchParts
		err  string
	}{
		{"all", AllBenchParts(), ""},
		{"batched", BenchParts{Batched: true}, ""},
		{"forward, train", BenchParts{Forward: true, Train: true}, ""},
		{"batched,selfplay", BenchParts{}, `unknown part "selfplay"`},
		{"", BenchParts{}, `unknown part ""`},
	} {
		got, err := ParseBenchParts(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

// TestBenchParts: only the asked parts run and are reported, and batched
// self-play is one stretch that ends at the deadline with its figures.
func TestBenchParts(t *testing.T) {
	cfg, err := LoadConfig(tinyConfig)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Bench(context.Background(), cfg, 500*time.Millisecond, BenchParts{Batched: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Batched.Searches == 0 || res.Batched.Elapsed < 400*time.Millisecond || res.Batched.Elapsed > 5*time.Second {
		t.Errorf("batched self-play: %d moves in %v, want some in about 0.5 s", res.Batched.Searches, res.Batched.Elapsed)
	}
	if res.Forward != nil || res.Unbatched.Elapsed != 0 || res.TrainSteps != 0 {
		t.Errorf("parts not asked for ran: %+v", res)
	}
	var out strings.Builder
	if err := res.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, absent := range []string{"forward, batch", "unbatched", "training:"} {
		if strings.Contains(out.String(), absent) {
			t.Errorf("report mentions %q:\n%s", absent, out.String())
		}
	}
	if !strings.Contains(out.String(), "batched ") {
		t.Errorf("report lacks the batched row:\n%s", out.String())
	}
}
