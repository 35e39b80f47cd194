package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/zerokit/zerokit/env"
)

// WinScore is the search score of a won game. A win reached p plies below
// the root scores WinScore-p (a loss -(WinScore-p)), so the searcher prefers
// faster wins and slower losses. Heuristic values are clamped to
// ±WinScore/2.
const WinScore = 1e6

// DefaultQuiescence is the quiescence depth used when
// AlphaBetaConfig.Quiescence is 0.
const DefaultQuiescence = 4

// maxPly bounds search depth; scores beyond WinScore-maxPly in absolute value
// are decided results rather than heuristic estimates.
const maxPly = 1000

// decided reports whether a search score is a proven win or loss.
func decided(score float64) bool { return math.Abs(score) > WinScore-maxPly }

// AlphaBetaConfig configures an AlphaBeta searcher. At least one of Depth and
// MoveTime must be set; when both are, the search stops at whichever comes
// first. A deadline on the context passed to Act also ends the search.
type AlphaBetaConfig struct {
	// Depth is the maximum search depth in plies (0: no depth limit).
	Depth int
	// MoveTime is the time budget per move (0: no time limit). Iterative
	// deepening always completes depth 1, then stops when the budget runs
	// out and plays the best move of the last completed depth.
	MoveTime time.Duration
	// TTBits is log2 of the number of transposition table entries (0: 18,
	// about 8 MB).
	TTBits int
	// Seed orders equally promising root moves, so that different seeds
	// play different games and the same seed plays the same one.
	Seed uint64
	// Quiescence is the number of plies by which, when the heuristic
	// implements Tactical, the search extends at the horizon with tactical
	// actions (captures) only: 0 means DefaultQuiescence, negative
	// disables quiescence search.
	Quiescence int
	// Name overrides the default name ("alphabeta-d3", "alphabeta-100ms").
	Name string
}

// SearchResult describes one alpha-beta search.
type SearchResult struct {
	// Action is the chosen action.
	Action int
	// Score is its value for the player to move, in heuristic units, or
	// ±(WinScore - plies) for a proven win or loss.
	Score float64
	// Depth is the deepest completed iteration (depth 1 always
	// completes unless the context is cancelled).
	Depth int
	// Nodes is the number of states searched.
	Nodes int64
	// Elapsed is the wall time of the search.
	Elapsed time.Duration
}

// SearchStats accumulates SearchResults over the moves of a game.
type SearchStats struct {
	// Moves is the number of searches.
	Moves int
	// Nodes is the total number of states searched.
	Nodes int64
	// DepthSum is the sum of the completed depths (DepthSum/Moves is the
	// mean depth).
	DepthSum int
	// Elapsed is the total search time and MaxElapsed the longest search.
	Elapsed    time.Duration
	MaxElapsed time.Duration
}

// AlphaBeta is a negamax alpha-beta searcher with iterative deepening, a
// transposition table keyed by State.Hash, move ordering by
// transposition-table move, static evaluation of the children (at depth 2
// and more), killer moves and the history heuristic, and a quiescence
// search over captures when the heuristic implements Tactical. With a depth
// limit and no time limit its play is a deterministic function of the seed.
type AlphaBeta struct {
	cfg  AlphaBetaConfig
	name string
	h    Heuristic
	rng  *rand.Rand

	tt      []ttEntry
	ttMask  uint64
	killers [][2]int
	history []int64
	plies   []plyBuf

	ctx         context.Context
	deadline    time.Time
	hasDeadline bool
	timed       bool
	nodes       int64
	aborted     bool
	err         error
	horizon     bool

	stats SearchStats
}

// plyBuf holds the move list of one ply, reused between nodes.
type plyBuf struct {
	legal []int
	moves []move
}

// move is a candidate action with its ordering key and, when the ordering
// needed it, the resulting state.
type move struct {
	action int
	key    float64
	child  env.State
}

// ttEntry is one transposition table slot.
type ttEntry struct {
	key   uint64
	score float64
	move  int32
	depth int16
	flag  uint8
}

