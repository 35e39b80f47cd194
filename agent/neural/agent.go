package neural

import (
	"context"
	"fmt"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/mcts"
)

// Agent plays with a Network's search. It implements agent.Agent and, like
// every agent, is meant for one game at a time; many Agents of one Network
// may play at once.
type Agent struct {
	name     string
	settings Settings
	weights  string
	search   *agent.MCTS
}

// NewAgent returns an agent searching with s, seeded with seed (the
// search is deterministic; the seed only matters for ties broken at
// random, which evaluation settings do not have).
func (n *Network) NewAgent(s Settings, seed uint64) (*Agent, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("agent %s: %w", n.info.Name, err)
	}
	eval, err := n.Evaluator(s.LeavesInFlight, s.AverageSymmetries)
	if err != nil {
		return nil, err
	}
	if eval, err = s.Utility().Wrap(n.game, eval); err != nil {
		return nil, fmt.Errorf("agent %s: %w", n.info.Name, err)
	}
	name := n.info.Name + "-" + s.Label()
	m, err := agent.NewMCTS(name, s.Config(), eval, seed)
	if err != nil {
		return nil, err
	}
	if tg, ok := n.game.(env.TablebaseGame); ok && !s.NoTablebase {
		m.SetTablebase(tg.Tablebase())
	}
	return &Agent{name: name, settings: s, weights: n.info.Weights, search: m}, nil
}

// Factory returns a factory of agents searching with s (validated now).
func (n *Network) Factory(s Settings) (agent.Factory, error) {
	if _, err := n.NewAgent(s, 0); err != nil {
		return nil, err
	}
	return func(seed uint64) (agent.Agent, error) { return n.NewAgent(s, seed) }, nil
}

// Name identifies the network and the budget, e.g. "step1200-sims64".
func (a *Agent) Name() string { return a.name }

// Settings returns the agent's search settings.
func (a *Agent) Settings() Settings { return a.settings }

// WeightsFile returns the path of the checkpoint file the agent's network
// was read from.
func (a *Agent) WeightsFile() string { return a.weights }

// Act searches s within the simulation budget, the move time and ctx's
// deadline, whichever ends first, and returns the best move found. It
// fails only if ctx is cancelled: when the deadline passes before the
// first simulation completes, the move is the search's fallback (a move
// the rules or the tablebase prove best, else the network's favourite;
// see mcts.Search.Run), counted by Fallbacks.
func (a *Agent) Act(ctx context.Context, s env.State) (int, error) {
	if d := a.settings.MoveTimeAt(s); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	return a.search.Act(ctx, s)
}

// SetProgress makes the agent's searches report their progress to f about
// every every simulations (mcts.Search.SetProgress); nil turns it off.
func (a *Agent) SetProgress(every int, f func(mcts.Progress)) { a.search.SetProgress(every, f) }

// LastResult returns the result of the last search (Truncated when the
// time ran out first).
func (a *Agent) LastResult() mcts.Result { return a.search.LastResult() }

// Fallbacks is the number of moves played without a completed
// simulation, the deadline having passed first (see agent.MCTS.Fallbacks).
func (a *Agent) Fallbacks() int { return a.search.Fallbacks() }

// TreeFulls is the number of searches stopped by the tree's size or
// memory budget (see agent.MCTS.TreeFulls).
func (a *Agent) TreeFulls() int { return a.search.TreeFulls() }

// Stats returns the agent's search counters.
func (a *Agent) Stats() mcts.SearchStats { return a.search.Stats() }
