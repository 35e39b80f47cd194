package squatter

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/zerokit/zerokit/env"
)

// State is a Squatter position: the pieces and territories of both players
// and the player to move. Copying a State value copies the position (it
// holds no slices of its own; the Game it points to is immutable).
type State struct {
	g *Game
	// pieces[p] holds p's pieces, live and dead; terr[p] p's territory;
	// free the cells with no piece and in no territory.
	pieces, terr [2]bitset
	free         bitset
	toMove       int
	moves        int
	hash         uint64
}

var _ env.State = (*State)(nil)

// CellState describes one cell of the board.
type CellState struct {
	// Piece is the player whose piece is on the cell, or -1 when it is empty.
	Piece int
	// Owner is the player in whose territory the cell lies, or -1 when it is
	// not captured.
	Owner int
	// OffBoard is set, with Piece and Owner -1, for coordinates off the board.
	OffBoard bool
}

// playerName names player 0 Black and player 1 White.
func playerName(p int) string {
	if p == 0 {
		return "Black"
	}
	return "White"
}

// Game returns the game s belongs to.
func (s *State) Game() *Game { return s.g }

// N returns the board side.
func (s *State) N() int { return s.g.n }

// ToMove returns the player whose turn it is, even at the end of the game
// (when CurrentPlayer returns -1).
func (s *State) ToMove() int { return s.toMove }

// CellAt returns the state of cell c = y*N + x.
func (s *State) CellAt(c int) CellState {
	if c < 0 || c >= s.g.cells {
		return CellState{Piece: -1, Owner: -1, OffBoard: true}
	}
	cs := CellState{Piece: -1, Owner: -1}
	for p := range 2 {
		if s.pieces[p].has(c) {
			cs.Piece = p
		}
		if s.terr[p].has(c) {
			cs.Owner = p
		}
	}
	return cs
}

var _ env.CellOwner = (*State)(nil)

// CellOwners implements env.CellOwner: for each cell (y*N + x, as in
// observations) the player in whose territory it lies, else the player
// whose piece stands on it, else -1. At the end of a game every cell is
// one player's territory or piece.
func (s *State) CellOwners(dst []int8) {
	dst = dst[:s.g.cells]
	for c := range dst {
		cs := s.CellAt(c)
		switch {
		case cs.Owner >= 0:
			dst[c] = int8(cs.Owner)
		case cs.Piece >= 0:
			dst[c] = int8(cs.Piece)
		default:
			dst[c] = -1
		}
	}
}

// Cell returns the state of the cell in column x, row y; coordinates off the
// board report OffBoard.
func (s *State) Cell(x, y int) CellState {
	if x < 0 || y < 0 || x >= s.g.n || y >= s.g.n {
		return CellState{Piece: -1, Owner: -1, OffBoard: true}
	}
	return s.CellAt(y*s.g.n + x)
}

// CurrentPlayer implements env.State.
func (s *State) CurrentPlayer() int {
	if s.IsTerminal() {
		return -1
	}
	return s.toMove
}

// LegalActions implements env.State: the free cells in increasing order.
func (s *State) LegalActions(dst []int) []int { return s.free.appendCells(dst[:0]) }

// Clone implements env.State.
func (s *State) Clone() env.State { return s.Copy() }

// Copy is Clone with the concrete type.
func (s *State) Copy() *State {
	c := *s
	return &c
}

// Hash implements env.State: the XOR of a key per piece (by player and
// cell), a key per territory cell (by owner and cell), and a key when
// player 1 is to move. Live and dead pieces and free cells follow from
// these, and the move number does not affect the future.
func (s *State) Hash() uint64 { return s.hash }

// MoveNumber implements env.State.
func (s *State) MoveNumber() int { return s.moves }

