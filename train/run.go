package train

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
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
	"github.com/zerokit/zerokit/selfplay/gamestore"
)

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
	if opts.Dir == "" && opts.Store != "" {
		tmp, err := os.MkdirTemp("", "zerokit-trainer-")
		if err != nil {
			return sum, fmt.Errorf("train: %w", err)
		}
		defer os.RemoveAll(tmp)
		opts.Dir = tmp
	}
	if opts.Dir == "" {
		return sum, errors.New("train: no run directory")
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return sum, fmt.Errorf("train: %w", err)
	}
	lock, err := rundir.AcquireLock(opts.Dir)
	if err != nil {
		return sum, err
	}
	defer func() {
		if rerr := lock.Release(); rerr != nil && err == nil {
			err = rerr
		}
	}()
	logf, err := os.OpenFile(filepath.Join(opts.Dir, rundir.LogFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return sum, fmt.Errorf("train: %w", err)
	}
	defer logf.Close()
	log := slog.New(slog.NewTextHandler(logf, nil))
	if opts.StoreRetry == 0 {
		opts.StoreRetry = DefaultStoreRetry
	}
	if opts.StoreRetry < 0 {
		return sum, fmt.Errorf("train: store retry limit %v: want a positive duration", opts.StoreRetry)
	}
	rt := &retrier{limit: opts.StoreRetry, log: log, stderr: opts.Stderr, who: "train"}
	// A signal while the store does not answer yet: nothing to save.
	interrupted := func() bool {
		if ctx.Err() == nil {
			return false
		}
		log.Info("interrupted before the store answered")
		sum.Stopped = "interrupted before the store answered"
		return true
	}
	var remote *runstore.Store
	if opts.Store != "" {
		if err := rt.do(ctx, "open the store", func(ctx context.Context) (err error) {
			remote, err = runstore.Open(ctx, opts.Store)
			return err
		}); err != nil {
			if interrupted() {
				return sum, nil
			}
			return sum, fmt.Errorf("train: %w", err)
		}
		defer remote.Close()
		step, pulled, err := pullFromStore(ctx, rt, remote, opts.Dir)
		if err != nil {
			if interrupted() {
				return sum, nil
			}
			return sum, fmt.Errorf("train: resuming from %s: %w", opts.Store, err)
		}
		if pulled {
			fmt.Fprintf(opts.Stderr, "train: fetched checkpoint %d from %s into %s\n", step, opts.Store, opts.Dir)
		}
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
	case remote != nil && cfg.Train.SelfPlay != SelfPlayStore:
		return sum, fmt.Errorf("train: -store: the configuration plays its games in the trainer (train.self_play: %s); a store trainer needs train.self_play: %s (see configs/wyb-store.yaml)",
			cfg.Train.SelfPlay, SelfPlayStore)
	case remote == nil && cfg.Train.SelfPlay == SelfPlayStore:
		return sum, fmt.Errorf("train: the configuration takes its games from workers (train.self_play: %s): give the store's URL with -store", SelfPlayStore)
	}
	if remote != nil {
		text, err := os.ReadFile(filepath.Join(opts.Dir, rundir.ConfigFile))
		if err != nil {
			return sum, fmt.Errorf("train: %w", err)
		}
		if err := rt.do(ctx, "write "+runstore.ConfigKey, func(ctx context.Context) error {
			return remote.Put(ctx, runstore.ConfigKey, text)
		}); err != nil {
			if interrupted() {
				return sum, nil
			}
			return sum, fmt.Errorf("train: %w", err)
		}
	}
	t := &trainer{
		remote: remote,
		retry:  rt,
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
	bgEval      *backgroundEval  // the evaluation running in the background, if any
	overlap     *overlapSelfPlay // the self-play phase running beside training (train.overlap), if any
	evaluations []neural.Evaluation

	// remote is the run's store (Options.Store), nil for local self-play,
	// and retry retries its operations. ingested holds the store's shards
	// already in the buffer, pending those listed but not read yet (in
	// key order; queued is the same set), cursor the greatest key read.
	// shardsRead and positionsRead count the shards read by this process
	// and their positions (the estimate of a shard's size for
	// train.max_backlog_windows).
	remote                    *runstore.Store
	retry                     *retrier
	ingested                  map[string]bool
	pending                   []string
	queued                    map[string]bool
	cursor                    string
	shardsRead, positionsRead int64
	// sweep is when the store's last hours of shards were last listed,
	// lastIngest when the latest ingestion of games ended.
	sweep, lastIngest time.Time

	// setup builds the run's networks and self-play; game and shape are
	// its game and network shape.
	setup   *Setup
	game    env.Game
	shape   torch.Shape
	store   *gamestore.Store
	buffer  *data.Buffer
	ckpts   rundir.Checkpoints
	metrics *rundir.Metrics
	net     *torch.Net
	tr      *torch.Trainer
	gen     *selfplay.Generator
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
	if o := t.overlap; o != nil {
		o.cancel()
		<-o.done
		t.overlap = nil
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

func (t *trainer) prepare(ctx context.Context) error {
	cfg := t.cfg
	setup, err := NewSetup(cfg)
	if err != nil {
		return err
	}
	game := setup.Game
	t.setup, t.game, t.shape = setup, game, setup.Shape
	t.log.Info("start", "dir", t.opts.Dir, "game", game.Name(), "pid", os.Getpid(), "seed", cfg.Seed,
		"max_steps", t.opts.MaxSteps, "max_duration", t.opts.MaxDuration)

	if t.remote == nil {
		store, rec, err := gamestore.Open(filepath.Join(t.opts.Dir, rundir.GamesDir))
		if err != nil {
			return err
		}
		t.store = store
		if rec.Pending > 0 || rec.TempRemoved > 0 {
			t.log.Info("recovered game store", "pending", rec.Pending, "duplicates", rec.Duplicates,
				"compacted", rec.Compacted, "temp_removed", rec.TempRemoved)
		}
	}

	t.ckpts = rundir.Checkpoints{Dir: filepath.Join(t.opts.Dir, rundir.CheckpointsDir), KeepLast: cfg.Checkpoint.KeepLast, KeepEvery: cfg.Checkpoint.KeepEvery}
	if err := os.MkdirAll(t.ckpts.Dir, 0o755); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	latest, ok, err := t.ckpts.Latest()
	if err != nil {
		return err
	}
	if ok && t.opts.Init != "" {
		return fmt.Errorf("train: -init %s: the run already has checkpoints (step %d) and resumes from them; -init starts a new run only", t.opts.Init, latest.Step)
	}
	if ok {
		ck, err := setup.Load(t.ckpts.Path(latest.Step))
		if err != nil {
			return fmt.Errorf("train: resume: %w", err)
		}
		t.net = ck.Net
		if t.tr, err = torch.NewTrainer(t.net, cfg.Optimizer); err != nil {
			return fmt.Errorf("train: %w", err)
		}
		if err := t.tr.Restore(ck); err != nil {
			return fmt.Errorf("train: resume: %w", err)
		}
		if t.state, err = readState(t.ckpts.StatePath(latest.Step)); err != nil {
			return err
		}
		if t.state.Step != latest.Step || ck.Step != latest.Step {
			return fmt.Errorf("train: resume: checkpoint %d has state for step %d and network for step %d",
				latest.Step, t.state.Step, ck.Step)
		}
		if t.state.Seed != cfg.Seed {
			return fmt.Errorf("train: resume: checkpoint seed %d differs from the configuration's %d", t.state.Seed, cfg.Seed)
		}
		t.resumed = true
	} else {
		t.state = State{Seed: cfg.Seed}
		if t.opts.Init != "" {
			if t.net, t.state.Init, err = setup.InitNet(t.opts.Init); err != nil {
				return err
			}
			t.log.Info("init", "weights", t.state.Init)
			fmt.Fprintf(t.stderr, "train: a new run from the weights %s\n", t.state.Init)
		} else if t.net, err = setup.NewNet(); err != nil {
			return err
		}
		if t.tr, err = torch.NewTrainer(t.net, cfg.Optimizer); err != nil {
			return fmt.Errorf("train: %w", err)
		}
	}
	t.device = torch.DeviceName(t.net.Device())
	if err := recordDevice(t.opts.Dir, cfg.Device, t.device); err != nil {
		return err
	}
	t.log.Info("device", "device", t.device, "configured", cfg.Device)
	if spec, _ := arch.ParseDevice(cfg.Device); spec.Auto {
		fmt.Fprintf(t.stderr, "train: device auto: chose %s\n", t.device)
	}
	t.trainedBefore = t.state.TrainSeconds
	t.lastSaved = -1
	if ok {
		t.lastSaved = t.state.Step
	}

	bc := cfg.Buffer
	bc.Seed = deriveSeed(cfg.Seed, "buffer", uint64(t.state.Step))
	if t.buffer, err = data.NewBuffer(game, bc); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	var src data.ShardSource
	var srcName string
	var rest []string
	if t.remote != nil {
		var keys []string
		if err := t.retry.do(ctx, "list "+runstore.GamesPrefix, func(ctx context.Context) (err error) {
			keys, err = t.remote.Shards(ctx)
			return err
		}); err != nil {
			return fmt.Errorf("train: loading games: %w", err)
		}
		var load []string
		load, rest = storeShards(keys, t.state)
		src, srcName = retryingSource{st: t.remote, retry: t.retry, keys: load}, t.remote.URL()
	} else {
		src, srcName = data.DirSource(t.store.Dir()), t.store.Dir()
	}
	ls, err := t.buffer.LoadFrom(ctx, src)
	if err != nil {
		return fmt.Errorf("train: loading games: %w", err)
	}
	bs := t.buffer.Stats()
	if bs.TotalPositions < int64(t.state.PositionsTrained) {
		// Positions the checkpoint counted are gone from disk.
		return fmt.Errorf("train: resume: %s holds %d positions but the checkpoint had trained on %.0f; were games deleted?",
			srcName, bs.TotalPositions, t.state.PositionsTrained)
	}
	if t.remote != nil {
		t.sweep = time.Now()
		t.ingested = make(map[string]bool, len(ls.Names))
		for _, name := range ls.Names {
			t.ingested[name] = true
		}
		if len(ls.Names) > 0 {
			t.cursor = ls.Names[len(ls.Names)-1]
		}
		t.queued = map[string]bool{}
		t.queue(rest)
	}
	if err := t.setupGenerator(); err != nil {
		return err
	}
	if t.metrics, err = rundir.OpenMetrics(filepath.Join(t.opts.Dir, rundir.MetricsFile)); err != nil {
		return err
	}
	t.evals = &evaluator{setup: setup, ckpts: t.ckpts, average: rundir.Run{Dir: t.opts.Dir}.Average(),
		metrics: t.metrics, log: t.log, stderr: t.stderr, revision: t.revision()}
	t.configPath = t.opts.ConfigPath
	if t.configPath == "" {
		t.configPath = startConfig(t.opts.Dir)
	}
	if err := t.applyStage(); err != nil {
		return err
	}
	if m, err := os.ReadFile(filepath.Join(rundir.Run{Dir: t.opts.Dir}.Agent(), rundir.AgentManifest)); err == nil {
		// The run's agent keeps the latest evaluation across restarts.
		if m, err := neural.DecodeManifest(m); err == nil && m.Provenance != nil {
			t.evaluations = m.Provenance.Evaluations
		}
	}
	if ok {
		// A crash between a checkpoint's commit and its averaging leaves
		// that step out of the mean; and an agent is due after any stop.
		if err := t.average(latest.Step); err != nil {
			return err
		}
		if err := t.refreshAgent(latest.Step); err != nil {
			return err
		}
		if t.remote != nil {
			// The store may lack what a trainer killed while uploading
			// had saved locally.
			pctx, cancel := context.WithTimeout(context.Background(), uploadTimeout+t.opts.StoreRetry)
			err := t.pushToStore(pctx, latest.Step)
			cancel()
			if err != nil {
				return err
			}
		}
	}

	n, size, na := cfg.Train.BatchSize, t.shape.Size(), t.shape.Actions
	for i := range t.slots {
		t.slots[i] = newSampleSlot(n, size, na, cfg.Buffer.ValueOnlyPositions)
	}

	if t.remote != nil {
		t.log.Info("store", "url", t.remote.URL(), "backlog_shards", len(t.pending), "retry_limit", t.opts.StoreRetry)
		fmt.Fprintf(t.stderr, "train: store %s: %d shards of games not read yet; store operations that fail are retried for up to %v\n",
			t.remote.URL(), len(t.pending), t.opts.StoreRetry)
	}
	t.log.Info("ready", "resumed", t.resumed, "step", t.state.Step, "next_game", t.state.NextGame,
		"shards", ls.Shards, "games_loaded", ls.Games, "positions_total", bs.TotalPositions,
		"window", bs.Window, "params", t.net.NumParams(), "store", t.opts.Store)
	fmt.Fprintf(t.stderr, "train: %s %s at step %d, %d positions in %s (%d in the window), network %d blocks x %d channels (%d parameters)\n",
		map[bool]string{true: "resuming", false: "starting"}[t.resumed], t.opts.Dir, t.state.Step,
		bs.TotalPositions, srcName, bs.Positions, cfg.NetConfig().Blocks, cfg.NetConfig().Channels, t.net.NumParams())
	if !ok {
		// Step 0 is the baseline of the first evaluation against the
		// previous checkpoint (and, with a store, the workers' first
		// network).
		if err := t.save(); err != nil {
			return err
		}
	}
	return nil
}

// uploadTimeout bounds the uploads of one checkpoint to the store, beyond
// the time spent retrying them (Options.StoreRetry).
const uploadTimeout = 10 * time.Minute

// setupGenerator creates the self-play generator of a trainer that plays
// its own games (none for a store trainer).
func (t *trainer) setupGenerator() error {
	if t.remote != nil {
		return nil
	}
	cfg := t.cfg
	nextGame := max(t.store.NextGame(), t.state.NextGame)
	t.state.NextGame = nextGame
	var err error
	t.gen, err = t.setup.Generator(selfplay.Options{
		Seed: cfg.Seed, FirstGame: nextGame,
		OnMove: func(moves int64) {
			// Advance the bar to moves (capped at its end).
			if b := t.bar.Load(); b != nil {
				if prev := t.moves.Load(); moves > prev && prev < cfg.Train.PositionsPerIteration {
					(*b).Add(min(moves, cfg.Train.PositionsPerIteration) - prev)
					t.moves.Store(moves)
				}
			}
		},
	})
	return err
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
		var is *ingestStats
		if t.remote != nil {
			is = &ingestStats{owedAtStart: true, backlog: len(t.pending)}
		}
		if err := t.report(selfplay.Stats{}, tp, is); err != nil {
			return err
		}
	}
	for {
		if t.stopped = t.stopReason(ctx); t.stopped != "" {
			break
		}
		if t.overlap == nil {
			// (With train.overlap the stage is applied below, between
			// two self-play phases.)
			if err := t.applyStage(); err != nil {
				return err
			}
		}
		var sp selfplay.Stats
		var is *ingestStats
		switch {
		case t.remote != nil:
			st, err := t.ingestPhase(ctx)
			if err != nil {
				return err
			}
			sp, is = st.selfPlayStats(), &st
			t.games += st.games
		case t.cfg.Train.Overlap:
			if t.overlap == nil {
				if err := t.startSelfPlay(ctx); err != nil {
					return err
				}
			}
			var err error
			if sp, err = t.finishSelfPlay(); err != nil {
				return err
			}
		default:
			var err error
			if sp, err = t.selfPlayPhase(ctx); err != nil {
				return err
			}
		}
		if t.stopped = t.stopReason(ctx); t.stopped != "" {
			if err := t.report(sp, trainStats{}, is); err != nil {
				return err
			}
			break
		}
		if t.cfg.Train.Overlap && t.remote == nil {
			// The next iteration's self-play, beside this training phase.
			if err := t.applyStage(); err != nil {
				return err
			}
			if err := t.startSelfPlay(ctx); err != nil {
				return err
			}
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
	if t.overlap != nil {
		// The self-play phase beside the last training phase: its
		// finished games are stored; the rest are dropped, as at any stop.
		t.overlap.cancel()
		if _, err := t.finishSelfPlay(); err != nil {
			return err
		}
	}
	if t.gen != nil {
		if _, _, err := t.store.Compact(t.gen.NextGame()); err != nil {
			return err
		}
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

// selfPlayPhase plays until PositionsPerIteration new positions are on
// disk (or the run is stopped, keeping every finished game).
func (t *trainer) selfPlayPhase(ctx context.Context) (selfplay.Stats, error) {
	cfg := t.cfg
	eval, closeEval, err := t.setup.Evaluator(t.net)
	if err != nil {
		return selfplay.Stats{}, err
	}
	defer closeEval()
	spCtx, cancel := t.limited(ctx)
	defer cancel()
	target := cfg.Train.PositionsPerIteration
	bar := t.phase(t.phaseLabel(fmt.Sprintf("self-play %d", t.state.Iteration+1)), target, "pos")
	defer bar.Finish()
	t.moves.Store(0)
	t.bar.Store(&bar)
	defer t.bar.Store(nil)
	games := 0
	each := func(index int64, rec *data.Record) error {
		if err := t.buffer.Add(rec); err != nil {
			return fmt.Errorf("train: game %d: %w", index, err)
		}
		games++
		bar.Describe(t.phaseLabel(fmt.Sprintf("self-play %d: %d games", t.state.Iteration+1, games)))
		return nil
	}
	st, stored, err := t.gen.RunStored(spCtx, eval, t.state.Step, selfplay.Stop{Moves: target}, t.store, each)
	t.games += st.Games
	if err != nil {
		return st, err
	}
	t.state.NextGame = t.gen.NextGame()
	if !stored.Interrupted {
		t.state.Iteration++
		t.iterations++
	}
	return st, nil
}

// overlapSelfPlay is a self-play phase running beside a training phase
// (train.overlap).
type overlapSelfPlay struct {
	done   chan struct{} // closed when the fields below are set
	cancel context.CancelFunc
	st     selfplay.Stats
	stored selfplay.Stored
	games  []storedGame // the finished games, for the replay buffer
	err    error
}

// storedGame is a finished game with its global index.
type storedGame struct {
	index int64
	rec   *data.Record
}

// startSelfPlay starts the next self-play phase in the background, with a
// copy of the current network, so that training can change the network
// meanwhile. Its games are stored as they finish, and enter the replay
// buffer when finishSelfPlay collects them.
func (t *trainer) startSelfPlay(ctx context.Context) error {
	snap, err := t.net.Clone()
	if err != nil {
		return fmt.Errorf("train: self-play network: %w", err)
	}
	eval, closeEval, err := t.setup.Evaluator(snap)
	if err != nil {
		snap.Close()
		return err
	}
	spCtx, cancel := t.limited(ctx)
	o := &overlapSelfPlay{done: make(chan struct{}), cancel: cancel}
	step, target := t.state.Step, t.cfg.Train.PositionsPerIteration
	t.overlap = o
	go func() {
		defer close(o.done)
		defer snap.Close()
		defer closeEval()
		o.st, o.stored, o.err = t.gen.RunStored(spCtx, eval, step, selfplay.Stop{Moves: target}, t.store, func(index int64, rec *data.Record) error {
			o.games = append(o.games, storedGame{index, rec})
			return nil
		})
	}()
	return nil
}

// finishSelfPlay waits for the background self-play phase and takes in
// its games, as selfPlayPhase does at the end of a phase in turn.
func (t *trainer) finishSelfPlay() (selfplay.Stats, error) {
	o := t.overlap
	<-o.done
	o.cancel()
	t.overlap = nil
	t.games += o.st.Games
	for _, g := range o.games {
		if err := t.buffer.Add(g.rec); err != nil {
			return o.st, fmt.Errorf("train: game %d: %w", g.index, err)
		}
	}
	if o.err != nil {
		return o.st, o.err
	}
	t.state.NextGame = t.gen.NextGame()
	if !o.stored.Interrupted {
		t.state.Iteration++
		t.iterations++
	}
	return o.st, nil
}

// owedSteps is the number of training steps the positions generated so
// far call for.
func (t *trainer) owedSteps() int64 {
	bs := t.buffer.Stats()
	if bs.Positions < t.cfg.Train.MinBufferPositions {
		return 0
	}
	owed := (float64(bs.TotalPositions) - t.state.PositionsTrained) * t.cfg.Train.SamplesPerPosition / float64(t.cfg.Train.BatchSize)
	return int64(math.Floor(owed + 1e-9))
}

// trainStats summarises a training phase.
type trainStats struct {
	steps                   int64
	policy, value, total    float64 // sums over the steps
	gradNorm, lr            float64
	elapsed, evalTime       time.Duration
	entropy, valueAccuracy  float64
	probed                  bool
	checkpoints, evaluation int
}

// trainPhase takes the training steps the new positions call for, saving
// and evaluating at the configured steps. It stops early (between steps)
// when the run must stop.
func (t *trainer) trainPhase(ctx context.Context) (trainStats, error) {
	var ts trainStats
	bs := t.buffer.Stats()
	if bs.Positions < t.cfg.Train.MinBufferPositions {
		// Warm-up: the positions so far are not owed training.
		t.state.PositionsTrained = float64(bs.TotalPositions)
		return ts, nil
	}
	steps := t.owedSteps()
	if t.remote != nil {
		// Workers may have delivered a backlog: train on it in phases of
		// a local iteration's length, so that new games and progress
		// reports keep coming.
		steps = min(steps, t.intakeSteps())
	}
	if t.opts.MaxSteps > 0 {
		steps = min(steps, t.opts.MaxSteps-t.state.Step)
	}
	if steps <= 0 {
		return ts, nil
	}
	start := time.Now()
	bar := t.phase(t.phaseLabel(fmt.Sprintf("train step %d", t.state.Step)), steps, "steps")
	defer bar.Finish()
	perStep := float64(t.cfg.Train.BatchSize) / t.cfg.Train.SamplesPerPosition
	smp := startSampler(t.buffer, t.cfg.Train.BatchSize, steps, t.slots)
	defer smp.close()
	for i := int64(0); i < steps; i++ {
		if t.stopReason(ctx) != "" {
			break
		}
		l, err := t.step(smp)
		if err != nil {
			return ts, err
		}
		t.state.PositionsTrained += perStep
		ts.steps++
		ts.policy += l.Policy
		ts.value += l.Value
		ts.total += l.Total
		ts.gradNorm += l.GradNorm
		ts.lr = l.LearningRate
		bar.Add(1)
		if t.state.Step%t.cfg.Checkpoint.Every == 0 {
			if err := t.save(); err != nil {
				return ts, err
			}
			ts.checkpoints++
		}
		if t.cfg.Eval.Every > 0 && t.state.Step%t.cfg.Eval.Every == 0 {
			evalStart := time.Now()
			if t.eff.Eval.Background {
				err := t.startEval(ctx)
				ts.evalTime += time.Since(evalStart) // waiting for the previous one
				if err != nil {
					return ts, err
				}
				ts.evaluation++
				continue
			}
			ectx, cancel := t.limited(ctx)
			err := t.evaluate(ectx)
			cancel()
			ts.evalTime += time.Since(evalStart)
			if err != nil {
				if ectx.Err() != nil {
					// Interrupted or out of time: the match is dropped.
					t.log.Info("evaluation abandoned", "step", t.state.Step, "err", err)
					break
				}
				return ts, err
			}
			ts.evaluation++
		}
	}
	ts.elapsed = time.Since(start)
	smp.close() // before the probe reads the last batch's slot
	if ts.steps > 0 {
		ent, acc, err := t.probe.run(t.net, *t.lastBatch, t.cfg.Train.BatchSize, t.shape)
		if err != nil {
			return ts, err
		}
		ts.entropy, ts.valueAccuracy, ts.probed = ent, acc, true
	}
	return ts, nil
}

// step takes one training step on the sampler's next batch.
func (t *trainer) step(smp *sampler) (torch.Losses, error) {
	sl := smp.next()
	if sl.err != nil {
		return torch.Losses{}, sl.err
	}
	l, err := t.tr.Step(sl.mb)
	t.lastBatch = &sl.batch
	smp.release(sl)
	if err != nil {
		return l, fmt.Errorf("train: step %d: %w", t.state.Step+1, err)
	}
	t.state.Step++
	return l, nil
}
