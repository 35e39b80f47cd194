package mcts

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

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
}

// Result is the outcome of one search. Slices are freshly allocated and
// indexed like Actions.
type Result struct {
	// Action is the move to play.
	Action int
	// Player is the player to move at the root.
	Player int
	// Actions are the legal actions at the root, in increasing order.
	Actions []int
	// Visits are the root children's visit counts, including visits kept
	// from earlier searches by tree reuse.
	Visits []int
	// Policy is the policy training target: the visit distribution in
	// ModePUCT, softmax(logits + sigma(completed Q)) in ModeGumbel.
	Policy []float32
	// Priors are the evaluator's root priors (at Config.PolicyTemperature),
	// without noise.
	Priors []float32
	// Q are the children's mean values from the root player's point of
	// view (0 for unvisited children).
	Q []float32
	// Value is the root's mean value for the player to move.
	Value float32
	// NetworkValue is the evaluator's value of the root.
	NetworkValue float32
	// Full reports a full search. Only full searches should be used as
	// policy targets (playout cap randomization).
	Full bool
	// Simulations is the number of simulations this search ran.
	Simulations int
	// Truncated reports a search stopped by its context's deadline, or by
	// Config.MaxNodes, before its simulation budget was spent: the result
	// is the best found so far (Simulations is below the budget). Its Policy is a poorer training
	// target than a complete search's.
	Truncated bool
	// Fallback reports a truncated search whose deadline passed before a
	// single simulation completed: Action is then a root move that ends
	// the game with a win or that the tablebase proves best, else the
	// move of highest prior (see Search.Run), and Policy the priors.
	Fallback bool
	// ReusedVisits is the root's visit count inherited from earlier
	// searches by tree reuse.
	ReusedVisits int
	// TreeSize is the number of nodes in the tree after the search.
	TreeSize int
	// Proven reports that Config.Solver settled the root's game-theoretic
	// value: ProvenValue for the player to move (1 a win, -1 a loss, 0 a
	// draw), reached in ProvenMoves moves along the proof (the fastest win
	// among the proven ones, the longest resistance). A search whose root
	// is proven stops early.
	Proven      bool
	ProvenValue float32
	ProvenMoves int
}

// DensePolicy spreads Policy over the full action space of size numActions.
func (r Result) DensePolicy(numActions int) ([]float32, error) {
	out := make([]float32, numActions)
	for i, a := range r.Actions {
		if a < 0 || a >= numActions {
			return nil, fmt.Errorf("mcts: dense policy: action %d outside [0, %d)", a, numActions)
		}
		out[a] = r.Policy[i]
	}
	return out, nil
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
	}, nil
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
	}
	s.prepareRoot(full, sims)

	done := 0
	truncated := false
	nextProgress := s.progressEvery
	for done < sims && !truncated {
		if s.t.nodes[0].proven {
			// Config.Solver settled the root: more search changes nothing.
			break
		}
		if s.cfg.MaxNodes > 0 && len(s.t.nodes) >= s.cfg.MaxNodes && done+reused > 0 {
			truncated = true
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
	res.Truncated = truncated
	if truncated {
		s.stats.Truncated++
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

// withoutDeadline returns a context with ctx's values that is cancelled
// when ctx is cancelled, but not when ctx's deadline passes, and the
// function that releases it.
func withoutDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		if !pastDeadline(ctx) {
			cancel()
		}
	})
	return c, func() {
		stop()
		cancel()
	}
}

