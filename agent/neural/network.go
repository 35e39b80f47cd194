package neural

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/model/arch"
	"github.com/zerokit/zerokit/model/ckpt"
	"github.com/zerokit/zerokit/model/gonet"
	"github.com/zerokit/zerokit/rundir"
)

// Options configure how a Network batches its agents' evaluations.
//
// The agents of one Network that search with L leaves in flight share a
// batcher whose batches hold up to Concurrency x L positions: a batch is
// evaluated as soon as it is full, or MaxWait after its first request.
// On a CPU a batch of 8 costs about as much as a batch of 1, so filling
// batches is what makes leaves in flight and parallel games fast.
type Options struct {
	// Concurrency is the number of searches expected to run at once (the
	// games played in parallel); 0 means 1.
	Concurrency int
	// MaxWait is how long a batch may wait to fill (negative: never wait,
	// evaluate whatever has arrived; 0: DefaultMaxWait with the libtorch
	// backend, no wait with the go backend, whose cost per position hardly
	// depends on the batch size).
	MaxWait time.Duration
	// Workers is the number of copies of the network that evaluate
	// batches in parallel, each single-threaded on its own OS thread (see
	// mcts.NewBatcherWorkers); 0 and 1 mean the network itself, alone.
	// One worker per core suits parallel games on a CPU.
	Workers int
	// Backend is what evaluates the network: BackendGo (the default when
	// empty) or BackendLibtorch.
	Backend string
}

// withDefaults resolves zero and negative fields.
func (o Options) withDefaults() Options {
	o.Concurrency = max(o.Concurrency, 1)
	o.Workers = max(o.Workers, 1)
	switch {
	case o.MaxWait == 0 && o.Backend == BackendLibtorch:
		o.MaxWait = DefaultMaxWait
	case o.MaxWait == 0:
	case o.MaxWait < 0:
		o.MaxWait = 0
	}
	return o
}

// DefaultMaxWait is Options.MaxWait's default: long enough for the leaves
// of one search round to arrive together, short against a network call.
const DefaultMaxWait = time.Millisecond

// Info describes a loaded network and where it came from.
type Info struct {
	// Path is the path Load was given and Weights the checkpoint file
	// read.
	Path, Weights string
	// Manifest is the exported agent's manifest, or nil when Path is a
	// checkpoint or a run directory.
	Manifest *Manifest
	// Name labels the network: the manifest's name, else "step<N>".
	Name string
	// Game and EncodingVersion are what the network was trained on.
	Game            string
	EncodingVersion int
	// Step and Seed are the checkpoint's training step and run seed.
	Step int64
	Seed uint64
	// Shape is the shape the network is used with (the game's), Config
	// its architecture and Parameters its number of parameters.
	Shape      arch.Shape
	Config     arch.Config
	Parameters int
	// Settings are the default search settings: the manifest's, else
	// DefaultSettings.
	Settings Settings
	// Backend is what evaluates the network (BackendGo or
	// BackendLibtorch).
	Backend string
}

// Network is a loaded network serving the agents of one game. It is safe
// for concurrent use: agents playing in parallel share its batchers (one
// per number of leaves in flight and symmetry setting). Close it when
// done.
type Network struct {
	info Info
	game env.Game
	net  backendNet
	opts Options

	mu       sync.Mutex
	batchers map[batcherKey]*mcts.NetEvaluator
	releases []func() // free the batchers' workers
	closed   bool
}

// newNetwork returns a Network serving net.
func newNetwork(info Info, game env.Game, net backendNet, opts Options) *Network {
	return &Network{info: info, game: game, net: net, opts: opts, batchers: map[batcherKey]*mcts.NetEvaluator{}}
}

// Load loads the network at path for game. path is an exported agent
// directory (with a Manifest), a training run directory (its latest
// checkpoint) or a checkpoint file. The network must have been trained on
// game or a rule variant of it with the same encoding version and shape;
// a missing file, another game, another encoding version and corrupt
// weights are errors naming the path and the problem.
func Load(path string, game env.Game, opts Options) (*Network, error) {
	n, err := load(path, game, opts)
	if err != nil {
		return nil, fmt.Errorf("network %s: %w", path, err)
	}
	return n, nil
}

