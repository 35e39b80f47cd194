package nim

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zerokit/zerokit/env"
)

// The optional interfaces that give Nim the rest of zerokit: the greedy and
// alpha-beta players (env.Heuristics), zerokit play and the exported
// agent's README (env.TextUI), the browser (env.Grid) and zerokit serve's
// line protocol (env.Refereed).
var (
	_ env.Heuristics = (*Game)(nil)
	_ env.TextUI     = (*Game)(nil)
	_ env.Grid       = (*Game)(nil)
	_ env.Refereed   = (*Game)(nil)
)

// Material implements env.Heuristics: stones belong to nobody, so none.
func (g *Game) Material() env.Heuristic {
	return env.HeuristicFunc(func(env.State, int) float64 { return 0 })
}

// ShrinkMaterial implements env.Heuristics: Material.
func (g *Game) ShrinkMaterial() env.Heuristic { return g.Material() }

// Evaluation implements env.Heuristics: Nim's theory, exact. The player to
// move wins when the nim-sum is not zero.
func (g *Game) Evaluation() env.Heuristic {
	return env.HeuristicFunc(func(st env.State, player int) float64 {
		s := st.(*State)
		if s.IsTerminal() {
			return float64(s.Returns()[player])
		}
		v := -1.0
		if s.NimSum() != 0 {
			v = 1
		}
		if s.CurrentPlayer() != player {
			v = -v
		}
		return v
	})
}

// Title implements env.TextUI.
func (g *Game) Title() string {
	sizes := make([]string, g.heaps)
	for h := range sizes {
		sizes[h] = fmt.Sprint(2*h + 1)
	}
	return fmt.Sprintf("Nim with heaps of %s stones: take one or more stones from one heap; whoever takes the last stone wins.", strings.Join(sizes, ", "))
}

// Player implements env.TextUI and env.RefereeCodec: "first" or "second".
func (g *Game) Player(colour string) (int, error) { return Codec{}.Player(colour) }

// Colour implements env.TextUI.
func (g *Game) Colour(player int) string { return Codec{}.Colour(player) }

// Board implements env.TextUI: a line per heap.
func (g *Game) Board(s env.State) string { return s.String() }

// Status implements env.TextUI: nothing beyond the board.
func (g *Game) Status(env.State, func(int) string) string { return "" }

// ParseMove implements env.TextUI: "H:K" or "H K", a legal move.
func (g *Game) ParseMove(s env.State, line string) (int, error) {
	a, err := s.ParseAction(line)
	if err != nil {
		return 0, err
	}
	if !s.IsLegal(a) {
		h, k := s.(*State).split(a)
		return 0, fmt.Errorf("heap %d has fewer than %d stones", h+1, k)
	}
	return a, nil
}

// FormatMove implements env.TextUI.
func (g *Game) FormatMove(s env.State, a int) string { return s.ActionString(a) }

// MustPass implements env.TextUI: Nim has no pass.
func (g *Game) MustPass(env.State) bool { return false }

// Outcome implements env.TextUI: nothing beyond the winner.
func (g *Game) Outcome(env.State) string { return "" }

// GridSize implements env.Grid: a row per heap, a column per stone of the
// largest.
func (g *Game) GridSize() (width, height int) { return g.width(), g.heaps }

// GridCell implements env.Grid: a stone (drawn as player 0's piece) or an
// empty cell.
func (g *Game) GridCell(st env.State, x, y int) env.Cell {
	if x < int(st.(*State).heap[y]) {
		return env.Cell{Piece: 0, Owner: -1}
	}
	return env.Cell{Piece: -1, Owner: -1}
}

// ActionCells implements env.Grid: the first stone an action takes, so that
// clicking a stone takes it and every stone right of it.
func (g *Game) ActionCells(st env.State, a int) (from, to int) {
	s := st.(*State)
	if a < 0 || a >= g.NumActions() {
		return -1, -1
	}
	h, k := s.split(a)
	n := int(s.heap[h])
	if k > n {
		return -1, -1
	}
	c := h*g.width() + n - k
	return c, c
}

// Referee implements env.Refereed: zerokit serve plays Nim in "H:K"
// actions, with colours "first" and "second".
func (g *Game) Referee() (env.Game, env.RefereeCodec) { return g, Codec{} }

// Codec is Nim's env.RefereeCodec for zerokit serve's line protocol:
// "init first", "action N" (N the moves played), "update 2:3".
type Codec struct{}

var _ env.RefereeCodec = Codec{}

// Player implements env.RefereeCodec.
func (Codec) Player(colour string) (int, error) {
	switch colour {
	case "", "first":
		return 0, nil
	case "second":
		return 1, nil
	}
	return 0, errors.New("want first or second")
}

// Colour implements env.RefereeCodec.
func (Codec) Colour(player int) string {
	if player == 0 {
		return "first"
	}
	return "second"
}

// Turns implements env.RefereeCodec: the moves played.
func (Codec) Turns(s env.State) int { return s.MoveNumber() }

// ParseAction implements env.RefereeCodec: "H:K".
func (Codec) ParseAction(s env.State, text string) (int, error) { return s.ParseAction(text) }

// FormatAction implements env.RefereeCodec: "H:K".
func (Codec) FormatAction(s env.State, a int) (string, error) {
	if a < 0 || a >= s.(*State).g.NumActions() {
		return "", fmt.Errorf("nim: no action %d", a)
	}
	return s.ActionString(a), nil
}