// fallbackChoice returns the index of the root child to play when the
// deadline passed before any simulation: each child whose position ends
// the game or is in the tablebase is valued exactly; the fastest win comes
// first, then, among the children not proven lost, the highest prior, and
// when every child loses, the longest resistance.
func (s *Search) fallbackChoice() int {
	root := &s.t.nodes[0]
	children := s.t.nodes[root.first : root.first+root.nchild]
	me := int(root.player)
	// rank orders the children: class 2 a win, 1 unknown or a draw, 0 a
	// loss; within a class the higher key, then the higher prior.
	type rank struct {
		class int
		key   float64
	}
	better := func(a, b rank, pa, pb float32) bool {
		if a.class != b.class {
			return a.class > b.class
		}
		if a.key != b.key {
			return a.key > b.key
		}
		return pa > pb
	}
	best, bestRank := 0, rank{class: -1}
	for i := range children {
		r := rank{class: 1}
		if v, n, ok := s.exactChild(root.state, int(children[i].action), me); ok {
			switch {
			case v > 0:
				r = rank{class: 2, key: -float64(n)}
			case v < 0:
				r = rank{class: 0, key: float64(n)}
			}
		}
		if better(r, bestRank, children[i].prior, children[best].prior) {
			best, bestRank = i, r
		}
	}
	return best
}

// exactChild values the position after action from root for player me
// when the game's rules or the tablebase know it: the value (+1 a win, -1
// a loss, 0 a draw) and the number of actions to the end.
func (s *Search) exactChild(root env.State, action, me int) (value float32, actions int, ok bool) {
	st := root.Clone()
	if st.ApplyAction(action) != nil {
		return 0, 0, false
	}
	if st.IsTerminal() {
		return st.Returns()[me], 1, true
	}
	if s.tb == nil {
		return 0, 0, false
	}
	v, n, ok := s.tb.Probe(st)
	if !ok {
		return 0, 0, false
	}
	if st.CurrentPlayer() != me {
		v = -v
	}
	return v, n + 1, true
}

// errDeadline is returned by round when its evaluations failed because
// the context's deadline passed; the round has been taken back.
var errDeadline = errors.New("mcts: deadline passed during a round")

// pastDeadline reports whether ctx ended because its deadline passed (not
// because it was cancelled).
func pastDeadline(ctx context.Context) bool {
	return errors.Is(ctx.Err(), context.DeadlineExceeded)
}

// prepareRoot sets up the per-search root data: noisy priors for PUCT, the
// Gumbel noise, logits and halving schedule for Gumbel.
func (s *Search) prepareRoot(full bool, sims int) {
	root := &s.t.nodes[0]
	n := int(root.nchild)
	children := s.t.nodes[root.first : root.first+root.nchild]
	switch s.cfg.Mode {
	case ModePUCT:
		s.rootPrior = grow(s.rootPrior, n)
		for i := range children {
			s.rootPrior[i] = children[i].prior
		}
		if full && s.cfg.DirichletEpsilon > 0 && n > 1 {
			alpha := s.cfg.DirichletAlpha
			if s.cfg.DirichletTotalAlpha > 0 {
				alpha = s.cfg.DirichletTotalAlpha / float64(n)
			}
			s.noise = grow(s.noise, n)
			dirichlet(s.rng, alpha, s.noise)
			eps := s.cfg.DirichletEpsilon
			for i := range s.rootPrior {
				s.rootPrior[i] = float32((1-eps)*float64(s.rootPrior[i]) + eps*s.noise[i])
			}
		}
	case ModeGumbel:
		s.gumbel = grow(s.gumbel, n)
		s.rootLogits = grow(s.rootLogits, n)
		s.runVisits = grow(s.runVisits, n)
		scale := s.cfg.Gumbel.Scale
		if !full {
			scale = 0
		}
		for i := range children {
			s.rootLogits[i] = logit(children[i].prior)
			s.gumbel[i] = 0
			if scale > 0 {
				s.gumbel[i] = scale * sampleGumbel(s.rng)
			}
			s.runVisits[i] = 0
		}
		m := min(s.cfg.Gumbel.MaxConsideredActions, n)
		if s.seqKey != [2]int{m, sims} || s.sequence == nil {
			s.sequence = consideredVisitSequence(m, sims)
			s.seqKey = [2]int{m, sims}
		}
	}
}

