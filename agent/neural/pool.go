package neural

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/agent/spec"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/mcts"
)

// KindName is the spec kind of network agents.
const KindName = "net"

// Pool loads each network once and shares it among every agent spec that
// names it (by path and game), so that the agents of all games in flight
// batch their evaluations together. It is safe for concurrent use. Close
// it to free the networks.
type Pool struct {
	opts Options

	mu     sync.Mutex
	nets   map[poolKey]*Network
	closed bool
}

type poolKey struct{ path, game, backend string }

// NewPool returns an empty pool whose networks use opts.
func NewPool(opts Options) *Pool {
	return &Pool{opts: opts, nets: map[poolKey]*Network{}}
}

// Load returns the network at path for game, loading it on first use with
// the pool's backend.
func (p *Pool) Load(path string, game env.Game) (*Network, error) {
	return p.LoadBackend(path, game, p.opts.Backend)
}

// LoadBackend is Load with another backend than the pool's ("" means the
// pool's).
func (p *Pool) LoadBackend(path string, game env.Game, backend string) (*Network, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("network %s: %w", path, err)
	}
	if backend == "" {
		backend = p.opts.Backend
	}
	key := poolKey{abs, game.Name(), backend}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("neural: pool is closed")
	}
	if n, ok := p.nets[key]; ok {
		return n, nil
	}
	opts := p.opts
	opts.Backend = backend
	n, err := Load(path, game, opts)
	if err != nil {
		return nil, err
	}
	p.nets[key] = n
	return n, nil
}

// Networks lists the loaded networks.
func (p *Pool) Networks() []*Network {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*Network, 0, len(p.nets))
	for _, n := range p.nets {
		out = append(out, n)
	}
	return out
}

// Close closes every network; later Loads fail.
func (p *Pool) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for k, n := range p.nets {
		n.Close()
		delete(p.nets, k)
	}
	return nil
}

// Kind is the "net" agent spec kind, loading networks through p:
//
//	net:path=DIR_OR_CHECKPOINT[,sims=N][,time=D][,leaves=N][,cpuct=X][,mode=puct|gumbel][,reuse=0|1][,nodes=N][,treemb=N][,solver=0|1][,tb=0|1][,material=W][,mscale=S][,mterm=material|shrink|eval|final][,muntil=N][,sym=0|1][,ptemp=T][,lcb=Z][,weighted=0|1][,backend=go|libtorch]
//
// Unset keys take the exported agent's settings, or DefaultSettings for
// a checkpoint or run directory.
func (p *Pool) Kind() spec.Kind {
	keys := searchKeys()
	keys["path"] = "exported agent directory, checkpoint file, or training run directory (its agent, else its latest checkpoint); required"
	return spec.Kind{
		Summary: "trained network with tree search (an exported agent directory, a checkpoint file or a run directory)",
		Keys:    keys,
		New: func(game env.Game, params spec.Params) (agent.Factory, error) {
			path := params.String("path", "")
			if path == "" {
				return nil, errors.New("agent net: path= is required (an exported agent directory or a checkpoint)")
			}
			return p.factory(game, path, params)
		},
	}
}

// DefaultKind is the "default" agent spec kind: the trained agent that
// ships for the game, whose directory dir returns, played like a "net"
// agent (the same keys but path):
//
//	default[:sims=N][,time=D]...
func (p *Pool) DefaultKind(dir func(game env.Game) (string, error)) spec.Kind {
	return spec.Kind{
		Summary: "the trained agent that ships with zerokit for the game (Watch Your Back!, Squatter), searching as its manifest says; the keys of net but path",
		Keys:    searchKeys(),
		New: func(game env.Game, params spec.Params) (agent.Factory, error) {
			path, err := dir(game)
			if err != nil {
				return nil, fmt.Errorf("agent default: %w", err)
			}
			return p.factory(game, path, params)
		},
	}
}

