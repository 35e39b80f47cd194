package mcts

// A search whose deadline passes: the move it falls back on, and the
// context helpers that tell a deadline from a cancellation.

import (
	"context"
	"errors"

	"github.com/zerokit/zerokit/env"
)

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