// round selects up to LeavesInFlight leaves, evaluates them concurrently,
// and backs them up. It returns the number of completed simulations.
func (s *Search) round(ctx context.Context, done, sims int) (int, error) {
	s.leaves = s.leaves[:0]
	s.collisions = s.collisions[:0]
	completed := 0
	limit := s.cfg.LeavesInFlight
gather:
	for len(s.leaves) < limit && done+completed+len(s.leaves) < sims && len(s.collisions) < limit {
		leaf, rootChild, fresh, err := s.selectLeaf(done + completed + len(s.leaves))
		if err != nil {
			return 0, err
		}
		nd := &s.t.nodes[leaf]
		switch {
		case nd.status == stTerminal || nd.status == stRepeated || nd.status == stSolved || nd.proven:
			v := nd.value
			switch {
			case nd.proven:
				v = nd.proof
			case nd.status == stRepeated:
				v = 0 // a draw
			}
			s.countRootVisit(rootChild)
			s.t.backup(leaf, float64(v))
			completed++
		case fresh:
			s.countRootVisit(rootChild)
			s.t.addVirtual(leaf, 1)
			s.addLeaf(leaf)
			s.leaves[len(s.leaves)-1].rootChild = rootChild
		default:
			// A leaf already in flight: keep virtual loss on the path so
			// that the next descent avoids it, and undo it afterwards.
			s.t.addVirtual(leaf, 1)
			s.collisions = append(s.collisions, leaf)
			s.stats.Collisions++
			if s.cfg.Mode == ModeGumbel && leaf == rootChild {
				// The Gumbel schedule ignores virtual loss at the root,
				// so retrying would pick the same root child again.
				break gather
			}
		}
	}
	if len(s.leaves) == 0 {
		return completed, nil
	}
	if err := s.evaluateLeaves(ctx); err != nil {
		if pastDeadline(ctx) {
			s.abandonRound()
			return completed, errDeadline
		}
		return 0, err
	}
	for _, c := range s.collisions {
		s.t.addVirtual(c, -1)
	}
	for i := range s.leaves {
		s.t.addVirtual(s.leaves[i].node, -1)
	}
	for i := range s.leaves {
		if err := s.expand(&s.leaves[i]); err != nil {
			return 0, err
		}
	}
	return completed + len(s.leaves), nil
}

func (s *Search) countRootVisit(rootChild int32) {
	if s.cfg.Mode == ModeGumbel && rootChild >= 0 {
		s.runVisits[rootChild-s.t.nodes[0].first]++
	}
}

// abandonRound takes back the leaves and collisions of a round whose
// evaluations did not complete: their virtual visits are removed and the
// leaves become unvisited again, so the tree is as if the round's pending
// simulations had never started.
func (s *Search) abandonRound() {
	for _, c := range s.collisions {
		s.t.addVirtual(c, -1)
	}
	for i := range s.leaves {
		l := &s.leaves[i]
		s.t.addVirtual(l.node, -1)
		nd := &s.t.nodes[l.node]
		nd.status = stUnvisited
		nd.state = nil
		if s.cfg.Mode == ModeGumbel && l.rootChild >= 0 {
			s.runVisits[l.rootChild-s.t.nodes[0].first]--
		}
	}
	s.leaves = s.leaves[:0]
	s.collisions = s.collisions[:0]
}

