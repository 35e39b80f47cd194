package solver

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func geometry(t testing.TB, c, r int) *Geometry {
	t.Helper()
	g, err := NewGeometry(c, r)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// moves reads a string of column digits, 0 the leftmost.
func moves(s string) []int {
	m := make([]int, len(s))
	for i := range s {
		m[i] = int(s[i] - '0')
	}
	return m
}

// plain is the slow reference: negamax with alpha-beta pruning alone, no
// table, no ordering, no window tricks, on the exact score.
func plain(p Position, alpha, beta int) int {
	g := p.g
	if p.moves == g.Cells() {
		return 0
	}
	for c := 0; c < g.Columns; c++ {
		if p.CanPlay(c) && p.IsWinningMove(c) {
			return (g.Cells() + 1 - p.moves) / 2
		}
	}
	best := g.MinScore() - 1
	for c := 0; c < g.Columns; c++ {
		if !p.CanPlay(c) {
			continue
		}
		q := p
		q.PlayColumn(c)
		v := -plain(q, -beta, -alpha)
		if v > best {
			best = v
		}
		if v > alpha {
			alpha = v
		}
		if alpha >= beta {
			break
		}
	}
	return best
}

// plainScore is the exact score by plain negamax.
func plainScore(p Position) int { return plain(p, p.g.MinScore()-1, p.g.MaxScore()+1) }

// fullDraw is a whole game that fills the 7x6 board without four: the
// columns alternate XOXOXO and OXOXOX from the bottom in the pattern
// AABBAAB, so no row, column or diagonal holds more than two of a kind.
const fullDraw = "022002200220" + "133113311331" + "466446644664" + "555555"

// Positions of known value on the 7x6 board: built by hand (the first
// ones) or found by the plain negamax among random late positions (the
// test checks the plain negamax's value too).
func TestKnownValues(t *testing.T) {
	g := geometry(t, 7, 6)
	tests := []struct {
		name  string
		moves string
		want  string // Value.String()
		best  []int  // the best columns, if checked
	}{
		// X has three in column 3: four now.
		{"win in 1, column", "343434", "win in 1", []int{3}},
		// X has 2, 3, 4 on the bottom row, O's three on top of them.
		{"win in 1, open three", "223344", "win in 1", []int{1, 5}},
		// X has 2 and 3 on the bottom row, O two in column 6: X makes an
		// open three (1-2-3 or 2-3-4), O blocks one end, X wins at the
		// other with the third disc from now.
		{"win in 3, open two", "2636", "win in 3", []int{1, 4}},
		// O faces X's open three 2-3-4: whatever O plays, X makes four.
		{"loss in 2, open three", "26364", "loss in 2", nil},
		{"win in 3, found", "20311513626046044151551505", "win in 3", nil},
		{"win in 5", "0521100543411403114560603626", "win in 5", nil},
		{"loss in 4", "10156234503261011463462413", "loss in 4", nil},
		{"loss in 6", "65024363443402322350403621", "loss in 6", nil},
		{"draw", "420243426636636630051334255", "draw", nil},
		{"draw, one disc left", fullDraw[:41], "draw", []int{5}},
		{"draw, full board", fullDraw, "draw", nil},
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := g.FromMoves(moves(tc.moves))
			if err != nil {
				t.Fatal(err)
			}
			s, err := New(g, 16)
			if err != nil {
				t.Fatal(err)
			}
			v, best, err := s.Best(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if v.String() != tc.want {
				t.Errorf("value %v (score %d), want %s\n%s", v, v.Score, tc.want, p.String())
			}
			if tc.best != nil && !slices.Equal(best, tc.best) {
				t.Errorf("best columns %v, want %v\n%s", best, tc.best, p.String())
			}
			if p.moves >= 20 {
				if ps := plainScore(p); ps != v.Score {
					t.Errorf("plain negamax: score %d (%v), the solver %d", ps, g.ValueOf(ps, p.moves), v.Score)
				}
			}
		})
	}
}

