package neural_test

import (
	"context"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/agent/neural"
	shipped "github.com/zerokit/zerokit/agents"
	"github.com/zerokit/zerokit/env/wyb"
)

// heapLive is the Go heap's live bytes after a full collection.
func heapLive() int64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// TestMemoryBounded plays the shipped Watch Your Back! agent, with its
// search but a small tree budget (tree_mb 1) so that the budget binds
// within a few moves, through a long locked game (before the first
// shrink, Black spread on the outer rings around a White block, as in
// the game that once took the agent to 110.8 MB) and through the exact
// search's window (the last turns before the second shrink, and past it),
// and checks after every move that the tree keeps to its budget and that
// the Go heap's live bytes grow by no more than the tree's budget and the
// exact search's table. docs/reliability.md ("Memory") has the figures of
// the shipped budget in the real process.
func TestMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("plays about 40 searched moves")
	}
	gone := strings.Repeat(" ", 15)
	tests := []struct {
		name  string
		rows  []string
		turn  int // moving turn
		plies int
		exact bool
	}{
		{"locked", []string{
			"X - - - - - - X",
			"- @ - @ - @ - -",
			"@ - - - - - - @",
			"@ - O O O O - @",
			"@ - O O O O - @",
			"- - O O O O - -",
			"- @ - @ - @ - -",
			"X - - - - - - X",
		}, 97, 40, false},
		{"exact window", []string{
			gone,
			"  X - - - - X",
			"  - O - @ - -",
			"  - - O @ - -",
			"  - O - - @ -",
			"  - @ O - - -",
			"  X - - - - X",
			gone,
		}, wyb.SecondShrink - 15, 24, true},
	}
	game := wyb.New(wyb.Options{}) // the referee's rules: no turn limit, the endgame table
	files, err := shipped.Files("wyb")
	if err != nil {
		t.Fatal(err)
	}
	net, err := neural.LoadFS(files, "shipped/wyb", game, neural.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer net.Close()
	m, err := shipped.Manifest("wyb")
	if err != nil {
		t.Fatal(err)
	}
	h, err := agent.Evaluation(game)
	if err != nil {
		t.Fatal(err)
	}
	const treeMB = 1
	// The exact search's table (8 MiB) is made on its first use, and the
	// endgame table (2 MB) on its first probe; the rest (the search's
	// buffers, a position's legal moves) is small.
	const slack = 8<<20 + 2<<20 + 3<<20
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := m.Search
			s.TreeMB, s.Simulations, s.MoveTime = treeMB, 800, 0
			if tc.exact {
				// The exact search gets half the move's time.
				s.MoveTime = 1e9
			}
			a, err := net.NewAgent(s, 1)
			if err != nil {
				t.Fatal(err)
			}
			opp, err := agent.NewAlphaBeta(game, h, agent.AlphaBetaConfig{Depth: 1, TTBits: 8, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			st, err := wyb.NewPosition(wyb.Options{}, strings.Join(tc.rows, "\n"), wyb.Moving, tc.turn)
			if err != nil {
				t.Fatal(err)
			}
			base := heapLive()
			var peak int64
			full, searched := 0, 0
			for ply := 0; ply < tc.plies && !st.IsTerminal(); ply++ {
				ours := st.CurrentPlayer() == wyb.BlackPlayer
				var act int
				if ours {
					act, err = a.Act(context.Background(), st)
				} else {
					act, err = opp.Act(context.Background(), st)
				}
				if err != nil {
					t.Fatal(err)
				}
				if err := st.ApplyAction(act); err != nil {
					t.Fatal(err)
				}
				if !ours {
					continue
				}
				r := a.LastResult()
				if r.Simulations > 0 {
					searched++
				}
				if r.TreeFull {
					full++
				}
				if r.TreeBytes > treeMB<<20 {
					t.Fatalf("ply %d: tree of %d bytes, %d nodes, over its budget of %d MiB", ply, r.TreeBytes, r.TreeSize, treeMB)
				}
				grown := heapLive() - base
				peak = max(peak, grown)
				if grown > treeMB<<20+slack {
					t.Fatalf("ply %d: the live heap grew by %.1f MiB, over the tree's %d MiB and %.0f MiB for the tables",
						ply, float64(grown)/(1<<20), treeMB, float64(slack)/(1<<20))
				}
			}
			if got := a.TreeFulls(); got != full {
				t.Errorf("TreeFulls() = %d, want %d", got, full)
			}
			t.Logf("%d searched moves, %d stopped by the tree's budget; the live heap grew by %.1f MiB at most; final position:\n%s",
				searched, full, float64(peak)/(1<<20), st)
			switch {
			case !tc.exact && full == 0:
				t.Error("the tree's budget never bound: the test proves nothing")
			case tc.exact && peak < 8<<20:
				t.Errorf("the live heap grew by %d bytes: the exact search never made its table", peak)
			case tc.exact && st.MoveNumber() < 24+wyb.SecondShrink:
				t.Errorf("the game ended at move %d, before the second shrink", st.MoveNumber())
			}
		})
	}
}
