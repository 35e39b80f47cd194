package train

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/zerokit/zerokit/agent/spec"
	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/internal/strictyaml"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/model/arch"
	"github.com/zerokit/zerokit/model/torch"
	"github.com/zerokit/zerokit/selfplay"
)

// Config is a training run's configuration: the YAML file given to
// "zerokit train -config", every key optional (DefaultConfig gives the
// defaults), unknown keys an error.
type Config struct {
	// Game names the game and its rule options.
	Game games.Config `yaml:"game"`
	// Model is the network architecture; the default is a small tower (3
	// blocks of 32 channels, see DefaultConfig) that self-plays at several
	// thousand positions per second on two cores. Its threads key must stay
	// 0: use the top-level threads. Section defaults of every key are
	// printed by "zerokit train -defaults".
	Model torch.Config `yaml:"model"`
	// Optimizer configures the training steps: optimizer, learning-rate
	// schedule, weight decay, gradient clipping, value loss weight.
	Optimizer torch.TrainConfig `yaml:"optimizer"`
	// Search configures the self-play searches.
	Search mcts.Config `yaml:"search"`
	// Batcher sets how self-play leaf evaluations are batched.
	Batcher mcts.BatcherConfig `yaml:"batcher"`
	// SelfPlay sets the number of parallel games, the move limit and the
	// evaluation cache.
	SelfPlay selfplay.Config `yaml:"selfplay"`
	// Buffer is the replay buffer (window, augmentation, value target mix).
	// Its seed is ignored: the sampler is seeded from the run seed and the
	// training step.
	Buffer data.BufferConfig `yaml:"buffer"`
	// Train sets the alternation of self-play and training.
	Train LoopConfig `yaml:"train"`
	// Checkpoint sets checkpoint frequency and retention.
	Checkpoint CheckpointConfig `yaml:"checkpoint"`
	// Eval sets the periodic evaluation matches.
	Eval EvalConfig `yaml:"eval"`
	// Stages is the run's recipe: settings that change at given training
	// steps (a sparring partner from some step on, say). None by default.
	Stages []Stage `yaml:"stages"`
	// Averaging keeps a running mean of the weights as the run trains.
	Averaging AveragingConfig `yaml:"averaging"`
	// Agent sets the run's ready-to-play agent, RUN/agent.
	Agent AgentConfig `yaml:"agent"`
	// Seed is the run seed: network initialisation, game seeds and
	// sampling derive from it. Default 1.
	Seed uint64 `yaml:"seed"`
	// Threads is the number of threads libtorch uses inside one operation
	// of the training steps and evaluation matches, and of self-play when
	// selfplay.workers is 1 (with several workers each worker's copy of the
	// network is single-threaded). Default 2.
	Threads int `yaml:"threads"`
	// Device is where the libtorch network trains and evaluates self-play
	// positions: auto (the default: CUDA device 0 when libtorch sees a
	// GPU, else the CPU), cpu, cuda or cuda:N. Checkpoints do not depend on
	// it. The -device flag of train, worker, selfplay and bench overrides
	// it.
	Device string `yaml:"device"`
	// Precision is the arithmetic of the network's forward passes in
	// training, self-play and evaluation: fp32 (the default) or bf16
	// (mixed precision: convolutions and matrix products in bfloat16 under
	// libtorch's autocast; weights, optimizer, batch norm and losses in
	// float32). It is meant for hardware with bfloat16 units (AVX-512 BF16
	// or AMX CPUs, Ampere or later GPUs); figures in docs/benchmarks.md.
	// Checkpoints hold float32 weights either way.
	Precision string `yaml:"precision"`
}

// NetConfig is the network configuration a run's processes build and load
// networks with: the model architecture with its defaults, and the run's
// runtime settings (threads, device, precision).
func (c Config) NetConfig() torch.Config {
	m := c.Model.WithDefaults()
	m.Threads = c.Threads
	m.Device = c.Device
	m.Precision = c.Precision
	return m
}

