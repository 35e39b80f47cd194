package train

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/model/arch"
	"github.com/zerokit/zerokit/model/torch"
	"github.com/zerokit/zerokit/rundir"
	"github.com/zerokit/zerokit/runstore"
	"github.com/zerokit/zerokit/selfplay"
)

// DefaultStoreRetry is how long a store trainer and a worker retry a store
// operation that fails with a transient error before they give up
// (runstore.DefaultRetry).
const DefaultStoreRetry = runstore.DefaultRetry

// Options configures one Run.
type Options struct {
	// Dir is the run directory.
	Dir string
	// ConfigPath is the configuration file. It is required for a new run;
	// when resuming it may be empty (the run's config.yaml is used) or
	// must describe the same configuration.
	ConfigPath string
	// MaxSteps stops the run once it has taken this many training steps in
	// total (0: no limit).
	MaxSteps int64
	// MaxDuration stops this invocation after this much wall time (0: no
	// limit).
	MaxDuration time.Duration
	// Progress, when not nil, shows the progress of the self-play and
	// training phases as they go ("zerokit train" draws it as progress
	// bars on a terminal).
	Progress Progress
	// Stderr receives one line per iteration and per evaluation; nil
	// discards them.
	Stderr io.Writer
	// Store is the URL of the run's store (see package runstore) for a
	// trainer whose games come from self-play workers (train.self_play
	// "store"): it resumes from the store's newest checkpoint when Dir has
	// none as new, publishes every checkpoint and its network there, and
	// trains on the games workers upload. Dir is then a local working copy
	// (a temporary directory when empty). "" trains with local self-play.
	Store string
	// Device, when not empty, overrides the configuration's device (auto,
	// cpu, cuda, cuda:N) for this invocation.
	Device string
	// StoreRetry is how long a store trainer retries an operation on the
	// store that fails with a transient error (the store unreachable, a
	// server error) before it gives up with an error; it logs every try
	// and says on Stderr when it starts and stops retrying. 0 means
	// DefaultStoreRetry.
	StoreRetry time.Duration
	// Command and Commit are recorded in the run's agent (see
	// neural.Provenance): the command line, and the source revision when
	// the program's build did not record one (buildinfo.Revision).
	Command, Commit string
	// Init starts a new run from trained weights instead of random ones: a
	// checkpoint file, an agent directory (its weights file) or a run
	// directory (its latest checkpoint), of the configuration's game and
	// architecture. Only the weights are taken (a new optimizer, step 0);
	// the run's state and its agent's provenance record them. It is an
	// error for a run that resumes.
	Init string
}

// Summary describes what a Run did.
type Summary struct {
	// StartStep and Step are the training steps at the start and the end.
	StartStep, Step int64
	// Iterations is the number of self-play phases run.
	Iterations int
	// Games is the number of games played by this invocation, or for a
	// store trainer the number of games it read from the store.
	Games int
	// Resumed is set when the run continued from a checkpoint.
	Resumed bool
	// Stopped says why the run ended.
	Stopped string
}

