package agent

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/wyb"
)

// negamax is the reference search: plain fixed-depth negamax without
// pruning, tables or ordering, scoring like AlphaBeta, with a plain
// quiescence search (qref) at the horizon when h is Tactical.
func negamax(h Heuristic, s env.State, depth, ply int) float64 {
	me := s.CurrentPlayer()
	if depth == 0 {
		if t, ok := h.(Tactical); ok {
			return qref(t, s, ply, DefaultQuiescence)
		}
		return max(-WinScore/2, min(WinScore/2, h.Evaluate(s, me)))
	}
	best := math.Inf(-1)
	for _, a := range s.LegalActions(nil) {
		c := s.Clone()
		if err := c.ApplyAction(a); err != nil {
			panic(err)
		}
		var v float64
		switch {
		case c.IsTerminal():
			v = terminalScore(c.Returns()[me], ply+1)
		case c.CurrentPlayer() == me:
			v = negamax(h, c, depth-1, ply+1)
		default:
			v = -negamax(h, c, depth-1, ply+1)
		}
		best = max(best, v)
	}
	return best
}

// qref is the reference quiescence search: the best of the static value
// and the values of tactical (or game-ending) actions, without pruning.
func qref(t Tactical, s env.State, ply, left int) float64 {
	me := s.CurrentPlayer()
	best := max(-WinScore/2, min(WinScore/2, t.Evaluate(s, me)))
	if left == 0 || !t.HasTactical(s) {
		return best
	}
	for _, a := range s.LegalActions(nil) {
		c := s.Clone()
		if err := c.ApplyAction(a); err != nil {
			panic(err)
		}
		switch {
		case c.IsTerminal():
			best = max(best, terminalScore(c.Returns()[me], ply+1))
		case !t.IsTactical(s, c):
		case c.CurrentPlayer() == me:
			best = max(best, qref(t, c, ply+1, left-1))
		default:
			best = max(best, -qref(t, c, ply+1, left-1))
		}
	}
	return best
}

// randomWYB plays n random actions from the start of a game.
func randomWYB(rng *rand.Rand, g *wyb.Game, n int) env.State {
	s := g.NewInitialState()
	for range n {
		legal := s.LegalActions(nil)
		if len(legal) == 0 {
			break
		}
		if err := s.ApplyAction(legal[rng.IntN(len(legal))]); err != nil {
			panic(err)
		}
	}
	return s
}

func TestAlphaBetaMatchesNegamax(t *testing.T) {
	// The hash includes the turn, so transpositions only occur at equal
	// remaining depth and alpha-beta with its table must return exactly
	// the minimax value, with and without quiescence search.
	// The reference quiescence search does not prune, so it is checked
	// one ply shallower to keep the test fast.
	matchNegamax(t, HeuristicFunc(wyb.Evaluation), 3)
	matchNegamax(t, wyb.Tactical{Weights: wyb.DefaultWeights}, 2)
}

func matchNegamax(t *testing.T, h Heuristic, maxDepth int) {
	g := wyb.New(wyb.Options{TurnLimit: wyb.DefaultTurnLimit})
	rng := rand.New(rand.NewPCG(11, 12))
	for i := range 24 {
		s := randomWYB(rng, g, rng.IntN(90))
		if s.IsTerminal() {
			continue
		}
		for depth := 1; depth <= maxDepth; depth++ {
			ab, err := NewAlphaBeta(g, h, AlphaBetaConfig{Depth: depth, Seed: uint64(i), TTBits: 12})
			if err != nil {
				t.Fatal(err)
			}
			res, err := ab.Search(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			want := negamax(h, s, depth, 0)
			if math.Abs(res.Score-want) > 1e-9 {
				t.Fatalf("position %d depth %d: alpha-beta %v, negamax %v\n%s", i, depth, res.Score, want, s)
			}
			c := s.Clone()
			if err := c.ApplyAction(res.Action); err != nil {
				t.Fatal(err)
			}
			var got float64
			if c.IsTerminal() {
				got = terminalScore(c.Returns()[s.CurrentPlayer()], 1)
			} else {
				got = -negamax(h, c, depth-1, 1)
			}
			if math.Abs(got-want) > 1e-9 {
				t.Fatalf("position %d depth %d: chosen move worth %v, best %v", i, depth, got, want)
			}
		}
	}
}
