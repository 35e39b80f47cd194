// Package connect4 is Connect Four: connect4 is the standard board of 7
// columns and 6 rows, connect4-CxR any other from 4x4 to 8x8. Its init
// function registers it with package env/games (env/games/all imports it),
// so that it is named wherever a game is named: -game connect4, a
// configuration's game section, a checkpoint. It was written as the
// example of a game added to zerokit: everything it needs is in this
// package, and package solver (imported for env.Solvable) solves it.
//
// Players drop discs into columns; a disc falls to the lowest free cell.
// Four of a player's discs in a row, column or diagonal win; a full board
// without four is a draw. Player 0 plays X and moves first. Action c drops
// a disc into column c (0-based from the left).
package connect4

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
)

const (
	// MinSide and MaxSide bound the board's columns and rows.
	MinSide, MaxSide = 4, 8
	// DefaultColumns and DefaultRows are the standard board's, the game
	// named connect4.
	DefaultColumns, DefaultRows = 7, 6
	// Planes is the number of observation planes: the mover's discs, the
	// opponent's, and a plane of ones when the mover is player 1.
	Planes = 3
	// encodingVersion changes when Observation or the actions do.
	encodingVersion = 1
)

func Registration() games.Registration {
	return games.Registration{
		Name:     "connect4",
		Title:    "Connect Four",
		Names:    fmt.Sprintf("connect4 (7 columns x 6 rows), connect4-CxR (%d <= C, R <= %d)", MinSide, MaxSide),
		Defaults: Params{Columns: DefaultColumns, Rows: DefaultRows},
		Parse:    parseName,
	}
}

// Params are the board's size (a games.Params): columns and rows in a
// configuration's game section.
type Params struct {
	Columns int `yaml:"columns"`
	Rows    int `yaml:"rows"`
}

// Game implements games.Params.
func (p Params) Game() (env.Game, error) { return New(p) }

// parseName reads "connect4" or "connect4-CxR".
func parseName(name string) (games.Params, error) {
	if name == "connect4" {
		return Params{Columns: DefaultColumns, Rows: DefaultRows}, nil
	}
	c, r, ok := strings.Cut(strings.TrimPrefix(name, "connect4-"), "x")
	cols, err1 := strconv.Atoi(c)
	rows, err2 := strconv.Atoi(r)
	if !strings.HasPrefix(name, "connect4-") || !ok || err1 != nil || err2 != nil {
		return nil, errors.New("want connect4 or connect4-CxR")
	}
	return Params{Columns: cols, Rows: rows}, nil
}

// Game is Connect Four on a board of fixed size. It implements env.Game,
// env.Heuristics, env.TextUI and env.Grid.
type Game struct {
	cols, rows int
}

// New returns the game on p's board.
func New(p Params) (*Game, error) {
	for _, v := range []struct {
		key string
		n   int
	}{{"columns", p.Columns}, {"rows", p.Rows}} {
		if v.n < MinSide || v.n > MaxSide {
			return nil, fmt.Errorf("%s: %d out of range [%d, %d]", v.key, v.n, MinSide, MaxSide)
		}
	}
	return &Game{cols: p.Columns, rows: p.Rows}, nil
}

// Name implements env.Game: "connect4" on 7 x 6, else "connect4-CxR".
func (g *Game) Name() string {
	if g.cols == DefaultColumns && g.rows == DefaultRows {
		return "connect4"
	}
	return fmt.Sprintf("connect4-%dx%d", g.cols, g.rows)
}

// NumActions implements env.Game: one action per column.
func (g *Game) NumActions() int { return g.cols }

// ObservationShape implements env.Game.
func (g *Game) ObservationShape() env.Shape {
	return env.Shape{Planes: Planes, Height: g.rows, Width: g.cols}
}

// EncodingVersion implements env.Game.
func (g *Game) EncodingVersion() int { return encodingVersion }

// MaxGameLength implements env.Game: one action per cell at most.
func (g *Game) MaxGameLength() int { return g.cols * g.rows }

// NewInitialState implements env.Game: the empty board, X to move.
func (g *Game) NewInitialState() env.State { return &State{g: g} }

// Symmetries implements env.Game: the identity and the left-right mirror.
func (g *Game) Symmetries() []env.Symmetry {
	id := env.Identity(g.cols*g.rows, g.cols)
	m := env.Symmetry{Name: "mirror", Cells: make([]int, g.cols*g.rows), Actions: make([]int, g.cols)}
	for c := range m.Actions {
		m.Actions[c] = g.cols - 1 - c
	}
	for i := range m.Cells {
		m.Cells[i] = i/g.cols*g.cols + g.cols - 1 - i%g.cols
	}
	return []env.Symmetry{id, m}
}