// Run trains: it alternates self-play phases (Train.PositionsPerIteration
// new positions, games written durably as they finish) and training phases
// (Train.SamplesPerPosition samples per new position), checkpointing and
// evaluating every so many steps, until ctx is cancelled (a signal) or a
// limit of opts is reached. Either way it saves a checkpoint and returns
// nil; the next Run on the same directory continues. Another process
// training in the directory is an error.
func Run(ctx context.Context, opts Options) (sum Summary, err error) {
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	if opts.StoreRetry < 0 {
		return sum, fmt.Errorf("train: store retry limit %v: want a positive duration", opts.StoreRetry)
	}
	run, err := runstore.OpenRun(runstore.RunOptions{Dir: opts.Dir, URL: opts.Store, Retry: opts.StoreRetry, Stderr: opts.Stderr, Who: "train"})
	if err != nil {
		return sum, err
	}
	defer func() {
		if cerr := run.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("train: %w", cerr)
		}
	}()
	opts.Dir, opts.StoreRetry = run.Dir(), run.Retrier().Limit
	log := run.Log()
	// A signal while the store does not answer yet: nothing to save.
	interrupted := func() bool {
		if ctx.Err() == nil {
			return false
		}
		log.Info("interrupted before the store answered")
		sum.Stopped = "interrupted before the store answered"
		return true
	}
	if err := run.Fetch(ctx); err != nil {
		if interrupted() {
			return sum, nil
		}
		return sum, fmt.Errorf("train: %w", err)
	}
	cfg, err := resolveConfig(opts.Dir, opts.ConfigPath)
	if err != nil {
		return sum, err
	}
	if opts.Device != "" {
		if _, err := arch.ParseDevice(opts.Device); err != nil {
			return sum, fmt.Errorf("train: -device: %w", err)
		}
		cfg.Device = opts.Device
	}
	switch {
	case run.InStore() && cfg.Train.SelfPlay != SelfPlayStore:
		return sum, fmt.Errorf("train: -store: the configuration plays its games in the trainer (train.self_play: %s); a store trainer needs train.self_play: %s (see configs/wyb-store.yaml)",
			cfg.Train.SelfPlay, SelfPlayStore)
	case !run.InStore() && cfg.Train.SelfPlay == SelfPlayStore:
		return sum, fmt.Errorf("train: the configuration takes its games from workers (train.self_play: %s): give the store's URL with -store", SelfPlayStore)
	}
	if err := run.PutConfig(ctx); err != nil {
		if interrupted() {
			return sum, nil
		}
		return sum, fmt.Errorf("train: %w", err)
	}
	t := &trainer{
		run:    run,
		cfg:    cfg,
		opts:   opts,
		log:    log,
		stderr: opts.Stderr,
		start:  time.Now(),
	}
	if opts.MaxDuration > 0 {
		t.deadline = t.start.Add(opts.MaxDuration)
	}
	defer t.close()
	if err := t.prepare(ctx); err != nil {
		if ctx.Err() != nil {
			// Interrupted while loading: nothing new to save.
			t.log.Info("interrupted during setup", "err", err)
			sum.Stopped = "interrupted during setup"
			return sum, nil
		}
		t.log.Error("setup failed", "err", err)
		return sum, err
	}
	sum.StartStep, sum.Resumed = t.state.Step, t.resumed
	err = t.loop(ctx)
	sum.Step, sum.Iterations, sum.Games, sum.Stopped = t.state.Step, t.iterations, t.games, t.stopped
	if err != nil {
		t.log.Error("training failed", "step", t.state.Step, "err", err)
		return sum, err
	}
	return sum, nil
}

// trainer is one invocation of Run.
type trainer struct {
	cfg    Config
	opts   Options
	log    *slog.Logger
	stderr io.Writer
	// device names where the network runs ("cpu", "cuda:0 (NVIDIA H200)").
	device   string
	start    time.Time
	deadline time.Time

	// run is where the run's files live (its local directory, and its
	// store for a run kept in one); source is where its new games come
	// from (its own self-play or the store's workers).
	run    *runstore.Run
	source gameSource

	// eff is the configuration in force at the current step (cfg with the
	// recipe's stages applied, see Config.StageAt) and stage that stage's
	// name; effSet says they were set.
	eff    Config
	stage  string
	effSet bool
	// configPath is the configuration file the run was started with.
	configPath string
	// evals is the evaluation stage; evaluations are the latest
	// evaluation's matches against fixed opponents, recorded in the run's
	// agent.
	evals       *evaluator
	bgEval      *backgroundEval // the evaluation running in the background, if any
	evaluations []neural.Evaluation

	// setup builds the run's networks and self-play; game and shape are
	// its game and network shape.
	setup   *Setup
	game    env.Game
	shape   torch.Shape
	buffer  *data.Buffer
	ckpts   rundir.Checkpoints
	metrics *rundir.Metrics
	net     *torch.Net
	tr      *torch.Trainer
	state   State
	resumed bool
	// trainedBefore is State.TrainSeconds at the start of this invocation.
	trainedBefore float64

	// Scratch for training batches.
	// slots are the two training batches the sampler fills in turn;
	// lastBatch is the one the last step trained on (for the probe).
	slots     [2]*sampleSlot
	lastBatch *data.Batch
	probe     probe
	lastSaved int64

	iterations int
	games      int
	stopped    string
	// lastEval summarises the latest evaluation for the progress display.
	lastEval string

	// The self-play phase's progress and the moves it shows (OnMove calls are
	// serialised by the generator).
	bar   atomic.Pointer[Phase]
	moves atomic.Int64
}