// LoopConfig sets the training loop's phases.
type LoopConfig struct {
	// BatchSize is the number of positions per training step. Default 256.
	BatchSize int `yaml:"batch_size"`
	// PositionsPerIteration is how many moves (new positions) each
	// self-play phase plays before the next training phase. Games still
	// in flight at the end of a phase pause and continue in the next one
	// with the updated network; training is owed for the positions of
	// finished games only. Default 4096.
	PositionsPerIteration int64 `yaml:"positions_per_iteration"`
	// SamplesPerPosition is the number of training samples drawn per new
	// position entering the replay buffer: a training phase runs
	// floor(SamplesPerPosition * new positions / BatchSize) steps (the
	// remainder carries over). Default 4 (measured on Watch Your Back!: 8
	// learnt less per step and per minute than 4, the value head
	// overfitting the small window).
	SamplesPerPosition float64 `yaml:"samples_per_position"`
	// MinBufferPositions is how many positions the replay buffer must hold
	// before training starts; positions generated before then are not owed
	// training steps. Default 4096.
	MinBufferPositions int64 `yaml:"min_buffer_positions"`
	// SelfPlay says where the games come from: "local" (the default) plays
	// them in the training process; "store" takes them from self-play
	// workers ("zerokit worker") through the run's store ("zerokit train
	// -store URL"). Either way a training phase runs only for the steps
	// that new positions call for (SamplesPerPosition per position), so a
	// trainer whose workers are slow waits for games instead of reusing
	// its samples more.
	SelfPlay string `yaml:"self_play"`
	// Poll is how often a trainer with self_play "store" lists the store
	// for new games while it waits for them. Default 5s.
	Poll time.Duration `yaml:"poll"`
	// MaxBacklogWindows caps how far a trainer with self_play "store" may
	// fall behind its workers: when the shards listed but not read yet
	// hold more than this many replay windows of positions (estimated
	// from the shards read so far), the oldest are skipped, counted in the
	// iteration's line and metrics, and never read. Workers that outpace
	// the trainer then cost self-play, not staleness: the trainer trains
	// on recent games instead of games from networks thousands of steps
	// old (KataGo's shuffler likewise keeps only the newest window). 0
	// reads every shard, however far behind. Default 2.
	MaxBacklogWindows float64 `yaml:"max_backlog_windows"`
	// Overlap, with self_play "local", plays each iteration's self-play
	// while the previous iteration's positions train, instead of after:
	// self-play searches on the cores (and its network on the GPU) while
	// the trainer steps on the GPU, so neither waits for the other. The
	// games are played by a copy of the network taken before the training
	// phase they overlap, one phase staler than in turn, and enter the
	// replay buffer when that phase ends, so the samples per position stay
	// as configured. For a machine with cores and a GPU to spare; on two
	// cores the two phases would only share them. Default false.
	Overlap bool `yaml:"overlap"`
}

// The values of train.self_play.
const (
	SelfPlayLocal = "local"
	SelfPlayStore = "store"
)

// CheckpointConfig sets checkpointing.
type CheckpointConfig struct {
	// Every saves a checkpoint every this many training steps (and always
	// when the run stops). Default 250.
	Every int64 `yaml:"every"`
	// KeepLast is how many of the most recent checkpoints are kept.
	// Default 3.
	KeepLast int `yaml:"keep_last"`
	// KeepEvery also keeps every checkpoint whose step is a multiple of it
	// (0: none). Default 1000.
	KeepEvery int64 `yaml:"keep_every"`
}

// EvalConfig sets the periodic evaluation: short matches, colours
// alternated, of the current network against opponents.
type EvalConfig struct {
	// Every runs an evaluation every this many training steps (0:
	// never). Default 2000.
	Every int64 `yaml:"every"`
	// Games is the number of games per opponent (even, so colours
	// balance). Default 20.
	Games int `yaml:"games"`
	// Settings are the network player's search (simulations, mode,
	// move_time, leaves_in_flight, c_puct, reuse_tree, max_nodes, solver,
	// policy_temperature), with no noise and no temperature. Default
	// mcts.EvalSettings: Gumbel, 32 simulations, no tree reuse;
	// leaves_in_flight 0 takes the self-play search's (see
	// Config.EvalSettings).
	mcts.Settings `yaml:",inline"`
	// Opponents are agent specs (see "zerokit play -h": random, greedy,
	// alphabeta:depth=2, ...) or "previous", the previous checkpoint.
	// Default [previous, random, greedy, alphabeta:depth=2].
	Opponents []string `yaml:"opponents"`
	// OpeningMoves is the number of random moves that open each pair of
	// games (played from both sides), so deterministic players meet varied
	// positions. Default 2.
	OpeningMoves int `yaml:"opening_moves"`
	// MaxMoves ends an evaluation game as a draw after this many actions;
	// 0 uses the game's bound (env.Game.MaxGameLength). A game without a
	// bound (Watch Your Back! without a turn limit, where a drawn endgame
	// goes on until a clock runs out) needs one. Default 0.
	MaxMoves int `yaml:"max_moves"`
	// ParallelGames is the number of evaluation games played at once,
	// sharing network batches. Default 16.
	ParallelGames int `yaml:"parallel_games"`
	// Background plays the evaluation matches while training and
	// self-play go on, on a copy of the network, instead of stopping them
	// until the matches end: for a machine with cores to spare (a GPU
	// box), where a synchronous evaluation idles the GPU. One evaluation
	// runs at a time (the next waits for it); its metrics line comes when
	// it ends; one cut short by the run's end is dropped. Default false.
	Background bool `yaml:"background"`
}

