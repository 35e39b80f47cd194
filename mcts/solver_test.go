package mcts

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/zerokit/zerokit/env"
)

// blindEvaluator is a network that cannot see tactics: it values every
// position at 0 and gives the actions in blind a prior a million times
// smaller than the others'.
type blindEvaluator struct{ blind []int }

func (b blindEvaluator) Evaluate(_ context.Context, _ env.State, legal []int, priors []float32) (float32, error) {
	for i, a := range legal {
		priors[i] = 1
		for _, x := range b.blind {
			if a == x {
				priors[i] = 1e-6
			}
		}
	}
	return 0, nil
}

// negamax is the exact value of the non-terminal s for the player to move
// and the number of moves to the end with best play (the fastest win, the
// longest resistance).
func negamax(s env.State) (float64, int) {
	best, bestMoves := math.Inf(-1), 0
	for _, a := range s.LegalActions(nil) {
		v, n := valueAfter(s, a)
		if v > best || (v == best && v > 0 && n < bestMoves) || (v == best && v < 0 && n > bestMoves) {
			best, bestMoves = v, n
		}
	}
	return best, bestMoves
}

// valueAfter is the exact value of action a at s for the player to move at
// s, and the number of moves to the end, counting a.
func valueAfter(s env.State, a int) (float64, int) {
	me := s.CurrentPlayer()
	c := s.Clone()
	if err := c.ApplyAction(a); err != nil {
		panic(err)
	}
	if c.IsTerminal() {
		return float64(c.Returns()[me]), 1
	}
	v, n := negamax(c)
	if c.CurrentPlayer() != me {
		v = -v
	}
	return v, n + 1
}

// TestSolverFindsBlindWins: the evaluator gives the winning move, or the
// only move that stops the opponent's win, a prior of about 1e-6, so that
// PUCT's first-play urgency keeps search away from it. The solver finds the
// game's end one move ahead of every expanded position and must play the
// win or the block in every mode.
func TestSolverFindsBlindWins(t *testing.T) {
	modes := []struct {
		name   string
		mode   Mode
		leaves int
	}{
		{"puct", ModePUCT, 1},
		{"puct-leaves4", ModePUCT, 4},
		{"gumbel", ModeGumbel, 1},
	}
	for _, m := range modes {
		for _, pos := range tactics {
			t.Run(m.name+"/"+pos.name, func(t *testing.T) {
				cfg := testConfig(m.mode, 64)
				cfg.LeavesInFlight = m.leaves
				cfg.Solver = true
				st := position(t, pos.moves...)
				s, err := NewSearch(cfg, blindEvaluator{blind: []int{pos.want}}, 1)
				if err != nil {
					t.Fatal(err)
				}
				res := run(t, s, st)
				checkProofs(t, s)
				if res.Action != pos.want {
					t.Fatalf("chose %d, want %d (actions %v visits %v)", res.Action, pos.want, res.Actions, res.Visits)
				}
				if pos.name[:3] == "win" {
					if !res.Proven || res.ProvenValue != 1 || res.ProvenMoves != 1 {
						t.Fatalf("root proven %v value %v in %d moves, want a win in 1", res.Proven, res.ProvenValue, res.ProvenMoves)
					}
					if res.Simulations >= cfg.Simulations {
						t.Fatalf("ran all %d simulations from a proven root", res.Simulations)
					}
				}
			})
		}
	}
}

// TestSolverMatchesMinimax: from tic-tac-toe positions with up to six empty
// cells, a search with a large budget must play a move of the position's
// minimax value. A PUCT search must also prove the root with the exact
// value and distance; Gumbel's sequential halving stops visiting the
// moves it drops, so it proves only wins, and every proof must be exact.
func TestSolverMatchesMinimax(t *testing.T) {
	openings := [][]int{
		{0, 4, 8},
		{4, 0, 8},
		{0, 1, 2},
		{4, 2, 6},
		{0, 4, 1, 2},
		{1, 4, 7, 0},
		{0, 1, 3, 4, 2},
		{4, 0, 2, 6, 3},
	}
	for _, mode := range []Mode{ModePUCT, ModeGumbel} {
		for _, moves := range openings {
			t.Run(fmt.Sprintf("%s/%v", mode, moves), func(t *testing.T) {
				st := position(t, moves...)
				want, wantMoves := negamax(st)
				cfg := testConfig(mode, 20000)
				cfg.Solver = true
				s, err := NewSearch(cfg, UniformEvaluator{}, 3)
				if err != nil {
					t.Fatal(err)
				}
				res := run(t, s, st)
				checkProofs(t, s)
				mustProve := mode == ModePUCT || want == 1
				if (mustProve && !res.Proven) || (res.Proven && (float64(res.ProvenValue) != want || res.ProvenMoves != wantMoves)) {
					t.Fatalf("root proven %v value %v in %d moves, want %v in %d", res.Proven, res.ProvenValue, res.ProvenMoves, want, wantMoves)
				}
				if got, _ := valueAfter(st, res.Action); got != want {
					t.Fatalf("played %d worth %v, the position is worth %v", res.Action, got, want)
				}
			})
		}
	}
}

