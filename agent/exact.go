package agent

import (
	"context"
	"errors"
	"time"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/mcts"
)

// Exact search before the table (see exactSolve): it is tried in
// positions at most ExactHorizon actions from the table
// (env.TableDistancer), on at most ExactNodes positions and half the
// move's time. A million positions take about a second on the reference
// machine: Watch Your Back! positions 7 or 8 actions before the second
// shrink need up to two.
const (
	ExactHorizon = 8
	ExactNodes   = 1_000_000
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
	nodes int
	limit int
	legal [][]int // per depth, reused
}

// exactSolve returns the exact value, for the player to move in s, of
// each legal action of s (in LegalActions order), or ok false when the
// search ran out of nodes (limit) or ctx ended first.
func exactSolve(ctx context.Context, s env.State, tb env.Tablebase, limit int) (actions []int, values []float32, ok bool) {
	if tb == nil || s.IsTerminal() {
		return nil, nil, false
	}
	x := &exactSolver{ctx: ctx, tb: tb, limit: limit}
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
	if len(x.legal) <= depth {
		x.legal = append(x.legal, make([][]int, depth+1-len(x.legal))...)
	}
	x.legal[depth] = s.LegalActions(x.legal[depth])
	best := float32(-1)
	for i := 0; i < len(x.legal[depth]); i++ {
		next := s.Clone()
		if err := next.ApplyAction(x.legal[depth][i]); err != nil {
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
			best = v
		}
		alpha = max(alpha, best)
		if alpha >= beta {
			break
		}
	}
	return best, nil
}

// exactValues runs the exact search before the table when s is at most
// ExactHorizon actions from it and not in it, on at most half the time
// left to ctx's deadline: the exact value of each legal action (as
// exactSolve), or ok false.
func exactValues(ctx context.Context, s env.State, tb env.Tablebase) (actions []int, values []float32, ok bool) {
	d, isDist := s.(env.TableDistancer)
	if !isDist || tb == nil {
		return nil, nil, false
	}
	if n, ok := d.TableDistance(); !ok || n < 1 || n > ExactHorizon {
		return nil, nil, false
	}
	if _, _, in := tb.Probe(s); in {
		return nil, nil, false
	}
	ctx, cancel := halfTime(ctx)
	defer cancel()
	return exactSolve(ctx, s, tb, ExactNodes)
}

// exactChoice returns the action to play instead of the search's choice
// res.Action when the exact values (of actions, as exactValues) prove it
// worth less than another: of the best actions, the one the search
// visited most.
func exactChoice(res mcts.Result, actions []int, values []float32) (action int, ok bool) {
	best := float32(-2)
	var mine float32 = -2
	for i, a := range actions {
		best = max(best, values[i])
		if a == res.Action {
			mine = values[i]
		}
	}
	if mine >= best {
		return 0, false
	}
	visits := make(map[int]int, len(res.Actions))
	for i, a := range res.Actions {
		if i < len(res.Visits) {
			visits[a] = res.Visits[i]
		}
	}
	action = -1
	for i, a := range actions {
		if values[i] == best && (action < 0 || visits[a] > visits[action]) {
			action = a
		}
	}
	return action, action >= 0
}

// halfTime is ctx with half of the time to its deadline, if it has one.
func halfTime(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Deadline(); ok {
		return context.WithDeadline(ctx, time.Now().Add(time.Until(d)/2))
	}
	return context.WithCancel(ctx)
}
