package mcts

import "testing"

// child is a root child with n visits whose backed-up values, from player
// 0's point of view, have mean q and standard deviation sd.
func child(n int32, q, sd float64) node {
	w0 := q * float64(n)
	return node{visits: n, w0: w0, w2: float32(float64(n) * (sd*sd + q*q))}
}

func TestPickByLCB(t *testing.T) {
	tests := []struct {
		name     string
		children []node
		sg, z    float64
		most     int
		want     int
	}{
		{"most visited has the best bound", []node{child(1000, 0.2, 0.3), child(400, 0.1, 0.3)}, 1, 2, 0, 0},
		{"clearly better value, fewer visits", []node{child(3200, 0.07, 0.3), child(2400, 0.15, 0.3)}, 1, 2, 0, 1},
		{"better value but too uncertain", []node{child(3200, 0.07, 0.3), child(500, 0.12, 1)}, 1, 2, 0, 0},
		{"below the visit share", []node{child(3200, 0.07, 0.1), child(400, 0.5, 0.1)}, 1, 2, 0, 0},
		{"player 1's point of view", []node{child(3200, -0.07, 0.3), child(2400, -0.15, 0.3)}, -1, 2, 0, 1},
		{"player 1 keeps the most visited", []node{child(3200, -0.15, 0.3), child(2400, -0.07, 0.3)}, -1, 2, 0, 0},
		{"a large z keeps the most visited", []node{child(3200, 0.07, 0.5), child(600, 0.15, 0.5)}, 1, 10, 0, 0},
		{"ties to the most visited", []node{child(500, 0.1, 0), child(500, 0.1, 0)}, 1, 2, 1, 1},
		{"unvisited children are skipped", []node{child(0, 0, 0), child(10, -0.5, 0.1)}, 1, 2, 1, 1},
	}
	for _, tc := range tests {
		if got := pickByLCB(tc.children, tc.sg, tc.z, tc.most); got != tc.want {
			t.Errorf("%s: pickByLCB = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestSearchPlaysLCB checks that a PUCT search with Config.LCB plays the
// root child pickByLCB chooses, which in some positions is not the most
// visited one, and that without it the search plays the most visited.
func TestSearchPlaysLCB(t *testing.T) {
	differ := 0
	for first := range 9 {
		st := position(t, first)
		for _, z := range []float64{0, 1} {
			cfg := testConfig(ModePUCT, 60)
			cfg.LCB = z
			eval, err := NewRolloutEvaluator(1, 3)
			if err != nil {
				t.Fatal(err)
			}
			s, err := NewSearch(cfg, eval, 1)
			if err != nil {
				t.Fatal(err)
			}
			res := run(t, s, st)
			most := s.pickByVisits(res, 0)
			want := most
			if z > 0 {
				root := &s.t.nodes[0]
				want = pickByLCB(s.t.nodes[root.first:root.first+root.nchild], sign(root.player), z, most)
				if want != most {
					differ++
				}
			}
			if res.Action != res.Actions[want] {
				t.Errorf("after %d, lcb %g: played %d, want %d (visits %v, Q %v)", first, z, res.Action, res.Actions[want], res.Visits, res.Q)
			}
		}
	}
	if differ == 0 {
		t.Error("the lower confidence bound never chose another move than the most visited: the test cannot tell them apart")
	}
}