// factory loads the network at path through p and returns the factory of
// its agents with params' search settings.
func (p *Pool) factory(game env.Game, path string, params spec.Params) (agent.Factory, error) {
	backend := params.String("backend", "")
	switch backend {
	case "", BackendGo, BackendLibtorch:
	default:
		return nil, fmt.Errorf("agent %s: backend=%s: want %s or %s", params.Kind(), backend, BackendGo, BackendLibtorch)
	}
	n, err := p.LoadBackend(path, game, backend)
	if err != nil {
		return nil, err
	}
	s, err := ApplyParams(n.Info().Settings, params)
	if err != nil {
		return nil, err
	}
	return n.Factory(s)
}

// searchKeys documents the keys of the network kinds but path.
func searchKeys() map[string]string {
	return map[string]string{
		"sims":      fmt.Sprintf("simulations per move (default: the agent's, else %d; 0: no limit, needs time)", mcts.AgentSimulations),
		"time":      "thinking time per move, e.g. 500ms (default: the agent's, else none; 0: none); the protocol's deadline also stops it",
		"leaves":    fmt.Sprintf("leaves evaluated together per search batch (default: the agent's, else %d)", mcts.DefaultLeavesInFlight),
		"cpuct":     fmt.Sprintf("PUCT exploration constant (default: the agent's, else %g)", mcts.AgentSettings().CPUCT),
		"mode":      "search: puct or gumbel (default: the agent's, else puct)",
		"reuse":     "1 keeps the search tree between moves, 0 does not (default: the agent's, else 1)",
		"nodes":     "end a search once its tree holds this many nodes (default: the agent's, else 0: no limit; treemb bounds the tree either way)",
		"treemb":    fmt.Sprintf("the search tree's memory budget in MiB, its nodes and positions: the search stops growing the tree there (default: the agent's, else 0: %d)", mcts.DefaultTreeMB),
		"solver":    "1 runs MCTS-Solver: every move of an expanded position is tried for a game end, proven wins and losses propagate, a proven win is always played and a proven loss never while another move remains (default: the agent's, else 0)",
		"tb":        "1 looks positions up in the game's tablebase, if it has one (Watch Your Back!: the solved endgame after the second shrink, for games without a turn limit, as the referee's), 0 does not (default: the agent's, else 1)",
		"material":  "weight in [0, 1) of the material balance blended into the search's leaf values (default: the agent's, else 0: the network's value alone; 0 turns off the agent's term)",
		"mscale":    fmt.Sprintf("material lead worth tanh(1) of the material term (default: the agent's, else %g)", float64(agent.DefaultMaterialScale)),
		"mterm":     "what the material term blends in: " + agent.TermHelp() + " (default: the agent's, else " + agent.TermMaterial + ")",
		"muntil":    "blend the material term only into positions before this move number, e.g. 24 for Watch Your Back!'s placing phase (default: the agent's, else 0: every position)",
		"weighted":  "1 multiplies each move's simulations and time by the position's time weight (Watch Your Back!: up to 3 in the moving turns before the second shrink), as a clock's allotment does; max_nodes still bounds the tree (default: the agent's, else 0)",
		"ptemp":     "policy temperature T: the search's priors are the network's P^(1/T), renormalised; above 1 flattens them (default: the agent's, else 0: none)",
		"temp":      fmt.Sprintf("move temperature T (0 to %d) for the first tempmoves moves of the game: the move is sampled with probability proportional to N^(1/T) of the search's visits, seeded by seed= (puct only; default: the agent's, else 0: the most visited move)", mcts.MaxTemperature),
		"tempmoves": "moves of the game (both sides') played at temp (default: the agent's, else 0); e.g. temp=0.5,tempmoves=8: the first 4 moves of each side vary among the moves the search rates nearly alike",
		"lcb":       fmt.Sprintf("Z > 0 plays the move of highest lower confidence bound, Q minus Z standard errors, among the moves with at least %g of the most visited one's visits, instead of the most visited move (puct only; default: the agent's, else 0: the most visited move)", mcts.LCBMinVisitShare),
		"sym":       "1 averages the network's outputs over the board's symmetries (for Watch Your Back! the left-right mirror, which the rules keep but for the order of a shrink's corners), one network call per symmetry (default: the agent's, else 0)",
		"backend": fmt.Sprintf("what evaluates the network: %s (pure Go, the default: no libtorch in the process) or %s",
			BackendGo, BackendLibtorch),
	}
}

