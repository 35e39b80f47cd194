package neural

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/arena"
	"github.com/zerokit/zerokit/env/wyb"
	"github.com/zerokit/zerokit/mcts"
)

// TestDeadlineStress plays many moves at budgets of 1 to 20 ms, through
// one batched network, while more busy goroutines than cores compete for
// the CPU, so that deadlines pass at every stage of a search (the root's
// evaluation, the first round, mid-search): every move must come back
// legal, and any error fails the test. Before the search fell back on a
// move when its deadline passed early, such matches ended with "mcts:
// search: context deadline exceeded" or "mcts: batcher: context deadline
// exceeded".
func TestDeadlineStress(t *testing.T) {
	game := wyb.New(wyb.Options{TurnLimit: 48})
	path := filepath.Join(t.TempDir(), "w.ckpt")
	writePureCheckpoint(t, path, game)
	n, err := Load(path, game, Options{Concurrency: 4, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()

	busy, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stop()
	for range 2*runtime.NumCPU() + 2 {
		wg.Go(func() {
			x := 0
			for busy.Err() == nil {
				for range 1000 {
					x++
				}
			}
			_ = x
		})
	}

	ab, err := agent.AlphaBetaFactory(game, agent.AlphaBetaConfig{MoveTime: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	moves, fallbacks := 0, 0
	for _, mode := range []mcts.Mode{mcts.ModePUCT, mcts.ModeGumbel} {
		for _, budget := range []time.Duration{time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond} {
			s := DefaultSettings()
			s.Mode, s.Simulations, s.MoveTime, s.Solver = mode, 0, mcts.Duration(budget), mode == mcts.ModePUCT
			if mode == mcts.ModeGumbel {
				s.Simulations = 256 // Gumbel plans for a budget; the time ends the search first
			}
			f, err := n.Factory(s)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%s %v", mode, budget)
			start := time.Now()
			res, err := arena.Play(context.Background(), arena.Config{Game: game, Games: 4, Workers: 4, Seed: uint64(budget)}, f, ab)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if res.Games() != 4 {
				t.Fatalf("%s: %d games", name, res.Games())
			}
			t.Logf("%s: %d moves, %d fallbacks, %v", name, res.MovesA, res.FallbacksA, time.Since(start).Round(time.Millisecond))
			moves += res.MovesA
			fallbacks += res.FallbacksA
		}
	}
	t.Logf("%d moves, %d fallbacks", moves, fallbacks)

	// A deadline already passed before the move is not an error either,
	// for the network agent (a counted fallback) and the baselines.
	past, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	st := game.NewInitialState()
	a, err := n.NewAgent(DefaultSettings(), 1)
	if err != nil {
		t.Fatal(err)
	}
	h, err := agent.Material(game)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ab(1)
	if err != nil {
		t.Fatal(err)
	}
	baselines := []agent.Agent{a, agent.NewRandom(1), agent.NewGreedy(h, 1), b}
	for _, p := range baselines {
		if act, err := p.Act(past, st); err != nil || !st.IsLegal(act) {
			t.Errorf("%s after its deadline: action %d, %v", p.Name(), act, err)
		}
	}
	if a.Fallbacks() != 1 || !a.LastResult().Fallback {
		t.Errorf("network agent: %d fallbacks, last result fallback %v; want 1, true", a.Fallbacks(), a.LastResult().Fallback)
	}
}
