package mcts

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/zerokit/zerokit/env"
)

// Search runs Monte Carlo tree searches for one game at a time and keeps
// the tree between moves. It is not safe for concurrent use: a self-play
// worker owns one Search per game and runs many games in parallel with one
// shared Evaluator (typically a Batcher).
//
// A self-play loop looks like:
//
//	s, err := mcts.NewSearch(cfg, eval, seed)
//	state := game.NewInitialState()
//	for !state.IsTerminal() {
//		res, err := s.Run(ctx, state)
//		// store res.Policy (if res.Full) for training
//		state.ApplyAction(res.Action)
//		s.Advance(res.Action)
//	}
type Search struct {
	cfg  Config
	eval Evaluator
	tb   env.Tablebase
	rng  *rand.Rand
	t    tree

	leaves     []leafSlot
	collisions []int32
	stats      SearchStats

	// Per-search root data, indexed like the root's children.
	rootPrior  []float32 // PUCT: priors with Dirichlet noise
	noise      []float64
	gumbel     []float64 // Gumbel: g(a), scaled
	rootLogits []float64 // Gumbel: log prior
	runVisits  []int32   // Gumbel: this search's visits, in flight included
	sequence   []int32   // Gumbel: considered-visit sequence of this search
	seqKey     [2]int
	scratch    gumbelScratch

	progress      func(Progress) // SetProgress
	progressEvery int
}

// leafSlot is one leaf awaiting evaluation.
type leafSlot struct {
	node int32
	// rootChild is the root child on the leaf's path (-1 for the root),
	// so that an abandoned round can take back its Gumbel visit count.
	rootChild int32
	legal     []int
	priors    []float32
	value     float32
	err       error
}

// SearchStats counts work done by a Search since it was created.
type SearchStats struct {
	// Searches is the number of Run calls that returned a result.
	Searches int
	// Simulations is the number of completed simulations.
	Simulations int
	// Evaluations is the number of Evaluator calls.
	Evaluations int
	// Rounds is the number of times the search waited for a group of
	// concurrent evaluations; Evaluations/Rounds is the mean number of
	// leaves in flight.
	Rounds int
	// Collisions counts descents that ended at a leaf already in flight.
	Collisions int
	// Truncated is the number of searches cut short by their context's
	// deadline (see Result.Truncated).
	Truncated int
	// Fallbacks is the number of searches whose deadline passed before a
	// single simulation completed (see Result.Fallback).
	Fallbacks int
	// TreeFull is the number of searches that stopped because the tree
	// reached Config.MaxNodes or Config.TreeMB (see Result.TreeFull).
	TreeFull int
}

// NewSearch validates cfg and returns a Search using eval, whose random
// choices (playout cap, root noise, move sampling) come from a PCG generator
// seeded with seed.
func NewSearch(cfg Config, eval Evaluator, seed uint64) (*Search, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if eval == nil {
		return nil, errors.New("mcts: nil evaluator")
	}
	return &Search{
		cfg:  cfg,
		eval: eval,
		rng:  rand.New(rand.NewPCG(seed, 0x5ea5c4)),
		t:    tree{budget: int64(cfg.TreeMB) << 20},
	}, nil
}

// full reports whether the tree has reached Config.MaxNodes, or whether
// one more descent and the expansion of a round's leaves could take it
// past its memory budget (Config.TreeMB): LeavesInFlight positions with
// as many children as the largest expanded so far, in the arena's spare
// capacity or in an arena grown to hold them, each child with a position
// (Config.Solver gives them one where the game ends or the tablebase
// knows it), and the descent's own position.
func (s *Search) full() bool {
	if s.cfg.MaxNodes > 0 && len(s.t.nodes) >= s.cfg.MaxNodes {
		return true
	}
	if s.t.budget <= 0 {
		return false
	}
	children := s.cfg.LeavesInFlight * max(s.t.maxChildren, 1)
	arena := int64(max(cap(s.t.nodes), len(s.t.nodes)+children)) * nodeBytes
	states := int64(s.t.states+children+1) * s.t.stateBytes
	return arena+states+int64(cap(s.t.keep))*8 > s.t.budget
}

// SetTablebase makes the search look up every new position in tb (nil for
// none): a position in the table is a leaf valued exactly, like the end of
// the game, and with Config.Solver a proof. Call it before a search, not
// during one.
func (s *Search) SetTablebase(tb env.Tablebase) { s.tb = tb }

// Progress is a snapshot of a search in progress, for a display: the
// root's children with their visits and priors (as in Result, no move
// chosen yet), the root's mean value for the player to move, and the
// simulations run so far by this search.
type Progress struct {
	Player      int
	Actions     []int
	Visits      []int
	Priors      []float32
	Value       float32
	Simulations int
}

// SetProgress makes Run call f with a snapshot of the root after the
// round that completes every every-th simulation (every <= 0 means 1),
// from the goroutine running the search; nil turns it off. f must return
// quickly and must not use the Search. The search itself is unchanged:
// the snapshot draws no random number.
func (s *Search) SetProgress(every int, f func(Progress)) {
	s.progress, s.progressEvery = f, max(every, 1)
}

// snapshot describes the root after sims simulations of this search.
func (s *Search) snapshot(sims int) Progress {
	root := &s.t.nodes[0]
	children := s.t.nodes[root.first : root.first+root.nchild]
	p := Progress{Player: int(root.player), Simulations: sims, Actions: make([]int, len(children)),
		Visits: make([]int, len(children)), Priors: make([]float32, len(children))}
	if root.visits > 0 {
		p.Value = float32(sign(root.player) * root.w0 / float64(root.visits))
	}
	for i := range children {
		p.Actions[i], p.Visits[i], p.Priors[i] = int(children[i].action), int(children[i].visits), children[i].prior
	}
	return p
}

