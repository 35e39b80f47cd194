package squatter

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zerokit/zerokit/env"
)

// Codec is the env.RefereeCodec of the Squatter course referee (COMP30024,
// 2015, package aiproj.squatter). That referee names the first mover White
// (piece code 1) and the second Black (2), so here "white" is player 0 and
// "black" player 1: the opposite of the toolkit's own names (State.String
// calls player 0 Black), which are only names, since the rules treat both
// colours alike. An action is the referee's Move written as "P Row Col",
// e.g. "1 2 3": the mover's piece code, then the row and the column,
// 0-based from the top left. The turn counter is the number of moves
// played.
//
// The referee has no rules engine: its players judge the game. Codec
// therefore also implements env.RefereeJudge.
type Codec struct{}

var (
	_ env.RefereeCodec = Codec{}
	_ env.RefereeJudge = Codec{}
)

// The referee's piece codes (aiproj.squatter.Piece), which are also the
// values a player's getWinner returns.
const (
	RefereeEmpty = 0 // getWinner: the game is not over
	RefereeWhite = 1 // player 0, who moves first
	RefereeBlack = 2 // player 1
	RefereeDraw  = 3 // the course's DEAD, used for a draw
)

// Referee is the game as the course referee plays it and its Codec
// (env.Refereed).
func (g *Game) Referee() (env.Game, env.RefereeCodec) { return g, Codec{} }

// Player maps "white" to 0 and "black" to 1.
func (Codec) Player(colour string) (int, error) {
	switch colour {
	case "white":
		return 0, nil
	case "black":
		return 1, nil
	}
	return 0, fmt.Errorf("colour %.40q is not white or black", colour)
}

// Colour maps 0 to "white" and 1 to "black".
func (Codec) Colour(player int) string {
	if player == 0 {
		return "white"
	}
	return "black"
}

// Turns is the number of moves played.
func (Codec) Turns(s env.State) int { return s.MoveNumber() }

// pieceCode is the referee's code of player's pieces.
func pieceCode(player int) int { return player + 1 }

// ParseAction reads "P Row Col". It checks that P is the mover's piece code
// and that the cell is on the board and free, and says why not in the
// referee's terms (an occupied cell, a captured one).
func (c Codec) ParseAction(s env.State, text string) (int, error) {
	st, ok := s.(*State)
	if !ok {
		return 0, fmt.Errorf("state %T is not a Squatter state", s)
	}
	f := strings.Fields(text)
	if len(f) != 3 {
		return 0, fmt.Errorf("want a move as \"P Row Col\" (three integers), got %q", text)
	}
	var v [3]int
	for i, name := range []string{"P", "Row", "Col"} {
		n, err := strconv.Atoi(f[i])
		if err != nil {
			return 0, fmt.Errorf("move %q: %s %q is not an integer", text, name, f[i])
		}
		v[i] = n
	}
	p, row, col := v[0], v[1], v[2]
	if want := pieceCode(st.toMove); p != want {
		return 0, fmt.Errorf("move %q: P is %d, but %s (P = %d) is to move", text, p, c.Colour(st.toMove), want)
	}
	n := st.g.n
	if row < 0 || col < 0 || row >= n || col >= n {
		return 0, fmt.Errorf("move %q: cell (row %d, col %d) is off the %dx%d board", text, row, col, n, n)
	}
	a := row*n + col
	if !st.IsLegal(a) {
		// The rules would reject it too, in the toolkit's names (x,y and
		// Black first): say why in the referee's.
		cs := st.CellAt(a)
		if cs.Piece >= 0 {
			return 0, fmt.Errorf("move %q: cell (row %d, col %d) is occupied by a %s piece", text, row, col, c.Colour(cs.Piece))
		}
		return 0, fmt.Errorf("move %q: cell (row %d, col %d) lies in %s's captured territory", text, row, col, c.Colour(cs.Owner))
	}
	return a, nil
}

// FormatAction writes action, placed by the player to move in s, as
// "P Row Col".
func (Codec) FormatAction(s env.State, action int) (string, error) {
	st, ok := s.(*State)
	if !ok {
		return "", fmt.Errorf("state %T is not a Squatter state", s)
	}
	n := st.g.n
	if action < 0 || action >= st.g.cells {
		return "", fmt.Errorf("action %d is off the %dx%d board", action, n, n)
	}
	return fmt.Sprintf("%d %d %d", pieceCode(st.toMove), action/n, action%n), nil
}

// Judge writes what a course player reports about s: its getWinner value
// (RefereeEmpty while a free cell remains, else RefereeWhite, RefereeBlack
// or RefereeDraw by the scores), then the board, rows top to bottom
// separated by "/", one character per cell in the course's style: "+" a
// free cell, "W" and "B" live pieces, "w" and "b" captured (dead) pieces,
// "-" a captured empty cell. For example "0 +W+-.../...".
func (Codec) Judge(s env.State) (string, error) {
	st, ok := s.(*State)
	if !ok {
		return "", fmt.Errorf("state %T is not a Squatter state", s)
	}
	winner := RefereeEmpty
	if st.IsTerminal() {
		switch r := st.Returns(); {
		case r[0] > 0:
			winner = RefereeWhite
		case r[1] > 0:
			winner = RefereeBlack
		default:
			winner = RefereeDraw
		}
	}
	n := st.g.n
	b := make([]byte, 0, 2+n*(n+1))
	b = strconv.AppendInt(b, int64(winner), 10)
	b = append(b, ' ')
	for y := range n {
		if y > 0 {
			b = append(b, '/')
		}
		for x := range n {
			b = append(b, cellChar(st.Cell(x, y)))
		}
	}
	return string(b), nil
}

// cellChar is the course's character for a cell (see Judge).
func cellChar(c CellState) byte {
	switch {
	case c.Piece < 0 && c.Owner < 0:
		return '+'
	case c.Piece < 0:
		return '-'
	}
	ch := byte('W') // player 0, the referee's White
	if c.Piece == 1 {
		ch = 'B'
	}
	if c.Owner >= 0 {
		ch += 'a' - 'A'
	}
	return ch
}
