// Package nim is Nim, the example of a game added to zerokit from a module
// of its own: its init function registers it with zerokit's package
// env/games, and the module's main (package cli's Main) then offers every
// zerokit command for it: train, eval, play, serve, export, web.
//
// The board is N heaps of 1, 3, 5, ... 2N-1 stones (N = 4 is Marienbad's
// 1, 3, 5, 7). A move takes one or more stones from one heap; whoever takes
// the last stone wins (normal play). Player 0 moves first.
//
// Action h*W + k-1 takes k stones from heap h (0-based), where W = 2N-1 is
// the largest heap. Its text form is "H:K", heap H counted from 1: "2:3"
// takes three stones from the second heap.
package nim

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
)

const (
	// MinHeaps and MaxHeaps bound the number of heaps.
	MinHeaps, MaxHeaps = 2, 6
	// DefaultHeaps is the number of heaps of the game named "nim".
	DefaultHeaps = 4
	// encodingVersion changes when Observation or the actions do.
	encodingVersion = 1
)

func init() {
	games.Register(games.Registration{
		Name:     "nim",
		Title:    "Nim",
		Names:    fmt.Sprintf("nim (heaps of 1, 3, 5, 7), nim-N (N heaps of 1, 3, ... 2N-1 stones, %d <= N <= %d)", MinHeaps, MaxHeaps),
		Defaults: Params{Heaps: DefaultHeaps},
		Parse:    parseName,
	})
}

// Params are Nim's rule parameters (a games.Params): heaps in a
// configuration's game section.
type Params struct {
	Heaps int `yaml:"heaps"`
}

// Game implements games.Params.
func (p Params) Game() (env.Game, error) { return New(p) }

// parseName reads "nim" or "nim-N".
func parseName(name string) (games.Params, error) {
	if name == "nim" {
		return Params{Heaps: DefaultHeaps}, nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(name, "nim-"))
	if !strings.HasPrefix(name, "nim-") || err != nil {
		return nil, errors.New("want nim or nim-N")
	}
	return Params{Heaps: n}, nil
}

// Game is Nim with a fixed set of heaps. It implements env.Game and the
// optional env.Heuristics, env.TextUI, env.Grid and env.Refereed.
type Game struct {
	heaps int
}

// New returns the game of p's heaps.
func New(p Params) (*Game, error) {
	if p.Heaps < MinHeaps || p.Heaps > MaxHeaps {
		return nil, fmt.Errorf("heaps: %d out of range [%d, %d]", p.Heaps, MinHeaps, MaxHeaps)
	}
	return &Game{heaps: p.Heaps}, nil
}

// width is the size of the largest heap, the number of actions per heap.
func (g *Game) width() int { return 2*g.heaps - 1 }

// Name implements env.Game: "nim" for four heaps, else "nim-N".
func (g *Game) Name() string {
	if g.heaps == DefaultHeaps {
		return "nim"
	}
	return fmt.Sprintf("nim-%d", g.heaps)
}

// NumActions implements env.Game: one action per heap and number taken.
func (g *Game) NumActions() int { return g.heaps * g.width() }

// ObservationShape implements env.Game: one plane, a row per heap, a one
// for each stone.
func (g *Game) ObservationShape() env.Shape {
	return env.Shape{Planes: 1, Height: g.heaps, Width: g.width()}
}

// EncodingVersion implements env.Game.
func (g *Game) EncodingVersion() int { return encodingVersion }

// MaxGameLength implements env.Game: one stone a move at most, N*N stones.
func (g *Game) MaxGameLength() int { return g.heaps * g.heaps }

// NewInitialState implements env.Game: every heap full, player 0 to move.
func (g *Game) NewInitialState() env.State {
	s := &State{g: g}
	for h := 0; h < g.heaps; h++ {
		s.heap[h] = int8(2*h + 1)
	}
	s.hash = s.computeHash()
	return s
}

// Symmetries implements env.Game: the identity only (the heaps differ).
func (g *Game) Symmetries() []env.Symmetry {
	return []env.Symmetry{env.Identity(g.heaps*g.width(), g.NumActions())}
}

// State is a position.
type State struct {
	g      *Game
	heap   [MaxHeaps]int8
	moves  int
	winner int8 // 0 none yet, else 1 + the winner
	hash   uint64
}

// zobrist is the key of heap h holding n stones, or of player 1 to move
// for h == MaxHeaps.
func zobrist(h, n int) uint64 { return env.ZobristKey(h*(2*MaxHeaps) + n) }

func (s *State) computeHash() uint64 {
	var z uint64
	for h := 0; h < s.g.heaps; h++ {
		z ^= zobrist(h, int(s.heap[h]))
	}
	if s.moves%2 == 1 {
		z ^= zobrist(MaxHeaps, 0)
	}
	return z
}

