package train

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/model/ckpt"
	"github.com/zerokit/zerokit/model/torch"
	"github.com/zerokit/zerokit/rundir"
	"github.com/zerokit/zerokit/selfplay"
)

// Setup is the self-play stage a run configuration describes, the one place
// that turns a configuration into a playing program (as KataGo's
// program/setup.cpp does): the game, its networks (new, or loaded from
// checkpoints checked against the game and the architecture, on the
// configured device with the configured threads), the batched evaluator
// over a network, and the self-play generator with the configured search.
// The trainer, the store worker (Work) and "zerokit selfplay" all build
// their self-play from a Setup.
type Setup struct {
	// Config is the run configuration.
	Config Config
	// Game is the configuration's game and Shape its network shape.
	Game  env.Game
	Shape torch.Shape
}

// NewSetup returns the setup of cfg.
func NewSetup(cfg Config) (*Setup, error) {
	game, err := games.New(cfg.Game)
	if err != nil {
		return nil, fmt.Errorf("train: game: %w", err)
	}
	return &Setup{Config: cfg, Game: game, Shape: neural.ShapeOf(game)}, nil
}

// At returns the setup of the recipe's stage at step (see Config.StageAt)
// and the stage's name.
func (s *Setup) At(step int64) (*Setup, string) {
	eff, name := s.Config.StageAt(step)
	at := *s
	at.Config = eff
	return &at, name
}

// NewNet returns a new network of the configuration's architecture,
// initialised from the run seed.
func (s *Setup) NewNet() (*torch.Net, error) {
	net, err := torch.New(s.Config.NetConfig(), s.Shape, s.Config.Seed)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	return net, nil
}

// InitNet loads the weights a new run starts from (Options.Init): path is
// any network path rundir.Resolve knows (a checkpoint file, an agent
// directory, whose manifest names its weights file, or a run directory,
// its latest checkpoint). It returns the network and a description of
// the weights: their path and SHA-256.
func (s *Setup) InitNet(path string) (*torch.Net, string, error) {
	target, err := rundir.Resolve(path)
	if err != nil {
		return nil, "", fmt.Errorf("train: init: %w", err)
	}
	file := target.Path
	if target.Kind == rundir.AgentDir {
		m, err := neural.ReadManifest(path)
		if err != nil {
			return nil, "", fmt.Errorf("train: init: %w", err)
		}
		file = filepath.Join(path, m.Weights)
	}
	sum, err := neural.FileSHA256(file)
	if err != nil {
		return nil, "", fmt.Errorf("train: init: %w", err)
	}
	f, size, err := ckpt.Open(file)
	if err != nil {
		return nil, "", fmt.Errorf("train: init: %w", err)
	}
	defer f.Close()
	// The game's name may differ by its rules (wyb, trained with a turn
	// limit, fine-tuned as wyb-nolimit): neural.CheckGame judges it.
	mcfg := s.Config.NetConfig()
	ck, err := torch.LoadFrom(file, f, size, torch.Expect{Shape: s.Shape, Config: &mcfg})
	if err != nil {
		return nil, "", fmt.Errorf("train: init: %w", err)
	}
	if err := neural.CheckGame(ck.Game, ck.EncodingVersion, s.Game); err != nil {
		ck.Net.Close()
		return nil, "", fmt.Errorf("train: init: %s: %w", file, err)
	}
	return ck.Net, fmt.Sprintf("%s (sha256 %s)", file, sum), nil
}

// Load loads the checkpoint at path: it must be of the configuration's
// game and network architecture.
func (s *Setup) Load(path string) (*torch.Checkpoint, error) {
	f, size, err := ckpt.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return s.LoadFrom(path, f, size)
}

// LoadFrom is Load for a checkpoint of size bytes read from r; name
// identifies it in errors.
func (s *Setup) LoadFrom(name string, r io.ReaderAt, size int64) (*torch.Checkpoint, error) {
	mcfg := s.Config.NetConfig()
	return torch.LoadFrom(name, r, size, torch.Expect{
		Game: s.Game.Name(), EncodingVersion: s.Game.EncodingVersion(), Shape: s.Shape, Config: &mcfg,
	})
}

// Generator returns a self-play generator of the configuration's games with
// its search and sparring partner; opts sets the rest (seed, first game,
// worker, OnMove).
func (s *Setup) Generator(opts selfplay.Options) (*selfplay.Generator, error) {
	partners, err := s.SparringPartners()
	if err != nil {
		return nil, err
	}
	opts.Search, opts.Sparring = s.Config.Search, partners
	gen, err := selfplay.NewGenerator(s.Game, s.Config.SelfPlay, opts)
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	return gen, nil
}