const (
	ttEmpty uint8 = iota
	ttExact
	ttLower
	ttUpper
)

// NewAlphaBeta returns an alpha-beta searcher for game using evaluation h.
func NewAlphaBeta(game env.Game, h Heuristic, cfg AlphaBetaConfig) (*AlphaBeta, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if h == nil {
		return nil, errors.New("alphabeta: nil heuristic")
	}
	if cfg.TTBits == 0 {
		cfg.TTBits = 18
	}
	switch {
	case cfg.Quiescence == 0:
		cfg.Quiescence = DefaultQuiescence
	case cfg.Quiescence < 0:
		cfg.Quiescence = 0
	}
	name := cfg.Name
	if name == "" {
		switch {
		case cfg.MoveTime == 0:
			name = fmt.Sprintf("alphabeta-d%d", cfg.Depth)
		case cfg.Depth == 0:
			name = fmt.Sprintf("alphabeta-%v", cfg.MoveTime)
		default:
			name = fmt.Sprintf("alphabeta-d%d-%v", cfg.Depth, cfg.MoveTime)
		}
	}
	return &AlphaBeta{
		cfg:     cfg,
		name:    name,
		h:       h,
		rng:     rand.New(rand.NewPCG(cfg.Seed, alphaBetaStream)),
		tt:      make([]ttEntry, 1<<cfg.TTBits),
		ttMask:  1<<cfg.TTBits - 1,
		history: make([]int64, game.NumActions()),
	}, nil
}

// validate checks the configuration.
func (cfg AlphaBetaConfig) validate() error {
	if cfg.Depth < 0 || cfg.MoveTime < 0 {
		return fmt.Errorf("alphabeta: negative depth %d or move time %v", cfg.Depth, cfg.MoveTime)
	}
	if cfg.Depth == 0 && cfg.MoveTime == 0 {
		return errors.New("alphabeta: set a depth limit, a move time, or both")
	}
	if cfg.Quiescence > maxPly/4 {
		return fmt.Errorf("alphabeta: quiescence depth %d exceeds the limit %d", cfg.Quiescence, maxPly/4)
	}
	if cfg.Depth > maxPly/2 {
		return fmt.Errorf("alphabeta: depth %d exceeds the limit %d", cfg.Depth, maxPly/2)
	}
	if cfg.TTBits != 0 && (cfg.TTBits < 4 || cfg.TTBits > 28) {
		return fmt.Errorf("alphabeta: TTBits %d outside [4, 28]", cfg.TTBits)
	}
	return nil
}

