package tictactoe

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zerokit/zerokit/env"
)

// The terminal notation of tic-tac-toe (env.TextUI): x,y (column, row), X
// moves first.

// Title names the game.
func (Game) Title() string { return "Tic-tac-toe." }

// Player maps "x" (or "first", "") and "o" (or "second") to a player.
func (Game) Player(colour string) (int, error) {
	switch colour {
	case "", "x", "first":
		return 0, nil
	case "o", "second":
		return 1, nil
	}
	return 0, errors.New("want x or o")
}

// Colour names a player with its board symbol.
func (Game) Colour(player int) string {
	if player == 0 {
		return "X"
	}
	return "O"
}

// Board draws s with column numbers across and row numbers down: X, O, and
// . for an empty cell.
func (Game) Board(s env.State) string {
	rows := strings.Split(strings.TrimSuffix(s.String(), "\n"), "\n")
	var sb strings.Builder
	sb.WriteString("   0 1 2\n")
	for y, row := range rows {
		fmt.Fprintf(&sb, " %d %s\n", y, strings.Join(strings.Split(row, ""), " "))
	}
	return sb.String()
}

// Status is empty: the board says it all.
func (Game) Status(env.State, func(int) string) string { return "" }

// ParseMove reads "x,y", "x y" or "(x, y)" (env.ParseCellMove).
func (Game) ParseMove(s env.State, line string) (int, error) {
	return env.ParseCellMove(s, line)
}

// FormatMove writes a as x,y.
func (Game) FormatMove(s env.State, a int) string { return s.ActionString(a) }

// MustPass is false: tic-tac-toe has no pass.
func (Game) MustPass(env.State) bool { return false }

// Outcome is empty: the result says it all.
func (Game) Outcome(env.State) string { return "" }