// The solver agrees with the plain negamax on random positions: late ones
// of the 7x6 board and every stage of small boards, in the exact score,
// the result, the value-keeping columns, the best columns and each
// column's value.
func TestAgainstPlain(t *testing.T) {
	ctx := context.Background()
	for _, b := range []struct{ cols, rows, minMoves, n int }{
		{7, 6, 28, 60}, {4, 4, 0, 60}, {5, 4, 6, 40}, {4, 5, 6, 40}, {6, 5, 18, 40},
	} {
		g := geometry(t, b.cols, b.rows)
		rng := rand.New(rand.NewPCG(uint64(b.cols), uint64(b.rows)))
		s, err := New(g, 18)
		if err != nil {
			t.Fatal(err)
		}
		for n := 0; n < b.n; {
			p, ms := randomPosition(g, rng, b.minMoves+rng.IntN(4))
			if p.moves == g.Cells() {
				continue
			}
			n++
			want := plainScore(p)
			v, err := s.Solve(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if v.Score != want {
				t.Fatalf("%dx%d %s: score %d, plain %d\n%s", b.cols, b.rows, ms, v.Score, want, p.String())
			}
			res, keep, err := s.Keeping(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if res != v.Result {
				t.Fatalf("%dx%d %s: result %v, value %v", b.cols, b.rows, ms, res, v)
			}
			_, best, err := s.Best(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			vals, ok, err := s.MoveValues(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			scores, playable := plainMoveScores(p)
			for c := 0; c < g.Columns; c++ {
				if ok[c] != playable[c] {
					t.Fatalf("%dx%d %s: column %d valued %v, playable %v", b.cols, b.rows, ms, c, ok[c], playable[c])
				}
				if playable[c] && vals[c].Score != scores[c] {
					t.Fatalf("%dx%d %s: column %d worth %d, plain %d", b.cols, b.rows, ms, c, vals[c].Score, scores[c])
				}
			}
			wantV, wantBest, wantKeep := plainEntry(p)
			if wantV.Score != want {
				t.Fatalf("%dx%d %s: plain entry %v, plain score %d", b.cols, b.rows, ms, wantV, want)
			}
			if !slices.Equal(keep, wantKeep) || !slices.Equal(best, wantBest) {
				t.Fatalf("%dx%d %s: keeping %v best %v, plain %v and %v", b.cols, b.rows, ms, keep, best, wantKeep, wantBest)
			}
		}
	}
}

// randomPosition plays random discs that make no four, up to n discs or
// until none is left.
func randomPosition(g *Geometry, rng *rand.Rand, n int) (Position, string) {
	p := g.New()
	var ms []byte
	for p.moves < n {
		var legal []int
		for c := 0; c < g.Columns; c++ {
			if p.CanPlay(c) && !p.IsWinningMove(c) {
				legal = append(legal, c)
			}
		}
		if len(legal) == 0 {
			break
		}
		c := legal[rng.IntN(len(legal))]
		p.PlayColumn(c)
		ms = append(ms, byte('0'+c))
	}
	return p, string(ms)
}

// Values decode to the right number of plies, and back.
func TestValueOf(t *testing.T) {
	g := geometry(t, 7, 6)
	for _, tc := range []struct {
		score, moves int
		want         string
	}{
		{18, 6, "win in 1"}, {17, 6, "win in 3"}, {-18, 5, "loss in 2"}, {-17, 5, "loss in 4"},
		{21, 0, "win in 1"}, {1, 0, "win in 41"}, {-1, 1, "loss in 40"}, {0, 12, "draw"},
	} {
		if got := g.ValueOf(tc.score, tc.moves).String(); got != tc.want {
			t.Errorf("ValueOf(%d, %d) = %s, want %s", tc.score, tc.moves, got, tc.want)
		}
	}
}

// Bad input is an error, never a panic.
func TestErrors(t *testing.T) {
	for _, tc := range []struct{ c, r int }{{0, 6}, {7, 0}, {8, 8}, {10, 6}} {
		if _, err := NewGeometry(tc.c, tc.r); err == nil {
			t.Errorf("NewGeometry(%d, %d): no error", tc.c, tc.r)
		}
	}
	g := geometry(t, 7, 6)
	for _, ms := range []string{"7", "0000000", "3434343"} {
		m := moves(ms)
		if ms == "7" {
			m = []int{7}
		}
		if _, err := g.FromMoves(append(m, 0)); err == nil {
			t.Errorf("FromMoves(%s): no error", ms)
		}
	}
	s, err := New(g, 16)
	if err != nil {
		t.Fatal(err)
	}
	p, err := g.FromMoves(moves("3434343"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Solve(context.Background(), p); err != ErrGameOver {
		t.Errorf("Solve after four: %v", err)
	}
	other := geometry(t, 6, 5)
	if _, err := s.Solve(context.Background(), other.New()); err == nil {
		t.Error("a 6x5 position solved by a 7x6 solver")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Solve(ctx, g.New()); err == nil {
		t.Error("Solve with a cancelled context: no error")
	}
	for _, bad := range [][2]uint64{{1, 1}, {2, 0}, {1 << 6, 0}, {1, 0}} {
		if _, err := g.FromBoard(bad[0], bad[1]); err == nil {
			t.Errorf("FromBoard(%b, %b): no error", bad[0], bad[1])
		}
	}
}

// A deadline stops a long search with the context's error.
func TestDeadline(t *testing.T) {
	g := geometry(t, 7, 6)
	s, err := New(g, 16)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := s.Solve(ctx, g.New()); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the empty board in 50 ms: %v", err)
	}
}
