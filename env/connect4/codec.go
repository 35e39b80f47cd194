package connect4

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zerokit/zerokit/env"
)

// Codec is Connect Four's env.RefereeCodec, the form of its moves in
// zerokit serve's line protocol: a move is a column's number, 0 the
// leftmost ("3"); the colours are "x" (or "first"), who moves first, and
// "o" (or "second"); the turn counter is the number of discs played.
type Codec struct{}

var (
	_ env.RefereeCodec = Codec{}
	_ env.Refereed     = (*Game)(nil)
)

// Referee is the game and its Codec (env.Refereed).
func (g *Game) Referee() (env.Game, env.RefereeCodec) { return g, Codec{} }

// Player maps "x" or "first" to 0 and "o" or "second" to 1.
func (Codec) Player(colour string) (int, error) {
	switch colour {
	case "x", "first":
		return 0, nil
	case "o", "second":
		return 1, nil
	}
	return 0, fmt.Errorf("colour %.40q is not x (first) or o (second)", colour)
}

// Colour maps 0 to "x" and 1 to "o".
func (Codec) Colour(player int) string {
	if player == 0 {
		return "x"
	}
	return "o"
}

// Turns is the number of discs played.
func (Codec) Turns(s env.State) int { return s.MoveNumber() }

// ParseAction reads a column's number and checks that it is on the board
// (the server checks that the column has room).
func (Codec) ParseAction(s env.State, text string) (int, error) {
	st, ok := s.(*State)
	if !ok {
		return 0, fmt.Errorf("state %T is not a Connect Four state", s)
	}
	t := strings.TrimSpace(text)
	c, err := strconv.Atoi(t)
	if err != nil {
		return 0, fmt.Errorf("move %.40q is not a column number 0..%d", t, st.g.cols-1)
	}
	if c < 0 || c >= st.g.cols {
		return 0, fmt.Errorf("move %d: column out of range 0..%d", c, st.g.cols-1)
	}
	return c, nil
}

// FormatAction writes a column's number.
func (Codec) FormatAction(s env.State, action int) (string, error) {
	st, ok := s.(*State)
	if !ok {
		return "", fmt.Errorf("state %T is not a Connect Four state", s)
	}
	if action < 0 || action >= st.g.cols {
		return "", fmt.Errorf("action %d: column out of range 0..%d", action, st.g.cols-1)
	}
	return strconv.Itoa(action), nil
}
