package data

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/env"
)

// mnkGame is a private test game: players alternately fill a cell of an n×n
// board; k in a row (horizontal, vertical or diagonal) wins, a full board is
// a draw. n=3, k=3 is tic-tac-toe. Its 8 board symmetries are exact.
type mnkGame struct {
	n, k int
	zob  [2][]uint64
	syms []env.Symmetry
}

func newMNK(n, k int) *mnkGame {
	g := &mnkGame{n: n, k: k}
	rng := rand.New(rand.NewPCG(uint64(n), uint64(k)))
	for p := range g.zob {
		g.zob[p] = make([]uint64, n*n)
		for i := range g.zob[p] {
			g.zob[p][i] = rng.Uint64()
		}
	}
	// The 8 elements of the dihedral group as maps (r, c) -> (r', c').
	maps := []struct {
		name string
		f    func(r, c int) (int, int)
	}{
		{"identity", func(r, c int) (int, int) { return r, c }},
		{"rot90", func(r, c int) (int, int) { return c, n - 1 - r }},
		{"rot180", func(r, c int) (int, int) { return n - 1 - r, n - 1 - c }},
		{"rot270", func(r, c int) (int, int) { return n - 1 - c, r }},
		{"flipH", func(r, c int) (int, int) { return r, n - 1 - c }},
		{"flipV", func(r, c int) (int, int) { return n - 1 - r, c }},
		{"transpose", func(r, c int) (int, int) { return c, r }},
		{"antitranspose", func(r, c int) (int, int) { return n - 1 - c, n - 1 - r }},
	}
	for _, m := range maps {
		s := env.Symmetry{Name: m.name, Cells: make([]int, n*n), Actions: make([]int, n*n)}
		for r := 0; r < n; r++ {
			for c := 0; c < n; c++ {
				r2, c2 := m.f(r, c)
				s.Cells[r*n+c] = r2*n + c2
				s.Actions[r*n+c] = r2*n + c2
			}
		}
		g.syms = append(g.syms, s)
	}
	return g
}

func (g *mnkGame) Name() string         { return fmt.Sprintf("mnk%d_%d", g.n, g.k) }
func (g *mnkGame) NumActions() int      { return g.n * g.n }
func (g *mnkGame) EncodingVersion() int { return 1 }
func (g *mnkGame) MaxGameLength() int   { return g.n * g.n }
func (g *mnkGame) ObservationShape() env.Shape {
	return env.Shape{Planes: 3, Height: g.n, Width: g.n}
}
func (g *mnkGame) Symmetries() []env.Symmetry { return g.syms }
func (g *mnkGame) NewInitialState() env.State {
	return &mnkState{g: g, board: make([]int8, g.n*g.n), winner: -1}
}

type mnkState struct {
	g      *mnkGame
	board  []int8 // 0 empty, 1 player 0, 2 player 1
	player int
	moves  int
	winner int // -1 none, 0/1, 2 draw
	hash   uint64
}

func (s *mnkState) CurrentPlayer() int {
	if s.IsTerminal() {
		return -1
	}
	return s.player
}

func (s *mnkState) LegalActions(dst []int) []int {
	dst = dst[:0]
	if s.IsTerminal() {
		return dst
	}
	for i, v := range s.board {
		if v == 0 {
			dst = append(dst, i)
		}
	}
	return dst
}

func (s *mnkState) IsLegal(a int) bool {
	return !s.IsTerminal() && a >= 0 && a < len(s.board) && s.board[a] == 0
}

func (s *mnkState) ApplyAction(a int) error {
	if !s.IsLegal(a) {
		return fmt.Errorf("mnk: action %d is illegal", a)
	}
	s.board[a] = int8(s.player + 1)
	s.hash ^= s.g.zob[s.player][a]
	s.moves++
	if s.wins(a) {
		s.winner = s.player
	} else if s.moves == len(s.board) {
		s.winner = 2
	}
	s.player = 1 - s.player
	return nil
}