func load(path string, game env.Game, opts Options) (*Network, error) {
	if opts.Concurrency < 0 {
		return nil, fmt.Errorf("concurrency %d is negative", opts.Concurrency)
	}
	opts = opts.withDefaults()
	info := Info{Path: path, Settings: DefaultSettings()}
	target, err := rundir.Resolve(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errors.New("no such file or directory")
	}
	if err != nil {
		return nil, err
	}
	if agent := (rundir.Run{Dir: path}).Agent(); target.Kind == rundir.RunDir && rundir.IsAgentDir(agent) {
		// A training run with its agent: play that.
		target = rundir.Target{Kind: rundir.AgentDir, Path: agent}
	}
	var expect ckpt.Expect
	switch target.Kind {
	case rundir.AgentDir:
		m, err := ReadManifest(target.Path)
		if err != nil {
			return nil, err
		}
		if err := CheckGame(m.Game, m.EncodingVersion, game); err != nil {
			return nil, fmt.Errorf("%s: %w", ManifestName, err)
		}
		info.Manifest, info.Name, info.Settings = &m, m.Name, m.Search
		info.Weights = filepath.Join(target.Path, m.Weights)
		cfg := m.Network
		// The weights must be the network the manifest describes.
		expect = ckpt.Expect{Game: m.Game, EncodingVersion: m.EncodingVersion, Config: &cfg}
	default:
		info.Weights = target.Path
	}
	net, h, err := open(opts.Backend, info.Weights, expect)
	if err != nil {
		return nil, err
	}
	return loaded(info, net, h, path, game, opts)
}

// loaded checks the network net read from info.Weights (with its
// checkpoint header h) against game, fits it to game's board and
// completes info; path is what the caller named.
func loaded(info Info, net backendNet, h *ckpt.Header, path string, game env.Game, opts Options) (*Network, error) {
	fail := func(err error) (*Network, error) {
		net.close()
		return nil, err
	}
	if err := CheckGame(h.Game, h.EncodingVersion, game); err != nil {
		if info.Weights != path {
			err = fmt.Errorf("checkpoint %s: %w", info.Weights, err)
		}
		return fail(err)
	}
	if m := info.Manifest; m != nil && h.Shape != m.Shape {
		return fail(fmt.Errorf("weights file %s: network shape %s, but the manifest says %s", info.Weights, h.Shape, m.Shape))
	}
	if want := ShapeOf(game); net.Shape() != want {
		view, err := net.withBoard(want.Height, want.Width)
		if err == nil && view.Shape() != want {
			err = fmt.Errorf("its shape %s is not the game's %s", view.Shape(), want)
		}
		if err != nil {
			return fail(fmt.Errorf("checkpoint %s: network shape %s does not fit game %s (%s): %w", info.Weights, net.Shape(), game.Name(), want, err))
		}
		net = view
	}
	if info.Name == "" {
		info.Name = h.Label()
	}
	info.Game, info.EncodingVersion, info.Step, info.Seed = h.Game, h.EncodingVersion, h.Step, h.Seed
	info.Shape, info.Config, info.Parameters = net.Shape(), net.Config(), net.NumParams()
	info.Backend = opts.Backend
	if info.Backend == "" {
		info.Backend = BackendGo
	}
	return newNetwork(info, game, net, opts), nil
}

// LoadFS loads the exported agent whose files (the manifest and its
// weights) are at the root of fsys, for game, with the pure-Go backend:
// for a program without a file system, such as zerokit's WebAssembly
// build, which plays a shipped agent (agents.Files). name labels it in
// errors and in Info.Path. The checks are Load's.
func LoadFS(fsys fs.FS, name string, game env.Game, opts Options) (*Network, error) {
	n, err := loadFS(fsys, name, game, opts)
	if err != nil {
		return nil, fmt.Errorf("network %s: %w", name, err)
	}
	return n, nil
}

func loadFS(fsys fs.FS, name string, game env.Game, opts Options) (*Network, error) {
	if opts.Concurrency < 0 {
		return nil, fmt.Errorf("concurrency %d is negative", opts.Concurrency)
	}
	opts.Backend = BackendGo
	opts = opts.withDefaults()
	b, err := fs.ReadFile(fsys, ManifestName)
	if err != nil {
		return nil, err
	}
	m, err := DecodeManifest(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ManifestName, err)
	}
	if err := CheckGame(m.Game, m.EncodingVersion, game); err != nil {
		return nil, fmt.Errorf("%s: %w", ManifestName, err)
	}
	w, err := fs.ReadFile(fsys, m.Weights)
	if err != nil {
		return nil, err
	}
	c, err := ckpt.Read(bytes.NewReader(w), int64(len(w)))
	if err != nil {
		return nil, fmt.Errorf("weights %s: %w", m.Weights, err)
	}
	cfg := m.Network
	if err := c.Header.Check(ckpt.Expect{Game: m.Game, EncodingVersion: m.EncodingVersion, Config: &cfg}); err != nil {
		return nil, fmt.Errorf("weights %s: %w", m.Weights, err)
	}
	gn, err := gonet.FromCheckpoint(c)
	if err != nil {
		return nil, fmt.Errorf("weights %s: %w", m.Weights, err)
	}
	info := Info{Path: name, Weights: name + "/" + m.Weights, Manifest: &m, Name: m.Name, Settings: m.Search}
	return loaded(info, goNet{gn}, &c.Header, name, game, opts)
}

