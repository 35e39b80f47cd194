package squatter

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zerokit/zerokit/env"
)

// The terminal notation of Squatter (env.TextUI): x,y (column, row) and
// the board of State.String (B Black, W White, territory owners in lower
// case). Black moves first.

// Title names the game.
func (g *Game) Title() string { return "Squatter." }

// Player maps "black" (or "b", "first", "") and "white" (or "w",
// "second") to a player.
func (g *Game) Player(colour string) (int, error) {
	switch colour {
	case "", "black", "b", "first":
		return 0, nil
	case "white", "w", "second":
		return 1, nil
	}
	return 0, errors.New("want black or white")
}

// Colour names a player with its board symbol.
func (g *Game) Colour(player int) string {
	if player == 0 {
		return "Black (B)"
	}
	return "White (W)"
}

// Board draws s (State.String).
func (g *Game) Board(s env.State) string {
	b := s.String()
	if !strings.HasSuffix(b, "\n") {
		b += "\n"
	}
	return b
}

// Status gives the move number, the free cells left and each side's
// score (the cells it has captured, State.Score) and territory (the cells
// it encloses, its own pieces there included, State.Territory).
func (g *Game) Status(st env.State, name func(int) string) string {
	s := st.(*State)
	var sb strings.Builder
	fmt.Fprintf(&sb, "Move %d; %d of %d cells free.\n", s.MoveNumber()+1, s.FreeCount(), g.cells)
	for p := 0; p < 2; p++ {
		fmt.Fprintf(&sb, "  %s: score %d (territory %d cells)\n", name(p), s.Score(p), s.Territory(p))
	}
	return sb.String()
}

// ParseMove reads "x,y", "x y" or "(x, y)" (env.ParseCellMove).
func (g *Game) ParseMove(s env.State, line string) (int, error) {
	return env.ParseCellMove(s, line)
}

// FormatMove writes a as x,y.
func (g *Game) FormatMove(s env.State, a int) string { return s.ActionString(a) }

// MustPass is false: Squatter has no pass.
func (g *Game) MustPass(env.State) bool { return false }

// Outcome gives each side's captured cells.
func (g *Game) Outcome(s env.State) string {
	ss := s.(*State)
	return fmt.Sprintf(" (Black %d, White %d captured cells)", ss.Score(0), ss.Score(1))
}
