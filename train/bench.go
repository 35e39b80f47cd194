package train

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/model/torch"
	"github.com/zerokit/zerokit/selfplay"
)

// BenchResult holds the figures of Bench.
type BenchResult struct {
	// Batched is self-play as training runs it (parallel games sharing a
	// Batcher and a cache); Unbatched is one game at a time, one leaf at a
	// time, batch size 1, no cache.
	Batched, Unbatched selfplay.Stats
	// TrainSamplesPerSecond is the training throughput (samples/s) on
	// batches sampled from the batched games, and TrainSteps the number of
	// steps timed.
	TrainSamplesPerSecond float64
	TrainSteps            int
	// Params is the network's number of parameters.
	Params int
	// Device is where the network ran ("cpu", "cuda:0 (NVIDIA H200)").
	Device string
	// Precision is the network's arithmetic ("fp32", "bf16").
	Precision string
	// Forward is the network's own throughput on random observations at
	// batch sizes 1, 64, 1024 and 4096, without search.
	Forward []ForwardRate
}

// ForwardRate is the measured throughput of Net.Forward at one batch size.
type ForwardRate struct {
	Batch              int
	PositionsPerSecond float64
}

// BenchParts names the parts of Bench to run; the zero value runs none.
type BenchParts struct {
	Forward, Batched, Unbatched, Train bool
}

// AllBenchParts returns the parts that run every part of Bench.
func AllBenchParts() BenchParts {
	return BenchParts{Forward: true, Batched: true, Unbatched: true, Train: true}
}

// ParseBenchParts reads a comma-separated list of parts: forward, batched,
// unbatched, train, or all.
func ParseBenchParts(list string) (BenchParts, error) {
	var p BenchParts
	for _, name := range strings.Split(list, ",") {
		switch strings.TrimSpace(name) {
		case "all":
			p = AllBenchParts()
		case "forward":
			p.Forward = true
		case "batched":
			p.Batched = true
		case "unbatched":
			p.Unbatched = true
		case "train":
			p.Train = true
		default:
			return p, fmt.Errorf("bench: unknown part %q (want forward, batched, unbatched, train or all)", name)
		}
	}
	return p, nil
}

// Bench measures self-play and training throughput of cfg with a freshly
// initialised network: d of batched self-play, d of unbatched self-play and
// d of training steps, and the network's forward throughput (d/4 per batch
// size); parts says which of these run.
func Bench(ctx context.Context, cfg Config, d time.Duration, parts BenchParts) (BenchResult, error) {
	var res BenchResult
	setup, err := NewSetup(cfg)
	if err != nil {
		return res, err
	}
	game := setup.Game
	net, err := setup.NewNet()
	if err != nil {
		return res, err
	}
	defer net.Close()
	res.Params = net.NumParams()
	res.Device = torch.DeviceName(net.Device())
	res.Precision = net.Config().Precision
	if res.Precision == "" {
		res.Precision = torch.PrecisionFloat32
	}
	if parts.Forward {
		if res.Forward, err = benchForward(ctx, net, []int{1, 64, 1024, 4096}, d/4); err != nil {
			return res, err
		}
	}
	bc := cfg.Buffer
	bc.Window.MinPositions = 1
	buf, err := data.NewBuffer(game, bc)
	if err != nil {
		return res, err
	}
	// play runs one stretch of self-play of d: one Run, so that the games
	// in flight keep the batches full to the end instead of pausing and
	// restarting (as Stop.Positions would make them, at every finished
	// game).
	play := func(s *Setup, keep bool) (selfplay.Stats, error) {
		eval, closeEval, err := s.Evaluator(net)
		if err != nil {
			return selfplay.Stats{}, err
		}
		defer closeEval()
		gen, err := s.Generator(selfplay.Options{Seed: cfg.Seed})
		if err != nil {
			return selfplay.Stats{}, err
		}
		runCtx, cancel := cancelAt(ctx, time.Now().Add(d))
		defer cancel()
		st, err := gen.Run(runCtx, eval, 0, selfplay.Stop{Moves: math.MaxInt64}, func(_ int64, r *data.Record) error {
			if keep {
				return buf.Add(r)
			}
			return nil
		})
		if err != nil && ctx.Err() == nil && runCtx.Err() != nil {
			err = nil // the measurement's end
		}
		return st, err
	}
	if parts.Batched || parts.Train {
		// Training samples the batched games.
		if res.Batched, err = play(setup, true); err != nil {
			return res, err
		}
	}
	if parts.Unbatched {
		one := *setup
		one.Config.SelfPlay.ParallelGames, one.Config.SelfPlay.CacheSize, one.Config.SelfPlay.Workers = 1, 0, 1
		one.Config.Search.LeavesInFlight = 1
		one.Config.Batcher = mcts.BatcherConfig{MaxBatch: 1}
		if res.Unbatched, err = play(&one, false); err != nil {
			return res, err
		}
	}
	if !parts.Train {
		return res, nil
	}
	if buf.Len() == 0 {
		return res, errors.New("train: bench: no game finished during the batched self-play, nothing to train on; give it more time (-seconds)")
	}
	tr, err := torch.NewTrainer(net, cfg.Optimizer)
	if err != nil {
		return res, err
	}
	defer tr.Close()
	// The batch is sampled into the trainer's memory, as in a run, where
	// the next batch is sampled there while a step trains (the sampling
	// is not timed).
	n := cfg.Train.BatchSize
	sl, err := newSampleSlot(tr, n, game.NumActions(), bc.ValueOnlyPositions)
	if err != nil {
		return res, err
	}
	var trainTime time.Duration
	for trainTime < d {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if err := sl.sample(buf, n); err != nil {
			return res, err
		}
		start := time.Now()
		if _, err := tr.Step(sl.mb); err != nil {
			return res, err
		}
		trainTime += time.Since(start)
		res.TrainSteps++
	}
	res.TrainSamplesPerSecond = float64(res.TrainSteps*n) / trainTime.Seconds()
	return res, nil
}

