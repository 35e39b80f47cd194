// Package tictactoe implements tic-tac-toe as an env.Game. It is tiny and
// fully solved (a draw with perfect play), which makes it the project's
// fast test game for search, training and evaluation code.
//
// Cells are numbered row-major: cell = 3*y + x, with x the column and y the
// row, both 0-based from the top left. Action a places the mover's mark on
// cell a. Player 0 plays X and moves first.
package tictactoe

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/zerokit/zerokit/env"
)

const (
	// Size is the board's side length.
	Size = 3
	// Cells is the number of cells and of actions.
	Cells = Size * Size
	// Planes is the number of observation planes: the mover's marks, the
	// opponent's marks, and a constant plane that is 1 when the mover is
	// player 1.
	Planes = 3
	// encodingVersion changes when Observation or the action encoding does.
	encodingVersion = 1
)

// lines lists the eight winning lines.
var lines = [8][3]int8{
	{0, 1, 2}, {3, 4, 5}, {6, 7, 8},
	{0, 3, 6}, {1, 4, 7}, {2, 5, 8},
	{0, 4, 8}, {2, 4, 6},
}

// Game is tic-tac-toe. The zero value is ready to use.
type Game struct{}

// New returns the game.
func New() Game { return Game{} }

// Name implements env.Game.
func (Game) Name() string { return "tictactoe" }

// NumActions implements env.Game: one action per cell.
func (Game) NumActions() int { return Cells }

// ObservationShape implements env.Game.
func (Game) ObservationShape() env.Shape {
	return env.Shape{Planes: Planes, Height: Size, Width: Size}
}

// EncodingVersion implements env.Game.
func (Game) EncodingVersion() int { return encodingVersion }

// MaxGameLength implements env.Game: at most nine marks fit.
func (Game) MaxGameLength() int { return Cells }

// NewInitialState implements env.Game: the empty board, X to move.
func (Game) NewInitialState() env.State {
	return &State{}
}

// Symmetries implements env.Game: the eight symmetries of the square (the
// dihedral group D4), identity first. Actions are cells, so each symmetry
// maps actions exactly as it maps cells.
func (Game) Symmetries() []env.Symmetry { return env.SquareSymmetries(Size) }

// State is a tic-tac-toe position. The zero value is the initial state.
type State struct {
	board  [Cells]int8 // 0 empty, 1 X (player 0), 2 O (player 1)
	moves  int8        // marks placed; the mover is moves%2
	winner int8        // 0 none yet, else 1 + the winning player
	hash   uint64
}

// zobrist returns the Zobrist key of player p's mark on cell c, or of player
// 1 being to move when c == Cells. Keys come from a fixed SplitMix64 stream,
// so they need no table.
func zobrist(c, p int) uint64 { return env.ZobristKey(2*c + p) }

// CurrentPlayer implements env.State.
func (s *State) CurrentPlayer() int {
	if s.IsTerminal() {
		return -1
	}
	return int(s.moves % 2)
}

// LegalActions implements env.State: the empty cells in increasing order,
// or none once the game is over.
func (s *State) LegalActions(dst []int) []int {
	dst = dst[:0]
	if s.IsTerminal() {
		return dst
	}
	for c, v := range s.board {
		if v == 0 {
			dst = append(dst, c)
		}
	}
	return dst
}

// IsLegal implements env.State.
func (s *State) IsLegal(action int) bool {
	return action >= 0 && action < Cells && !s.IsTerminal() && s.board[action] == 0
}

// ApplyAction implements env.State.
func (s *State) ApplyAction(action int) error {
	switch {
	case action < 0 || action >= Cells:
		return fmt.Errorf("tictactoe: action %d out of range [0, %d)", action, Cells)
	case s.IsTerminal():
		return fmt.Errorf("tictactoe: action %d: game is over", action)
	case s.board[action] != 0:
		return fmt.Errorf("tictactoe: action %d: cell %s is occupied", action, cellString(action))
	}
	p := int(s.moves % 2)
	s.board[action] = int8(p + 1)
	s.hash ^= zobrist(action, p) ^ zobrist(Cells, 0)
	s.moves++
	for _, l := range lines {
		if s.board[l[0]] == int8(p+1) && s.board[l[1]] == int8(p+1) && s.board[l[2]] == int8(p+1) {
			s.winner = int8(p + 1)
			break
		}
	}
	return nil
}

