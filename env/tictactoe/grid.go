package tictactoe

import "github.com/zerokit/zerokit/env"

// GridSize is the board's 3 x 3 (env.Grid).
func (Game) GridSize() (width, height int) { return Size, Size }

// GridCell describes cell (x, y) of s: X is player 0's piece, O player 1's.
func (Game) GridCell(s env.State, x, y int) env.Cell {
	return env.Cell{Piece: int(s.(*State).board[y*Size+x]) - 1, Owner: -1}
}

// ActionCells gives the cell an action marks (from and to alike).
func (Game) ActionCells(_ env.State, a int) (from, to int) {
	if a < 0 || a >= Cells {
		return -1, -1
	}
	return a, a
}