// ShapeOf is the network shape that plays game.
func ShapeOf(game env.Game) arch.Shape {
	s := game.ObservationShape()
	return arch.Shape{Planes: s.Planes, Height: s.Height, Width: s.Width, Actions: game.NumActions()}
}

// CheckGame checks that a network trained on the game named trained with
// the given encoding version can play game: the same game, or a rule
// variant of it (wyb and wyb-nolimit; squatter6 and squatter8 when the
// network's policy head fits any board), with the same encoding version.
func CheckGame(trained string, encoding int, game env.Game) error {
	if trained != game.Name() {
		have, err1 := games.ConfigFromName(trained)
		want, err2 := games.ConfigFromName(game.Name())
		if err1 != nil || err2 != nil || have.Name != want.Name {
			return fmt.Errorf("the network was trained for game %q and cannot play %q", trained, game.Name())
		}
	}
	if encoding != game.EncodingVersion() {
		return fmt.Errorf("the network uses encoding version %d of %s, this program encodes %s with version %d: use a network trained with this version",
			encoding, trained, game.Name(), game.EncodingVersion())
	}
	return nil
}

// Info describes the network.
func (n *Network) Info() Info { return n.info }

// Game is the game the network plays.
func (n *Network) Game() env.Game { return n.game }

// batcherKey identifies a batcher: agents with the same leaves in flight
// and symmetry averaging share one.
type batcherKey struct {
	leaves     int
	symmetries bool
}

// SearchSymmetries lists what Settings.AverageSymmetries averages over:
// the game's exact symmetries (the identity first) and its approximate
// ones (env.ApproximateSymmetries).
func SearchSymmetries(game env.Game) []env.Symmetry {
	syms := slices.Clone(game.Symmetries())
	if a, ok := game.(env.ApproximateSymmetries); ok {
		syms = append(syms, a.ApproximateSymmetries()...)
	}
	return syms
}

// Evaluator returns the batched evaluator for searches with leaves leaves
// in flight (at least 1), averaging the network's outputs over
// SearchSymmetries when symmetries is set (Settings.AverageSymmetries),
// starting its batcher on first use.
func (n *Network) Evaluator(leaves int, symmetries bool) (mcts.Evaluator, error) {
	if leaves < 1 {
		return nil, fmt.Errorf("network %s: %d leaves in flight, want at least 1", n.info.Name, leaves)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil, fmt.Errorf("network %s: %w", n.info.Name, mcts.ErrClosed)
	}
	key := batcherKey{leaves, symmetries}
	if b, ok := n.batchers[key]; ok {
		return b, nil
	}
	nets, release, err := n.net.workers(n.opts.Workers)
	if err != nil {
		return nil, fmt.Errorf("network %s: worker copies: %w", n.info.Name, err)
	}
	cfg := mcts.NetEvaluatorConfig{Batcher: mcts.BatcherConfig{MaxBatch: n.opts.Concurrency * leaves, MaxWait: n.opts.MaxWait}}
	if symmetries {
		cfg.Symmetries = SearchSymmetries(n.game)
	}
	b, err := mcts.NewNetEvaluator(nets, n.game, cfg)
	if err != nil {
		release()
		return nil, fmt.Errorf("network %s: %w", n.info.Name, err)
	}
	n.releases = append(n.releases, release)
	n.batchers[key] = b
	return b, nil
}

// Stats returns the counters (batches, positions, forward time) of all
// the network's batchers together; Elapsed is the longest-running one's.
func (n *Network) Stats() mcts.BatcherStats {
	n.mu.Lock()
	defer n.mu.Unlock()
	var total mcts.BatcherStats
	for _, b := range n.batchers {
		total = total.Add(b.EvalStats().BatcherStats)
	}
	return total
}

// Close stops the batchers (agents still searching fail with
// mcts.ErrClosed) and frees the network. It is idempotent.
func (n *Network) Close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return nil
	}
	n.closed = true
	for _, b := range n.batchers {
		b.Close()
	}
	for _, release := range n.releases {
		release()
	}
	n.releases = nil
	n.net.close()
	return nil
}