// EvalSettings returns the search of the evaluation matches' network
// player: the eval section's settings, with the self-play search's leaves
// in flight when eval.leaves_in_flight is 0.
func (c Config) EvalSettings() mcts.Settings {
	s := c.Eval.Settings
	if s.LeavesInFlight == 0 {
		s.LeavesInFlight = c.Search.LeavesInFlight
	}
	return s
}

// PreviousOpponent is the opponent name for the previous checkpoint.
const PreviousOpponent = "previous"

// DefaultConfig returns the defaults of every key: Watch Your Back! with a
// small network and Gumbel search suited to two CPU cores.
func DefaultConfig() Config {
	m := torch.DefaultConfig()
	m.Blocks, m.Channels, m.PolicyChannels, m.ValueChannels, m.ValueHidden = 3, 32, 4, 16, 64
	opt := torch.DefaultTrainConfig()
	opt.Schedule.Kind = "step"
	opt.Schedule.LearningRate = 0.002
	opt.Schedule.WarmupSteps = 100
	opt.Schedule.StepEvery = 50000
	opt.Schedule.StepFactor = 0.25
	opt.WeightDecay = 1e-4
	opt.GradClipNorm = 5
	buf := data.DefaultBufferConfig()
	buf.Window = data.WindowConfig{MinPositions: 20000, MaxPositions: 250000, Alpha: 0.75, Beta: 0.4}
	buf.ValueOnlyPositions = true
	// Measured on Watch Your Back! (two 14-minute runs side by side, one
	// core each, 100 games against greedy at 32 simulations): 0.5 scored
	// 92.5%, 0 scored 49%.
	buf.RootValueWeight = 0.5
	return Config{
		Game:      games.DefaultConfig("wyb"),
		Model:     m,
		Optimizer: opt,
		Search:    mcts.SelfPlayConfig(),
		Batcher:   mcts.BatcherConfig{MaxBatch: 128, MaxWait: 2 * time.Millisecond, MinBatch: 32},
		SelfPlay:  selfplay.Config{ParallelGames: 48, CacheSize: 1 << 16, Workers: 2},
		Buffer:    buf,
		Train: LoopConfig{
			BatchSize:             256,
			PositionsPerIteration: 4096,
			SamplesPerPosition:    4,
			MinBufferPositions:    4096,
			SelfPlay:              SelfPlayLocal,
			Poll:                  5 * time.Second,
			MaxBacklogWindows:     2,
		},
		Checkpoint: CheckpointConfig{Every: 250, KeepLast: 3, KeepEvery: 1000},
		Eval: EvalConfig{
			Every:         2000,
			Games:         20,
			Settings:      mcts.EvalSettings(),
			Opponents:     []string{PreviousOpponent, "random", "greedy", "alphabeta:depth=2"},
			OpeningMoves:  2,
			ParallelGames: 16,
		},
		// The recipe (see configs/wyb.yaml): plain self-play, then a
		// sparring partner, and a running mean of the weights.
		Stages: []Stage{
			{Name: "selfplay"},
			{Name: "sparring", FromStep: 10000, SparringAgent: ptr("alphabeta:depth=3,tt=16"), SparringFraction: ptr(0.25),
				EvalOpponents: []string{PreviousOpponent, "alphabeta:depth=3"}},
		},
		Averaging: AveragingConfig{FromStep: 20000, Every: 1000},
		Agent:     DefaultAgentConfig(),
		Seed:      1,
		Threads:   2,
		Device:    "auto",
		Precision: arch.PrecisionFloat32,
	}
}

// LoadConfig reads a configuration file strictly on top of DefaultConfig
// and validates it. Errors name the file and, for YAML problems, the line.
func LoadConfig(path string) (Config, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	return ParseConfig(path, text)
}