// Observation implements env.State. It writes Planes planes of N x N cells
// (plane-major, cell y*N + x), from the point of view of the player to move
// ("own") against the other player ("opponent"); the players' colours are
// not encoded because the rules do not depend on them:
//
//	0 own live pieces (pieces that can still form loops)
//	1 opponent live pieces
//	2 own dead pieces (lying in either player's territory)
//	3 opponent dead pieces
//	4 own territory (every cell captured by the mover, including pieces)
//	5 opponent territory
//	6 free cells (the legal placements)
//	7 constant 1: marks the board, so that zero-padded convolutions see the
//	  edge, which matters because the edge never closes a loop
//	8 constant (own score - opponent score) / (N*N)
//	9 constant (free cells) / (N*N), the fraction of the game left
func (s *State) Observation(dst []float32) {
	n := s.g.cells
	dst = dst[:Planes*n]
	clear(dst)
	me := s.toMove
	op := 1 - me
	dead := s.terr[0].or(s.terr[1])
	planes := [7]bitset{
		s.pieces[me].andNot(dead),
		s.pieces[op].andNot(dead),
		s.pieces[me].and(dead),
		s.pieces[op].and(dead),
		s.terr[me],
		s.terr[op],
		s.free,
	}
	var buf [words * 64]int
	for k, b := range planes {
		plane := dst[k*n : (k+1)*n]
		for _, c := range b.appendCells(buf[:0]) {
			plane[c] = 1
		}
	}
	diff := float32(s.Score(me)-s.Score(op)) / float32(n)
	left := float32(s.free.count()) / float32(n)
	for c := range n {
		dst[7*n+c] = 1
		dst[8*n+c] = diff
		dst[9*n+c] = left
	}
}

// ActionString implements env.State: "x,y" (column, row) of the cell the
// action places on.
func (s *State) ActionString(action int) string {
	if action < 0 || action >= s.g.cells {
		return fmt.Sprintf("invalid(%d)", action)
	}
	return strconv.Itoa(action%s.g.n) + "," + strconv.Itoa(action/s.g.n)
}

// ParseAction implements env.State: it reads "x,y" (column, row), spaces
// around either number allowed.
func (s *State) ParseAction(str string) (int, error) {
	xs, ys, ok := strings.Cut(str, ",")
	if !ok {
		return 0, fmt.Errorf("squatter: action %q: want \"x,y\" (column,row)", str)
	}
	x, err := strconv.Atoi(strings.TrimSpace(xs))
	if err != nil {
		return 0, fmt.Errorf("squatter: action %q: column: %w", str, err)
	}
	y, err := strconv.Atoi(strings.TrimSpace(ys))
	if err != nil {
		return 0, fmt.Errorf("squatter: action %q: row: %w", str, err)
	}
	if x < 0 || y < 0 || x >= s.g.n || y >= s.g.n {
		return 0, fmt.Errorf("squatter: action %q: cell off the %dx%d board", str, s.g.n, s.g.n)
	}
	return y*s.g.n + x, nil
}

// String implements env.State. It draws the board with column numbers (x)
// across the top and row numbers (y) down the side, two characters per cell:
// the first is the piece ("B" Black, "W" White), "-" for an empty captured
// cell or "." for a free cell; the second is the territory's owner in lower
// case ("b" Black, "w" White) or blank when the cell is not captured. So
// "B " is a live Black piece, "Wb" a dead White piece in Black's territory,
// "Bb" a Black piece inside Black's own territory and "-w" an empty cell of
// White's territory. A last line gives the player to move, the scores and
// the number of free cells.
func (s *State) String() string {
	var sb strings.Builder
	n := s.g.n
	var line []byte
	line = append(line, "  "...)
	for x := range n {
		line = fmt.Appendf(line, " %-2d", x)
	}
	sb.Write(bytes.TrimRight(line, " "))
	sb.WriteByte('\n')
	for y := range n {
		line = fmt.Appendf(line[:0], "%2d", y)
		for x := range n {
			cs := s.Cell(x, y)
			var piece, owner byte = '.', ' '
			switch {
			case cs.Piece == 0:
				piece = 'B'
			case cs.Piece == 1:
				piece = 'W'
			case cs.Owner >= 0:
				piece = '-'
			}
			switch cs.Owner {
			case 0:
				owner = 'b'
			case 1:
				owner = 'w'
			}
			line = append(line, ' ', piece, owner)
		}
		sb.Write(bytes.TrimRight(line, " "))
		sb.WriteByte('\n')
	}
	if s.IsTerminal() {
		sb.WriteString("game over")
	} else {
		fmt.Fprintf(&sb, "%s to move", playerName(s.toMove))
	}
	fmt.Fprintf(&sb, "; score Black %d, White %d; %d free\n", s.Score(0), s.Score(1), s.free.count())
	return sb.String()
}
