package connect4_test

import (
	"context"
	"slices"
	"testing"

	"github.com/zerokit/zerokit/env/connect4"
	"github.com/zerokit/zerokit/env/connect4/solver"
)

// The shipped opening book reads, and its positions of one disc have the
// values the game's solution (Allis, 1988) gives them: the centre wins
// for the first player, the columns beside it draw, the others lose.
func TestShippedBookKnownValues(t *testing.T) {
	g, err := connect4.New(connect4.Params{Columns: 7, Rows: 6})
	if err != nil {
		t.Fatal(err)
	}
	geo, err := g.Geometry()
	if err != nil {
		t.Fatal(err)
	}
	b, err := g.Book(geo)
	if err != nil {
		t.Fatal(err)
	}
	if b.Len() == 0 {
		t.Fatal("the shipped book is empty")
	}
	want := map[int]solver.Result{0: solver.Win, 1: solver.Win, 2: solver.Draw, 3: solver.Loss, 4: solver.Draw, 5: solver.Win, 6: solver.Win}
	found := 0
	for c, r := range want {
		p, _ := geo.FromMoves([]int{c})
		e, ok := b.Lookup(p)
		if !ok {
			continue
		}
		found++
		if e.Value.Result != r {
			t.Errorf("first disc in column %d: %v for the second player, want %v", c, e.Value, r)
		}
	}
	if found == 0 {
		t.Error("the shipped book has no position of one disc")
	}
	// Other boards have no book.
	small, err := connect4.New(connect4.Params{Columns: 6, Rows: 5})
	if err != nil {
		t.Fatal(err)
	}
	sgeo, _ := small.Geometry()
	if sb, err := small.Book(sgeo); sb != nil || err != nil {
		t.Fatalf("6x5: book %v, error %v", sb, err)
	}
}

// The shipped book agrees with itself: an entry whose positions two discs
// later are all in the book has the value that minimax over them gives,
// and its best and value-keeping columns are minimax's. (The positions of
// the book take minutes each to solve, too long for a test; this checks
// each level against the next.)
func TestShippedBookMinimax(t *testing.T) {
	g, err := connect4.New(connect4.Params{Columns: 7, Rows: 6})
	if err != nil {
		t.Fatal(err)
	}
	geo, _ := g.Geometry()
	b, err := g.Book(geo)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, e := range b.Entries() {
		p, _ := geo.FromMoves(e.Moves)
		score, complete := 0, true
		scores := map[int]int{}
		for a := 0; a < geo.Columns && complete; a++ {
			if !p.CanPlay(a) {
				continue
			}
			if p.IsWinningMove(a) {
				scores[a] = (geo.Cells() + 1 - p.Moves()) / 2
				continue
			}
			q := p
			q.PlayColumn(a)
			worst := geo.MaxScore() + 1
			for c := 0; c < geo.Columns; c++ {
				if !q.CanPlay(c) {
					continue
				}
				v := -(geo.Cells() - p.Moves()) / 2 // the opponent makes four at once
				if !q.IsWinningMove(c) {
					r := q
					r.PlayColumn(c)
					if r.Moves() == geo.Cells() {
						v = 0
					} else if re, ok := b.Lookup(r); ok {
						v = re.Value.Score // the scores of one player along perfect play are equal
					} else {
						complete = false
						break
					}
				}
				worst = min(worst, v)
			}
			scores[a] = worst
		}
		if !complete {
			continue
		}
		checked++
		score = geo.MinScore() - 1
		for _, v := range scores {
			score = max(score, v)
		}
		var best, keep []int
		for a := 0; a < geo.Columns; a++ {
			v, ok := scores[a]
			if !ok {
				continue
			}
			if v == score {
				best = append(best, a)
			}
			if sign(v) == sign(score) {
				keep = append(keep, a)
			}
		}
		if e.Value.Score != score || !slices.Equal(e.Best, best) || !slices.Equal(e.Keep, keep) {
			t.Errorf("%v: book %v best %v keep %v; minimax over the book %d best %v keep %v", e.Moves, e.Value, e.Best, e.Keep, score, best, keep)
		}
	}
	t.Logf("%d of %d entries checked against the entries two discs later", checked, b.Len())
}

func sign(v int) int {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}

// The game's solver answers the book's positions without searching.
func TestSolverUsesBook(t *testing.T) {
	g, err := connect4.New(connect4.Params{Columns: 7, Rows: 6})
	if err != nil {
		t.Fatal(err)
	}
	sv, err := g.NewSolverBits(8)
	if err != nil {
		t.Fatal(err)
	}
	b := sv.Inner().Book()
	if b == nil || b.Len() == 0 {
		t.Fatal("the solver has no book")
	}
	e := b.Entries()[0]
	s := g.NewInitialState()
	for _, c := range e.Moves {
		if err := s.ApplyAction(c); err != nil {
			t.Fatal(err)
		}
	}
	sol, best, err := sv.Best(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if sol.Value != int(e.Value.Result) || sol.Actions != e.Value.Plies || !slices.Equal(best, e.Best) {
		t.Fatalf("%v: %+v %v, the book says %v %v", e.Moves, sol, best, e.Value, e.Best)
	}
	if n, b := sv.Nodes(), sv.BookAnswers(); n != 0 || b != 1 {
		t.Fatalf("%d nodes searched, %d answers from the book, want 0 and 1", n, b)
	}
}