func (t *trainer) close() {
	if t.source != nil {
		t.source.close()
	}
	if bg := t.bgEval; bg != nil {
		// An error return left an evaluation running: stop it before
		// its network and the metrics file go.
		bg.cancel()
		<-bg.done
		t.bgEval = nil
	}
	if t.metrics != nil {
		t.metrics.Close()
	}
	if t.tr != nil {
		t.tr.Close()
	}
	if t.net != nil {
		t.net.Close()
	}
}

// deriveSeed mixes the run seed with a purpose and a number.
func deriveSeed(seed uint64, purpose string, n uint64) uint64 {
	h := seed
	for _, c := range []byte(purpose) {
		h = selfplay.GameSeed(h, int64(c))
	}
	return selfplay.GameSeed(h, int64(n))
}

// limited returns ctx cancelled at the run's time limit, if any
// (cancelAt).
func (t *trainer) limited(ctx context.Context) (context.Context, context.CancelFunc) {
	if t.deadline.IsZero() {
		return context.WithCancel(ctx)
	}
	return cancelAt(ctx, t.deadline)
}

// errTimeLimit is the cause of a context cancelAt ended.
var errTimeLimit = errors.New("time limit reached")

// cancelAt returns ctx cancelled at when, with errTimeLimit as its cause.
// Time limits are cancellations, not deadlines: a search whose deadline
// passes plays a fallback move and goes on, so self-play under a deadline
// would go on recording moves that nothing searched.
func cancelAt(ctx context.Context, when time.Time) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancelCause(ctx)
	limit := time.AfterFunc(time.Until(when), func() { cancel(errTimeLimit) })
	return c, func() {
		limit.Stop()
		cancel(nil)
	}
}

// trainSeconds is the run's training time so far, over all its
// invocations.
func (t *trainer) trainSeconds() float64 {
	return t.trainedBefore + time.Since(t.start).Seconds()
}

// stopReason says why the run must stop now, or "" to go on.
func (t *trainer) stopReason(ctx context.Context) string {
	switch {
	case ctx.Err() != nil:
		return "interrupted"
	case t.opts.MaxSteps > 0 && t.state.Step >= t.opts.MaxSteps:
		return fmt.Sprintf("reached step %d", t.opts.MaxSteps)
	case !t.deadline.IsZero() && !time.Now().Before(t.deadline):
		return fmt.Sprintf("reached the time limit (%v)", t.opts.MaxDuration)
	}
	return ""
}

func (t *trainer) loop(ctx context.Context) error {
	// Train for positions a crashed or stopped run generated but did not
	// train on.
	if t.owedSteps() > 0 && t.stopReason(ctx) == "" {
		tp, err := t.trainPhase(ctx)
		if err != nil {
			return err
		}
		if err := t.report(selfplay.Stats{}, tp, t.source.restart()); err != nil {
			return err
		}
	}
	for {
		if t.stopped = t.stopReason(ctx); t.stopped != "" {
			break
		}
		if !t.source.underWay() {
			// (Games started ahead got the stage in force when they
			// started, between two training phases.)
			if err := t.applyStage(); err != nil {
				return err
			}
		}
		sp, is, err := t.source.gather(ctx)
		if err != nil {
			return err
		}
		if t.stopped = t.stopReason(ctx); t.stopped != "" {
			if err := t.report(sp, trainStats{}, is); err != nil {
				return err
			}
			break
		}
		// The next iteration's games, beside this training phase, if the
		// source plays them ahead.
		if err := t.source.ahead(ctx, t.applyStage); err != nil {
			return err
		}
		tp, err := t.trainPhase(ctx)
		if err != nil {
			return err
		}
		if err := t.collectEval(false); err != nil {
			return err
		}
		if err := t.report(sp, tp, is); err != nil {
			return err
		}
	}
	// The games under way are kept if finished, dropped if not.
	if err := t.source.finish(); err != nil {
		return err
	}
	// The background evaluation finishes (or, out of time, is dropped)
	// before the last save, so that the agent records it.
	if err := t.collectEval(true); err != nil {
		return err
	}
	if err := t.save(); err != nil {
		return err
	}
	t.log.Info("stopped", "reason", t.stopped, "step", t.state.Step, "games", t.games)
	fmt.Fprintf(t.stderr, "train: stopped at step %d (%s); checkpoint saved in %s\n", t.state.Step, t.stopped, t.ckpts.Dir)
	return nil
}