// selectLeaf descends from the root to a node that is terminal, pending
// (a collision with a leaf in flight) or unvisited; it creates the position
// of an unvisited node and marks it pending (fresh) unless it is terminal.
// sim is the index of this simulation within the search (for the Gumbel
// schedule). It also returns the root child on the path.
func (s *Search) selectLeaf(sim int) (leaf, rootChild int32, fresh bool, err error) {
	idx := int32(0)
	rootChild = -1
	for {
		nd := &s.t.nodes[idx]
		switch {
		case nd.status == stTerminal || nd.status == stRepeated || nd.status == stSolved || nd.status == stPending || nd.proven:
			return idx, rootChild, false, nil
		case nd.status == stUnvisited:
			st := s.t.nodes[nd.parent].state.Clone()
			if err := st.ApplyAction(int(nd.action)); err != nil {
				return 0, 0, false, fmt.Errorf("mcts: applying legal action %d: %w", nd.action, err)
			}
			nd.state = st
			if st.IsTerminal() {
				nd.setTerminal(st, s.cfg.Solver)
				if s.cfg.Solver {
					s.prove(nd.parent)
				}
				return idx, rootChild, false, nil
			}
			if s.solved(nd, st) {
				if s.cfg.Solver {
					s.prove(nd.parent)
				}
				return idx, rootChild, false, nil
			}
			if s.repeats(nd.parent, st) {
				nd.status = stRepeated
				return idx, rootChild, false, nil
			}
			nd.status = stPending
			return idx, rootChild, true, nil
		}
		var next int32
		switch {
		case idx == 0 && s.cfg.Mode == ModeGumbel:
			next = s.selectGumbelRoot(sim)
		case s.cfg.Mode == ModeGumbel && s.cfg.Gumbel.Interior == InteriorImprovedPolicy:
			next = s.selectImproved(idx)
		default:
			next = s.selectPUCT(idx)
		}
		if idx == 0 {
			rootChild = next
		}
		idx = next
	}
}

// solved looks st, the position of the new node nd, up in the tablebase
// and, if it is there, gives nd the position and marks it solved.
func (s *Search) solved(nd *node, st env.State) bool {
	if s.tb == nil {
		return false
	}
	v, n, ok := s.tb.Probe(st)
	if ok {
		nd.state = st
		nd.setSolved(st, v, n, s.cfg.Solver)
	}
	return ok
}

// repeats reports whether st, the position of a new child of parent,
// repeats a position on the path from the root to parent (the root
// included), by env.RepetitionKeyer. Such a line returns to where it was
// without progress: the search scores the child as a draw (value 0, not a
// proof: the game's rules may go on) instead of searching it on, which
// also keeps it from following a cycle ever deeper, one node per
// simulation, when the network's values do not tell the cycle's positions
// apart. Games whose states do not implement the interface never repeat.
func (s *Search) repeats(parent int32, st env.State) bool {
	r, ok := st.(env.RepetitionKeyer)
	if !ok {
		return false
	}
	key, ok := r.RepetitionKey()
	if !ok {
		return false
	}
	for a := parent; a >= 0; a = s.t.nodes[a].parent {
		ar, ok := s.t.nodes[a].state.(env.RepetitionKeyer)
		if !ok {
			return false
		}
		k, ok := ar.RepetitionKey()
		switch {
		case !ok:
			// Earlier positions cannot be keyed either.
			return false
		case k == key:
			return true
		}
	}
	return false
}

// selectPUCT picks the child of an expanded node maximising
// Q + c * P * sqrt(N) / (1 + n), counting in-flight visits as losses.
//
// It makes one pass over the children: all unvisited children share the
// first-play-urgency value, so the best of them is the one with the highest
// prior, and the FPU (which depends on the prior mass of visited children)
// is only needed once at the end. Ties go to the lower index.
func (s *Search) selectPUCT(idx int32) int32 {
	nd := &s.t.nodes[idx]
	cfg := &s.cfg
	sg := sign(nd.player)
	nParent := float64(nd.visits + nd.vl)
	c := cfg.CPUCT
	if cfg.CPUCTBase > 0 {
		c += math.Log((1 + nParent + cfg.CPUCTBase) / cfg.CPUCTBase)
	}
	cs := c * math.Sqrt(nParent)
	children := s.t.nodes[nd.first : nd.first+nd.nchild]
	isRoot := idx == 0
	noisy := isRoot && cfg.Mode == ModePUCT
	vloss := cfg.VirtualLoss
	bestV, bestVScore := -1, math.Inf(-1) // best visited child
	bestU, bestUPrior := -1, -1.0         // highest-prior unvisited child
	visitedPrior := 0.0
	for i := range children {
		ch := &children[i]
		p := float64(ch.prior)
		if noisy {
			p = float64(s.rootPrior[i])
		}
		n := ch.visits + ch.vl
		if ch.proven {
			// Config.Solver: the value is known, whatever the visits. A
			// proven loss is never selected: this node is not proven, so
			// some child is not a proven loss.
			visitedPrior += p
			q := sg * float64(ch.proof)
			if q <= -1 {
				continue
			}
			score := q + cs*p/(1+float64(n))
			if score > bestVScore {
				bestV, bestVScore = i, score
			}
			continue
		}
		if n == 0 {
			if p > bestUPrior {
				bestU, bestUPrior = i, p
			}
			continue
		}
		visitedPrior += p
		fn := float64(n)
		score := (sg*ch.w0-float64(ch.vl)*vloss)/fn + cs*p/(1+fn)
		if score > bestVScore {
			bestV, bestVScore = i, score
		}
	}
	if bestU >= 0 {
		var fpu float64
		if cfg.FPUMode == FPUAbsolute {
			fpu = cfg.FPUValue
		} else {
			red := cfg.FPUReduction
			if isRoot {
				red = cfg.RootFPUReduction
			}
			fpu = sg*nd.w0/float64(max(nd.visits, 1)) - red*math.Sqrt(visitedPrior)
		}
		score := fpu + cs*bestUPrior
		if bestV < 0 || score > bestVScore || (score == bestVScore && bestU < bestV) {
			bestV = bestU
		}
	}
	return nd.first + int32(bestV)
}

