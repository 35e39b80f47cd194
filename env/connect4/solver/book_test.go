package solver

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

// plainMoveScores is the score, by the plain negamax, of playing each
// column of p, and which columns are playable.
func plainMoveScores(p Position) (scores []int, playable []bool) {
	g := p.g
	scores, playable = make([]int, g.Columns), make([]bool, g.Columns)
	for c := 0; c < g.Columns; c++ {
		if !p.CanPlay(c) {
			continue
		}
		playable[c] = true
		scores[c] = (g.Cells() + 1 - p.moves) / 2
		if !p.IsWinningMove(c) {
			q := p
			q.PlayColumn(c)
			scores[c] = -plainScore(q)
		}
	}
	return scores, playable
}

// plainEntry is the book entry of p by the plain negamax.
func plainEntry(p Position) (Value, []int, []int) {
	want := plainScore(p)
	scores, playable := plainMoveScores(p)
	var best, keep []int
	for c, mv := range scores {
		if !playable[c] {
			continue
		}
		if sign(mv) == sign(want) {
			keep = append(keep, c)
		}
		if mv == want {
			best = append(best, c)
		}
	}
	return p.g.ValueOf(want, p.moves), best, keep
}

// buildBook solves the positions of g from prefix up to maxDiscs.
func buildBook(t *testing.T, g *Geometry, prefix string, maxDiscs int, mover Mover) *Book {
	t.Helper()
	ps, err := g.BookPositions(moves(prefix), maxDiscs, mover)
	if err != nil {
		t.Fatal(err)
	}
	b := NewBook(g)
	added := 0
	err = BuildBook(context.Background(), BuildConfig{Book: b, Positions: ps, Workers: 2, TableBits: 16,
		Added: func(Entry, time.Duration) error { added++; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if b.Len() != len(ps) || added != len(ps) {
		t.Fatalf("%d entries, %d added, of %d positions", b.Len(), added, len(ps))
	}
	return b
}

// Every entry of books built on small boards agrees with the plain
// negamax, and so does the solver's answer from the book for each
// position's mirror image, without a search.
func TestBookAgainstPlain(t *testing.T) {
	for _, tc := range []struct {
		cols, rows int
		prefix     string
		maxDiscs   int
	}{{4, 4, "", 6}, {5, 4, "22", 7}} {
		g := geometry(t, tc.cols, tc.rows)
		b := buildBook(t, g, tc.prefix, tc.maxDiscs, BothMovers)
		s, err := New(g, 8)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetBook(b); err != nil {
			t.Fatal(err)
		}
		for _, e := range b.Entries() {
			p, err := g.FromMoves(e.Moves)
			if err != nil {
				t.Fatal(err)
			}
			v, best, keep := plainEntry(p)
			if e.Value != v || !slices.Equal(e.Best, best) || !slices.Equal(e.Keep, keep) {
				t.Fatalf("%dx%d %s: book %v %v %v, plain %v %v %v", tc.cols, tc.rows, digits(e.Moves), e.Value, e.Best, e.Keep, v, best, keep)
			}
			m := p.Mirror()
			v, best, keep = plainEntry(m)
			ctx := context.Background()
			gotV, gotBest, err := s.Best(ctx, m)
			if err != nil {
				t.Fatal(err)
			}
			res, gotKeep, err := s.Keeping(ctx, m)
			if err != nil {
				t.Fatal(err)
			}
			sv, err := s.Solve(ctx, m)
			if err != nil {
				t.Fatal(err)
			}
			r, err := s.Result(ctx, m)
			if err != nil {
				t.Fatal(err)
			}
			if gotV != v || sv != v || res != v.Result || r != v.Result || !slices.Equal(gotBest, best) || !slices.Equal(gotKeep, keep) {
				t.Fatalf("%dx%d mirror of %s: %v %v %v, plain %v %v %v", tc.cols, tc.rows, digits(e.Moves), gotV, gotBest, gotKeep, v, best, keep)
			}
		}
		if s.Nodes() != 0 {
			t.Fatalf("%d nodes searched for positions of the book", s.Nodes())
		}
	}
}

// A book of the second player's positions answers the first player's
// between them from their children, without a search, as the plain
// negamax does; beyond the book the solver searches.
func TestBookAnswersFromChildren(t *testing.T) {
	g := geometry(t, 4, 4)
	b := buildBook(t, g, "", 5, SecondMover)
	s, err := New(g, 8)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetBook(b); err != nil {
		t.Fatal(err)
	}
	firsts, err := g.BookPositions(nil, 4, FirstMover)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, m := range firsts {
		p, _ := g.FromMoves(m)
		for _, p := range []Position{p, p.Mirror()} {
			if _, ok := b.Lookup(p); ok {
				t.Fatalf("%s: a first player's position in a book of the second's", digits(m))
			}
			v, best, keep := plainEntry(p)
			gotV, gotBest, err := s.Best(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			res, gotKeep, err := s.Keeping(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if gotV != v || res != v.Result || !slices.Equal(gotBest, best) || !slices.Equal(gotKeep, keep) {
				t.Fatalf("%s: %v %v %v, plain %v %v %v", digits(m), gotV, gotBest, gotKeep, v, best, keep)
			}
		}
	}
	if s.Nodes() != 0 || s.BookAnswers() == 0 {
		t.Fatalf("%d nodes searched inside the book, %d answers from it", s.Nodes(), s.BookAnswers())
	}
	answers := s.BookAnswers()
	p, _ := g.FromMoves(moves("012301"))
	if _, ok := b.Answer(p); ok {
		t.Fatal("a position two discs past the book answered")
	}
	want := plainScore(p)
	if v, err := s.Solve(ctx, p); err != nil || v.Score != want || s.Nodes() == 0 {
		t.Fatalf("past the book: %v, %v, %d nodes; plain %d", v, err, s.Nodes(), want)
	}
	if s.BookAnswers() != answers {
		t.Fatalf("a position past the book counted as answered from it (%d answers, %d before)", s.BookAnswers(), answers)
	}
}

// Mirror reflects the columns, and twice is the identity.
func TestMirror(t *testing.T) {
	g := geometry(t, 7, 6)
	p, _ := g.FromMoves(moves("0012536"))
	want, _ := g.FromMoves(moves("6654130"))
	m := p.Mirror()
	if m.Key() != want.Key() || m.current != want.current || m.moves != want.moves {
		t.Fatalf("mirror:\n%s\nwant\n%s", m.String(), want.String())
	}
	if mm := m.Mirror(); mm != p {
		t.Fatal("mirror twice is not the identity")
	}
}

// BookPositions lists each position once up to mirror images, filtered
// by the player to move.
func TestBookPositions(t *testing.T) {
	g := geometry(t, 7, 6)
	for _, tc := range []struct {
		prefix   string
		maxDiscs int
		mover    Mover
		want     int
	}{
		{"", 0, BothMovers, 1},
		{"", 2, BothMovers, 1 + 4 + 25}, // 7 first discs are 4 up to mirrors; of 49 pairs only 33 is its own mirror: 25
		{"", 2, FirstMover, 1 + 25},
		{"", 2, SecondMover, 4},
		{"3", 3, SecondMover, 1 + 25}, // 3ab and its mirror 3(6-a)(6-b)
		{"0", 2, BothMovers, 1 + 7},   // no mirror image repeats a position from 0
	} {
		ps, err := g.BookPositions(moves(tc.prefix), tc.maxDiscs, tc.mover)
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) != tc.want {
			t.Errorf("from %q to %d discs, mover %d: %d positions, want %d", tc.prefix, tc.maxDiscs, tc.mover, len(ps), tc.want)
		}
	}
	if _, err := g.BookPositions(moves("0101010"), 9, BothMovers); !errors.Is(err, ErrGameOver) {
		t.Errorf("from a four: %v", err)
	}
	if _, err := g.BookPositions(moves("9"), 3, BothMovers); err == nil {
		t.Error("from column 9: no error")
	}
}

// A book reads back what it writes, whatever the order of Add.
func TestBookRoundTrip(t *testing.T) {
	g := geometry(t, 4, 4)
	b := buildBook(t, g, "", 4, BothMovers)
	var w1 bytes.Buffer
	if err := b.Write(&w1, []string{"a comment"}); err != nil {
		t.Fatal(err)
	}
	r, err := ReadBook(bytes.NewReader(w1.Bytes()), g)
	if err != nil {
		t.Fatal(err)
	}
	es := r.Entries()
	slices.Reverse(es)
	rev := NewBook(g)
	for _, e := range es {
		if err := rev.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	var w2 bytes.Buffer
	if err := rev.Write(&w2, []string{"a comment"}); err != nil {
		t.Fatal(err)
	}
	if w1.String() != w2.String() {
		t.Fatalf("written again:\n%s\nfirst:\n%s", w2.String(), w1.String())
	}
	if !strings.Contains(w1.String(), "\n- D16 ") {
		t.Fatalf("the empty 4x4 board (a draw) is not written as -:\n%s", w1.String())
	}
}

// ReadBook names what is wrong with a bad book.
func TestReadBookErrors(t *testing.T) {
	g := geometry(t, 7, 6)
	head := BookHeader + "\n# board: 7x6\n"
	for _, tc := range []struct{ name, text, want string }{
		{"empty", "", "empty"},
		{"header", "# zerokit book v2\n", "line 1"},
		{"board", BookHeader + "\n# board: 6x5\n", "solver's board is 7x6"},
		{"fields", head + "3 L40 0123456\n", "line 3: want MOVES VALUE BEST KEEP"},
		{"moves", head + "3x L40 0123456 0123456\n", "not a column digit"},
		{"column", head + "9 L40 0123456 0123456\n", "out of range"},
		{"value letter", head + "3 X40 0123456 0123456\n", "want W, D or L"},
		{"value number", head + "3 L99 0123456 0123456\n", "not in [1, 41]"},
		{"draw length", head + "3 D40 0123456 0123456\n", "a draw lasts 41"},
		{"parity", head + "3 L41 0123456 0123456\n", "winner's parity"},
		{"unplayable", head + "000000 D36 0 0123456\n", "column 0 not playable"},
		{"order", head + "3 L40 10 0123456\n", "increasing order"},
		{"no moves", head + "3 L40 - 0123456\n", "not a column digit"},
		{"best not kept", head + "2 D41 3 2\n", "does not keep"},
		{"duplicate", head + "3 L40 3 0123456\n3 L40 3 0123456\n", "already in the book"},
		{"mirror", head + "1 W39 3 3\n5 W39 3 3\n", "line 4: solver: book entry 5: the position (or its mirror)"},
		{"over", head + "0101010 W1 0 0\n", "game is over"},
	} {
		_, err := ReadBook(strings.NewReader(tc.text), g)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to say %q", tc.name, err, tc.want)
		}
	}
}

// A solver refuses a book of another board.
func TestSetBookBoard(t *testing.T) {
	s, err := New(geometry(t, 7, 6), 8)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetBook(NewBook(geometry(t, 6, 5))); err == nil {
		t.Fatal("a 6x5 book accepted by a 7x6 solver")
	}
}

// BuildBook stops with the context, keeping the entries it finished.
func TestBuildBookCancel(t *testing.T) {
	g := geometry(t, 5, 4)
	ps, err := g.BookPositions(nil, 8, BothMovers)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := NewBook(g)
	err = BuildBook(ctx, BuildConfig{Book: b, Positions: ps, Workers: 2, TableBits: 12, Added: func(Entry, time.Duration) error {
		if b.Len() == 5 {
			cancel()
		}
		return nil
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want the context's", err)
	}
	if b.Len() < 5 || b.Len() >= len(ps) {
		t.Fatalf("%d entries of %d kept", b.Len(), len(ps))
	}
	// Run again: the rest is solved, none twice.
	if err := BuildBook(context.Background(), BuildConfig{Book: b, Positions: ps, Workers: 2, TableBits: 12}); err != nil {
		t.Fatal(err)
	}
	if b.Len() != len(ps) {
		t.Fatalf("%d entries of %d after the second run", b.Len(), len(ps))
	}
	stop := errors.New("disk full")
	if err := BuildBook(context.Background(), BuildConfig{Book: NewBook(g), Positions: ps, Workers: 2, Added: func(Entry, time.Duration) error { return stop }}); !errors.Is(err, stop) {
		t.Fatalf("a failing Added: %v", err)
	}
}

func FuzzReadBook(f *testing.F) {
	f.Add([]byte(BookHeader + "\n# board: 4x4\n- D16 12 12\n0 D15 0123 0123\n"))
	f.Add([]byte(BookHeader + "\n# board: 4x4\n1 W9 2 2\n"))
	f.Add([]byte("garbage"))
	g, err := NewGeometry(4, 4)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := ReadBook(bytes.NewReader(data), g)
		if err != nil {
			return
		}
		var w bytes.Buffer
		if err := b.Write(&w, nil); err != nil {
			t.Fatal(err)
		}
		c, err := ReadBook(bytes.NewReader(w.Bytes()), g)
		if err != nil {
			t.Fatalf("reading what was written: %v\n%s", err, w.String())
		}
		var w2 bytes.Buffer
		if err := c.Write(&w2, nil); err != nil {
			t.Fatal(err)
		}
		if c.Len() != b.Len() || w.String() != w2.String() {
			t.Fatalf("read back %d entries of %d:\n%s\nwant\n%s", c.Len(), b.Len(), w2.String(), w.String())
		}
	})
}