// State is a position. Cell r*cols+c is column c of row r, row 0 the
// bottom.
type State struct {
	g      *Game
	board  [MaxSide * MaxSide]int8 // 0 empty, 1 X (player 0), 2 O (player 1)
	height [MaxSide]int8           // discs in each column
	moves  int
	winner int8 // 0 none yet, else 1 + the winner
	hash   uint64
}

// zobrist is the Zobrist key of player p's disc on cell c, or of player 1
// to move when c is MaxSide*MaxSide (a SplitMix64 stream, no table).
func zobrist(c, p int) uint64 { return env.ZobristKey(2*c + p) }

// CurrentPlayer implements env.State.
func (s *State) CurrentPlayer() int {
	if s.IsTerminal() {
		return -1
	}
	return s.moves % 2
}

// LegalActions implements env.State: the columns with room.
func (s *State) LegalActions(dst []int) []int {
	dst = dst[:0]
	if s.IsTerminal() {
		return dst
	}
	for c := 0; c < s.g.cols; c++ {
		if int(s.height[c]) < s.g.rows {
			dst = append(dst, c)
		}
	}
	return dst
}

// IsLegal implements env.State.
func (s *State) IsLegal(a int) bool {
	return a >= 0 && a < s.g.cols && !s.IsTerminal() && int(s.height[a]) < s.g.rows
}

// ApplyAction implements env.State.
func (s *State) ApplyAction(a int) error {
	switch {
	case a < 0 || a >= s.g.cols:
		return fmt.Errorf("connect4: column %d out of range [0, %d)", a, s.g.cols)
	case s.IsTerminal():
		return fmt.Errorf("connect4: column %d: the game is over", a)
	case int(s.height[a]) == s.g.rows:
		return fmt.Errorf("connect4: column %d is full", a)
	}
	p, r := s.moves%2, int(s.height[a])
	cell := r*s.g.cols + a
	s.board[cell] = int8(p + 1)
	s.height[a]++
	s.moves++
	s.hash ^= zobrist(cell, p) ^ zobrist(MaxSide*MaxSide, 0)
	if s.fours(a, r) {
		s.winner = int8(p + 1)
	}
	return nil
}

// fours reports whether the disc on column c, row r completes four in a
// line of its owner's discs.
func (s *State) fours(c, r int) bool {
	own := s.board[r*s.g.cols+c]
	for _, d := range [4][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}} {
		n := 1
		for _, sign := range [2]int{1, -1} {
			x, y := c+sign*d[0], r+sign*d[1]
			for x >= 0 && x < s.g.cols && y >= 0 && y < s.g.rows && s.board[y*s.g.cols+x] == own {
				n++
				x, y = x+sign*d[0], y+sign*d[1]
			}
		}
		if n >= 4 {
			return true
		}
	}
	return false
}

// Clone implements env.State.
func (s *State) Clone() env.State {
	c := *s
	return &c
}

// IsTerminal implements env.State: four in a line or a full board.
func (s *State) IsTerminal() bool { return s.winner != 0 || s.moves == s.g.cols*s.g.rows }

// Returns implements env.State: by winner, none, X or O.
func (s *State) Returns() [2]float32 {
	return [...][2]float32{{0, 0}, {1, -1}, {-1, 1}}[s.winner]
}

// Hash implements env.State.
func (s *State) Hash() uint64 { return s.hash }

// MoveNumber implements env.State.
func (s *State) MoveNumber() int { return s.moves }

// Observation implements env.State (see Planes), cell r*cols+c as the
// board's.
func (s *State) Observation(dst []float32) {
	n := s.g.cols * s.g.rows
	me := int8(s.moves%2 + 1)
	for i := 0; i < n; i++ {
		dst[i], dst[n+i], dst[2*n+i] = 0, 0, float32(s.moves%2)
		switch v := s.board[i]; {
		case v == me:
			dst[i] = 1
		case v != 0:
			dst[n+i] = 1
		}
	}
}

// ActionString implements env.State: the column's number.
func (s *State) ActionString(a int) string { return strconv.Itoa(a) }

// ParseAction implements env.State: a column's number (full or not).
func (s *State) ParseAction(str string) (int, error) {
	a, err := strconv.Atoi(strings.TrimSpace(str))
	if err != nil || a < 0 || a >= s.g.cols {
		return 0, fmt.Errorf("connect4: %q: want a column 0..%d", str, s.g.cols-1)
	}
	return a, nil
}

// String implements env.State: the rows from the top, X, O and '.'.
func (s *State) String() string {
	var b strings.Builder
	for r := s.g.rows - 1; r >= 0; r-- {
		for c := 0; c < s.g.cols; c++ {
			b.WriteByte(".XO"[s.board[r*s.g.cols+c]])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

var (
	_ env.Game       = (*Game)(nil)
	_ env.State      = (*State)(nil)
	_ env.Heuristics = (*Game)(nil)
	_ env.TextUI     = (*Game)(nil)
	_ env.Grid       = (*Game)(nil)
)