// addLeaf queues node for evaluation, filling its legal actions.
func (s *Search) addLeaf(n int32) {
	if len(s.leaves) < cap(s.leaves) {
		s.leaves = s.leaves[:len(s.leaves)+1]
	} else {
		s.leaves = append(s.leaves, leafSlot{})
	}
	l := &s.leaves[len(s.leaves)-1]
	l.node = n
	l.rootChild = -1
	l.legal = s.t.nodes[n].state.LegalActions(l.legal)
	l.priors = grow(l.priors, len(l.legal))
	l.value, l.err = 0, nil
}

// evaluateLeaves runs the evaluator on every queued leaf, concurrently when
// there are several, and returns the first error.
func (s *Search) evaluateLeaves(ctx context.Context) error {
	s.stats.Rounds++
	s.stats.Evaluations += len(s.leaves)
	if len(s.leaves) == 1 {
		s.evaluateLeaf(ctx, 0)
	} else {
		var wg sync.WaitGroup
		for i := 1; i < len(s.leaves); i++ {
			wg.Go(func() { s.evaluateLeaf(ctx, i) })
		}
		s.evaluateLeaf(ctx, 0)
		wg.Wait()
	}
	for i := range s.leaves {
		if err := s.leaves[i].err; err != nil {
			return fmt.Errorf("mcts: evaluate: %w", err)
		}
	}
	return nil
}

// evaluateLeaf evaluates leaf i. Concurrent calls touch distinct slots and
// only read the tree, which does not change until they all return.
func (s *Search) evaluateLeaf(ctx context.Context, i int) {
	l := &s.leaves[i]
	l.value, l.err = s.eval.Evaluate(ctx, s.t.nodes[l.node].state, l.legal, l.priors)
}

