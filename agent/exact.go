package agent

import (
	"context"
	"errors"
	"math"
	"slices"
	"time"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/mcts"
)

// Exact search before the table (see exactImprove): it checks the search's
// choice in positions at most ExactHorizon actions from the table
// (env.TableDistancer), on at most ExactNodes positions and the half of
// the move's time the search leaves it. Three million positions take about
// a second on the reference machine (BenchmarkExactImprove).
const (
	ExactHorizon = 12
	ExactNodes   = 4_000_000
)

// errExactBudget ends an exact search that ran out of nodes or time.
var errExactBudget = errors.New("agent: exact search budget spent")

// exactSolver is a depth-first alpha-beta search whose leaves are exact:
// ends of the game and positions of the tablebase. It proves the value of
// positions from which every line soon reaches the table (in Watch Your
// Back!, the last actions before the second shrink, where the shrink
// decides what the table then knows), and gives up, within its node
// budget, where lines go on longer.
type exactSolver struct {
	ctx   context.Context
	tb    env.Tablebase
	tt    *exactTable
	nodes int
	limit int
	legal [][]int // per depth, reused
	// history counts, by action, the cutoffs an action caused (weighted
	// towards those near the root): actions that refuted one line tend
	// to refute its neighbours, so each node tries them first.
	history []uint64
}

// exactTable is the exact search's transposition table: the bounds it
// proved, by position (env.State.Hash, which in Watch Your Back! holds the
// pieces, the turn and the shrinks). A value proved to the table stays
// true, so one table serves every search of an agent with the same
// tablebase. Each slot keeps the latest position that hashed to it.
type exactTable struct {
	slots []exactSlot
}

type exactSlot struct {
	key   uint64
	value int8 // -1, 0 or 1 for the player to move
	bound int8 // 0: empty; boundExact, boundLower or boundUpper
	// move is the action that decided the bound (a cutoff or the best),
	// tried first when the position is searched again; -1 for none.
	move int16
}

const (
	boundExact = 1 + iota
	boundLower
	boundUpper
)

// exactTableSlots is the table's size: 2^19 slots of 16 bytes, 8 MB.
const exactTableSlots = 1 << 19

func newExactTable() *exactTable { return &exactTable{slots: make([]exactSlot, exactTableSlots)} }

func (t *exactTable) slot(key uint64) *exactSlot { return &t.slots[key&(exactTableSlots-1)] }

// exactSolve returns the exact value, for the player to move in s, of
// each legal action of s (in LegalActions order), or ok false when the
// search ran out of nodes (limit) or ctx ended first.
func exactSolve(ctx context.Context, s env.State, tb env.Tablebase, tt *exactTable, limit int) (actions []int, values []float32, ok bool) {
	if tb == nil || s.IsTerminal() {
		return nil, nil, false
	}
	x := &exactSolver{ctx: ctx, tb: tb, tt: tt, limit: limit}
	me := s.CurrentPlayer()
	actions = s.LegalActions(nil)
	values = make([]float32, len(actions))
	for i, a := range actions {
		next := s.Clone()
		if next.ApplyAction(a) != nil {
			return nil, nil, false
		}
		if next.IsTerminal() {
			values[i] = next.Returns()[me]
			continue
		}
		v, err := x.value(next, -1, 1, 1)
		if err != nil {
			return nil, nil, false
		}
		if next.CurrentPlayer() != me {
			v = -v
		}
		values[i] = v
	}
	return actions, values, true
}

// value is the exact value of s, not terminal, for its player to move,
// within the window [alpha, beta] (fail-soft alpha-beta: a value at or
// below alpha is an upper bound, at or above beta a lower bound; with the
// window [-1, 1] it is exact).
func (x *exactSolver) value(s env.State, alpha, beta float32, depth int) (float32, error) {
	x.nodes++
	if x.nodes > x.limit {
		return 0, errExactBudget
	}
	if x.nodes%4096 == 0 && x.ctx.Err() != nil {
		return 0, errExactBudget
	}
	me := s.CurrentPlayer()
	if v, _, ok := x.tb.Probe(s); ok {
		return v, nil
	}
	var slot *exactSlot
	key := s.Hash()
	if x.tt != nil {
		slot = x.tt.slot(key)
		if slot.bound != 0 && slot.key == key {
			v := float32(slot.value)
			switch {
			case slot.bound == boundExact,
				slot.bound == boundLower && v >= beta,
				slot.bound == boundUpper && v <= alpha:
				return v, nil
			case slot.bound == boundLower:
				alpha = max(alpha, v)
			case slot.bound == boundUpper:
				beta = min(beta, v)
			}
		}
	}
	alpha0 := alpha
	if len(x.legal) <= depth {
		x.legal = append(x.legal, make([][]int, depth+1-len(x.legal))...)
	}
	x.legal[depth] = s.LegalActions(x.legal[depth])
	first := -1
	if slot != nil && slot.bound != 0 && slot.key == key {
		first = int(slot.move)
	}
	legal := x.order(x.legal[depth], first)
	best, bestMove := float32(-1), -1
	for i, a := range legal {
		next := s.Clone()
		if err := next.ApplyAction(a); err != nil {
			return 0, err
		}
		var v float32
		switch {
		case next.IsTerminal():
			v = next.Returns()[me]
			x.nodes++
		case next.CurrentPlayer() == me:
			w, err := x.value(next, alpha, beta, depth+1)
			if err != nil {
				return 0, err
			}
			v = w
		default:
			w, err := x.value(next, -beta, -alpha, depth+1)
			if err != nil {
				return 0, err
			}
			v = -w
		}
		if i == 0 || v > best {
			best, bestMove = v, a
		}
		alpha = max(alpha, best)
		if alpha >= beta {
			x.credit(a, depth)
			break
		}
	}
	if slot != nil {
		bound := int8(boundExact)
		switch {
		case best <= alpha0:
			bound = boundUpper
		case best >= beta:
			bound = boundLower
		}
		move := int16(-1)
		if bestMove >= 0 && bestMove <= math.MaxInt16 {
			move = int16(bestMove)
		}
		*slot = exactSlot{key: key, value: int8(best), bound: bound, move: move}
	}
	return best, nil
}