// CurrentPlayer implements env.State.
func (s *State) CurrentPlayer() int { return s.moves % 2 }

// LegalActions implements env.State.
func (s *State) LegalActions(dst []int) []int {
	dst = dst[:0]
	if s.IsTerminal() {
		return dst
	}
	w := s.g.width()
	for h := 0; h < s.g.heaps; h++ {
		for k := 1; k <= int(s.heap[h]); k++ {
			dst = append(dst, h*w+k-1)
		}
	}
	return dst
}

// split returns the heap and the number of stones of action a.
func (s *State) split(a int) (heap, take int) {
	w := s.g.width()
	return a / w, a%w + 1
}

// IsLegal implements env.State.
func (s *State) IsLegal(a int) bool {
	if a < 0 || a >= s.g.NumActions() || s.IsTerminal() {
		return false
	}
	h, k := s.split(a)
	return k <= int(s.heap[h])
}

// ApplyAction implements env.State.
func (s *State) ApplyAction(a int) error {
	if !s.IsLegal(a) {
		return fmt.Errorf("nim: illegal action %d (%s)", a, s.ActionString(a))
	}
	h, k := s.split(a)
	s.hash ^= zobrist(h, int(s.heap[h]))
	s.heap[h] -= int8(k)
	s.hash ^= zobrist(h, int(s.heap[h])) ^ zobrist(MaxHeaps, 0)
	if s.stones() == 0 {
		s.winner = int8(1 + s.moves%2)
	}
	s.moves++
	return nil
}

// stones is the number of stones left.
func (s *State) stones() int {
	n := 0
	for h := 0; h < s.g.heaps; h++ {
		n += int(s.heap[h])
	}
	return n
}

// Clone implements env.State.
func (s *State) Clone() env.State { c := *s; return &c }

// IsTerminal implements env.State: no stone left.
func (s *State) IsTerminal() bool { return s.winner != 0 }

// Returns implements env.State: 1 for whoever took the last stone, -1 for
// the other; zeros before the end.
func (s *State) Returns() [2]float32 {
	if s.winner == 0 {
		return [2]float32{}
	}
	var r [2]float32
	w := int(s.winner - 1)
	r[w], r[1-w] = 1, -1
	return r
}

// Hash implements env.State.
func (s *State) Hash() uint64 { return s.hash }

// MoveNumber implements env.State.
func (s *State) MoveNumber() int { return s.moves }

// Observation implements env.State: plane cell (h, i) is 1 when heap h has
// more than i stones.
func (s *State) Observation(dst []float32) {
	w := s.g.width()
	for i := range dst[:s.g.heaps*w] {
		dst[i] = 0
	}
	for h := 0; h < s.g.heaps; h++ {
		for i := 0; i < int(s.heap[h]); i++ {
			dst[h*w+i] = 1
		}
	}
}

// ActionString implements env.State: "H:K", heap H counted from 1.
func (s *State) ActionString(a int) string {
	if a < 0 || a >= s.g.NumActions() {
		return fmt.Sprintf("action%d", a)
	}
	h, k := s.split(a)
	return fmt.Sprintf("%d:%d", h+1, k)
}

// ParseAction implements env.State: "H:K" (or "H K"), heap H counted from
// 1, K stones.
func (s *State) ParseAction(text string) (int, error) {
	f := strings.FieldsFunc(text, func(r rune) bool { return r == ':' || r == ' ' || r == '\t' })
	if len(f) != 2 {
		return 0, fmt.Errorf("%q: write H:K, take K stones from heap H", strings.TrimSpace(text))
	}
	h, err1 := strconv.Atoi(f[0])
	k, err2 := strconv.Atoi(f[1])
	switch {
	case err1 != nil || err2 != nil:
		return 0, fmt.Errorf("%q: heap and stones are not numbers", strings.TrimSpace(text))
	case h < 1 || h > s.g.heaps:
		return 0, fmt.Errorf("heap %d out of range [1, %d]", h, s.g.heaps)
	case k < 1 || k > s.g.width():
		return 0, fmt.Errorf("%d stones out of range [1, %d]", k, s.g.width())
	}
	return (h-1)*s.g.width() + k - 1, nil
}

// String implements env.State: a line per heap, "|" per stone.
func (s *State) String() string {
	var b strings.Builder
	for h := 0; h < s.g.heaps; h++ {
		fmt.Fprintf(&b, "%d %s\n", h+1, strings.Repeat("|", int(s.heap[h])))
	}
	return b.String()
}

// NimSum is the exclusive or of the heaps: the player to move can win when
// it is not zero.
func (s *State) NimSum() int {
	x := 0
	for h := 0; h < s.g.heaps; h++ {
		x ^= int(s.heap[h])
	}
	return x
}