// ApplyParams overrides base with a spec's sims, time, leaves, cpuct,
// mode, reuse, nodes, treemb, solver, tb, material, mscale, mterm, muntil, sym,
// ptemp, weighted, temp, tempmoves and lcb parameters and validates the result.
func ApplyParams(base Settings, p spec.Params) (Settings, error) {
	s := base
	var err error
	if s.Simulations, err = p.Int("sims", s.Simulations, 0, mcts.MaxSimulations); err != nil {
		return Settings{}, err
	}
	if p.Has("time") {
		v := p.String("time", "")
		d, perr := time.ParseDuration(v)
		if v == "0" {
			d, perr = 0, nil
		}
		if perr != nil || d < 0 {
			return Settings{}, fmt.Errorf("agent %s: time=%s: want a duration such as 500ms or 2s, or 0 for none", p.Kind(), v)
		}
		s.MoveTime = mcts.Duration(d)
	}
	if s.LeavesInFlight, err = p.Int("leaves", s.LeavesInFlight, 1, mcts.MaxLeavesInFlight); err != nil {
		return Settings{}, err
	}
	if s.CPUCT, err = p.Float("cpuct", s.CPUCT, 1e-6, 1e6); err != nil {
		return Settings{}, err
	}
	if p.Has("mode") {
		switch m := mcts.Mode(strings.ToLower(p.String("mode", ""))); m {
		case mcts.ModePUCT, mcts.ModeGumbel:
			s.Mode = m
		default:
			return Settings{}, fmt.Errorf("agent %s: mode=%s: want puct or gumbel", p.Kind(), m)
		}
	}
	if s.ReuseTree, err = p.Bool("reuse", s.ReuseTree); err != nil {
		return Settings{}, err
	}
	if s.MaxNodes, err = p.Int("nodes", s.MaxNodes, 0, math.MaxInt32); err != nil {
		return Settings{}, err
	}
	if s.TreeMB, err = p.Int("treemb", s.TreeMB, 0, mcts.MaxTreeMB); err != nil {
		return Settings{}, err
	}
	if s.Solver, err = p.Bool("solver", s.Solver); err != nil {
		return Settings{}, err
	}
	useTB, err := p.Bool("tb", !s.NoTablebase)
	if err != nil {
		return Settings{}, err
	}
	s.NoTablebase = !useTB
	if s.MaterialWeight, err = p.Float("material", s.MaterialWeight, 0, 0.999); err != nil {
		return Settings{}, err
	}
	if s.MaterialScale, err = p.Float("mscale", s.MaterialScale, 0, 1e6); err != nil {
		return Settings{}, err
	}
	if p.Has("mterm") {
		s.MaterialTerm = p.String("mterm", "")
	}
	if s.MaterialUntil, err = p.Int("muntil", s.MaterialUntil, 0, math.MaxInt32); err != nil {
		return Settings{}, err
	}
	s.ClearIdleMaterial(p.Has("mterm"), p.Has("muntil"))
	if s.AverageSymmetries, err = p.Bool("sym", s.AverageSymmetries); err != nil {
		return Settings{}, err
	}
	if s.PolicyTemperature, err = p.Float("ptemp", s.PolicyTemperature, 0, 20); err != nil {
		return Settings{}, err
	}
	if s.WeightedBudget, err = p.Bool("weighted", s.WeightedBudget); err != nil {
		return Settings{}, err
	}
	if s.Temperature, err = p.Float("temp", s.Temperature, 0, mcts.MaxTemperature); err != nil {
		return Settings{}, err
	}
	if s.TemperatureMoves, err = p.Int("tempmoves", s.TemperatureMoves, 0, math.MaxInt32); err != nil {
		return Settings{}, err
	}
	if s.LCB, err = p.Float("lcb", s.LCB, 0, mcts.MaxLCB); err != nil {
		return Settings{}, err
	}
	if err := s.Validate(); err != nil {
		return Settings{}, fmt.Errorf("agent %s: %w", p.Kind(), err)
	}
	return s, nil
}
