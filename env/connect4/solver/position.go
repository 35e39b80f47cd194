// Package solver solves Connect Four positions exactly: it finds the
// game-theoretic value of a position (a win, a draw or a loss for the
// player to move, and in how many moves) by a negamax search with
// alpha-beta pruning on bitboards, a transposition table, move ordering
// by the threats a move makes, and iterative deepening on a null window,
// after the design Pascal Pons describes in "Solving Connect 4: how to
// build a perfect AI" (2019).
//
// A Position is a board of any size whose columns each fit, with a spare
// bit, in one 64-bit word: Columns*(Rows+1) <= 64 (every board up to 7x7
// and 8x7). Scores follow Pons: a position's score is 0 for a draw; when
// the player to move wins with their k-th disc from now it is
// (Columns*Rows+1-moves)/2 - (k-1), positive, larger for a faster win;
// a loss is the negative of the opponent's win score.
package solver

import (
	"errors"
	"fmt"
	"math/bits"
)

// Geometry is a board's size and its bit masks. Column c occupies bits
// c*(Rows+1) to c*(Rows+1)+Rows-1, row 0 the lowest; bit c*(Rows+1)+Rows
// stays empty so that a column's height is found by one addition.
type Geometry struct {
	Columns, Rows int
	bottom, board uint64
	order         []int // columns from the centre outwards
}

// NewGeometry returns the geometry of a board of columns x rows, or an
// error for a board the bitboards cannot hold or that has no four in a line.
func NewGeometry(columns, rows int) (*Geometry, error) {
	if columns < 1 || rows < 1 {
		return nil, fmt.Errorf("solver: board %dx%d: want at least one column and one row", columns, rows)
	}
	if columns*(rows+1) > 64 {
		return nil, fmt.Errorf("solver: board %dx%d: columns*(rows+1) = %d exceeds the 64 bits of a bitboard", columns, rows, columns*(rows+1))
	}
	g := &Geometry{Columns: columns, Rows: rows}
	for c := 0; c < columns; c++ {
		g.bottom |= 1 << uint(c*(rows+1))
	}
	g.board = g.bottom * ((1 << uint(rows)) - 1)
	for i := 0; i < columns; i++ {
		// the centre first, then alternately left and right of it
		g.order = append(g.order, columns/2+(1-2*(i%2))*((i+1)/2))
	}
	return g, nil
}

// Cells is the number of cells of the board.
func (g *Geometry) Cells() int { return g.Columns * g.Rows }

// MinScore and MaxScore bound the scores of positions of this board.
func (g *Geometry) MinScore() int { return -g.Cells() / 2 }

// MaxScore is the largest score, a win with one's first disc.
func (g *Geometry) MaxScore() int { return (g.Cells() + 1) / 2 }

func (g *Geometry) topMask(c int) uint64 {
	return 1 << uint(g.Rows-1) << uint(c*(g.Rows+1))
}

func (g *Geometry) bottomMask(c int) uint64 { return 1 << uint(c*(g.Rows+1)) }

// ColumnMask is the bits of column c.
func (g *Geometry) ColumnMask(c int) uint64 {
	return ((1 << uint(g.Rows)) - 1) << uint(c*(g.Rows+1))
}

// Position is a position of a Geometry's board: the discs of the player to
// move and every disc. The zero Position is not valid; use New.
type Position struct {
	g       *Geometry
	current uint64 // the discs of the player to move
	mask    uint64 // every disc
	moves   int    // discs played
}

// ErrGameOver is returned when a move is played in a position where a
// player has already four in a line.
var ErrGameOver = errors.New("solver: the game is over")

// New returns the empty board of g.
func (g *Geometry) New() Position { return Position{g: g} }

// FromMoves plays the columns in turn from the empty board: moves[i] is
// the column (0 the leftmost) of the (i+1)-th disc. It fails on a column
// out of range or full, or a disc played after four in a line.
func (g *Geometry) FromMoves(moves []int) (Position, error) {
	p := g.New()
	for i, c := range moves {
		if c < 0 || c >= g.Columns {
			return Position{}, fmt.Errorf("solver: move %d: column %d out of range [0, %d)", i+1, c, g.Columns)
		}
		if !p.CanPlay(c) {
			return Position{}, fmt.Errorf("solver: move %d: column %d is full", i+1, c)
		}
		if p.IsWinningMove(c) && i != len(moves)-1 {
			return Position{}, fmt.Errorf("solver: move %d: column %d makes four, the game is over", i+1, c)
		}
		p.PlayColumn(c)
	}
	return p, nil
}

// FromBoard builds the position whose player to move has the discs own
// and the opponent the discs other (bitboards as Position's), checking
// that they do not overlap, that every disc rests on another or on the
// bottom, and that the counts fit a player to move.
func (g *Geometry) FromBoard(own, other uint64) (Position, error) {
	mask := own | other
	switch {
	case own&other != 0:
		return Position{}, errors.New("solver: two discs on one cell")
	case mask&^g.board != 0:
		return Position{}, errors.New("solver: a disc off the board")
	case (mask+g.bottom)&mask != 0:
		return Position{}, errors.New("solver: a disc that does not rest on another")
	}
	n, m := bits.OnesCount64(own), bits.OnesCount64(other)
	if n != m && n+1 != m {
		return Position{}, fmt.Errorf("solver: %d discs of the player to move and %d of the other", n, m)
	}
	return Position{g: g, current: own, mask: mask, moves: n + m}, nil
}

