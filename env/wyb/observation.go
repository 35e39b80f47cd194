package wyb

import "math/bits"

// NumPlanes is the number of 8x8 planes in an observation.
const NumPlanes = 11

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
)

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
}
