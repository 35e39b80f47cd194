package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/connect4"
	"github.com/zerokit/zerokit/env/tictactoe"
)

func connect4Game(t testing.TB, cols, rows int) env.Game {
	t.Helper()
	g, err := connect4.New(connect4.Params{Columns: cols, Rows: rows})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// On the 4x4 board, whose every position a memoised minimax solves, the
// perfect player's every move keeps the position's value, against random
// moves and itself, and different seeds choose differently among equals.
func TestPerfectKeepsTheValue(t *testing.T) {
	g := connect4Game(t, 4, 4)
	f, err := PerfectFactory(g, PerfectConfig{MoveTime: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	memo := map[uint64]float64{}
	ctx := context.Background()
	firsts := map[int]bool{}
	for game := uint64(0); game < 12; game++ {
		perfect, err := f(game)
		if err != nil {
			t.Fatal(err)
		}
		random := NewRandom(game)
		s := g.NewInitialState()
		for !s.IsTerminal() {
			player := perfect
			if game%3 != 2 && s.CurrentPlayer() != int(game%2) {
				player = Agent(random)
			}
			a, err := player.Act(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			if s.MoveNumber() == 1 && player == perfect {
				firsts[a] = true
			}
			if player == perfect {
				v := solve(s, memo)
				c := s.Clone()
				if err := c.ApplyAction(a); err != nil {
					t.Fatal(err)
				}
				after := float64(c.Returns()[s.CurrentPlayer()])
				if !c.IsTerminal() {
					after = -solve(c, memo)
				}
				if after < v {
					t.Fatalf("game %d: column %d turns a position worth %v into %v:\n%s", game, a, v, after, s)
				}
			}
			if err := s.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
		}
		if perfect.(*Perfect).Fallbacks() != 0 {
			t.Errorf("game %d: %d fallbacks", game, perfect.(*Perfect).Fallbacks())
		}
	}
	if len(firsts) < 2 {
		t.Errorf("the second player's first moves over 12 games: %v; want a choice among equals", firsts)
	}
}

// Past its time bound the player still answers a legal move, counted as a
// fallback; a game without a solver has no perfect player.
func TestPerfectBounds(t *testing.T) {
	g := connect4Game(t, 7, 6)
	f, err := PerfectFactory(g, PerfectConfig{MoveTime: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	a, err := f(1)
	if err != nil {
		t.Fatal(err)
	}
	s := g.NewInitialState()
	act, err := a.Act(context.Background(), s)
	if err != nil || !s.IsLegal(act) {
		t.Fatalf("Act = %d, %v", act, err)
	}
	if a.(*Perfect).Fallbacks() != 1 {
		t.Errorf("%d fallbacks, want 1", a.(*Perfect).Fallbacks())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := a.Act(ctx, s); err == nil {
		t.Error("Act under a cancelled context: no error")
	}
	if _, err := PerfectFactory(tictactoe.New(), PerfectConfig{}); err == nil || !strings.Contains(err.Error(), "no perfect player") {
		t.Errorf("tic-tac-toe: %v", err)
	}
	if _, err := PerfectFactory(connect4Game(t, 8, 8), PerfectConfig{}); err == nil || !strings.Contains(err.Error(), "64 bits") {
		t.Errorf("8x8: %v", err)
	}
}