// expand creates the children of an evaluated leaf and backs up its value.
func (s *Search) expand(l *leafSlot) error {
	v := l.value
	if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		return fmt.Errorf("mcts: evaluator returned value %v", v)
	}
	v = min(max(v, -1), 1)
	if len(l.legal) == 0 {
		return fmt.Errorf("mcts: non-terminal state without legal actions:\n%s", s.t.nodes[l.node].state)
	}
	var sum float32
	for i, p := range l.priors[:len(l.legal)] {
		if !(p >= 0) || math.IsInf(float64(p), 0) {
			return fmt.Errorf("mcts: evaluator returned prior %v for action %d", p, l.legal[i])
		}
		sum += p
	}
	if !(sum > 0) {
		return fmt.Errorf("mcts: evaluator priors sum to %v", sum)
	}
	if t := s.cfg.PolicyTemperature; t > 0 && t != 1 {
		// Normalise first, so that the powers of tiny priors stay
		// representable.
		e, norm := 1/t, 1/sum
		sum = 0
		for i, p := range l.priors[:len(l.legal)] {
			q := float32(math.Pow(float64(p*norm), e))
			l.priors[i] = q
			sum += q
		}
		if !(sum > 0) || math.IsInf(float64(sum), 0) {
			return fmt.Errorf("mcts: priors at policy temperature %v sum to %v", t, sum)
		}
	}
	inv := 1 / sum
	first := int32(len(s.t.nodes))
	for i, a := range l.legal {
		s.t.nodes = append(s.t.nodes, node{
			parent: l.node,
			action: int32(a),
			prior:  l.priors[i] * inv,
		})
	}
	nd := &s.t.nodes[l.node]
	nd.first = first
	nd.nchild = int32(len(l.legal))
	nd.player = int8(nd.state.CurrentPlayer())
	nd.value = v
	nd.status = stExpanded
	v0 := sign(nd.player) * float64(v)
	if s.cfg.Solver {
		if err := s.lookAhead(l.node); err != nil {
			return err
		}
		if nd = &s.t.nodes[l.node]; nd.proven {
			v0 = float64(nd.proof)
		}
	}
	s.t.backup(l.node, v0)
	return nil
}

// lookAhead (Config.Solver) plays every move of the freshly expanded node
// n, marks the children where the game ends as terminal and proven and
// those in the tablebase as solved and proven, and proves n and its
// ancestors where that settles them.
func (s *Search) lookAhead(n int32) error {
	nd := &s.t.nodes[n]
	parent := nd.state
	found := false
	for i := nd.first; i < nd.first+nd.nchild; i++ {
		ch := &s.t.nodes[i]
		st := parent.Clone()
		if err := st.ApplyAction(int(ch.action)); err != nil {
			return fmt.Errorf("mcts: applying legal action %d: %w", ch.action, err)
		}
		if !st.IsTerminal() {
			found = s.solved(ch, st) || found
			continue
		}
		ch.state = st
		ch.setTerminal(st, true)
		found = true
	}
	if found {
		s.prove(n)
	}
	return nil
}

// prove marks n proven if its children settle its value (one of them is a
// proven win for the player to move at n, or all are proven), then does the
// same for its ancestors, stopping at the first node that stays unproven or
// unchanged. A node proven already may still learn a faster win: a leaf
// in flight below it when it was proven can prove more of its children.
func (s *Search) prove(n int32) {
	for n >= 0 {
		nd := &s.t.nodes[n]
		if nd.status != stExpanded {
			return
		}
		sg := sign(nd.player)
		best, settled := math.Inf(-1), true
		var winDepth, lossDepth uint16 = math.MaxUint16, 0
		for i := nd.first; i < nd.first+nd.nchild; i++ {
			ch := &s.t.nodes[i]
			if !ch.proven {
				settled = false
				continue
			}
			v := sg * float64(ch.proof)
			best = max(best, v)
			if v >= 1 {
				winDepth = min(winDepth, ch.depth)
			}
			lossDepth = max(lossDepth, ch.depth)
		}
		var depth uint16
		switch {
		case best >= 1:
			depth = winDepth + 1
		case settled:
			depth = min(lossDepth, math.MaxUint16-1) + 1
		default:
			return
		}
		proof := float32(sg * best)
		if nd.proven && nd.proof == proof && nd.depth == depth {
			return
		}
		nd.proven, nd.proof, nd.depth = true, proof, depth
		n = nd.parent
	}
}

