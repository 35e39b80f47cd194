package mcts

import (
	"fmt"
	"slices"
	"testing"
)

// TestTreeMBBoundsTheMemory checks that Config.TreeMB bounds the tree's
// memory, arena and positions, through a search and the searches after it
// with tree reuse, that a search stopped by it is Truncated and TreeFull,
// that it stops near the budget rather than far below it, and that
// without a budget the same searches grow past it.
func TestTreeMBBoundsTheMemory(t *testing.T) {
	const budget = 1 << 20
	for _, tc := range []struct {
		name   string
		mode   Mode
		leaves int
		solver bool
		treeMB int
	}{
		{"puct", ModePUCT, 1, false, 1},
		{"puct, leaves in flight, solver", ModePUCT, 4, true, 1},
		{"gumbel, leaves in flight", ModeGumbel, 4, false, 1},
		{"no budget", ModePUCT, 1, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(tc.mode, 30_000)
			cfg.LeavesInFlight, cfg.Solver, cfg.TreeMB = tc.leaves, tc.solver, tc.treeMB
			s, err := NewSearch(cfg, UniformEvaluator{}, 1)
			if err != nil {
				t.Fatal(err)
			}
			st := position(t)
			full := 0
			var used int64 // by the nodes the last advance kept
			for move := 0; move < 3 && !st.IsTerminal(); move++ {
				res := run(t, s, st)
				if res.TreeBytes != s.TreeBytes() {
					t.Fatalf("move %d: Result.TreeBytes %d, Search.TreeBytes %d", move, res.TreeBytes, s.TreeBytes())
				}
				if tc.treeMB == 0 {
					if res.TreeFull || res.Truncated {
						t.Fatalf("move %d: no budget, but TreeFull %v, Truncated %v", move, res.TreeFull, res.Truncated)
					}
				} else if res.TreeBytes > budget {
					t.Fatalf("move %d: tree of %d bytes (%d nodes, %d positions) over its budget of %d", move, res.TreeBytes, res.TreeSize, s.t.states, budget)
				}
				if res.TreeFull {
					full++
					if !res.Truncated || res.Simulations >= cfg.Simulations {
						t.Errorf("move %d: TreeFull after %d simulations, Truncated %v", move, res.Simulations, res.Truncated)
					}
					if used := int64(res.TreeSize) * nodeBytes; used < budget/2 {
						t.Errorf("move %d: the tree stopped at %d nodes (%d bytes of nodes), far below its budget", move, res.TreeSize, used)
					}
				}
				if move > 0 && !res.Proven && res.Simulations < 100 && used < budget/2 {
					// The arena kept its capacity, but the nodes in use
					// leave it room: the budget must not stop the search.
					t.Errorf("move %d: %d simulations from a kept tree using %d bytes of a %d budget", move, res.Simulations, used, budget)
				}
				_ = st.ApplyAction(res.Action)
				s.Advance(res.Action)
				checkTree(t, s)
				used = int64(s.TreeSize())*nodeBytes + int64(s.t.states)*s.t.stateBytes
				if tc.treeMB > 0 && s.TreeBytes() > budget {
					t.Fatalf("move %d: %d bytes after the tree's advance", move, s.TreeBytes())
				}
			}
			switch {
			case tc.treeMB > 0 && full == 0:
				t.Error("the budget never bound: the test proves nothing")
			case tc.treeMB == 0 && s.Stats().TreeFull != 0:
				t.Errorf("no budget, %d searches stopped by it", s.Stats().TreeFull)
			case tc.treeMB > 0 && s.Stats().TreeFull != full:
				t.Errorf("SearchStats.TreeFull = %d, want %d", s.Stats().TreeFull, full)
			}
		})
	}
	bad := testConfig(ModePUCT, 10)
	for _, mb := range []int{-1, MaxTreeMB + 1} {
		bad.TreeMB = mb
		if err := bad.Validate(); err == nil {
			t.Errorf("tree_mb %d accepted", mb)
		}
	}
}

// subtree describes the subtree under node n, each node by its path of
// actions from n: its statistics and shape.
func subtree(s *Search, n int32) map[string]string {
	out := map[string]string{}
	var walk func(i int32, path string)
	walk = func(i int32, path string) {
		nd := &s.t.nodes[i]
		out[path] = fmt.Sprintf("visits %d w0 %.6f prior %v value %v status %d children %d proven %v/%v/%d state %v",
			nd.visits, nd.w0, nd.prior, nd.value, nd.status, nd.nchild, nd.proven, nd.proof, nd.depth, nd.state != nil)
		if nd.status != stExpanded {
			return
		}
		for c := nd.first; c < nd.first+nd.nchild; c++ {
			walk(c, fmt.Sprintf("%s/%d", path, s.t.nodes[c].action))
		}
	}
	walk(n, "")
	return out
}

// TestAdvanceKeepsTheSubtree checks that advance, which compacts the arena
// in place, keeps exactly the played child's subtree: every node with its
// statistics, children in order and positions, and the count of positions
// the memory accounting uses.
func TestAdvanceKeepsTheSubtree(t *testing.T) {
	for _, solver := range []bool{false, true} {
		t.Run(fmt.Sprintf("solver %v", solver), func(t *testing.T) {
			cfg := testConfig(ModePUCT, 3000)
			cfg.Solver, cfg.LeavesInFlight = solver, 4
			s, err := NewSearch(cfg, UniformEvaluator{}, 1)
			if err != nil {
				t.Fatal(err)
			}
			st := position(t)
			for range 3 {
				res := run(t, s, st)
				// Play the second most visited move: its subtree is
				// spread through the arena among its siblings'.
				order := slices.Clone(res.Actions)
				slices.SortStableFunc(order, func(a, b int) int {
					return res.Visits[slices.Index(res.Actions, b)] - res.Visits[slices.Index(res.Actions, a)]
				})
				a := order[1]
				want := subtree(s, s.t.child(0, a))
				_ = st.ApplyAction(a)
				s.Advance(a)
				checkTree(t, s)
				got := subtree(s, 0)
				if len(got) != len(want) || s.TreeSize() != len(want) {
					t.Fatalf("advance kept %d nodes (%d in the arena), the subtree had %d", len(got), s.TreeSize(), len(want))
				}
				for path, w := range want {
					if got[path] != w {
						t.Fatalf("node %q: %s after advance, %s before", path, got[path], w)
					}
				}
				states := 0
				for i := range s.t.nodes {
					if s.t.nodes[i].state != nil {
						states++
					}
				}
				if states != s.t.states {
					t.Fatalf("%d positions in the tree, %d counted", states, s.t.states)
				}
				for _, nd := range s.t.nodes[len(s.t.nodes):cap(s.t.nodes)] {
					if nd.state != nil {
						t.Fatal("a discarded node still holds its position")
					}
				}
			}
		})
	}
}
