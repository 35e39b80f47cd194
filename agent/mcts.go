package agent

import (
	"context"
	"fmt"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/mcts"
)

// MCTS plays the move chosen by an mcts.Search with any evaluator: random
// rollouts for the pure MCTS baseline (NewPureMCTS), a network for trained
// agents. With Config.ReuseTree it keeps the subtree of the position it
// reaches, recognising the opponent's reply by its hash.
type MCTS struct {
	name   string
	search *mcts.Search
	reuse  bool
	// tb is the search's tablebase (nil for none), which also drives the
	// agent's contempt in drawn endgames (swindle).
	tb env.Tablebase
	// exactTT is the exact search's transposition table, made on first use.
	exactTT *exactTable
	// after is the state after this agent's last move (for tree reuse).
	after env.State
	legal []int
	last  mcts.Result
}

// NewMCTS returns an agent searching with cfg and eval, seeded with seed.
// For evaluation games cfg should have no root noise (DirichletEpsilon 0,
// Gumbel.Scale 0) and play the best move (FinalTemperature 0 and
// TemperatureMoves 0); mcts.PlayConfig gives such settings.
func NewMCTS(name string, cfg mcts.Config, eval mcts.Evaluator, seed uint64) (*MCTS, error) {
	s, err := mcts.NewSearch(cfg, eval, seed)
	if err != nil {
		return nil, fmt.Errorf("agent: %s: %w", name, err)
	}
	return &MCTS{name: name, search: s, reuse: cfg.ReuseTree}, nil
}

// NewPureMCTS returns the pure MCTS baseline: PUCT search with uniform
// priors whose leaves are valued by rollouts uniformly random games
// (mcts.RolloutEvaluator), simulations simulations per move, named
// "mcts<simulations>" (with "-r<rollouts>" when rollouts > 1).
func NewPureMCTS(simulations, rollouts int, seed uint64) (*MCTS, error) {
	eval, err := mcts.NewRolloutEvaluator(rollouts, seed)
	if err != nil {
		return nil, fmt.Errorf("agent: pure MCTS: %w", err)
	}
	name := fmt.Sprintf("mcts%d", simulations)
	if rollouts > 1 {
		name += fmt.Sprintf("-r%d", rollouts)
	}
	return NewMCTS(name, mcts.PlayConfig(simulations), eval, seed)
}

// PureMCTSFactory builds pure MCTS agents (see NewPureMCTS).
func PureMCTSFactory(simulations, rollouts int) (Factory, error) {
	if _, err := NewPureMCTS(simulations, rollouts, 0); err != nil {
		return nil, err
	}
	return func(seed uint64) (Agent, error) { return NewPureMCTS(simulations, rollouts, seed) }, nil
}

// Name returns the agent's name.
func (m *MCTS) Name() string { return m.name }

// SetTablebase makes the search look positions up in tb (nil for none;
// see mcts.Search.SetTablebase). In a position the table calls a draw the
// agent then plays the drawing move that leaves the opponent the most
// losing replies (see swindle).
func (m *MCTS) SetTablebase(tb env.Tablebase) {
	m.tb = tb
	m.search.SetTablebase(tb)
}

// Stats returns the search's work counters.
func (m *MCTS) Stats() mcts.SearchStats { return m.search.Stats() }

// Fallbacks is the number of moves the search answered without a
// completed simulation because its deadline passed first (see
// mcts.Result.Fallback).
func (m *MCTS) Fallbacks() int { return m.search.Stats().Fallbacks }

// TreeFulls is the number of searches stopped by the tree's size or
// memory budget (mcts.Result.TreeFull).
func (m *MCTS) TreeFulls() int { return m.search.Stats().TreeFull }

// SetProgress makes the agent's searches report their progress to f about
// every every simulations (mcts.Search.SetProgress); nil turns it off.
func (m *MCTS) SetProgress(every int, f func(mcts.Progress)) { m.search.SetProgress(every, f) }

// LastResult returns the result of the last search.
func (m *MCTS) LastResult() mcts.Result { return m.last }

// Act runs one search from s and returns its move. A forced move (the
// only legal action) is played without a search, its LastResult holding
// no simulations: the time is better kept for other moves, and a Watch
// Your Back! referee game in which both sides can only forfeit goes on
// until a player's CPU time runs out.
func (m *MCTS) Act(ctx context.Context, s env.State) (int, error) {
	if s.IsTerminal() {
		return 0, ErrTerminal
	}
	if m.reuse {
		m.advanceTo(s)
	}
	var res mcts.Result
	if m.legal = s.LegalActions(m.legal); len(m.legal) == 1 {
		a := m.legal[0]
		res = mcts.Result{Action: a, Player: s.CurrentPlayer(), Actions: []int{a}, Visits: []int{0},
			Policy: []float32{1}, Priors: []float32{1}, Q: []float32{0}, Full: true}
	} else {
		// Near the table the search gets half the time and the exact
		// search checks its choice in the rest (exactImprove).
		exact := m.tb != nil && exactApplies(s, m.tb)
		searchCtx := ctx
		if exact {
			var cancel context.CancelFunc
			searchCtx, cancel = halfTime(ctx)
			defer cancel()
		}
		var err error
		if res, err = m.search.Run(searchCtx, s); err != nil {
			return 0, fmt.Errorf("agent: %s: %w", m.name, err)
		}
		if exact {
			if m.exactTT == nil {
				m.exactTT = newExactTable()
			}
			if a, ok := exactImprove(ctx, s, m.tb, m.exactTT, res, ExactNodes); ok {
				res.Action = a
			}
		}
	}
	if m.tb != nil && len(m.legal) > 1 {
		if a, ok := swindle(s, m.tb, res.Action); ok {
			res.Action = a
		}
	}
	m.last = res
	if m.reuse {
		m.search.Advance(res.Action)
		m.after = s.Clone()
		if err := m.after.ApplyAction(res.Action); err != nil {
			return 0, fmt.Errorf("agent: %s: search chose %s: %w", m.name, s.ActionString(res.Action), err)
		}
	}
	return res.Action, nil
}

// advanceTo moves the kept tree to s if s is one action after the state
// the agent's last move produced; otherwise the search starts afresh (Run
// checks the root anyway).
func (m *MCTS) advanceTo(s env.State) {
	if m.after == nil || m.after.IsTerminal() || m.after.MoveNumber()+1 != s.MoveNumber() {
		return
	}
	m.legal = m.after.LegalActions(m.legal)
	for _, a := range m.legal {
		c := m.after.Clone()
		if c.ApplyAction(a) == nil && c.Hash() == s.Hash() {
			m.search.Advance(a)
			return
		}
	}
}