// solvedChoice (Config.Solver) overrides the move chosen among the root's
// children: it returns the index of the fastest proven win if there is
// one; else, if chosen is a proven loss, the most visited child that is
// not (ties to the higher prior) or, when every child is a proven loss,
// the one that resists longest (a fallible opponent may still miss the
// win); else chosen.
func (s *Search) solvedChoice(chosen int) int {
	root := &s.t.nodes[0]
	children := s.t.nodes[root.first : root.first+root.nchild]
	sg := sign(root.player)
	more := func(i, j int) bool { // i more visited than j, ties to the higher prior
		return children[i].visits > children[j].visits ||
			(children[i].visits == children[j].visits && children[i].prior > children[j].prior)
	}
	win, alive, lost := -1, -1, -1
	for i := range children {
		ch := &children[i]
		switch {
		case ch.proven && sg*float64(ch.proof) >= 1:
			if win < 0 || ch.depth < children[win].depth || (ch.depth == children[win].depth && more(i, win)) {
				win = i
			}
		case ch.proven && sg*float64(ch.proof) <= -1:
			if lost < 0 || ch.depth > children[lost].depth || (ch.depth == children[lost].depth && more(i, lost)) {
				lost = i
			}
		default:
			if alive < 0 || more(i, alive) {
				alive = i
			}
		}
	}
	ch := &children[chosen]
	switch {
	case win >= 0:
		return win
	case !ch.proven || sg*float64(ch.proof) > -1:
		return chosen
	case alive >= 0:
		return alive
	}
	return lost
}

// result builds the Result of a finished search.
func (s *Search) result(state env.State, full bool, sims, reused int) Result {
	root := &s.t.nodes[0]
	n := int(root.nchild)
	children := s.t.nodes[root.first : root.first+root.nchild]
	sg := sign(root.player)
	res := Result{
		Player:       int(root.player),
		Actions:      make([]int, n),
		Visits:       make([]int, n),
		Policy:       make([]float32, n),
		Priors:       make([]float32, n),
		Q:            make([]float32, n),
		Value:        float32(sg * root.w0 / float64(root.visits)),
		NetworkValue: root.value,
		Full:         full,
		Simulations:  sims,
		ReusedVisits: reused,
		TreeSize:     len(s.t.nodes),
	}
	if root.proven {
		res.Proven, res.ProvenValue, res.ProvenMoves = true, float32(sg*float64(root.proof)), int(root.depth)
	}
	total := 0
	for i := range children {
		ch := &children[i]
		res.Actions[i] = int(ch.action)
		res.Visits[i] = int(ch.visits)
		res.Priors[i] = ch.prior
		if ch.visits > 0 {
			res.Q[i] = float32(sg * ch.w0 / float64(ch.visits))
		}
		total += int(ch.visits)
	}
	var chosen int
	switch s.cfg.Mode {
	case ModeGumbel:
		chosen = s.gumbelResult(res.Policy)
	default:
		for i := range res.Policy {
			res.Policy[i] = float32(res.Visits[i]) / float32(max(total, 1))
		}
		chosen = s.pickByVisits(res, s.cfg.TemperatureAt(state.MoveNumber()))
	}
	if s.cfg.Solver {
		chosen = s.solvedChoice(chosen)
		if s.cfg.Mode == ModePUCT && (root.proven || total == 0) {
			// The proven move is the target (a root proven at expansion
			// has no visits to count).
			clear(res.Policy)
			res.Policy[chosen] = 1
		}
	}
	res.Action = res.Actions[chosen]
	return res
}

// pickByVisits samples a child with probability proportional to
// N^(1/tau), or takes the most visited (ties to the higher prior, then the
// lower action) when tau is 0.
func (s *Search) pickByVisits(res Result, tau float64) int {
	best := 0
	for i := range res.Visits {
		if res.Visits[i] > res.Visits[best] ||
			(res.Visits[i] == res.Visits[best] && res.Priors[i] > res.Priors[best]) {
			best = i
		}
	}
	if tau < 1e-6 || res.Visits[best] == 0 {
		return best
	}
	logMax := math.Log(float64(res.Visits[best]))
	weights := make([]float64, len(res.Visits))
	sum := 0.0
	for i, v := range res.Visits {
		if v > 0 {
			weights[i] = math.Exp((math.Log(float64(v)) - logMax) / tau)
			sum += weights[i]
		}
	}
	u := s.rng.Float64() * sum
	for i, w := range weights {
		if u < w {
			return i
		}
		u -= w
	}
	return best
}

// grow returns buf resized to n, reallocating only when needed.
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	return buf[:n]
}
