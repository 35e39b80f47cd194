package connect4

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/connect4/solver"
)

var _ env.SolvableGame = (*Game)(nil)

// book is the opening book of the standard board: early positions solved
// by zerokit book (its first lines give the command), which the solver
// answers without searching.
//
//go:embed book.txt
var book []byte

// NewSolver returns a solver of the game's positions (env.SolvableGame),
// with a transposition table of 2^solver.DefaultTableBits entries (about
// 38 MB), for boards whose columns*(rows+1) is at most 64 (every board
// but 8x8). On the standard board it answers the positions of the shipped
// opening book (book.txt) from the book.
func (g *Game) NewSolver() (env.Solver, error) { return g.NewSolverBits(0) }

// NewSolverBits is NewSolver with a table of 2^bits entries (0: the
// default).
func (g *Game) NewSolverBits(bits int) (*Solver, error) {
	geo, err := g.Geometry()
	if err != nil {
		return nil, err
	}
	s, err := solver.New(geo, bits)
	if err != nil {
		return nil, err
	}
	if b, err := g.Book(geo); err != nil {
		return nil, err
	} else if b != nil {
		if err := s.SetBook(b); err != nil {
			return nil, err
		}
	}
	return &Solver{g: g, s: s}, nil
}

// Book reads the shipped opening book of the standard board for geo, the
// board's geometry; nil on other boards.
func (g *Game) Book(geo *solver.Geometry) (*solver.Book, error) {
	if g.cols != DefaultColumns || g.rows != DefaultRows {
		return nil, nil
	}
	b, err := solver.ReadBook(bytes.NewReader(book), geo)
	if err != nil {
		return nil, fmt.Errorf("connect4: the shipped opening book: %w", err)
	}
	return b, nil
}

// Solver is an env.Solver of a Connect Four board: package solver on the
// game's states.
type Solver struct {
	g *Game
	s *solver.Solver
}

var _ env.Solver = (*Solver)(nil)

// Position converts s, a state of the solver's game that is not over, to
// the solver's bitboards.
func (sv *Solver) Position(s env.State) (solver.Position, error) {
	st, ok := s.(*State)
	if !ok || st.g.cols != sv.g.cols || st.g.rows != sv.g.rows {
		return solver.Position{}, fmt.Errorf("connect4: solver of %s given a %T", sv.g.Name(), s)
	}
	if st.IsTerminal() {
		return solver.Position{}, fmt.Errorf("connect4: the game is over")
	}
	var own, other uint64
	me := int8(st.moves%2 + 1)
	for r := 0; r < st.g.rows; r++ {
		for c := 0; c < st.g.cols; c++ {
			bit := uint64(1) << uint(c*(st.g.rows+1)+r)
			switch v := st.board[r*st.g.cols+c]; {
			case v == me:
				own |= bit
			case v != 0:
				other |= bit
			}
		}
	}
	return sv.s.Geometry().FromBoard(own, other)
}

// Nodes is the number of positions searched since the solver was made.
func (sv *Solver) Nodes() int64 { return sv.s.Nodes() }

// BookAnswers is the number of positions answered from the opening book
// since the solver was made.
func (sv *Solver) BookAnswers() int64 { return sv.s.BookAnswers() }

// Inner is the solver of package solver, for its scores and counters.
func (sv *Solver) Inner() *solver.Solver { return sv.s }

func solution(v solver.Value) env.Solution {
	return env.Solution{Value: int(v.Result), Actions: v.Plies}
}

// Solve implements env.Solver.
func (sv *Solver) Solve(ctx context.Context, s env.State) (env.Solution, error) {
	p, err := sv.Position(s)
	if err != nil {
		return env.Solution{}, err
	}
	v, err := sv.s.Solve(ctx, p)
	return solution(v), err
}

// Keeping implements env.Solver.
func (sv *Solver) Keeping(ctx context.Context, s env.State) (int, []int, error) {
	p, err := sv.Position(s)
	if err != nil {
		return 0, nil, err
	}
	r, keep, err := sv.s.Keeping(ctx, p)
	return int(r), keep, err
}

// Best implements env.Solver.
func (sv *Solver) Best(ctx context.Context, s env.State) (env.Solution, []int, error) {
	p, err := sv.Position(s)
	if err != nil {
		return env.Solution{}, nil, err
	}
	v, best, err := sv.s.Best(ctx, p)
	return solution(v), best, err
}

// Geometry returns the solver's geometry of the game's board, or an error
// for a board the solver cannot hold (8x8).
func (g *Game) Geometry() (*solver.Geometry, error) {
	geo, err := solver.NewGeometry(g.cols, g.rows)
	if err != nil {
		return nil, fmt.Errorf("%s has no solver: %w", g.Name(), err)
	}
	return geo, nil
}