func (s *mnkState) wins(a int) bool {
	n, v := s.g.n, s.board[a]
	r0, c0 := a/n, a%n
	for _, d := range [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}} {
		count := 1
		for _, sign := range []int{1, -1} {
			r, c := r0+sign*d[0], c0+sign*d[1]
			for r >= 0 && r < n && c >= 0 && c < n && s.board[r*n+c] == v {
				count++
				r, c = r+sign*d[0], c+sign*d[1]
			}
		}
		if count >= s.g.k {
			return true
		}
	}
	return false
}

func (s *mnkState) Clone() env.State {
	c := *s
	c.board = append([]int8(nil), s.board...)
	return &c
}

func (s *mnkState) IsTerminal() bool { return s.winner >= 0 }

func (s *mnkState) Returns() [2]float32 {
	switch s.winner {
	case 0:
		return [2]float32{1, -1}
	case 1:
		return [2]float32{-1, 1}
	}
	return [2]float32{}
}

func (s *mnkState) Hash() uint64    { return s.hash }
func (s *mnkState) MoveNumber() int { return s.moves }

func (s *mnkState) Observation(dst []float32) {
	cells := len(s.board)
	clear(dst)
	for i, v := range s.board {
		switch {
		case v == 0:
		case int(v-1) == s.player:
			dst[i] = 1
		default:
			dst[cells+i] = 1
		}
	}
	if s.player == 0 {
		for i := range cells {
			dst[2*cells+i] = 1
		}
	}
}

func (s *mnkState) ActionString(a int) string { return strconv.Itoa(a) }

func (s *mnkState) ParseAction(str string) (int, error) { return strconv.Atoi(str) }

func (s *mnkState) String() string {
	var b strings.Builder
	for i, v := range s.board {
		b.WriteByte(".XO"[v])
		if i%s.g.n == s.g.n-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// playRandom plays one random game of g and records it with random (but
// valid) search targets: policies over the legal actions, some entries
// zero-omitted, fullProb of the moves marked full, root values on some.
func playRandom(tb testing.TB, g env.Game, rng *rand.Rand, fullProb float64) *Record {
	tb.Helper()
	s := g.NewInitialState()
	rec := &Record{
		Game:            g.Name(),
		EncodingVersion: g.EncodingVersion(),
		Meta: Meta{
			NetworkStep: rng.Int64N(1 << 40),
			Seed:        rng.Uint64(),
			Worker:      rng.IntN(64),
			Time:        time.Unix(1_700_000_000+rng.Int64N(1e8), rng.Int64N(1e9)).UTC(),
		},
	}
	var legal []int
	for !s.IsTerminal() {
		legal = s.LegalActions(legal)
		m := Move{Full: rng.Float64() < fullProb}
		if m.Full || rng.IntN(2) == 0 {
			m.Policy = randomPolicy(rng, legal)
		}
		if rng.IntN(3) > 0 {
			m.HasRootValue = true
			m.RootValue = float32(rng.Float64()*2 - 1)
		}
		a := legal[rng.IntN(len(legal))]
		rec.Actions = append(rec.Actions, a)
		rec.Moves = append(rec.Moves, m)
		if err := s.ApplyAction(a); err != nil {
			tb.Fatal(err)
		}
	}
	rec.Returns = s.Returns()
	return rec
}

// randomPolicy returns a normalized sparse policy over a random non-empty
// subset of legal (kept in increasing order).
func randomPolicy(rng *rand.Rand, legal []int) []ActionProb {
	var p []ActionProb
	var sum float64
	w := make([]float64, 0, len(legal))
	for _, a := range legal {
		if len(p) > 0 && rng.IntN(4) == 0 {
			continue // an unvisited action
		}
		x := rng.ExpFloat64()
		p = append(p, ActionProb{Action: int32(a)})
		w = append(w, x)
		sum += x
	}
	for i := range p {
		p[i].Prob = float32(w[i] / sum)
	}
	return p
}
