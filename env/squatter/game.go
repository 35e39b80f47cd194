// Package squatter implements the game of Squatter (Chris Leckie's
// COMP30024 project specification, 4 March 2015) on an N x N board as an
// env.Game.
//
// Players take turns placing a piece on a free cell; 8-connected loops of a
// player's live pieces capture the territory they enclose; the game ends when
// no free cell remains and the player with more captured cells wins. Every
// rule decision the specification leaves open is written down, together with
// all of the rule code, in rules.go.
//
// Cells are numbered row-major: cell = y*N + x, with x the column and y the
// row, both 0-based from the top-left corner. Action a places the mover's
// piece on cell a; there is no pass action. Player 0 is Black and moves
// first; player 1 is White.
package squatter

import (
	"fmt"

	"github.com/zerokit/zerokit/env"
)

const (
	// MinN is the smallest supported board side (the specification requires
	// N > 5).
	MinN = 6
	// MaxN is the largest supported board side: MaxN*MaxN cells must fit in
	// a bitset of 192 bits.
	MaxN = 13
	// Planes is the number of observation planes (see State.Observation).
	Planes = 10
	// encodingVersion changes whenever Observation or the action encoding
	// changes.
	encodingVersion = 1
)

// Game is Squatter on an N x N board. It is immutable after New and safe for
// concurrent use; it holds the board geometry and the Zobrist keys that its
// states share.
type Game struct {
	n, cells int
	// board holds every cell; edge the cells of the outermost ring.
	board, edge bitset
	// notCol0 and notColLast mask out cells that wrapped around a row after
	// a shift by one cell east or west.
	notCol0, notColLast bitset
	// n4[c] holds the up to four orthogonal neighbours of cell c.
	n4 []bitset
	// ring[c] lists the eight cells around c in the order N, NE, E, SE, S,
	// SW, W, NW (y grows southward); -1 marks a cell off the board.
	ring [][8]int16
	// orthRuns[m] counts the maximal cyclic runs of set bits of the 8-bit
	// ring mask m that contain an orthogonal position (bit 0, 2, 4 or 6).
	orthRuns [256]uint8
	// Zobrist keys: zPiece[p][c] for a piece of player p on c, zTerr[p][c]
	// for c lying in p's territory, zSide when player 1 is to move.
	zPiece, zTerr [2][]uint64
	zSide         uint64
}

var _ env.Game = (*Game)(nil)

// New returns Squatter on an n x n board, MinN <= n <= MaxN.
func New(n int) (*Game, error) {
	if n < MinN || n > MaxN {
		return nil, fmt.Errorf("squatter: board size %d out of range [%d, %d] (the rules require N > 5; larger boards do not fit the %d-bit board sets)", n, MinN, MaxN, words*64)
	}
	g := &Game{n: n, cells: n * n, n4: make([]bitset, n*n), ring: make([][8]int16, n*n)}
	for c := 0; c < g.cells; c++ {
		x, y := c%n, c/n
		g.board.set(c)
		if x == 0 || y == 0 || x == n-1 || y == n-1 {
			g.edge.set(c)
		}
		if x != 0 {
			g.notCol0.set(c)
		}
		if x != n-1 {
			g.notColLast.set(c)
		}
		// N, NE, E, SE, S, SW, W, NW.
		dirs := [8][2]int{{0, -1}, {1, -1}, {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}}
		for k, d := range dirs {
			nx, ny := x+d[0], y+d[1]
			if nx < 0 || ny < 0 || nx >= n || ny >= n {
				g.ring[c][k] = -1
				continue
			}
			g.ring[c][k] = int16(ny*n + nx)
			if k%2 == 0 {
				g.n4[c].set(ny*n + nx)
			}
		}
	}
	for m := range g.orthRuns {
		g.orthRuns[m] = orthogonalRuns(uint8(m))
	}
	// Zobrist keys from a fixed per-N seed, so hashes are reproducible
	// across runs and processes.
	rng := splitmix64(0x5175_6174_7465_7200 ^ uint64(n))
	for p := range 2 {
		g.zPiece[p] = make([]uint64, g.cells)
		g.zTerr[p] = make([]uint64, g.cells)
		for c := range g.cells {
			g.zPiece[p][c] = rng.next()
			g.zTerr[p][c] = rng.next()
		}
	}
	g.zSide = rng.next()
	return g, nil
}

// orthogonalRuns counts the maximal cyclic runs of set bits in the ring mask
// m (bit k is ring position k: N, NE, E, SE, S, SW, W, NW) that contain at
// least one orthogonal position (an even k).
func orthogonalRuns(m uint8) uint8 {
	if m == 0xff {
		return 1
	}
	// Start just after a clear bit so that no run wraps past the start.
	start := 0
	for m>>uint(start)&1 != 0 {
		start++
	}
	var runs uint8
	inRun, orth := false, false
	for i := 1; i <= 8; i++ {
		k := (start + i) % 8
		if m>>uint(k)&1 != 0 {
			inRun = true
			orth = orth || k%2 == 0
			continue
		}
		if inRun && orth {
			runs++
		}
		inRun, orth = false, false
	}
	return runs
}

// splitmix64 is the SplitMix64 generator, used only to derive Zobrist keys.
type splitmix64 uint64

func (s *splitmix64) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// N returns the board side.
func (g *Game) N() int { return g.n }

// Name implements env.Game: "squatter" followed by N, e.g. "squatter6".
func (g *Game) Name() string { return fmt.Sprintf("squatter%d", g.n) }

// NumActions implements env.Game: one placement action per cell.
func (g *Game) NumActions() int { return g.cells }

// ObservationShape implements env.Game: Planes planes of N x N.
func (g *Game) ObservationShape() env.Shape {
	return env.Shape{Planes: Planes, Height: g.n, Width: g.n}
}

// EncodingVersion implements env.Game.
func (g *Game) EncodingVersion() int { return encodingVersion }

// MaxGameLength implements env.Game: N*N, because every action turns one
// free cell into an occupied one and no cell ever becomes free again (see
// rules.go).
func (g *Game) MaxGameLength() int { return g.cells }

// NewInitialState implements env.Game: the empty board, Black (player 0) to
// move.
func (g *Game) NewInitialState() env.State { return g.NewState() }

// NewState is NewInitialState with the concrete type.
func (g *Game) NewState() *State {
	return &State{g: g, free: g.board}
}

// FromActions plays actions from the initial state and returns the result,
// or an error naming the first illegal action.
func (g *Game) FromActions(actions ...int) (*State, error) {
	s := g.NewState()
	for i, a := range actions {
		if err := s.ApplyAction(a); err != nil {
			return nil, fmt.Errorf("squatter: action %d of %d: %w", i+1, len(actions), err)
		}
	}
	return s, nil
}

// Symmetries implements env.Game: the eight symmetries of the square (the
// dihedral group D4), identity first. The rules mention no direction, so all
// eight are exact. Actions are cells, so each symmetry maps actions exactly
// as it maps cells. Each call returns fresh slices.
func (g *Game) Symmetries() []env.Symmetry { return env.SquareSymmetries(g.n) }
