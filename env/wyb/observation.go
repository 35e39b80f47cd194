package wyb

import (
	"math/bits"

	"github.com/zerokit/zerokit/env"
)

// NumPlanes is the number of 8x8 planes in an observation.
const NumPlanes = 15

// Observation planes, from the point of view of the player to move ("own" =
// the mover, "opp" = the other player). The board is never flipped: plane
// PlaneMoverIsWhite says which colour the mover is, because the game is not
// symmetric between the colours (zones, move order, corner order).
//
// Each plane is 64 values, cell y*8+x. Binary planes are 0/1; scalar planes
// hold one value in every cell.
const (
	// PlaneOwn: the mover's pieces.
	PlaneOwn = iota
	// PlaneOpp: the opponent's pieces.
	PlaneOpp
	// PlaneCorners: corner squares.
	PlaneCorners
	// PlaneRemoved: squares removed by shrinking.
	PlaneRemoved
	// PlanePlaceable: squares where the mover may place now (all zero in
	// the moving phase).
	PlanePlaceable
	// PlanePlacing: all ones in the placing phase, zeros in the moving one.
	PlanePlacing
	// PlaneMoverIsWhite: all ones when the mover is White.
	PlaneMoverIsWhite
	// PlaneShrink: turns to the next shrink, TurnsToShrink()/128 clipped
	// to [0, 1]; 0 once no shrink is left (or the game is over).
	PlaneShrink
	// PlaneOwnToPlace: the mover's pieces left to place / 12.
	PlaneOwnToPlace
	// PlaneOppToPlace: the opponent's pieces left to place / 12.
	PlaneOppToPlace
	// PlaneProgress: moving turns played / L clipped to [0, 1], where L is
	// the turn limit, or DefaultTurnLimit when there is none (so with the
	// limit, 1 means the game is adjudicated now); 0 while placing.
	PlaneProgress
	// PlaneOwnThreatened: the mover's pieces the opponent could eliminate
	// with its next action if the mover passed (see ThreatenedBy).
	PlaneOwnThreatened
	// PlaneOppThreatened: the opponent's pieces the mover can eliminate
	// with this action.
	PlaneOppThreatened
	// PlaneNextShrink: the squares the next shrink takes away from play
	// (its ring and its new corners); all zero after the second shrink.
	PlaneNextShrink
	// PlaneShrinkNear: how close the next shrink is, 1 - (t-1)/ShrinkNear
	// clipped to [0, 1] for t = TurnsToShrink() (1 when this is the last
	// turn before it); 0 once no shrink is left.
	PlaneShrinkNear
)

// ShrinkNear is the number of turns before a shrink over which
// PlaneShrinkNear rises from 0 to 1.
const ShrinkNear = 24

// Observation writes the NumPlanes x 8 x 8 encoding described by the Plane
// constants into dst (length NumPlanes*64).
func (s *State) Observation(dst []float32) {
	dst = dst[:NumPlanes*NumSquares]
	clear(dst)
	p := s.mover()
	q := 1 - p
	setBits := func(plane int, m uint64) {
		out := dst[plane*NumSquares : (plane+1)*NumSquares]
		for ; m != 0; m &= m - 1 {
			out[bits.TrailingZeros64(m)] = 1
		}
	}
	fill := func(plane int, v float32) {
		if v == 0 {
			return
		}
		out := dst[plane*NumSquares : (plane+1)*NumSquares]
		for i := range out {
			out[i] = v
		}
	}
	setBits(PlaneOwn, s.b.pieces[p])
	setBits(PlaneOpp, s.b.pieces[q])
	setBits(PlaneCorners, s.b.corners)
	setBits(PlaneRemoved, ^s.b.live)
	if s.phase == Placing && s.outcome == Ongoing {
		setBits(PlanePlaceable, s.b.placeable(p))
		fill(PlanePlacing, 1)
	}
	if p == WhitePlayer {
		fill(PlaneMoverIsWhite, 1)
	}
	if t := s.TurnsToShrink(); t > 0 {
		fill(PlaneShrink, min(float32(t)/FirstShrink, 1))
	}
	fill(PlaneOwnToPlace, float32(s.ToPlace(p))/PiecesPerPlayer)
	fill(PlaneOppToPlace, float32(s.ToPlace(q))/PiecesPerPlayer)
	if s.phase == Moving {
		l := s.turnLimit
		if l == 0 {
			l = DefaultTurnLimit
		}
		fill(PlaneProgress, min(float32(s.turn)/float32(l), 1))
	}
	if s.outcome != Ongoing {
		return
	}
	setBits(PlaneOwnThreatened, s.ThreatenedBy(q))
	setBits(PlaneOppThreatened, s.ThreatenedBy(p))
	setBits(PlaneNextShrink, s.b.nextShrink())
	if t := s.TurnsToShrink(); t > 0 {
		fill(PlaneShrinkNear, max(0, 1-float32(t-1)/ShrinkNear))
	}
}

// ThreatenedBy returns the squares of player 1-p's pieces that player p
// could eliminate with one action if it were p's turn now: a placement in
// p's zone while p still has pieces to place, or else a step or a jump (in
// the placing phase, a player with nothing left to place threatens
// nothing). It is exact: it applies the elimination rule to every such
// action. When the shrink follows the action (TurnsToShrink is 1), it
// counts what the shrink then eliminates too, such as a piece caught
// between a new corner and a piece of p, but not the pieces on the squares
// the shrink takes away (NextShrinkSquares), which go whatever p does.
func (s *State) ThreatenedBy(p int) uint64 {
	p &= 1
	if s.phase == Placing {
		if s.ToPlace(p) == 0 {
			return 0
		}
		return s.b.threats(p, true)
	}
	if s.TurnsToShrink() == 1 {
		return s.b.shrinkThreats(p)
	}
	return s.b.threats(p, false)
}

// NextShrinkSquares returns the squares the next shrink takes away from
// play (the ring it removes and the squares that become corners), or 0 when
// both shrinks have happened.
func (s *State) NextShrinkSquares() uint64 { return s.b.nextShrink() }

var _ env.CellOwner = (*State)(nil)

// CellOwners implements env.CellOwner: the player whose piece stands on
// each square (cell y*8+x, as in observations), or -1 for an empty,
// corner or removed square.
func (s *State) CellOwners(dst []int8) {
	dst = dst[:NumSquares]
	for i := range dst {
		dst[i] = -1
	}
	for p, m := range s.b.pieces {
		for ; m != 0; m &= m - 1 {
			dst[bits.TrailingZeros64(m)] = int8(p)
		}
	}
}