// Clone implements env.State.
func (s *State) Clone() env.State {
	c := *s
	return &c
}

// IsTerminal implements env.State: a line is complete or the board is full.
func (s *State) IsTerminal() bool { return s.winner != 0 || s.moves == Cells }

// Returns implements env.State.
func (s *State) Returns() [2]float32 {
	switch s.winner {
	case 1:
		return [2]float32{1, -1}
	case 2:
		return [2]float32{-1, 1}
	}
	return [2]float32{}
}

// Hash implements env.State: a Zobrist hash of the marks and the mover.
func (s *State) Hash() uint64 { return s.hash }

// MoveNumber implements env.State.
func (s *State) MoveNumber() int { return int(s.moves) }

// Observation implements env.State. Plane 0 holds the mover's marks, plane 1
// the opponent's, plane 2 is all ones when the mover is player 1 (O). After
// the game ends the "mover" is the player who would be next.
func (s *State) Observation(dst []float32) {
	if len(dst) < Planes*Cells {
		panic(fmt.Sprintf("tictactoe: observation buffer has %d values, need %d", len(dst), Planes*Cells))
	}
	me := s.moves%2 + 1
	for c, v := range s.board {
		dst[c], dst[Cells+c] = 0, 0
		switch {
		case v == me:
			dst[c] = 1
		case v != 0:
			dst[Cells+c] = 1
		}
		dst[2*Cells+c] = float32(s.moves % 2)
	}
}

// ActionString implements env.State: the cell as "x,y" (column, row).
func (s *State) ActionString(action int) string { return cellString(action) }

func cellString(c int) string {
	if c < 0 || c >= Cells {
		return fmt.Sprintf("invalid(%d)", c)
	}
	return fmt.Sprintf("%d,%d", c%Size, c/Size)
}

// ParseAction implements env.State. It accepts a cell index "0".."8" or
// "x,y" with x the column and y the row, both in 0..2. It does not check
// that the cell is empty.
func (s *State) ParseAction(str string) (int, error) { return ParseAction(str) }

// ParseAction reads a cell index "0".."8" or "x,y" coordinates.
func ParseAction(str string) (int, error) {
	t := strings.TrimSpace(str)
	if t == "" {
		return 0, errors.New("tictactoe: empty action")
	}
	if xs, ys, ok := strings.Cut(t, ","); ok {
		x, errX := strconv.Atoi(strings.TrimSpace(xs))
		y, errY := strconv.Atoi(strings.TrimSpace(ys))
		if errX != nil || errY != nil {
			return 0, fmt.Errorf("tictactoe: action %q: want \"x,y\" with integers", str)
		}
		if x < 0 || x >= Size || y < 0 || y >= Size {
			return 0, fmt.Errorf("tictactoe: action %q: coordinates must be in 0..%d", str, Size-1)
		}
		return y*Size + x, nil
	}
	c, err := strconv.Atoi(t)
	if err != nil {
		return 0, fmt.Errorf("tictactoe: action %q: want a cell 0..%d or \"x,y\"", str, Cells-1)
	}
	if c < 0 || c >= Cells {
		return 0, fmt.Errorf("tictactoe: action %q: cell must be in 0..%d", str, Cells-1)
	}
	return c, nil
}

// String implements env.State: three rows of X, O and '.'.
func (s *State) String() string {
	var b strings.Builder
	for y := 0; y < Size; y++ {
		for x := 0; x < Size; x++ {
			b.WriteByte(".XO"[s.board[y*Size+x]])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// FromActions plays actions from the initial state and returns the result,
// or the first illegal action's error. It is a convenience for tests.
func FromActions(actions ...int) (*State, error) {
	s := &State{}
	for i, a := range actions {
		if err := s.ApplyAction(a); err != nil {
			return nil, fmt.Errorf("tictactoe: move %d: %w", i, err)
		}
	}
	return s, nil
}

// Interface checks.
var (
	_ env.Game  = Game{}
	_ env.State = (*State)(nil)
)
