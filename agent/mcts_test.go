package agent

import (
	"context"
	"testing"

	"github.com/zerokit/zerokit/env/tictactoe"
	"github.com/zerokit/zerokit/mcts"
)

func TestPureMCTSTactics(t *testing.T) {
	tests := []struct {
		name    string
		actions []int
		want    int
	}{
		{"take the win", []int{0, 3, 1, 4}, 2},
		{"block", []int{0, 1, 4}, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range uint64(3) {
				m, err := NewPureMCTS(300, 1, seed)
				if err != nil {
					t.Fatal(err)
				}
				a, err := m.Act(context.Background(), ttt(t, tt.actions...))
				if err != nil {
					t.Fatal(err)
				}
				if a != tt.want {
					t.Errorf("seed %d: played %d, want %d", seed, a, tt.want)
				}
			}
		})
	}
}

func TestMCTSReproducibleAndReuse(t *testing.T) {
	g := tictactoe.New()
	play := func(seed uint64, reuse bool) ([]int, int) {
		cfg := mcts.PlayConfig(50)
		cfg.ReuseTree = reuse
		var players [2]*MCTS
		for p := range players {
			eval, err := mcts.NewRolloutEvaluator(1, seed+uint64(p))
			if err != nil {
				t.Fatal(err)
			}
			players[p], err = NewMCTS("m", cfg, eval, seed+uint64(p))
			if err != nil {
				t.Fatal(err)
			}
		}
		s := g.NewInitialState()
		var actions []int
		reused := 0
		for !s.IsTerminal() {
			m := players[s.CurrentPlayer()]
			a, err := m.Act(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			reused += m.LastResult().ReusedVisits
			if err := s.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
			actions = append(actions, a)
		}
		return actions, reused
	}
	a, _ := play(7, false)
	b, _ := play(7, false)
	if !slicesEqual(a, b) {
		t.Errorf("same seed: %v then %v", a, b)
	}
	if _, reused := play(7, false); reused != 0 {
		t.Errorf("no reuse, yet %d reused visits", reused)
	}
	if _, reused := play(7, true); reused == 0 {
		t.Error("tree reuse kept no visits")
	}
	if _, err := NewPureMCTS(0, 1, 0); err == nil {
		t.Error("0 simulations: no error")
	}
	if _, err := PureMCTSFactory(10, 0); err == nil {
		t.Error("0 rollouts: no error")
	}
}