// SparringPartners returns the factory of the configuration's sparring
// partner (see SparringPartners), nil when it has none.
func (s *Setup) SparringPartners() (func(seed uint64) (selfplay.Opponent, error), error) {
	return SparringPartners(s.Game, s.Config.SelfPlay)
}

// Evaluator returns the evaluator self-play uses with net:
// selfplay.workers batcher workers (single-threaded copies of net when
// there are several), the batcher section's batching and the self-play
// cache, with selfplay.material_weight's term blended into its values.
// Call closeEval when the games are done: it stops the batcher and frees
// the copies.
func (s *Setup) Evaluator(net *torch.Net) (eval selfplay.StatsEvaluator, closeEval func(), err error) {
	cfg := s.Config
	nets, release, err := workerNets(net, cfg.SelfPlay.Workers)
	if err != nil {
		return nil, nil, fmt.Errorf("train: self-play networks: %w", err)
	}
	e, err := mcts.NewNetEvaluator(nets, s.Game, mcts.NetEvaluatorConfig{Batcher: cfg.Batcher, CacheSize: cfg.SelfPlay.CacheSize, Pad: true})
	if err != nil {
		release()
		return nil, nil, fmt.Errorf("train: %w", err)
	}
	closeEval = func() { e.Close(); release() }
	u := SelfPlayUtility(cfg.SelfPlay)
	if u.Weight == 0 {
		return e, closeEval, nil
	}
	blended, err := u.Wrap(s.Game, e)
	if err != nil {
		closeEval()
		return nil, nil, fmt.Errorf("train: selfplay.material_term: %w", err)
	}
	return blendedEvaluator{Evaluator: blended, net: e}, closeEval, nil
}

// SelfPlayUtility is the material utility of the network's self-play
// searches (selfplay.material_weight and material_term, at the agents'
// default scale).
func SelfPlayUtility(sp selfplay.Config) agent.MaterialUtility {
	return agent.MaterialUtility{Weight: sp.MaterialWeight, Term: sp.MaterialTerm, Scale: agent.DefaultMaterialScale}
}

// blendedEvaluator is a self-play evaluator with a material term blended
// in, still reporting its network's work.
type blendedEvaluator struct {
	mcts.Evaluator
	net *mcts.NetEvaluator
}

// EvalStats implements selfplay.StatsEvaluator.
func (b blendedEvaluator) EvalStats() mcts.EvalStats { return b.net.EvalStats() }

// workerNets returns the networks of a self-play batcher with workers
// workers: net itself for one worker; otherwise that many single-threaded
// copies of net, freed by release (after the batcher is closed).
func workerNets(net *torch.Net, workers int) (nets []mcts.Network, release func(), err error) {
	if workers <= 1 {
		return []mcts.Network{net}, func() {}, nil
	}
	copies, err := net.Copies(workers, 1)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range copies {
		nets = append(nets, c)
	}
	return nets, func() {
		for _, c := range copies {
			c.Close()
		}
	}, nil
}

// CheckpointRunConfig returns the configuration of "zerokit selfplay" and
// the like with the checkpoint at path: the one saved in the checkpoint,
// or configPath's when it is not empty, with the checkpoint's network
// architecture either way.
func CheckpointRunConfig(path, configPath string) (Config, error) {
	f, size, err := ckpt.Open(path)
	if err != nil {
		return Config{}, err
	}
	defer f.Close()
	rd, err := ckpt.NewReader(f, size)
	if err != nil {
		return Config{}, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	var cfg Config
	if configPath != "" {
		cfg, err = LoadConfig(configPath)
	} else {
		var text []byte
		if text, err = rd.RunConfig(); err != nil {
			return Config{}, fmt.Errorf("checkpoint %s: %w", path, err)
		}
		if len(text) == 0 {
			return Config{}, fmt.Errorf("checkpoint %s holds no configuration: give -config", path)
		}
		cfg, err = ParseConfig(path+" (embedded configuration)", text)
	}
	if err != nil {
		return Config{}, err
	}
	cfg.Model = rd.Header.Network
	cfg.Model.Threads, cfg.Model.Device, cfg.Model.Precision = 0, "", ""
	return cfg, nil
}
