package squatter

import "github.com/zerokit/zerokit/env"

// GridSize is the board's N x N (env.Grid).
func (g *Game) GridSize() (width, height int) { return g.n, g.n }

// GridCell describes cell (x, y) of s: its piece and the owner of the
// territory it lies in (a piece inside the other player's territory is
// captured).
func (g *Game) GridCell(s env.State, x, y int) env.Cell {
	cs := s.(*State).Cell(x, y)
	return env.Cell{Piece: cs.Piece, Owner: cs.Owner, Removed: cs.OffBoard}
}

// ActionCells gives the cell an action places on (from and to alike).
func (g *Game) ActionCells(_ env.State, a int) (from, to int) {
	if a < 0 || a >= g.cells {
		return -1, -1
	}
	return a, a
}
