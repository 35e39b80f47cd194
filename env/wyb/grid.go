package wyb

import "github.com/zerokit/zerokit/env"

// GridSize is the board's 8 x 8 (env.Grid).
func (g *Game) GridSize() (width, height int) { return Size, Size }

// GridCell describes square (x, y) of s: a piece, a corner, a removed
// square or an empty one.
func (g *Game) GridCell(s env.State, x, y int) env.Cell {
	c := env.Cell{Piece: -1, Owner: -1}
	switch s.(*State).At(x, y) {
	case White:
		c.Piece = WhitePlayer
	case Black:
		c.Piece = BlackPlayer
	case Corner:
		c.Corner = true
	case Removed:
		c.Removed = true
	}
	return c
}

// ActionCells gives the square a place puts a piece on (from and to
// alike), the start and end squares of a step or jump, and -1, -1 for a
// pass.
func (g *Game) ActionCells(_ env.State, a int) (from, to int) {
	kind, fx, fy, tx, ty := DecodeAction(a)
	if kind == PassKind || kind == InvalidKind || !onBoard(tx, ty) {
		return -1, -1
	}
	return square(fx, fy), square(tx, ty)
}
