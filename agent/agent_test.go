package agent

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/tictactoe"
	"github.com/zerokit/zerokit/env/wyb"
)

func ttt(t testing.TB, actions ...int) env.State {
	t.Helper()
	s, err := tictactoe.FromActions(actions...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// solve is a plain minimax solver, memoised by hash: the value of s for
// its player to move.
func solve(s env.State, memo map[uint64]float64) float64 {
	if v, ok := memo[s.Hash()]; ok {
		return v
	}
	me := s.CurrentPlayer()
	best := -2.0
	for _, a := range s.LegalActions(nil) {
		c := s.Clone()
		if err := c.ApplyAction(a); err != nil {
			panic(err)
		}
		var v float64
		if c.IsTerminal() {
			v = float64(c.Returns()[me])
		} else {
			v = -solve(c, memo)
		}
		best = max(best, v)
	}
	memo[s.Hash()] = best
	return best
}

func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func TestRandomLegalAndSeeded(t *testing.T) {
	g := wyb.New(wyb.Options{TurnLimit: wyb.DefaultTurnLimit})
	play := func(seed uint64) []int {
		r := NewRandom(seed)
		s := g.NewInitialState()
		var out []int
		for !s.IsTerminal() {
			a, err := r.Act(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.ApplyAction(a); err != nil {
				t.Fatalf("random played illegal %d: %v", a, err)
			}
			out = append(out, a)
		}
		if _, err := r.Act(context.Background(), s); !errors.Is(err, ErrTerminal) {
			t.Errorf("Act on a finished game: %v, want ErrTerminal", err)
		}
		return out
	}
	a, b, c := play(1), play(1), play(2)
	if !slicesEqual(a, b) {
		t.Error("same seed, different games")
	}
	if slicesEqual(a, c) {
		t.Error("different seeds, same game")
	}
}

func slicesEqual(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestGreedyTakesWinAndBlocksNothing(t *testing.T) {
	tests := []struct {
		name    string
		actions []int
		want    []int // acceptable actions
	}{
		// X: 0, 1; O: 3, 4; X to move wins at 2.
		{"win row", []int{0, 3, 1, 4}, []int{2}},
		// X: 0, 4; O: 1, 2; X wins at 8.
		{"win diagonal", []int{0, 1, 4, 2}, []int{8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range uint64(5) {
				g := NewGreedy(Zero, seed)
				a, err := g.Act(context.Background(), ttt(t, tt.actions...))
				if err != nil {
					t.Fatal(err)
				}
				if !containsInt(tt.want, a) {
					t.Errorf("seed %d: played %d, want one of %v", seed, a, tt.want)
				}
			}
		})
	}
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func TestGreedyTieBreakIsSeeded(t *testing.T) {
	s := tictactoe.New().NewInitialState()
	seen := map[int]bool{}
	for seed := range uint64(40) {
		a1, _ := NewGreedy(Zero, seed).Act(context.Background(), s)
		a2, _ := NewGreedy(Zero, seed).Act(context.Background(), s)
		if a1 != a2 {
			t.Fatalf("seed %d: %d then %d", seed, a1, a2)
		}
		seen[a1] = true
	}
	if len(seen) < 5 {
		t.Errorf("40 seeds chose only %d distinct opening moves", len(seen))
	}
}

func TestAlphaBetaSolvesTicTacToe(t *testing.T) {
	// Full-depth search must agree with plain minimax on the value of
	// positions from random games, and its move must keep that value.
	g := tictactoe.New()
	rng := rand.New(rand.NewPCG(1, 2))
	memo := map[uint64]float64{}
	for game := range 40 {
		s := g.NewInitialState()
		ab, err := NewAlphaBeta(g, Zero, AlphaBetaConfig{Depth: 9, Seed: uint64(game), TTBits: 10})
		if err != nil {
			t.Fatal(err)
		}
		for !s.IsTerminal() {
			res, err := ab.Search(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			want := solve(s, memo)
			if sign(res.Score) != want {
				t.Fatalf("game %d move %d: score %v, minimax %v\n%s", game, s.MoveNumber(), res.Score, want, s)
			}
			c := s.Clone()
			if err := c.ApplyAction(res.Action); err != nil {
				t.Fatal(err)
			}
			var got float64
			if c.IsTerminal() {
				got = float64(c.Returns()[s.CurrentPlayer()])
			} else {
				got = -solve(c, memo)
			}
			if got != want {
				t.Fatalf("game %d move %d: move %d has value %v, position %v", game, s.MoveNumber(), res.Action, got, want)
			}
			legal := s.LegalActions(nil)
			if err := s.ApplyAction(legal[rng.IntN(len(legal))]); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestAlphaBetaForcedWinDepth(t *testing.T) {
	// X: 0, 4; O: 1, 8. X forks with 3 or 6 and wins on ply 3; no move
	// wins sooner. Depth 2 cannot see it; depth 3 and more must, at the
	// same distance.
	s := ttt(t, 0, 1, 4, 8)
	forks := []int{3, 6}
	for _, depth := range []int{3, 4, 9} {
		ab, err := NewAlphaBeta(tictactoe.New(), Zero, AlphaBetaConfig{Depth: depth})
		if err != nil {
			t.Fatal(err)
		}
		res, err := ab.Search(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if res.Score != WinScore-3 || !containsInt(forks, res.Action) {
			t.Errorf("depth %d: action %d score %v, want a fork (3 or 6) scoring %v", depth, res.Action, res.Score, WinScore-3)
		}
		if res.Depth != 3 {
			t.Errorf("depth %d: stopped at depth %d, want 3 (the win is decided there)", depth, res.Depth)
		}
	}
	ab, _ := NewAlphaBeta(tictactoe.New(), Zero, AlphaBetaConfig{Depth: 2})
	res, _ := ab.Search(context.Background(), s)
	if decided(res.Score) {
		t.Errorf("depth 2 claims a decided score %v", res.Score)
	}
	// Defending: O to move after X: 0, 4 must block 8 (else X wins).
	ab, _ = NewAlphaBeta(tictactoe.New(), Zero, AlphaBetaConfig{Depth: 2})
	if a, _ := ab.Act(context.Background(), ttt(t, 0, 1, 4)); a != 8 {
		t.Errorf("O failed to block: played %d, want 8", a)
	}
}

func TestAlphaBetaDeterministic(t *testing.T) {
	g := wyb.New(wyb.Options{TurnLimit: wyb.DefaultTurnLimit})
	h, err := Evaluation(g)
	if err != nil {
		t.Fatal(err)
	}
	play := func(seed uint64) []int {
		var players [2]*AlphaBeta
		for p := range players {
			players[p], err = NewAlphaBeta(g, h, AlphaBetaConfig{Depth: 2, Seed: seed + uint64(p)})
			if err != nil {
				t.Fatal(err)
			}
		}
		s := g.NewInitialState()
		var out []int
		for !s.IsTerminal() && len(out) < 60 {
			a, err := players[s.CurrentPlayer()].Act(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
			out = append(out, a)
		}
		return out
	}
	if !slicesEqual(play(3), play(3)) {
		t.Error("same seed, different games")
	}
	// Seeds only order equally valued root moves, but those exist in the
	// placing phase, so different seeds differ somewhere in 60 moves.
	if slicesEqual(play(3), play(1000)) {
		t.Error("different seeds, identical games")
	}
}

func TestAlphaBetaTimeBudget(t *testing.T) {
	g := wyb.New(wyb.Options{TurnLimit: wyb.DefaultTurnLimit})
	h, _ := Evaluation(g)
	ab, err := NewAlphaBeta(g, h, AlphaBetaConfig{MoveTime: 30 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if ab.Name() != "alphabeta-30ms" {
		t.Errorf("name %q", ab.Name())
	}
	s := g.NewInitialState()
	res, err := ab.Search(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Depth < 1 || !s.IsLegal(res.Action) {
		t.Errorf("depth %d action %d", res.Depth, res.Action)
	}
	// Generous bound: the budget plus time to notice it (checked every
	// 1024 nodes) on a loaded machine.
	if res.Elapsed > 2*time.Second {
		t.Errorf("search took %v with a 30ms budget", res.Elapsed)
	}
	// A context deadline also bounds a depth-limited search.
	ab2, _ := NewAlphaBeta(g, h, AlphaBetaConfig{Depth: 50})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	res, err = ab2.Search(ctx, s)
	if err != nil || res.Depth < 1 || res.Depth >= 50 {
		t.Errorf("deadline search: depth %d err %v", res.Depth, err)
	}
	if st := ab.Stats(); st.Moves != 1 || st.Nodes <= 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestAlphaBetaCancelled(t *testing.T) {
	g := wyb.New(wyb.Options{TurnLimit: wyb.DefaultTurnLimit})
	h, _ := Evaluation(g)
	ab, _ := NewAlphaBeta(g, h, AlphaBetaConfig{Depth: 3})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ab.Act(ctx, g.NewInitialState()); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if _, err := ab.Act(context.Background(), ttt(t, 0, 3, 1, 4, 2)); err == nil {
		t.Error("no error on a terminal state")
	}
}

func TestAlphaBetaConfigErrors(t *testing.T) {
	g := tictactoe.New()
	tests := []struct {
		cfg  AlphaBetaConfig
		h    Heuristic
		want string
	}{
		{AlphaBetaConfig{}, Zero, "set a depth limit"},
		{AlphaBetaConfig{Depth: -1}, Zero, "negative"},
		{AlphaBetaConfig{Depth: 1000}, Zero, "exceeds"},
		{AlphaBetaConfig{Depth: 2, TTBits: 40}, Zero, "TTBits"},
		{AlphaBetaConfig{Depth: 2}, nil, "nil heuristic"},
	}
	for _, tt := range tests {
		_, err := NewAlphaBeta(g, tt.h, tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: err = %v, want %q", tt.cfg, err, tt.want)
		}
	}
}
