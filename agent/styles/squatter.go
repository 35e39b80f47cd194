package styles

import (
	"context"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/squatter"
)

// BlockerEval is the blocker's evaluation of a Squatter state: its own
// score minus four times the opponent's, so that stopping a capture is
// worth more than making one.
func BlockerEval(s env.State, player int) float64 {
	q := s.(*squatter.State)
	return float64(q.Score(player) - 4*q.Score(1-player))
}

// Mirror is the point-symmetric player of Squatter: it answers a move on
// (x, y) with (N-1-x, N-1-y). It keeps no record of the moves: it plays the
// mirror image of an opponent's piece whose image is free (after the
// opponent's move in a mirrored game, exactly the last one's), and asks
// its fallback (the blocker) when there is none, as when it moves first
// or the image is taken.
type Mirror struct {
	n        int
	fallback agent.Agent
}

// Name returns "mirror".
func (m *Mirror) Name() string { return MirrorName }

// Act plays the mirror image of the opponent's last move, else the
// fallback's move.
func (m *Mirror) Act(ctx context.Context, s env.State) (int, error) {
	if err := agent.Cancelled(ctx); err != nil {
		return 0, err
	}
	if a, ok := MirrorMove(s.(*squatter.State)); ok {
		return a, nil
	}
	return m.fallback.Act(ctx, s)
}

// MirrorMove returns the free cell point-symmetric to a cell holding a
// piece of the opponent of the player to move in s, the one with the
// lowest index if there are several; ok is false when there is none.
func MirrorMove(s *squatter.State) (action int, ok bool) {
	n := s.N()
	me := s.ToMove()
	for c := range n * n {
		if s.CellAt(c).Piece != 1-me {
			continue
		}
		img := n*n - 1 - c
		if s.CellAt(img).Free() {
			return img, true
		}
	}
	return 0, false
}
