package env

// Grid is implemented by a Game played on a rectangular board of cells, so
// that a graphical front end (zerokit web) can draw its positions and let a
// person click its moves without knowing the game.
type Grid interface {
	// GridSize is the number of columns and rows of the board.
	GridSize() (width, height int)
	// GridCell describes the cell in column x, row y of s; both are in
	// range.
	GridCell(s State, x, y int) Cell
	// ActionCells gives the cells an action of the player to move in s
	// touches, as row*width+column: where it starts and where it ends (the
	// same cell for a placement), or -1, -1 for an action with no cell (a
	// pass).
	ActionCells(s State, action int) (from, to int)
}

// Cell is the content of one cell of a Grid.
type Cell struct {
	// Piece is the player whose piece is on the cell, or -1.
	Piece int `json:"piece"`
	// Owner is the player in whose territory the cell lies, or -1.
	Owner int `json:"owner"`
	// Corner marks a cell that acts as a piece of both players and never
	// holds one (Watch Your Back!'s corners).
	Corner bool `json:"corner,omitempty"`
	// Removed marks a cell no longer part of the board (Watch Your Back!'s
	// shrinking).
	Removed bool `json:"removed,omitempty"`
}
