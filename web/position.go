package web

import (
	"fmt"
	"strings"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
)

// Position is what the page draws of one position: the board, whose turn
// it is, the legal moves with the cells they touch, and the last move.
type Position struct {
	// Board has one character per cell, row by row: '.' empty, '0' and
	// '1' a piece of player 0 or 1, 'X' a corner, ' ' a square removed
	// from the board.
	Board string `json:"board"`
	// Territory, when a cell lies in a player's territory, has '0' or '1'
	// at that cell and '.' elsewhere; empty when no cell does.
	Territory string `json:"territory,omitempty"`
	// ToMove is the player to move, -1 once the game is over.
	ToMove int `json:"to_move"`
	// MoveNumber is the number of actions played before this position.
	MoveNumber int `json:"move_number"`
	// Status describes the phase and counters (env.TextUI.Status).
	Status string `json:"status"`
	// Terminal is set once the game is over; Returns and Result then say
	// how it ended.
	Terminal bool       `json:"terminal"`
	Returns  [2]float32 `json:"returns"`
	Result   string     `json:"result,omitempty"`
	// Legal lists the legal moves (empty once the game is over).
	Legal []Move `json:"legal"`
	// Last is the move that led here, and Captured the cells it emptied
	// besides the cell a moving piece left.
	Last     *Move `json:"last,omitempty"`
	Captured []int `json:"captured,omitempty"`
}

// Move is an action with the cells it touches (env.Grid.ActionCells) and
// its notation (env.TextUI.FormatMove).
type Move struct {
	Action int    `json:"action"`
	From   int    `json:"from"`
	To     int    `json:"to"`
	Text   string `json:"text"`
}

// board is a game the page can draw: an env.Game that is also an
// env.Grid and an env.TextUI.
type board struct {
	env.Game
	grid env.Grid
	ui   env.TextUI
}

// newBoard builds the game named name ("wyb", "wyb-nolimit",
// "wyb-limit100", "squatter8", "tictactoe").
func newBoard(name string) (*board, error) {
	if name == "" {
		return nil, fmt.Errorf("no game given (want %s)", games.Help(func(g env.Game) bool { _, err := boardOf(g); return err == nil }))
	}
	c, err := games.ConfigFromName(name)
	if err != nil {
		return nil, err
	}
	g, err := games.New(c)
	if err != nil {
		return nil, fmt.Errorf("game %q: %w", name, err)
	}
	return boardOf(g)
}

// boardOf checks that g can be drawn and played on the page.
func boardOf(g env.Game) (*board, error) {
	grid, ok := g.(env.Grid)
	if !ok {
		return nil, fmt.Errorf("game %s is not played on a grid", g.Name())
	}
	ui, ok := g.(env.TextUI)
	if !ok {
		return nil, fmt.Errorf("game %s has no move notation", g.Name())
	}
	return &board{Game: g, grid: grid, ui: ui}, nil
}

// colours names the two players with their board symbols.
func (b *board) colours() [2]string { return [2]string{b.ui.Colour(0), b.ui.Colour(1)} }

// move describes action a of the player to move in s.
func (b *board) move(s env.State, a int) Move {
	from, to := b.grid.ActionCells(s, a)
	return Move{Action: a, From: from, To: to, Text: b.ui.FormatMove(s, a)}
}

// cells writes s's board and territory strings.
func (b *board) cells(s env.State) (cells, territory string) {
	w, h := b.grid.GridSize()
	var cb, tb strings.Builder
	owned := false
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := b.grid.GridCell(s, x, y)
			switch {
			case c.Removed:
				cb.WriteByte(' ')
			case c.Corner:
				cb.WriteByte('X')
			case c.Piece == 0 || c.Piece == 1:
				cb.WriteByte(byte('0' + c.Piece))
			default:
				cb.WriteByte('.')
			}
			if c.Owner == 0 || c.Owner == 1 {
				tb.WriteByte(byte('0' + c.Owner))
				owned = true
			} else {
				tb.WriteByte('.')
			}
		}
	}
	if !owned {
		return cb.String(), ""
	}
	return cb.String(), tb.String()
}

// position describes s, reached from prev (nil for the first position) by
// last; names names the players for the status lines.
func (b *board) position(s, prev env.State, last int, names func(int) string) Position {
	p := Position{ToMove: s.CurrentPlayer(), MoveNumber: s.MoveNumber(), Terminal: s.IsTerminal(), Legal: []Move{}}
	p.Board, p.Territory = b.cells(s)
	p.Status = strings.TrimSpace(b.ui.Status(s, names))
	for _, a := range s.LegalActions(nil) {
		p.Legal = append(p.Legal, b.move(s, a))
	}
	if p.Terminal {
		p.Returns = s.Returns()
		p.Result = resultText(p.Returns, names) + b.ui.Outcome(s)
	}
	if prev != nil {
		m := b.move(prev, last)
		p.Last = &m
		before, _ := b.cells(prev)
		for i := range p.Board {
			if before[i] >= '0' && before[i] <= '1' && p.Board[i] != before[i] && i != m.From {
				p.Captured = append(p.Captured, i)
			}
		}
	}
	return p
}

// resultText says who won.
func resultText(r [2]float32, names func(int) string) string {
	switch {
	case r[0] > r[1]:
		return names(0) + " wins"
	case r[1] > r[0]:
		return names(1) + " wins"
	}
	return "Draw"
}