// TestSolverLongestResistance: in a lost position the solver plays the
// move that delays the loss longest. X: 0 4, O: 8 2 after O's fork
// attempt; here O (to move) ... the position below is lost for the player
// to move whatever it plays, and some losing moves last longer than others.
func TestSolverLongestResistance(t *testing.T) {
	// X 0, O 1, X 4: O must block at 8; every other move loses at once,
	// and after the block X still wins (X forks with 6 or 3). Exact search
	// tells how long O can resist.
	st := position(t, 0, 1, 4)
	want, wantMoves := negamax(st)
	if want != -1 {
		t.Fatalf("test position is worth %v to the player to move, want a loss", want)
	}
	cfg := testConfig(ModePUCT, 20000)
	cfg.Solver = true
	s, err := NewSearch(cfg, blindEvaluator{blind: []int{8}}, 5)
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, s, st)
	checkProofs(t, s)
	if !res.Proven || res.ProvenValue != -1 || res.ProvenMoves != wantMoves {
		t.Fatalf("root proven %v value %v in %d moves, want a loss in %d", res.Proven, res.ProvenValue, res.ProvenMoves, wantMoves)
	}
	if res.Action != 8 {
		t.Fatalf("played %d, want 8 (the block, which resists longest)", res.Action)
	}
}

// checkProofs verifies every proven node of the tree against its
// children: a proven win has a child that is a proven win for the player
// to move, other proven nodes have only proven children, with the best
// value; distances follow the fastest win and the longest resistance.
func checkProofs(t *testing.T, s *Search) {
	t.Helper()
	nodes := s.t.nodes
	for i := range nodes {
		nd := &nodes[i]
		if nd.status == stTerminal {
			if !nd.proven || nd.proof != nd.state.Returns()[0] || nd.depth != 0 {
				t.Fatalf("terminal node %d: proven %v proof %v depth %d, return %v", i, nd.proven, nd.proof, nd.depth, nd.state.Returns()[0])
			}
			continue
		}
		if nd.status == stSolved {
			if !nd.proven || nd.proof != nd.value {
				t.Fatalf("solved node %d: proven %v proof %v, value %v", i, nd.proven, nd.proof, nd.value)
			}
			continue
		}
		if !nd.proven {
			continue
		}
		if nd.status != stExpanded {
			t.Fatalf("node %d proven with status %d", i, nd.status)
		}
		sg := sign(nd.player)
		best, all := math.Inf(-1), true
		win, long := math.MaxInt, 0
		for c := nd.first; c < nd.first+nd.nchild; c++ {
			ch := &nodes[c]
			if !ch.proven {
				all = false
				continue
			}
			v := sg * float64(ch.proof)
			best = max(best, v)
			if v >= 1 {
				win = min(win, int(ch.depth)+1)
			}
			long = max(long, int(ch.depth)+1)
		}
		switch {
		case best >= 1:
			if sg*float64(nd.proof) != 1 || int(nd.depth) != win {
				t.Fatalf("node %d: proof %v depth %d, want a win in %d", i, nd.proof, nd.depth, win)
			}
		case !all:
			t.Fatalf("node %d proven without a winning child and with unproven children", i)
		case sg*float64(nd.proof) != best:
			t.Fatalf("node %d: proof %v, best child %v", i, nd.proof, best)
		case best <= -1 && int(nd.depth) != long:
			t.Fatalf("node %d: lost in %d, longest resistance %d", i, nd.depth, long)
		}
	}
}
