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

// TestSettingsTemperatureVariesTheOpening checks mcts.Settings'
// Temperature through an agent: the first TemperatureMoves moves of a game
// vary with the agent's seed (the same seed plays the same move), later
// moves and a search without it do not.
func TestSettingsTemperatureVariesTheOpening(t *testing.T) {
	first := func(temp float64, seed uint64, actions ...int) int {
		st := mcts.Settings{Simulations: 400, Mode: mcts.ModePUCT, LeavesInFlight: 1, CPUCT: 1.25}
		if temp > 0 {
			st.Temperature, st.TemperatureMoves = temp, 1
		}
		if err := st.Validate(); err != nil {
			t.Fatal(err)
		}
		// One evaluator seed for every agent: only the move choice
		// depends on the agent's seed.
		eval, err := mcts.NewRolloutEvaluator(1, 7)
		if err != nil {
			t.Fatal(err)
		}
		m, err := NewMCTS("m", st.Config(), eval, seed)
		if err != nil {
			t.Fatal(err)
		}
		a, err := m.Act(context.Background(), ttt(t, actions...))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	distinct := func(temp float64, actions ...int) map[int]bool {
		seen := map[int]bool{}
		for seed := range uint64(16) {
			seen[first(temp, seed, actions...)] = true
		}
		return seen
	}
	if got := distinct(1); len(got) < 2 {
		t.Errorf("temperature 1 on move 0: first moves %v over 16 seeds, want at least 2", got)
	}
	if got := distinct(0); len(got) != 1 {
		t.Errorf("no temperature: first moves %v over 16 seeds, want one", got)
	}
	if got := distinct(1, 4); len(got) != 1 {
		t.Errorf("temperature for move 0 only, on move 1: moves %v over 16 seeds, want one", got)
	}
	if a, b := first(1, 5), first(1, 5); a != b {
		t.Errorf("seed 5 played %d, then %d", a, b)
	}
}
