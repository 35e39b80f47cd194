package connect4

import "github.com/zerokit/zerokit/env"

// GridSize is the board's columns and rows (env.Grid).
func (g *Game) GridSize() (width, height int) { return g.cols, g.rows }

// GridCell describes column x of row y counted from the top: X is player
// 0's disc, O player 1's.
func (g *Game) GridCell(s env.State, x, y int) env.Cell {
	return env.Cell{Piece: int(s.(*State).board[(g.rows-1-y)*g.cols+x]) - 1, Owner: -1}
}

// ActionCells gives the cell where a disc dropped into column a lands
// (from and to alike), or -1, -1 for a full column.
func (g *Game) ActionCells(s env.State, a int) (from, to int) {
	if a < 0 || a >= g.cols {
		return -1, -1
	}
	h := int(s.(*State).height[a])
	if h == g.rows {
		return -1, -1
	}
	c := (g.rows-1-h)*g.cols + a
	return c, c
}