// Geometry is the position's board.
func (p *Position) Geometry() *Geometry { return p.g }

// Moves is the number of discs played.
func (p *Position) Moves() int { return p.moves }

// Key identifies the position: current + mask is unique (each column's
// discs and, by the carry into the first empty cell, its height).
func (p *Position) Key() uint64 { return p.current + p.mask }

// CanPlay reports whether column c has room.
func (p *Position) CanPlay(c int) bool { return p.mask&p.g.topMask(c) == 0 }

// PlayColumn drops the mover's disc into column c, which must have room.
func (p *Position) PlayColumn(c int) {
	p.play((p.mask + p.g.bottomMask(c)) & p.g.ColumnMask(c))
}

// play plays the one-bit move.
func (p *Position) play(move uint64) {
	p.current ^= p.mask
	p.mask |= move
	p.moves++
}

// IsWinningMove reports whether the mover makes four by playing column c
// (which must have room).
func (p *Position) IsWinningMove(c int) bool {
	return p.winning()&p.possible()&p.g.ColumnMask(c) != 0
}

// HasFour reports whether the player who moved last has four in a line.
func (p *Position) HasFour() bool { return fours(p.current^p.mask, p.g.Rows) }

// CanWinNext reports whether the mover can make four now.
func (p *Position) CanWinNext() bool { return p.winning()&p.possible() != 0 }

// possible is the cells where a disc can be played.
func (p *Position) possible() uint64 { return (p.mask + p.g.bottom) & p.g.board }

// winning is the empty cells that would make four for the mover.
func (p *Position) winning() uint64 { return winningCells(p.current, p.mask, p.g) }

// opponentWinning is the empty cells that would make four for the opponent.
func (p *Position) opponentWinning() uint64 {
	return winningCells(p.current^p.mask, p.mask, p.g)
}

// nonLosing is the playable cells that do not let the opponent make four
// at once: a cell that blocks the opponent's immediate four when there is
// one (none when there are two), never a cell below one of the
// opponent's winning cells. It assumes the mover cannot win at once.
func (p *Position) nonLosing() uint64 {
	possible := p.possible()
	opp := p.opponentWinning()
	if forced := possible & opp; forced != 0 {
		if forced&(forced-1) != 0 {
			return 0 // two threats: one cannot block both
		}
		possible = forced
	}
	return possible &^ (opp >> 1)
}

// moveScore orders moves: the number of winning cells the move leaves the
// mover.
func (p *Position) moveScore(move uint64) int {
	return bits.OnesCount64(winningCells(p.current|move, p.mask, p.g))
}

// winningCells is the empty cells of the board that complete four for
// the player with discs own.
func winningCells(own, mask uint64, g *Geometry) uint64 {
	h := uint(g.Rows)
	// vertical: three below
	r := (own << 1) & (own << 2) & (own << 3)
	for _, d := range [3]uint{h + 1, h, h + 2} { // horizontal, the two diagonals
		q := (own << d) & (own << (2 * d))
		r |= q & (own << (3 * d))
		r |= q & (own >> d)
		q = (own >> d) & (own >> (2 * d))
		r |= q & (own << d)
		r |= q & (own >> (3 * d))
	}
	return r & (g.board ^ mask)
}

// fours reports whether the discs own hold four in a line.
func fours(own uint64, rows int) bool {
	h := uint(rows)
	for _, d := range [4]uint{1, h + 1, h, h + 2} {
		m := own & (own >> d)
		if m&(m>>(2*d)) != 0 {
			return true
		}
	}
	return false
}

// String draws the position from the top row down: X the first
// player's discs, O the second's, '.' empty.
func (p *Position) String() string {
	first := p.current
	if p.moves%2 == 1 {
		first = p.current ^ p.mask
	}
	b := make([]byte, 0, (p.g.Columns+1)*p.g.Rows)
	for r := p.g.Rows - 1; r >= 0; r-- {
		for c := 0; c < p.g.Columns; c++ {
			bit := uint64(1) << uint(c*(p.g.Rows+1)+r)
			switch {
			case first&bit != 0:
				b = append(b, 'X')
			case p.mask&bit != 0:
				b = append(b, 'O')
			default:
				b = append(b, '.')
			}
		}
		b = append(b, '\n')
	}
	return string(b)
}

// Mirror returns the position reflected left to right: column c becomes
// column Columns-1-c. Its value is the position's, and a move in column c
// of one is a move in column Columns-1-c of the other.
func (p *Position) Mirror() Position {
	q := Position{g: p.g, moves: p.moves}
	h := uint(p.g.Rows + 1)
	col := uint64(1)<<h - 1
	for c := 0; c < p.g.Columns; c++ {
		from, to := uint(c)*h, uint(p.g.Columns-1-c)*h
		q.current |= (p.current >> from & col) << to
		q.mask |= (p.mask >> from & col) << to
	}
	return q
}