// AlphaBetaFactory builds alpha-beta players for game with its evaluation
// heuristic (see Evaluation) and cfg, each with the factory's seed.
func AlphaBetaFactory(game env.Game, cfg AlphaBetaConfig) (Factory, error) {
	h, err := Evaluation(game)
	if err != nil {
		return nil, err
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return func(seed uint64) (Agent, error) {
		c := cfg
		c.Seed = seed
		return NewAlphaBeta(game, h, c)
	}, nil
}

// Name returns the configured or default name.
func (ab *AlphaBeta) Name() string { return ab.name }

// Stats returns the totals over the searches made so far.
func (ab *AlphaBeta) Stats() SearchStats { return ab.stats }

// Act searches s and returns the best action found.
func (ab *AlphaBeta) Act(ctx context.Context, s env.State) (int, error) {
	r, err := ab.Search(ctx, s)
	if err != nil {
		return 0, err
	}
	return r.Action, nil
}

// Search runs iterative deepening from s (which it does not modify) until
// the depth limit, the move time or ctx's deadline, or until the result is
// decided. It returns ctx.Err() if ctx is cancelled (a passed deadline only
// stops the search).
func (ab *AlphaBeta) Search(ctx context.Context, s env.State) (SearchResult, error) {
	start := time.Now()
	if err := Cancelled(ctx); err != nil {
		return SearchResult{}, err
	}
	if s.IsTerminal() {
		return SearchResult{}, ErrTerminal
	}
	ab.ctx, ab.nodes, ab.aborted, ab.err = ctx, 0, false, nil
	ab.hasDeadline = false
	if ab.cfg.MoveTime > 0 {
		ab.deadline, ab.hasDeadline = start.Add(ab.cfg.MoveTime), true
	}
	if d, ok := ctx.Deadline(); ok && (!ab.hasDeadline || d.Before(ab.deadline)) {
		ab.deadline, ab.hasDeadline = d, true
	}
	for i := range ab.history {
		ab.history[i] /= 8
	}

	me := s.CurrentPlayer()
	root, err := ab.rootMoves(s, me)
	if err != nil {
		return SearchResult{}, err
	}
	res := SearchResult{Action: root[0].action, Score: root[0].key}
	maxDepth := ab.cfg.Depth
	if maxDepth == 0 {
		maxDepth = maxPly / 2
	}
	for depth := 1; depth <= maxDepth; depth++ {
		ab.horizon = false
		ab.timed = depth > 1
		alpha, best, bestScore := math.Inf(-1), -1, math.Inf(-1)
		for i := range root {
			v := ab.childValue(root[i].child, me, depth, 0, alpha, math.Inf(1))
			if ab.aborted {
				break
			}
			if v > bestScore {
				best, bestScore = i, v
				alpha = v
			}
		}
		if ab.err != nil {
			return SearchResult{}, ab.err
		}
		if ab.aborted {
			if depth == 1 {
				// Depth 1 ignores the time budget, so only a cancelled
				// context stops it.
				return SearchResult{}, ab.ctx.Err()
			}
			break
		}
		res.Action, res.Score, res.Depth = root[best].action, bestScore, depth
		// The best move leads the next iteration; the others keep their
		// order.
		m := root[best]
		copy(root[1:best+1], root[:best])
		root[0] = m
		if decided(bestScore) || !ab.horizon {
			break
		}
	}
	if ab.err != nil {
		return SearchResult{}, ab.err
	}
	if err := Cancelled(ctx); err != nil {
		return SearchResult{}, err
	}
	res.Nodes = ab.nodes
	res.Elapsed = time.Since(start)
	ab.stats.Moves++
	ab.stats.Nodes += res.Nodes
	ab.stats.DepthSum += res.Depth
	ab.stats.Elapsed += res.Elapsed
	ab.stats.MaxElapsed = max(ab.stats.MaxElapsed, res.Elapsed)
	return res, nil
}

// rootMoves returns the root's children in search order: shuffled by the
// seed, then stably sorted by static evaluation (so the seed decides
// between equally evaluated moves).
func (ab *AlphaBeta) rootMoves(s env.State, me int) ([]move, error) {
	legal := s.LegalActions(nil)
	if len(legal) == 0 {
		return nil, ErrTerminal
	}
	ab.rng.Shuffle(len(legal), func(i, j int) { legal[i], legal[j] = legal[j], legal[i] })
	root := make([]move, len(legal))
	for i, a := range legal {
		child := s.Clone()
		if err := child.ApplyAction(a); err != nil {
			return nil, fmt.Errorf("alphabeta: legal action %s rejected: %w", s.ActionString(a), err)
		}
		root[i] = move{action: a, child: child, key: ab.staticValue(child, me, 1)}
	}
	slices.SortStableFunc(root, func(x, y move) int { return cmp.Compare(y.key, x.key) })
	return root, nil
}

// staticValue scores child (reached at the given ply) for mover without
// search: the terminal score if it is over, else the clamped heuristic.
func (ab *AlphaBeta) staticValue(child env.State, mover, ply int) float64 {
	if child.IsTerminal() {
		return terminalScore(child.Returns()[mover], ply)
	}
	return ab.evaluate(child, mover)
}

// evaluate is the clamped heuristic value of s for player.
func (ab *AlphaBeta) evaluate(s env.State, player int) float64 {
	return max(-WinScore/2, min(WinScore/2, ab.h.Evaluate(s, player)))
}

// terminalScore converts a game return into a search score at ply.
func terminalScore(ret float32, ply int) float64 {
	switch {
	case ret > 0:
		return WinScore - float64(ply)
	case ret < 0:
		return -(WinScore - float64(ply))
	}
	return 0
}

// childValue is the value for mover of child, a state reached from a node
// at ply where mover was to move and depth plies were left.
func (ab *AlphaBeta) childValue(child env.State, mover, depth, ply int, alpha, beta float64) float64 {
	if child.IsTerminal() {
		return terminalScore(child.Returns()[mover], ply+1)
	}
	if child.CurrentPlayer() == mover {
		return ab.search(child, depth-1, ply+1, alpha, beta)
	}
	return -ab.search(child, depth-1, ply+1, -beta, -alpha)
}

// checkAbort stops the search when ctx is cancelled or, after depth 1, when
// the deadline has passed.
func (ab *AlphaBeta) checkAbort() {
	if err := ab.ctx.Err(); err != nil {
		if ab.timed || !errors.Is(err, context.DeadlineExceeded) {
			ab.aborted = true
		}
		return
	}
	if ab.timed && ab.hasDeadline && time.Now().After(ab.deadline) {
		ab.aborted = true
	}
}

// search returns the negamax value of the non-terminal state s for its
// player to move, searched depth plies deep.
func (ab *AlphaBeta) search(s env.State, depth, ply int, alpha, beta float64) float64 {
	ab.nodes++
	if ab.nodes&1023 == 0 {
		ab.checkAbort()
	}
	if ab.aborted {
		return 0
	}
	me := s.CurrentPlayer()
	if depth <= 0 || ply >= maxPly-1 {
		ab.horizon = true
		if t, ok := ab.h.(Tactical); ok && ab.cfg.Quiescence > 0 && ply < maxPly-ab.cfg.Quiescence-1 {
			return ab.quiesce(t, s, ply, ab.cfg.Quiescence, alpha, beta)
		}
		return ab.evaluate(s, me)
	}

	key := s.Hash()
	e := &ab.tt[key&ab.ttMask]
	ttMove := -1
	if e.flag != ttEmpty && e.key == key {
		if s.IsLegal(int(e.move)) {
			ttMove = int(e.move)
		}
		if int(e.depth) >= depth {
			score := fromTT(e.score, ply)
			cut := false
			switch e.flag {
			case ttExact:
				cut = true
			case ttLower:
				cut = score >= beta
			case ttUpper:
				cut = score <= alpha
			}
			if cut {
				if !decided(score) {
					ab.horizon = true
				}
				return score
			}
		}
	}

	moves := ab.orderMoves(s, me, depth, ply, ttMove)
	if ab.err != nil {
		ab.aborted = true
		return 0
	}
	alphaOrig := alpha
	best, bestMove := math.Inf(-1), -1
	for i := range moves {
		m := &moves[i]
		child := m.child
		if child == nil {
			child = s.Clone()
			if err := child.ApplyAction(m.action); err != nil {
				ab.err = fmt.Errorf("alphabeta: legal action %s rejected: %w", s.ActionString(m.action), err)
				ab.aborted = true
				return 0
			}
		}
		m.child = nil
		v := ab.childValue(child, me, depth, ply, alpha, beta)
		if ab.aborted {
			return 0
		}
		if v > best {
			best, bestMove = v, m.action
		}
		alpha = max(alpha, v)
		if alpha >= beta {
			ab.recordCutoff(m.action, depth, ply)
			break
		}
	}

	flag := ttExact
	switch {
	case best <= alphaOrig:
		flag = ttUpper
	case best >= beta:
		flag = ttLower
	}
	*e = ttEntry{key: key, score: toTT(best, ply), move: int32(bestMove), depth: int16(depth), flag: flag}
	return best
}

// quiesce extends the search at the horizon with tactical actions only (as
// the heuristic defines them, e.g. captures), up to left plies: the player
// to move may stand on the static evaluation or try a tactical action.
func (ab *AlphaBeta) quiesce(t Tactical, s env.State, ply, left int, alpha, beta float64) float64 {
	me := s.CurrentPlayer()
	stand := ab.evaluate(s, me)
	if stand >= beta || left == 0 || !t.HasTactical(s) {
		return stand
	}
	best := stand
	alpha = max(alpha, stand)
	for len(ab.plies) <= ply {
		ab.plies = append(ab.plies, plyBuf{})
		ab.killers = append(ab.killers, [2]int{-1, -1})
	}
	buf := &ab.plies[ply]
	buf.legal = s.LegalActions(buf.legal)
	for _, a := range buf.legal {
		child := s.Clone()
		if err := child.ApplyAction(a); err != nil {
			ab.err = fmt.Errorf("alphabeta: legal action %s rejected: %w", s.ActionString(a), err)
			ab.aborted = true
			return 0
		}
		var v float64
		switch {
		case child.IsTerminal():
			v = terminalScore(child.Returns()[me], ply+1)
		case !t.IsTactical(s, child):
			continue
		case child.CurrentPlayer() == me:
			ab.nodes++
			v = ab.quiesce(t, child, ply+1, left-1, alpha, beta)
		default:
			ab.nodes++
			v = -ab.quiesce(t, child, ply+1, left-1, -beta, -alpha)
		}
		if ab.aborted {
			return 0
		}
		best = max(best, v)
		alpha = max(alpha, v)
		if alpha >= beta {
			break
		}
	}
	return best
}

// recordCutoff updates the killer and history tables after action caused a
// beta cutoff.
func (ab *AlphaBeta) recordCutoff(action, depth, ply int) {
	k := &ab.killers[ply]
	if k[0] != action {
		k[1], k[0] = k[0], action
	}
	ab.history[action] += int64(depth * depth)
}

// orderMoves lists s's legal actions in search order: the transposition
// table move, then (at depth >= 2) by static value of the resulting state,
// or (at depth 1, where that would cost as much as the search) killers
// first, then by history score. The returned slice is reused at this ply.
func (ab *AlphaBeta) orderMoves(s env.State, me, depth, ply int, ttMove int) []move {
	for len(ab.plies) <= ply {
		ab.plies = append(ab.plies, plyBuf{})
		ab.killers = append(ab.killers, [2]int{-1, -1})
	}
	buf := &ab.plies[ply]
	buf.legal = s.LegalActions(buf.legal)
	buf.moves = buf.moves[:0]
	k := ab.killers[ply]
	for _, a := range buf.legal {
		m := move{action: a}
		switch {
		case a == ttMove:
			m.key = math.Inf(1)
		case depth >= 2:
			child := s.Clone()
			if err := child.ApplyAction(a); err != nil {
				ab.err = fmt.Errorf("alphabeta: legal action %s rejected: %w", s.ActionString(a), err)
				return nil
			}
			m.child = child
			m.key = ab.staticValue(child, me, ply+1)
		case a == k[0]:
			m.key = math.MaxFloat64
		case a == k[1]:
			m.key = math.MaxFloat64 / 2
		default:
			m.key = float64(ab.history[a])
		}
		buf.moves = append(buf.moves, m)
	}
	slices.SortStableFunc(buf.moves, func(x, y move) int { return cmp.Compare(y.key, x.key) })
	return buf.moves
}

// toTT converts a score relative to the root into one relative to the node
// at ply, so decided scores can be reused at other plies.
func toTT(score float64, ply int) float64 {
	switch {
	case score > WinScore-maxPly:
		return score + float64(ply)
	case score < -(WinScore - maxPly):
		return score - float64(ply)
	}
	return score
}

// fromTT is the inverse of toTT.
func fromTT(score float64, ply int) float64 {
	switch {
	case score > WinScore-maxPly:
		return score - float64(ply)
	case score < -(WinScore - maxPly):
		return score + float64(ply)
	}
	return score
}