// Config returns the search's configuration.
func (s *Search) Config() Config { return s.cfg }

// Stats returns the work counters.
func (s *Search) Stats() SearchStats { return s.stats }

// Reset discards the tree.
func (s *Search) Reset() { s.t.reset() }

// TreeSize is the number of nodes currently in the tree.
func (s *Search) TreeSize() int { return len(s.t.nodes) }

// TreeBytes is the tree's memory now: its arena of nodes, used or not,
// and the positions its nodes hold (see NodeBytes).
func (s *Search) TreeBytes() int64 { return s.t.bytes() }

// Advance tells the search that action was played from the position of the
// last search (by either player), so that the next search can start from
// the corresponding subtree. Without tree reuse, or if that child was never
// expanded, the tree is discarded. Run checks that the position it is given
// matches the kept root, so a wrong Advance only costs the reuse.
func (s *Search) Advance(action int) {
	if !s.cfg.ReuseTree {
		s.t.reset()
		return
	}
	s.t.advance(action)
}

// Run searches from state (which it does not modify) and returns the move
// to play with the training targets.
//
// When ctx's deadline passes during the search, Run stops and returns the
// best result so far, with Result.Truncated set and no error; the round of
// evaluations in flight at the deadline is abandoned and the tree stays
// consistent for reuse. A passed deadline is never an error: the root's
// own evaluation ignores it (without the root's priors there is no move to
// suggest), and when no simulation completed in time (and tree reuse kept
// no visits) the result is a fallback (Result.Fallback, counted in
// SearchStats.Fallbacks): the fastest win among the root's moves that end
// the game or that the tablebase knows, else, avoiding the moves those
// prove lost, the move of highest prior. A cancelled context or an
// evaluator error aborts the search, discards the tree and returns the
// error.
func (s *Search) Run(ctx context.Context, state env.State) (Result, error) {
	if state.IsTerminal() {
		return Result{}, ErrTerminal
	}
	if !s.cfg.ReuseTree || !s.rootMatches(state) {
		s.t.reset()
	}
	// A context of the search's own: its leaves wait on its Done channel
	// (Batcher.Evaluate), not on one that every game of a self-play run
	// shares, whose lock thousands of waiting leaves would contend for.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	res, err := s.run(ctx, state)
	if err != nil {
		s.t.reset()
		return Result{}, err
	}
	s.stats.Searches++
	return res, nil
}

func (s *Search) rootMatches(state env.State) bool {
	if s.t.empty() {
		return false
	}
	r := s.t.nodes[0].state
	return r.Hash() == state.Hash() && r.MoveNumber() == state.MoveNumber() &&
		r.CurrentPlayer() == state.CurrentPlayer()
}

func (s *Search) run(ctx context.Context, state env.State) (Result, error) {
	if s.t.empty() {
		s.t.setRoot(state.Clone())
	}
	if s.t.nodes[0].status != stExpanded {
		// Evaluate the root on its own; this is not a simulation.
		s.leaves = s.leaves[:0]
		s.addLeaf(0)
		rootCtx, stop := withoutDeadline(ctx)
		err := s.evaluateLeaves(rootCtx)
		stop()
		if err != nil {
			return Result{}, err
		}
		if err := s.expand(&s.leaves[0]); err != nil {
			return Result{}, err
		}
	}
	reused := int(s.t.nodes[0].visits) - 1

	full := true
	if s.cfg.PlayoutCap.Enabled && s.rng.Float64() >= s.cfg.PlayoutCap.FullProbability {
		full = false
	}
	sims := s.cfg.Simulations
	if !full {
		sims = s.cfg.PlayoutCap.CheapSimulations
	} else if s.cfg.WeightedBudget {
		sims = min(int(float64(sims)*BudgetWeight(state)), MaxSimulations)
	}
	s.prepareRoot(full, sims)

	done := 0
	truncated, treeFull := false, false
	nextProgress := s.progressEvery
	for done < sims && !truncated {
		if s.t.nodes[0].proven {
			// Config.Solver settled the root: more search changes nothing.
			break
		}
		if done+reused > 0 && s.full() {
			truncated, treeFull = true, true
			break
		}
		if err := ctx.Err(); err != nil {
			if !pastDeadline(ctx) {
				return Result{}, fmt.Errorf("mcts: search: %w", err)
			}
			truncated = true
			break
		}
		n, err := s.round(ctx, done, sims)
		switch {
		case errors.Is(err, errDeadline):
			// The round was taken back; its terminal simulations count.
			done += n
			truncated = true
			continue
		case err != nil:
			return Result{}, err
		case n == 0:
			// Unreachable: a round starts with no leaf in flight, so its
			// first descent completes or queues a simulation.
			return Result{}, errors.New("mcts: internal error: a search round made no progress")
		}
		done += n
		if s.progress != nil && done >= nextProgress && done < sims {
			s.progress(s.snapshot(done))
			nextProgress = done + s.progressEvery
		}
	}
	s.stats.Simulations += done
	res := s.result(state, full, done, reused)
	res.Truncated, res.TreeFull = truncated, treeFull
	if truncated {
		s.stats.Truncated++
	}
	if treeFull {
		s.stats.TreeFull++
	}
	if truncated && done+reused == 0 {
		res.Fallback = true
		s.stats.Fallbacks++
		res.Action = res.Actions[s.fallbackChoice()]
		if s.cfg.Mode == ModePUCT {
			copy(res.Policy, res.Priors)
		}
	}
	return res, nil
}

// grow returns buf resized to n, reallocating only when needed.
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	return buf[:n]
}