// order sorts legal in place for the search: first (the table's move for
// the position, or -1) first, then by history, most cutoffs first, ties in
// legal's order.
func (x *exactSolver) order(legal []int, first int) []int {
	h := func(a int) uint64 {
		switch {
		case a == first:
			return math.MaxUint64
		case a < len(x.history):
			return x.history[a]
		}
		return 0
	}
	// Insertion sort: a node has tens of actions, and it is stable.
	for i := 1; i < len(legal); i++ {
		a, ha := legal[i], h(legal[i])
		j := i
		for ; j > 0 && h(legal[j-1]) < ha; j-- {
			legal[j] = legal[j-1]
		}
		legal[j] = a
	}
	return legal
}

// credit records a cutoff by action a at depth: the nearer the root, the
// larger the subtree it saved and the more it counts.
func (x *exactSolver) credit(a, depth int) {
	if a >= len(x.history) {
		x.history = append(x.history, make([]uint64, a+1-len(x.history))...)
	}
	x.history[a] += 1 << max(0, 20-depth)
}

// exactApplies reports whether s is at most ExactHorizon actions before
// the table and not in it: where the exact search runs.
func exactApplies(s env.State, tb env.Tablebase) bool {
	d, isDist := s.(env.TableDistancer)
	if !isDist || tb == nil || s.IsTerminal() {
		return false
	}
	if n, ok := d.TableDistance(); !ok || n < 1 || n > ExactHorizon {
		return false
	}
	_, _, in := tb.Probe(s)
	return !in
}

// exactImprove checks the search's choice res.Action in s (where
// exactApplies) with the exact search, within ctx and limit positions: it proves the chosen action's value, then tries the other
// actions in the order of the search's visits, each only for a value
// above the best proven so far (a root alpha-beta ordered by the search).
// It returns the first action in that order proven better than every
// action before it, if that is not res.Action; what it proved before its
// budget ran out stands, so a partial search can still replace a losing
// choice. Proving the chosen action lost takes one refutation, and an
// alternative only has to be shown better than that, so it reaches further
// than solving every action (exactSolve).
func exactImprove(ctx context.Context, s env.State, tb env.Tablebase, tt *exactTable, res mcts.Result, limit int) (action int, ok bool) {
	x := &exactSolver{ctx: ctx, tb: tb, tt: tt, limit: limit}
	return x.improve(s, res)
}

// improve is exactImprove with x's context, table and node limit.
func (x *exactSolver) improve(s env.State, res mcts.Result) (action int, ok bool) {
	order := byVisits(s.LegalActions(nil), res)
	if len(order) < 2 || order[0] != res.Action {
		return 0, false
	}
	best, err := x.actionValue(s, res.Action, -1, 1)
	if err != nil {
		return 0, false
	}
	action = res.Action
	for _, a := range order[1:] {
		if best >= 1 {
			break
		}
		v, err := x.actionValue(s, a, best, 1)
		if err != nil {
			break
		}
		if v > best { // fail-soft: above alpha is a proven lower bound
			best, action = v, a
		}
	}
	return action, action != res.Action
}

// actionValue is the value of action a of s for s's player to move, proven
// within [alpha, beta] (fail-soft: at or below alpha an upper bound, at or
// above beta a lower bound).
func (x *exactSolver) actionValue(s env.State, a int, alpha, beta float32) (float32, error) {
	me := s.CurrentPlayer()
	next := s.Clone()
	if err := next.ApplyAction(a); err != nil {
		return 0, err
	}
	switch {
	case next.IsTerminal():
		return next.Returns()[me], nil
	case next.CurrentPlayer() == me:
		return x.value(next, alpha, beta, 1)
	default:
		v, err := x.value(next, -beta, -alpha, 1)
		return -v, err
	}
}

// byVisits returns legal ordered by the search's visits in res, most
// first (ties: the search's order, then legal's), with res.Action first.
func byVisits(legal []int, res mcts.Result) []int {
	visits := make(map[int]int, len(res.Actions))
	rank := make(map[int]int, len(res.Actions))
	for i, a := range res.Actions {
		if i < len(res.Visits) {
			visits[a] = res.Visits[i]
		}
		rank[a] = i
	}
	pos := func(a int) int {
		if r, ok := rank[a]; ok {
			return r
		}
		return len(res.Actions)
	}
	order := slices.Clone(legal)
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case a == res.Action:
			return -1
		case b == res.Action:
			return 1
		case visits[a] != visits[b]:
			return visits[b] - visits[a]
		}
		return pos(a) - pos(b)
	})
	return order
}

// halfTime is ctx with half of the time to its deadline, if it has one.
func halfTime(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Deadline(); ok {
		return context.WithDeadline(ctx, time.Now().Add(time.Until(d)/2))
	}
	return context.WithCancel(ctx)
}