// benchForward times net.Forward for d at each of the batch sizes (at
// least one call each) on random binary observations.
func benchForward(ctx context.Context, net *torch.Net, batches []int, d time.Duration) ([]ForwardRate, error) {
	shape := net.Shape()
	largest := slices.Max(batches)
	obs := make([]float32, largest*shape.Size())
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range obs {
		obs[i] = float32(rng.IntN(2))
	}
	logits := make([]float32, largest*shape.Actions)
	values := make([]float32, largest)
	var out []ForwardRate
	for _, b := range batches {
		// One untimed call: the first call at a batch size may pick
		// kernels (cuDNN) or grow allocator pools.
		if err := net.Forward(obs, b, logits, values); err != nil {
			return nil, err
		}
		calls, start := 0, time.Now()
		for calls == 0 || time.Since(start) < d {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := net.Forward(obs, b, logits, values); err != nil {
				return nil, err
			}
			calls++
		}
		out = append(out, ForwardRate{Batch: b, PositionsPerSecond: float64(calls*b) / time.Since(start).Seconds()})
	}
	return out, nil
}

// WriteText writes the figures as a small table, leaving out the parts
// that did not run.
func (r BenchResult) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "device: %s, precision %s\n", r.Device, r.Precision)
	for _, f := range r.Forward {
		fmt.Fprintf(&b, "forward, batch %5d: %10.0f positions/s\n", f.Batch, f.PositionsPerSecond)
	}
	fmt.Fprintf(&b, "network: %d parameters\n", r.Params)
	row := func(name string, s selfplay.Stats) {
		fmt.Fprintf(&b, "%-10s %10.1f %10.0f %8.1f %9.0f%% %9.0f%% %8d\n", name, s.PositionsPerSecond(), s.SimulationsPerSecond(),
			s.Eval.MeanBatch(), 100*s.ForwardShare(), 100*s.Eval.CacheHitRate(), s.Games)
	}
	if r.Batched.Elapsed > 0 || r.Unbatched.Elapsed > 0 {
		fmt.Fprintf(&b, "%-10s %10s %10s %8s %10s %10s %8s\n", "self-play", "pos/s", "sims/s", "batch", "forward", "cache", "games")
	}
	if r.Batched.Elapsed > 0 {
		row("batched", r.Batched)
	}
	if r.Unbatched.Elapsed > 0 {
		row("unbatched", r.Unbatched)
	}
	if r.Batched.Elapsed > 0 && r.Unbatched.Elapsed > 0 {
		fmt.Fprintf(&b, "batched/unbatched simulations per second: %.1fx\n",
			r.Batched.SimulationsPerSecond()/max(r.Unbatched.SimulationsPerSecond(), 1e-9))
	}
	if r.TrainSteps > 0 {
		fmt.Fprintf(&b, "training: %.0f samples/s (%d steps)\n", r.TrainSamplesPerSecond, r.TrainSteps)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