// ParseConfig is LoadConfig for YAML text; name labels errors.
func ParseConfig(name string, text []byte) (Config, error) {
	cfg := DefaultConfig()
	// A list in the file replaces the default list rather than merging
	// with it ("stages: []" for none).
	cfg.Eval.Opponents, cfg.Stages = nil, nil
	if err := strictyaml.Decode(name, text, &cfg); err != nil {
		return Config{}, err
	}
	def := DefaultConfig()
	if cfg.Eval.Opponents == nil {
		cfg.Eval.Opponents = def.Eval.Opponents
	}
	if cfg.Stages == nil {
		cfg.Stages = def.Stages
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, fmt.Errorf("%s: %w", name, err)
	}
	return cfg, nil
}

// Encode returns the YAML text of the configuration (the effective
// configuration a run directory keeps).
func (c Config) Encode() ([]byte, error) {
	return strictyaml.Encode(c)
}

// Validate checks every section and names the first bad key.
func (c Config) Validate() error {
	if err := c.Game.Validate(); err != nil {
		return fmt.Errorf("game: %w", err)
	}
	if c.Model.Threads != 0 {
		return errors.New("model.threads: set the top-level threads instead")
	}
	if err := c.Model.WithDefaults().Validate(); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	if err := c.Optimizer.Validate(); err != nil {
		return fmt.Errorf("optimizer: %w", err)
	}
	if err := c.Search.Validate(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if err := c.Batcher.Validate(); err != nil {
		return fmt.Errorf("batcher: %w", err)
	}
	if err := c.SelfPlay.Validate(); err != nil {
		return fmt.Errorf("selfplay: %w", err)
	}
	if err := c.Buffer.Validate(); err != nil {
		return fmt.Errorf("buffer: %w", err)
	}
	t := c.Train
	switch {
	case t.BatchSize < 1 || t.BatchSize > 1<<16:
		return fmt.Errorf("train.batch_size = %d: want a value in [1, 65536]", t.BatchSize)
	case t.PositionsPerIteration < 1:
		return fmt.Errorf("train.positions_per_iteration = %d: want at least 1", t.PositionsPerIteration)
	case !(t.SamplesPerPosition > 0) || math.IsInf(t.SamplesPerPosition, 0) || t.SamplesPerPosition > 1e4:
		return fmt.Errorf("train.samples_per_position = %v: want a value in (0, 10000]", t.SamplesPerPosition)
	case t.MinBufferPositions < 1:
		return fmt.Errorf("train.min_buffer_positions = %d: want at least 1", t.MinBufferPositions)
	case t.SelfPlay != SelfPlayLocal && t.SelfPlay != SelfPlayStore:
		return fmt.Errorf("train.self_play = %q: want %q (games played by the trainer) or %q (games from workers through a store)", t.SelfPlay, SelfPlayLocal, SelfPlayStore)
	case t.Overlap && t.SelfPlay == SelfPlayStore:
		return fmt.Errorf("train.overlap applies to self_play %q: with workers (%q) self-play already runs beside training", SelfPlayLocal, SelfPlayStore)
	case t.Poll < 100*time.Millisecond || t.Poll > time.Hour:
		return fmt.Errorf("train.poll = %v: want a duration in [100ms, 1h]", t.Poll)
	case !(t.MaxBacklogWindows >= 0) || t.MaxBacklogWindows > 1e4:
		return fmt.Errorf("train.max_backlog_windows = %v: want a value in [0, 10000] (0: read every shard)", t.MaxBacklogWindows)
	}
	k := c.Checkpoint
	switch {
	case k.Every < 1:
		return fmt.Errorf("checkpoint.every = %d: want at least 1", k.Every)
	case k.KeepLast < 1:
		return fmt.Errorf("checkpoint.keep_last = %d: want at least 1", k.KeepLast)
	case k.KeepEvery < 0:
		return fmt.Errorf("checkpoint.keep_every = %d: want a value >= 0 (0: none)", k.KeepEvery)
	}
	e := c.Eval
	switch {
	case e.Every < 0:
		return fmt.Errorf("eval.every = %d: want a value >= 0 (0: never)", e.Every)
	case e.Games < 2 || e.Games%2 != 0:
		return fmt.Errorf("eval.games = %d: want an even number >= 2 (colours alternate)", e.Games)
	case e.Simulations < 1:
		return fmt.Errorf("eval.simulations = %d: want at least 1", e.Simulations)
	case e.OpeningMoves < 0:
		return fmt.Errorf("eval.opening_moves = %d: want a value >= 0", e.OpeningMoves)
	case e.MaxMoves < 0:
		return fmt.Errorf("eval.max_moves = %d: want a value >= 0 (0: the game's bound)", e.MaxMoves)
	case e.ParallelGames < 1 || e.ParallelGames > 1024:
		return fmt.Errorf("eval.parallel_games = %d: want a value in [1, 1024]", e.ParallelGames)
	case e.LeavesInFlight < 0:
		return fmt.Errorf("eval.leaves_in_flight = %d: want a value >= 0 (0: the search's)", e.LeavesInFlight)
	}
	if err := c.EvalSettings().Validate(); err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	game, err := games.New(c.Game)
	if err != nil {
		return fmt.Errorf("game: %w", err)
	}
	if err := c.validateRecipe(); err != nil {
		return err
	}
	if c.Eval.Every > 0 && c.Eval.MaxMoves == 0 && game.MaxGameLength() == 0 {
		return fmt.Errorf("eval.max_moves = 0 for %s, whose games have no bound (a drawn endgame never ends): set eval.max_moves", game.Name())
	}
	if c.SelfPlay.TableEnds {
		if _, err := selfplay.EndTable(game); err != nil {
			return err
		}
	}
	if err := c.validateAgents(game, "eval.opponents", "selfplay."); err != nil {
		return err
	}
	if err := SelfPlayUtility(c.SelfPlay).Check(game); err != nil {
		return fmt.Errorf("selfplay.material_term = %q: %w", c.SelfPlay.MaterialTerm, err)
	}
	if w := c.Optimizer.OwnershipLossWeight; w > 0 {
		if !c.Model.OwnershipHead {
			return fmt.Errorf("optimizer.ownership_loss_weight = %v needs model.ownership_head: true", w)
		}
		if _, ok := game.NewInitialState().(env.CellOwner); !ok {
			return fmt.Errorf("optimizer.ownership_loss_weight = %v: game %s cannot say who holds its cells, so it has no ownership targets", w, game.Name())
		}
	}
	for i, st := range c.Stages {
		eff, _ := c.StageAt(st.FromStep)
		if err := eff.SelfPlay.Validate(); err != nil {
			return fmt.Errorf("stages[%d] (%s): %w", i, st.Name, err)
		}
		if err := eff.validateAgents(game, fmt.Sprintf("stages[%d].eval_opponents", i), fmt.Sprintf("stages[%d].", i)); err != nil {
			return err
		}
	}
	if _, err := arch.ParseDevice(c.Device); err != nil {
		return err
	}
	if err := arch.CheckPrecision(c.Precision); err != nil {
		return err
	}
	if c.Threads < 1 || c.Threads > 256 {
		return fmt.Errorf("threads = %d: want a value in [1, 256]", c.Threads)
	}
	return nil
}

// validateAgents checks that the evaluation opponents and the sparring
// partner are agents of game; errors name them by opponents (the key of
// the list) and sparring (the prefix of the key sparring_agent).
func (c Config) validateAgents(game env.Game, opponents, sparring string) error {
	seen := map[string]bool{}
	reg := spec.Default()
	for i, o := range c.Eval.Opponents {
		if seen[o] {
			return fmt.Errorf("%s[%d] = %q: listed twice", opponents, i, o)
		}
		seen[o] = true
		if o == PreviousOpponent {
			continue
		}
		if strings.TrimSpace(o) == "" {
			return fmt.Errorf("%s[%d]: empty", opponents, i)
		}
		if _, err := reg.Build(game, o); err != nil {
			return fmt.Errorf("%s[%d] = %q: %w", opponents, i, o, err)
		}
	}
	if sp := c.SelfPlay.SparringAgent; sp != "" {
		if _, err := reg.Build(game, sp); err != nil {
			return fmt.Errorf("%ssparring_agent = %q: %w", sparring, sp, err)
		}
	}
	return nil
}

// SparringPartners returns the selfplay.Options.Sparring of cfg: the
// builder of the sparring partner (selfplay.sparring_agent) of each game,
// seeded with the game's seed; nil when cfg has none.
func SparringPartners(game env.Game, cfg selfplay.Config) (func(seed uint64) (selfplay.Opponent, error), error) {
	if cfg.SparringFraction == 0 || cfg.SparringAgent == "" {
		return nil, nil
	}
	b, err := spec.Default().Build(game, cfg.SparringAgent)
	if err != nil {
		return nil, fmt.Errorf("train: sparring agent %q: %w", cfg.SparringAgent, err)
	}
	return func(seed uint64) (selfplay.Opponent, error) { return b.Factory(seed) }, nil
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }
