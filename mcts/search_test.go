package mcts

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/tictactoe"
	"github.com/zerokit/zerokit/env/wyb"
)

// testConfig returns a deterministic configuration: no noise, greedy moves.
func testConfig(mode Mode, sims int) Config {
	cfg := DefaultConfig()
	cfg.Mode = mode
	cfg.Simulations = sims
	cfg.DirichletEpsilon = 0
	cfg.TemperatureMoves = 0
	cfg.Gumbel.Scale = 0
	return cfg
}

func position(t testing.TB, actions ...int) env.State {
	t.Helper()
	s, err := tictactoe.FromActions(actions...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkTree verifies the arena's invariants after a search: parent links,
// no visits in flight, every expanded node's visits and value sum equal its
// own evaluation plus its children's, and terminal values equal returns.
func checkTree(t *testing.T, s *Search) {
	t.Helper()
	nodes := s.t.nodes
	for i := range nodes {
		nd := &nodes[i]
		if nd.vl != 0 {
			t.Fatalf("node %d has %d visits in flight after the search", i, nd.vl)
		}
		if nd.status == stPending {
			t.Fatalf("node %d still pending after the search", i)
		}
		if (i == 0) != (nd.parent == -1) {
			t.Fatalf("node %d has parent %d", i, nd.parent)
		}
		switch nd.status {
		case stExpanded:
			visits, w0 := int32(1), float64(nd.value)*sign(nd.player)
			w2 := float64(nd.value) * float64(nd.value)
			var priorSum float64
			for c := nd.first; c < nd.first+nd.nchild; c++ {
				ch := &nodes[c]
				if ch.parent != int32(i) {
					t.Fatalf("child %d of %d has parent %d", c, i, ch.parent)
				}
				if ch.state != nil && nd.state != nil {
					want := nd.state.Clone()
					if err := want.ApplyAction(int(ch.action)); err != nil || want.Hash() != ch.state.Hash() {
						t.Fatalf("child %d of %d is not the position after action %d", c, i, ch.action)
					}
				}
				visits += ch.visits
				w0 += ch.w0
				w2 += float64(ch.w2)
				priorSum += float64(ch.prior)
			}
			if nd.proven {
				// Config.Solver: visits that reach a proven node stop there
				// and back up its proof; so may its own first visit, when
				// it was proven at expansion.
				extra := nd.visits - visits
				rest := nd.w0 - w0 + float64(nd.value)*sign(nd.player) - float64(extra)*float64(nd.proof)
				if extra < 0 || (math.Abs(rest-float64(nd.value)*sign(nd.player)) > 1e-6*float64(nd.visits) &&
					math.Abs(rest-float64(nd.proof)) > 1e-6*float64(nd.visits)) {
					t.Fatalf("proven node %d: %d visits, value sum %v; children's %d, %v", i, nd.visits, nd.w0, visits-1, w0)
				}
				break
			}
			if visits != nd.visits {
				t.Fatalf("node %d: %d visits but 1 + children's = %d", i, nd.visits, visits)
			}
			if math.Abs(w0-nd.w0) > 1e-6*float64(visits) {
				t.Fatalf("node %d: value sum %v but own + children's = %v", i, nd.w0, w0)
			}
			if math.Abs(w2-float64(nd.w2)) > 1e-4*float64(visits) { // float32 sums
				t.Fatalf("node %d: sum of squared values %v but own + children's = %v", i, nd.w2, w2)
			}
			if math.Abs(priorSum-1) > 1e-5 {
				t.Fatalf("node %d: priors sum to %v", i, priorSum)
			}
		case stTerminal:
			r := nd.state.Returns()[0]
			if math.Abs(nd.w0-float64(nd.visits)*float64(r)) > 1e-9 {
				t.Fatalf("terminal node %d: value sum %v after %d visits of return %v", i, nd.w0, nd.visits, r)
			}
		case stSolved:
			if math.Abs(nd.w0-float64(nd.visits)*float64(nd.value)) > 1e-9 || nd.nchild != 0 || math.Abs(float64(nd.value)) > 1 {
				t.Fatalf("solved node %d: value sum %v after %d visits of value %v, %d children", i, nd.w0, nd.visits, nd.value, nd.nchild)
			}
		case stRepeated:
			if nd.w0 != 0 || nd.proven || nd.nchild != 0 {
				t.Fatalf("repeated node %d: value sum %v, proven %v, %d children; want a draw, unproven, a leaf", i, nd.w0, nd.proven, nd.nchild)
			}
		case stUnvisited:
			if nd.visits != 0 || nd.state != nil {
				t.Fatalf("unvisited node %d has visits %d", i, nd.visits)
			}
		}
	}
}

func run(t *testing.T, s *Search, st env.State) Result {
	t.Helper()
	res, err := s.Run(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	checkTree(t, s)
	sum := float32(0)
	for _, p := range res.Policy {
		if p < 0 {
			t.Fatalf("negative policy %v", res.Policy)
		}
		sum += p
	}
	if math.Abs(float64(sum)-1) > 1e-4 {
		t.Fatalf("policy sums to %v: %v", sum, res.Policy)
	}
	if !slices.Contains(res.Actions, res.Action) || !st.IsLegal(res.Action) {
		t.Fatalf("chosen action %d not legal", res.Action)
	}
	if s.cfg.Mode == ModeGumbel && res.ReusedVisits == 0 && !s.cfg.Solver {
		// Sequential halving's winner is among the most visited (the
		// solver may override it with a proven result).
		if v := res.Visits[slices.Index(res.Actions, res.Action)]; v != slices.Max(res.Visits) {
			t.Fatalf("Gumbel chose an action with %d visits, not the most visited (%v)", v, res.Visits)
		}
	}
	return res
}

// Tactical positions of tic-tac-toe. Cells: 0 1 2 / 3 4 5 / 6 7 8.
var tactics = []struct {
	name  string
	moves []int
	want  int
}{
	// X: 0 1, O: 4 3; X to move wins at 2.
	{"win row", []int{0, 4, 1, 3}, 2},
	// X: 0 4, O: 1 2; X to move wins at 8.
	{"win diagonal", []int{0, 1, 4, 2}, 8},
	// X: 0 1, O: 4; O must block at 2.
	{"block row", []int{0, 4, 1}, 2},
	// X: 4 8, O: 0 6 ... X: 2? Position: X 4, O 0, X 8, O 6; X to move
	// must block at 3 (O threatens 0-3-6).
	{"block column", []int{4, 0, 8, 6}, 3},
}

func TestFindsWinsAndBlocks(t *testing.T) {
	tests := []struct {
		name      string
		mode      Mode
		sims      int
		leaves    int
		onlyWins  bool
		evaluator func() Evaluator
	}{
		{"puct", ModePUCT, 200, 1, false, func() Evaluator { return UniformEvaluator{} }},
		{"puct-leaves8", ModePUCT, 200, 8, false, func() Evaluator { return UniformEvaluator{} }},
		{"gumbel-16", ModeGumbel, 16, 1, true, func() Evaluator { return UniformEvaluator{} }},
		{"gumbel-64", ModeGumbel, 64, 1, false, func() Evaluator { return UniformEvaluator{} }},
		{"gumbel-64-leaves4", ModeGumbel, 64, 4, false, func() Evaluator { return UniformEvaluator{} }},
		{"gumbel-puct-interior", ModeGumbel, 64, 1, false, func() Evaluator { return UniformEvaluator{} }},
		{"puct-rollouts", ModePUCT, 100, 1, false, func() Evaluator {
			e, err := NewRolloutEvaluator(4, 7)
			if err != nil {
				t.Fatal(err)
			}
			return e
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, pos := range tactics {
				if tc.onlyWins && strings.HasPrefix(pos.name, "block") {
					continue
				}
				// Several seeds: Gumbel noise is on, so the result must
				// not depend on luck.
				for seed := uint64(0); seed < 5; seed++ {
					cfg := testConfig(tc.mode, tc.sims)
					cfg.LeavesInFlight = tc.leaves
					cfg.Gumbel.Scale = 1
					if tc.name == "gumbel-puct-interior" {
						cfg.Gumbel.Interior = InteriorPUCT
					}
					s, err := NewSearch(cfg, tc.evaluator(), seed)
					if err != nil {
						t.Fatal(err)
					}
					res := run(t, s, position(t, pos.moves...))
					if res.Action != pos.want {
						t.Fatalf("%s seed %d: chose %d, want %d (actions %v visits %v policy %v)",
							pos.name, seed, res.Action, pos.want, res.Actions, res.Visits, res.Policy)
					}
					if res.Simulations != tc.sims {
						t.Fatalf("ran %d simulations, want %d", res.Simulations, tc.sims)
					}
				}
			}
		})
	}
}

// TestVisitsConvergeToBestMove: in PUCT mode the visit share of the only
// good move grows with the budget; in Gumbel mode sequential halving keeps
// splitting visits between the last two candidates, so it is the policy
// target's weight on the good move that must grow.
func TestVisitsConvergeToBestMove(t *testing.T) {
	for _, mode := range []Mode{ModePUCT, ModeGumbel} {
		t.Run(string(mode), func(t *testing.T) {
			st := position(t, 0, 4, 1) // O must block at 2
			prev := -1.0
			for _, sims := range []int{20, 100, 800} {
				s, err := NewSearch(testConfig(mode, sims), UniformEvaluator{}, 1)
				if err != nil {
					t.Fatal(err)
				}
				res := run(t, s, st)
				i := slices.Index(res.Actions, 2)
				share := float64(res.Visits[i]) / float64(sims)
				if mode == ModeGumbel {
					share = float64(res.Policy[i])
				}
				// The improved policy may saturate at 1; visit shares must
				// grow strictly.
				if share < prev || (share == prev && mode == ModePUCT) {
					t.Errorf("%d simulations: share of the block %.3f, not above %.3f", sims, share, prev)
				}
				prev = share
			}
			if prev < 0.8 {
				t.Errorf("with 800 simulations the block has only %.2f", prev)
			}
		})
	}
}

func TestRootValue(t *testing.T) {
	// X to move can win at once: the root value tends to +1 for X.
	s, err := NewSearch(testConfig(ModePUCT, 400), UniformEvaluator{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, s, position(t, 0, 4, 1, 3))
	if res.Player != 0 || res.Value < 0.8 {
		t.Errorf("player %d value %v, want player 0 and value near 1", res.Player, res.Value)
	}
	i := slices.Index(res.Actions, 2)
	if res.Q[i] != 1 {
		t.Errorf("Q of the winning move = %v, want 1", res.Q[i])
	}
	// O to move with X threatening: after the block the game is drawn,
	// so O's value is well below a win but not a certain loss.
	res = run(t, s, position(t, 0, 4, 1))
	if res.Player != 1 || res.Value > 0.5 {
		t.Errorf("player %d value %v", res.Player, res.Value)
	}
}

// playGame plays a whole self-play game and returns the moves and results.
func playGame(t *testing.T, cfg Config, eval Evaluator, seed uint64) ([]int, []Result) {
	t.Helper()
	s, err := NewSearch(cfg, eval, seed)
	if err != nil {
		t.Fatal(err)
	}
	st := tictactoe.New().NewInitialState()
	var moves []int
	var results []Result
	for !st.IsTerminal() {
		res := run(t, s, st)
		if err := st.ApplyAction(res.Action); err != nil {
			t.Fatal(err)
		}
		s.Advance(res.Action)
		moves = append(moves, res.Action)
		results = append(results, res)
	}
	return moves, results
}

func TestSameSeedSameGame(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mode   Mode
		leaves int
		cap    bool
	}{
		{"puct", ModePUCT, 1, false},
		{"puct-leaves4-cap", ModePUCT, 4, true},
		{"gumbel", ModeGumbel, 1, false},
		{"gumbel-leaves4-cap", ModeGumbel, 4, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Mode = tc.mode
			cfg.Simulations = 64
			cfg.LeavesInFlight = tc.leaves
			cfg.TemperatureMoves = 9 // sample every move
			cfg.PlayoutCap = PlayoutCapConfig{Enabled: tc.cap, FullProbability: 0.5, CheapSimulations: 16}
			eval, err := NewRolloutEvaluator(1, 3)
			if err != nil {
				t.Fatal(err)
			}
			a, ra := playGame(t, cfg, eval, 42)
			b, rb := playGame(t, cfg, eval, 42)
			if !slices.Equal(a, b) {
				t.Fatalf("same seed, different games: %v vs %v", a, b)
			}
			for i := range ra {
				if !slices.Equal(ra[i].Visits, rb[i].Visits) || !slices.Equal(ra[i].Policy, rb[i].Policy) ||
					ra[i].Full != rb[i].Full || ra[i].Value != rb[i].Value {
					t.Fatalf("move %d: same seed, different search results", i)
				}
			}
			differs := false
			for seed := uint64(43); seed < 53 && !differs; seed++ {
				c, _ := playGame(t, cfg, eval, seed)
				differs = !slices.Equal(a, c)
			}
			if !differs {
				t.Error("ten other seeds all played the same game: the seed is ignored")
			}
		})
	}
}

func TestTreeReuse(t *testing.T) {
	for _, mode := range []Mode{ModePUCT, ModeGumbel} {
		t.Run(string(mode), func(t *testing.T) {
			cfg := testConfig(mode, 200)
			s, err := NewSearch(cfg, UniformEvaluator{}, 1)
			if err != nil {
				t.Fatal(err)
			}
			st := position(t)
			first := run(t, s, st)
			if first.ReusedVisits != 0 {
				t.Fatalf("fresh search reused %d visits", first.ReusedVisits)
			}
			// Play the most visited move, so its subtree is large.
			a := first.Actions[0]
			for i, v := range first.Visits {
				if v > first.Visits[slices.Index(first.Actions, a)] {
					a = first.Actions[i]
				}
			}
			childVisits := first.Visits[slices.Index(first.Actions, a)]
			_ = st.ApplyAction(a)
			s.Advance(a)
			if got := int(s.t.nodes[0].visits); got != childVisits {
				t.Fatalf("new root has %d visits, the child had %d", got, childVisits)
			}
			checkTree(t, s)
			second := run(t, s, st)
			if second.ReusedVisits != childVisits-1 {
				t.Errorf("reused %d visits, want %d", second.ReusedVisits, childVisits-1)
			}
			total := 0
			for _, v := range second.Visits {
				total += v
			}
			if total != childVisits-1+cfg.Simulations {
				t.Errorf("root children have %d visits, want %d", total, childVisits-1+cfg.Simulations)
			}

			// A state that does not match the kept root is searched afresh.
			other := position(t, 8)
			third := run(t, s, other)
			if third.ReusedVisits != 0 {
				t.Errorf("mismatched root reused %d visits", third.ReusedVisits)
			}
			// Advancing by a never-expanded move drops the tree.
			res := run(t, s, other)
			unvisited := -1
			for i, v := range res.Visits {
				if v == 0 {
					unvisited = res.Actions[i]
				}
			}
			if unvisited >= 0 {
				s.Advance(unvisited)
				if s.TreeSize() != 0 {
					t.Errorf("advance to an unexpanded child kept %d nodes", s.TreeSize())
				}
			}
		})
	}
	t.Run("disabled", func(t *testing.T) {
		cfg := testConfig(ModePUCT, 100)
		cfg.ReuseTree = false
		s, err := NewSearch(cfg, UniformEvaluator{}, 1)
		if err != nil {
			t.Fatal(err)
		}
		st := position(t)
		res := run(t, s, st)
		_ = st.ApplyAction(res.Action)
		s.Advance(res.Action)
		if res2 := run(t, s, st); res2.ReusedVisits != 0 {
			t.Errorf("reuse disabled but %d visits reused", res2.ReusedVisits)
		}
	})
}

func TestDirichletNoiseOnlyAtRoot(t *testing.T) {
	cfg := testConfig(ModePUCT, 100)
	cfg.DirichletEpsilon = 0.5
	cfg.DirichletAlpha = 0.3
	s, err := NewSearch(cfg, UniformEvaluator{}, 5)
	if err != nil {
		t.Fatal(err)
	}
	st := position(t)
	run(t, s, st)
	nodes := s.t.nodes
	root := nodes[0]
	// The stored priors are the evaluator's, everywhere including the
	// root's children: noise lives only in the per-search root priors.
	for i := 1; i < len(nodes); i++ {
		parent := nodes[nodes[i].parent]
		if want := 1 / float32(parent.nchild); math.Abs(float64(nodes[i].prior-want)) > 1e-6 {
			t.Fatalf("node %d prior %v, want uniform %v", i, nodes[i].prior, want)
		}
	}
	noisy := s.rootPrior[:root.nchild]
	sum, differs := 0.0, false
	for _, p := range noisy {
		if p < 0 {
			t.Fatalf("negative noisy prior %v", p)
		}
		sum += float64(p)
		if math.Abs(float64(p)-1.0/9) > 1e-3 {
			differs = true
		}
	}
	if math.Abs(sum-1) > 1e-5 || !differs {
		t.Errorf("noisy root priors %v: sum %v, differ from uniform %v", noisy, sum, differs)
	}
	// A second search on the same (reused) root draws fresh noise.
	before := slices.Clone(noisy)
	run(t, s, st)
	if slices.Equal(before, s.rootPrior[:root.nchild]) {
		t.Error("noise not resampled for the next search")
	}
}

func TestDirichletSample(t *testing.T) {
	s, err := NewSearch(DefaultConfig(), UniformEvaluator{}, 9)
	if err != nil {
		t.Fatal(err)
	}
	for _, alpha := range []float64{0.03, 0.3, 1, 10} {
		const n, draws = 5, 4000
		mean := make([]float64, n)
		x := make([]float64, n)
		for range draws {
			dirichlet(s.rng, alpha, x)
			sum := 0.0
			for i, v := range x {
				if v < 0 || math.IsNaN(v) {
					t.Fatalf("alpha %v: bad component %v", alpha, v)
				}
				sum += v
				mean[i] += v / draws
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Fatalf("alpha %v: sample sums to %v", alpha, sum)
			}
		}
		for i, m := range mean {
			if math.Abs(m-1.0/n) > 0.03 {
				t.Errorf("alpha %v: mean of component %d is %.3f, want %.3f", alpha, i, m, 1.0/n)
			}
		}
	}
}

func TestTemperature(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Temperature, cfg.TemperatureMoves, cfg.FinalTemperature = 1, 4, 0.5
	for _, tc := range []struct {
		move int
		want float64
	}{{0, 1}, {3, 1}, {4, 0.5}, {50, 0.5}} {
		if got := cfg.TemperatureAt(tc.move); got != tc.want {
			t.Errorf("TemperatureAt(%d) = %v, want %v", tc.move, got, tc.want)
		}
	}
	s, err := NewSearch(cfg, UniformEvaluator{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	res := Result{Visits: []int{10, 30, 0, 60}, Priors: []float32{.25, .25, .25, .25}}
	if got := s.pickByVisits(res, 0); got != 3 {
		t.Errorf("tau 0 picked %d, want 3", got)
	}
	counts := make([]int, 4)
	const draws = 20000
	for range draws {
		counts[s.pickByVisits(res, 1)]++
	}
	for i, v := range res.Visits {
		want := float64(v) / 100
		if got := float64(counts[i]) / draws; math.Abs(got-want) > 0.015 {
			t.Errorf("tau 1: action %d chosen %.3f of the time, want %.3f", i, got, want)
		}
	}
	// tau 0.5 squares the visit counts: 100:900:0:3600.
	clear(counts)
	for range draws {
		counts[s.pickByVisits(res, 0.5)]++
	}
	if got, want := float64(counts[3])/draws, 3600.0/4600; math.Abs(got-want) > 0.015 {
		t.Errorf("tau 0.5: most visited chosen %.3f, want %.3f", got, want)
	}
}

func TestPlayoutCap(t *testing.T) {
	cfg := testConfig(ModePUCT, 64)
	cfg.DirichletEpsilon = 0.25
	cfg.PlayoutCap = PlayoutCapConfig{Enabled: true, FullProbability: 0.3, CheapSimulations: 8}
	cfg.ReuseTree = false
	s, err := NewSearch(cfg, UniformEvaluator{}, 11)
	if err != nil {
		t.Fatal(err)
	}
	st := position(t)
	full := 0
	const n = 300
	for range n {
		res := run(t, s, st)
		if res.Full {
			full++
			if res.Simulations != 64 {
				t.Fatalf("full search ran %d simulations", res.Simulations)
			}
		} else {
			if res.Simulations != 8 {
				t.Fatalf("cheap search ran %d simulations", res.Simulations)
			}
			// No noise in cheap searches.
			for i := range s.rootPrior[:9] {
				if s.rootPrior[i] != s.t.nodes[s.t.nodes[0].first+int32(i)].prior {
					t.Fatal("cheap search used noisy priors")
				}
			}
		}
	}
	if frac := float64(full) / n; math.Abs(frac-0.3) > 0.08 {
		t.Errorf("%.2f of searches were full, want about 0.3", frac)
	}
}

func TestGumbelPolicyTarget(t *testing.T) {
	cfg := testConfig(ModeGumbel, 32)
	cfg.Gumbel.Scale = 1
	s, err := NewSearch(cfg, UniformEvaluator{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, s, position(t, 0, 4, 1, 3))
	i := slices.Index(res.Actions, 2)
	if res.Policy[i] < 0.9 {
		t.Errorf("improved policy gives the winning move %.3f: %v", res.Policy[i], res.Policy)
	}
	// The policy target is not the visit distribution in Gumbel mode.
	if float64(res.Visits[i])/32 > 0.9 {
		t.Errorf("sequential halving should spread visits, got %v", res.Visits)
	}
	// Sequential halving: every considered action got visits in this
	// search, and the visit counts match the schedule.
	for j, v := range res.Visits {
		if v == 0 {
			t.Errorf("action %d never visited with 5 legal actions and 32 simulations", res.Actions[j])
		}
	}
}

func TestConsideredVisitSequence(t *testing.T) {
	tests := []struct {
		m, n int
		want []int32
	}{
		{1, 4, []int32{0, 1, 2, 3}},
		{4, 3, []int32{0, 0, 0}},
		{4, 16, []int32{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5}},
		{2, 6, []int32{0, 0, 1, 1, 2, 2}},
		{3, 8, []int32{0, 0, 0, 1, 1, 2, 2, 3}},
	}
	for _, tc := range tests {
		if got := consideredVisitSequence(tc.m, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("sequence(%d, %d) = %v, want %v", tc.m, tc.n, got, tc.want)
		}
	}
	// Following the schedule is always possible: at step k some action
	// has exactly seq[k] visits.
	for m := 1; m <= 20; m++ {
		for _, n := range []int{1, 7, 16, 50, 200} {
			seq := consideredVisitSequence(m, n)
			visits := make([]int32, m)
			for k, want := range seq {
				i := slices.Index(visits, want)
				if i < 0 {
					t.Fatalf("m=%d n=%d: step %d wants an action with %d visits, have %v", m, n, k, want, visits)
				}
				visits[i]++
			}
		}
	}
}

func TestLeavesInFlightBatch(t *testing.T) {
	cfg := testConfig(ModePUCT, 256)
	cfg.LeavesInFlight = 8
	s, err := NewSearch(cfg, UniformEvaluator{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	run(t, s, position(t))
	st := s.Stats()
	if mean := float64(st.Evaluations) / float64(st.Rounds); mean < 4 {
		t.Errorf("mean leaves per round %.2f with 8 in flight (stats %+v)", mean, st)
	}
}

type badEvaluator struct {
	value  float32
	priors float32
	err    error
}

func (b badEvaluator) Evaluate(_ context.Context, _ env.State, legal []int, priors []float32) (float32, error) {
	for i := range legal {
		priors[i] = b.priors
	}
	return b.value, b.err
}

func TestSearchErrors(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name string
		eval Evaluator
		want string
	}{
		{"evaluator error", badEvaluator{priors: 1, err: boom}, "boom"},
		{"NaN value", badEvaluator{value: float32(math.NaN()), priors: 1}, "value NaN"},
		{"negative prior", badEvaluator{priors: -1}, "prior -1"},
		{"zero priors", badEvaluator{priors: 0}, "sum to 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewSearch(testConfig(ModePUCT, 10), tc.eval, 1)
			if err != nil {
				t.Fatal(err)
			}
			_, err = s.Run(context.Background(), position(t))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tc.want)
			}
			if s.TreeSize() != 0 {
				t.Error("tree kept after a failed search")
			}
		})
	}
	t.Run("terminal", func(t *testing.T) {
		s, _ := NewSearch(testConfig(ModePUCT, 10), UniformEvaluator{}, 1)
		if _, err := s.Run(context.Background(), position(t, 0, 3, 1, 4, 2)); !errors.Is(err, ErrTerminal) {
			t.Errorf("err = %v, want ErrTerminal", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		s, _ := NewSearch(testConfig(ModePUCT, 10), UniformEvaluator{}, 1)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := s.Run(ctx, position(t)); !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("nil evaluator", func(t *testing.T) {
		if _, err := NewSearch(DefaultConfig(), nil, 1); err == nil {
			t.Error("nil evaluator accepted")
		}
	})
}

func TestRolloutEvaluator(t *testing.T) {
	if _, err := NewRolloutEvaluator(0, 1); err == nil {
		t.Error("0 rollouts accepted")
	}
	e, err := NewRolloutEvaluator(4000, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, moves := range [][]int{{0, 4, 1, 3}, {4}, {0, 4, 8}} {
		st := position(t, moves...)
		legal := st.LegalActions(nil)
		priors := make([]float32, len(legal))
		v, err := e.Evaluate(ctx, st, legal, priors)
		if err != nil {
			t.Fatal(err)
		}
		// The mean of 4000 random games is within 0.05 of the exact
		// expectation (standard error at most 0.016).
		if want := randomPlayValue(st); math.Abs(float64(v)-want) > 0.05 {
			t.Errorf("after %v: rollout value %.3f, exact random-play value %.3f", moves, v, want)
		}
		for _, p := range priors {
			if p != 1/float32(len(legal)) {
				t.Fatalf("priors not uniform: %v", priors)
			}
		}
		if v2, _ := e.Evaluate(ctx, st, legal, priors); v2 != v {
			t.Errorf("same state, different value %v vs %v", v, v2)
		}
	}
	e1 := &RolloutEvaluator{Rollouts: 1, Seed: 1}
	seen := map[float32]bool{}
	for seed := uint64(0); seed < 30; seed++ {
		e1.Seed = seed
		v, err := e1.Evaluate(ctx, position(t, 4), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if v != 1 && v != 0 && v != -1 {
			t.Fatalf("one rollout gave %v", v)
		}
		seen[v] = true
	}
	if len(seen) < 2 {
		t.Error("rollouts from the opening always end the same way")
	}
}

// randomPlayValue is the exact expected return, for the player to move, of
// uniformly random play from s.
func randomPlayValue(s env.State) float64 {
	if s.IsTerminal() {
		panic("terminal")
	}
	p := s.CurrentPlayer()
	legal := s.LegalActions(nil)
	total := 0.0
	for _, a := range legal {
		c := s.Clone()
		_ = c.ApplyAction(a)
		if c.IsTerminal() {
			total += float64(c.Returns()[p])
		} else if c.CurrentPlayer() == p {
			total += randomPlayValue(c)
		} else {
			total -= randomPlayValue(c)
		}
	}
	return total / float64(len(legal))
}

func TestMaskedSoftmax(t *testing.T) {
	logits := []float32{100, 1, 2, 1000, 3}
	legal := []int{1, 2, 4}
	priors := make([]float32, 3)
	if err := MaskedSoftmax(logits, legal, priors); err != nil {
		t.Fatal(err)
	}
	z := math.Exp(1) + math.Exp(2) + math.Exp(3)
	for i, a := range legal {
		want := math.Exp(float64(logits[a])) / z
		if math.Abs(float64(priors[i])-want) > 1e-6 {
			t.Errorf("prior of %d = %v, want %v", a, priors[i], want)
		}
	}
	// Illegal logits can be anything, even NaN.
	logits[0], logits[3] = float32(math.NaN()), float32(math.Inf(1))
	again := make([]float32, 3)
	if err := MaskedSoftmax(logits, legal, again); err != nil || !slices.Equal(again, priors) {
		t.Errorf("illegal logits changed the result: %v %v", again, err)
	}
	for _, tc := range []struct {
		name   string
		logits []float32
		legal  []int
		n      int
	}{
		{"out of range", []float32{1, 2}, []int{2}, 1},
		{"negative action", []float32{1, 2}, []int{-1}, 1},
		{"NaN legal logit", []float32{float32(math.NaN()), 2}, []int{0}, 1},
		{"short priors", []float32{1, 2}, []int{0, 1}, 1},
	} {
		if err := MaskedSoftmax(tc.logits, tc.legal, make([]float32, tc.n)); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	// Large logits do not overflow.
	big := []float32{80, 90, 88}
	p := make([]float32, 3)
	if err := MaskedSoftmax(big, []int{0, 1, 2}, p); err != nil || math.IsNaN(float64(p[0])) || p[1] < p[2] {
		t.Errorf("large logits: %v %v", p, err)
	}
}

// FuzzSearch runs small searches with fuzzed settings from fuzzed
// positions and checks the tree invariants and the result's consistency.
func FuzzSearch(f *testing.F) {
	f.Add(uint8(0), uint8(10), uint8(1), uint8(0), uint64(1), []byte{4, 0})
	f.Add(uint8(1), uint8(40), uint8(4), uint8(3), uint64(2), []byte{})
	f.Add(uint8(3), uint8(7), uint8(8), uint8(7), uint64(3), []byte{0, 4, 1, 3})
	f.Add(uint8(8), uint8(50), uint8(2), uint8(4), uint64(4), []byte{0, 4})
	f.Add(uint8(9), uint8(30), uint8(1), uint8(0), uint64(5), []byte{4, 0, 8})
	f.Add(uint8(16+32), uint8(20), uint8(2), uint8(4), uint64(6), []byte{4})
	f.Fuzz(func(t *testing.T, mode, sims, leaves, flags uint8, seed uint64, moves []byte) {
		st := tictactoe.New().NewInitialState()
		for _, m := range moves {
			if st.IsTerminal() {
				break
			}
			legal := st.LegalActions(nil)
			_ = st.ApplyAction(legal[int(m)%len(legal)])
		}
		if st.IsTerminal() {
			return
		}
		cfg := DefaultConfig()
		if mode%2 == 1 {
			cfg.Mode = ModeGumbel
		}
		if mode&2 != 0 {
			cfg.Gumbel.Interior = InteriorPUCT
		}
		cfg.Simulations = 2 + int(sims)%60
		cfg.LeavesInFlight = 1 + int(leaves)%8
		cfg.VirtualLoss = float64(flags%3) / 2
		cfg.ReuseTree = flags&4 != 0
		if flags&8 != 0 {
			cfg.FPUMode, cfg.FPUValue = FPUAbsolute, -1
		}
		if flags&16 != 0 {
			cfg.PlayoutCap = PlayoutCapConfig{Enabled: true, FullProbability: 0.5, CheapSimulations: 1}
		}
		if flags&32 != 0 {
			cfg.Gumbel.MaxConsideredActions = 2
		}
		cfg.CPUCTBase = float64(flags>>6) * 10
		cfg.Solver = mode&8 != 0
		var eval Evaluator = UniformEvaluator{}
		if mode&4 != 0 {
			eval = &RolloutEvaluator{Rollouts: 1, Seed: seed}
		}
		if mode&16 != 0 {
			eval = rankEvaluator{}
			cfg.PolicyTemperature = 0.5 + float64(mode>>5)
		}
		s, err := NewSearch(cfg, eval, seed)
		if err != nil {
			t.Fatal(err)
		}
		for !st.IsTerminal() {
			res := run(t, s, st)
			want := cfg.Simulations
			if !res.Full {
				want = cfg.PlayoutCap.CheapSimulations
			}
			if res.Simulations != want && !(res.Proven && res.Simulations < want) {
				t.Fatalf("ran %d simulations, want %d", res.Simulations, want)
			}
			if res.Proven && !cfg.Solver {
				t.Fatal("root proven without the solver")
			}
			if res.Proven {
				if v, _ := valueAfter(st, res.Action); float64(res.ProvenValue) != v && res.ProvenValue >= 0 {
					t.Fatalf("root proven worth %v, played a move worth %v", res.ProvenValue, v)
				}
				checkProofs(t, s)
			}
			total := 0
			for _, v := range res.Visits {
				total += v
			}
			if !cfg.Solver && total != res.ReusedVisits+res.Simulations {
				t.Fatalf("root children have %d visits, want %d reused + %d", total, res.ReusedVisits, res.Simulations)
			}
			if res.Value < -1 || res.Value > 1 {
				t.Fatalf("root value %v", res.Value)
			}
			_ = st.ApplyAction(res.Action)
			s.Advance(res.Action)
		}
	})
}

func FuzzMaskedSoftmax(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4}, []byte{0, 2})
	f.Add([]byte{255, 0, 128}, []byte{2, 2, 9})
	f.Fuzz(func(t *testing.T, raw, legalRaw []byte) {
		logits := make([]float32, len(raw))
		for i, b := range raw {
			logits[i] = (float32(b) - 128) / 2
		}
		legal := make([]int, len(legalRaw))
		inRange := true
		for i, b := range legalRaw {
			legal[i] = int(b) % 16
			inRange = inRange && legal[i] < len(logits)
		}
		priors := make([]float32, len(legal))
		err := MaskedSoftmax(logits, legal, priors)
		if !inRange {
			if err == nil {
				t.Fatal("out-of-range action accepted")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(legal) == 0 {
			return
		}
		sum := 0.0
		for i, p := range priors {
			if !(p >= 0 && p <= 1) {
				t.Fatalf("prior %d = %v", i, p)
			}
			sum += float64(p)
			for j := range legal {
				if logits[legal[j]] > logits[legal[i]] && priors[j] < p {
					t.Fatal("priors not monotone in the logits")
				}
			}
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Fatalf("priors sum to %v", sum)
		}
	})
}

// stallingEvaluator answers its first stallAfter calls uniformly and then
// blocks until the context ends (first cancelling it if cancel is set), as
// a network would when the move's time runs out mid-search.
type stallingEvaluator struct {
	stallAfter int
	cancel     context.CancelFunc

	mu    sync.Mutex
	calls int
}

func (e *stallingEvaluator) Evaluate(ctx context.Context, s env.State, legal []int, priors []float32) (float32, error) {
	e.mu.Lock()
	e.calls++
	n := e.calls
	e.mu.Unlock()
	if n <= e.stallAfter {
		return UniformEvaluator{}.Evaluate(ctx, s, legal, priors)
	}
	if e.cancel != nil {
		e.cancel()
	}
	<-ctx.Done()
	return 0, ctx.Err()
}

// TestDeadlineTruncatesSearch checks that a deadline passing mid-search
// returns the best result so far (Truncated, no error) with a consistent
// tree that the next search reuses, while cancellation is still an error
// (TestDeadlineFallback covers a deadline before any simulation).
func TestDeadlineTruncatesSearch(t *testing.T) {
	const budget = 200
	tests := []struct {
		name       string
		mode       Mode
		leaves     int
		stallAfter int // evaluator calls answered (the root's included)
		cancel     bool
		wantSims   int // exact number of simulations, or -1: some
		wantErr    error
	}{
		{"puct sequential", ModePUCT, 1, 6, false, 5, nil},
		{"puct leaves in flight", ModePUCT, 4, 9, false, -1, nil},
		{"gumbel sequential", ModeGumbel, 1, 6, false, 5, nil},
		{"gumbel leaves in flight", ModeGumbel, 4, 9, false, -1, nil},
		{"cancelled", ModePUCT, 1, 6, true, 0, context.Canceled},
		{"cancelled with leaves in flight", ModePUCT, 4, 9, true, 0, context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(tc.mode, budget)
			cfg.LeavesInFlight = tc.leaves
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
			defer cancel()
			eval := &stallingEvaluator{stallAfter: tc.stallAfter}
			if tc.cancel {
				eval.cancel = cancel
			}
			s, err := NewSearch(cfg, eval, 1)
			if err != nil {
				t.Fatal(err)
			}
			st := position(t, 4)
			res, err := s.Run(ctx, st)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				if s.TreeSize() != 0 {
					t.Error("tree kept after a failed search")
				}
				return
			}
			if err != nil {
				t.Fatalf("Run after the deadline: %v", err)
			}
			if !res.Truncated || s.Stats().Truncated != 1 {
				t.Errorf("Truncated = %v (stats %d), want true", res.Truncated, s.Stats().Truncated)
			}
			if res.Simulations < 1 || res.Simulations >= budget || (tc.wantSims >= 0 && res.Simulations != tc.wantSims) {
				t.Errorf("%d simulations, want %d (of %d)", res.Simulations, tc.wantSims, budget)
			}
			checkTree(t, s)
			if !st.IsLegal(res.Action) || !slices.Contains(res.Actions, res.Action) {
				t.Fatalf("truncated search chose illegal action %d", res.Action)
			}
			if tc.mode == ModePUCT {
				if v := res.Visits[slices.Index(res.Actions, res.Action)]; v != slices.Max(res.Visits) {
					t.Errorf("chose an action with %d visits, not the most visited (%v)", v, res.Visits)
				}
			}
			if total := sum(res.Visits); total != res.Simulations {
				t.Errorf("root children have %d visits after %d simulations", total, res.Simulations)
			}
			// The kept tree is consistent: a complete search continues it.
			eval.stallAfter = math.MaxInt
			next := run(t, s, st)
			if next.Truncated || next.Simulations != budget || next.ReusedVisits != res.Simulations {
				t.Errorf("next search: truncated %v, %d simulations, %d reused; want false, %d, %d",
					next.Truncated, next.Simulations, next.ReusedVisits, budget, res.Simulations)
			}
		})
	}
}

// TestDeadlineWithReusedTree: a deadline that has passed before the first
// simulation still gives a move when tree reuse kept visits.
func TestDeadlineWithReusedTree(t *testing.T) {
	s, err := NewSearch(testConfig(ModePUCT, 100), UniformEvaluator{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	st := position(t)
	first := run(t, s, st)
	s.Advance(first.Action)
	if err := st.ApplyAction(first.Action); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	res, err := s.Run(ctx, st)
	if err != nil {
		t.Fatalf("Run with reused visits after the deadline: %v", err)
	}
	if !res.Truncated || res.Simulations != 0 || res.ReusedVisits == 0 || !st.IsLegal(res.Action) {
		t.Errorf("result %+v: want a truncated search of 0 simulations on reused visits", res)
	}
	checkTree(t, s)
	if res.Fallback || s.Stats().Fallbacks != 0 {
		t.Errorf("fallback %v (%d in stats) with reused visits, want none", res.Fallback, s.Stats().Fallbacks)
	}
}

// favourEvaluator gives every legal action a small prior and the action
// fav, when legal, most of the mass; after stallAfter calls (the root's
// included; 0: never) it blocks until its context ends. It fails a call
// whose context has a deadline that has passed, as a batcher would.
type favourEvaluator struct {
	fav        int
	stallAfter int
	calls      int // (the search evaluates one leaf at a time here)
	deadlines  int // calls whose context had a deadline
}

func (e *favourEvaluator) Evaluate(ctx context.Context, s env.State, legal []int, priors []float32) (float32, error) {
	e.calls++
	if _, ok := ctx.Deadline(); ok {
		e.deadlines++
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if e.stallAfter > 0 && e.calls > e.stallAfter {
		<-ctx.Done()
		return 0, ctx.Err()
	}
	for i, a := range legal {
		priors[i] = 0.1
		if a == e.fav {
			priors[i] = 10
		}
	}
	return 0, nil
}

// TestDeadlineFallback: a deadline that passes before the first
// simulation, or before Run starts, is not an error: the root is
// evaluated anyway and the search returns a fallback move (counted), the
// best one the rules or the tablebase prove among the root's moves, else
// the move of highest prior. Only cancellation fails.
func TestDeadlineFallback(t *testing.T) {
	tb := wyb.New(wyb.Options{}).Tablebase()
	gone := strings.Repeat(" ", 15)
	// White to move wins in 5 actions (see TestTablebaseLeaves).
	end := wybPosition(t, wyb.Options{}, 300, gone, gone, "    X - @ X", "    O @ - O", "    - O @ -", "    X - - X", gone, gone)
	// X to move at tic-tac-toe can win at once with 2 (X on 0 and 1, O
	// on 3 and 4).
	winNow := position(t, 0, 3, 1, 4)
	const winning = 2
	tests := []struct {
		name    string
		mode    Mode
		state   env.State
		tb      env.Tablebase
		fav     int  // the evaluator's favourite move
		expired bool // the deadline has passed before Run (else it passes during the first simulation)
		want    func(t *testing.T, st env.State, a int)
	}{
		{"prior puct", ModePUCT, position(t, 4), nil, 7, false, wantAction(7)},
		{"prior gumbel", ModeGumbel, position(t, 4), nil, 7, false, wantAction(7)},
		{"prior expired", ModePUCT, position(t), nil, 5, true, wantAction(5)},
		{"win at once", ModePUCT, winNow, nil, 8, false, wantAction(winning)},
		{"win at once gumbel expired", ModeGumbel, winNow, nil, 8, true, wantAction(winning)},
		{"tablebase", ModePUCT, end, tb, -1, true, func(t *testing.T, st env.State, a int) {
			if v, n := exact(t, tb, st, a); v != 1 || n != 5 {
				t.Errorf("played %s: %v in %d; want the table's win in 5", st.ActionString(a), v, n)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			eval := &favourEvaluator{fav: tc.fav, stallAfter: 1}
			s, err := NewSearch(testConfig(tc.mode, 50), eval, 1)
			if err != nil {
				t.Fatal(err)
			}
			s.SetTablebase(tc.tb)
			d := 20 * time.Millisecond
			if tc.expired {
				d = -time.Second
			}
			ctx, cancel := context.WithTimeout(context.Background(), d)
			defer cancel()
			res, err := s.Run(ctx, tc.state)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if eval.calls < 1 || eval.deadlines != eval.calls-1 {
				t.Errorf("%d evaluations, %d under the deadline: the root's should have none", eval.calls, eval.deadlines)
			}
			if !res.Fallback || !res.Truncated || res.Simulations != 0 || s.Stats().Fallbacks != 1 || s.Stats().Searches != 1 {
				t.Errorf("fallback %v truncated %v, %d simulations, stats %+v; want a counted fallback of 0 simulations",
					res.Fallback, res.Truncated, res.Simulations, s.Stats())
			}
			if !tc.state.IsLegal(res.Action) {
				t.Fatalf("illegal fallback action %d", res.Action)
			}
			tc.want(t, tc.state, res.Action)
			if tc.mode == ModePUCT {
				if !slices.Equal(res.Policy, res.Priors) {
					t.Errorf("policy %v, want the priors %v", res.Policy, res.Priors)
				}
			}
			checkTree(t, s)
		})
	}

	// Cancellation stays an error, even of the root's evaluation.
	s, err := NewSearch(testConfig(ModePUCT, 50), &favourEvaluator{}, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Run(ctx, position(t)); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err %v, want context.Canceled", err)
	}
}

func wantAction(want int) func(t *testing.T, st env.State, a int) {
	return func(t *testing.T, st env.State, a int) {
		t.Helper()
		if a != want {
			t.Errorf("played %s, want %s", st.ActionString(a), st.ActionString(want))
		}
	}
}

func sum(v []int) int {
	t := 0
	for _, x := range v {
		t += x
	}
	return t
}

// TestMaxNodesBoundsTheTree checks that Config.MaxNodes ends a search
// once the tree holds that many nodes (overshooting by at most one round
// of expansions), marks it Truncated, and leaves searches under the limit
// alone.
func TestMaxNodesBoundsTheTree(t *testing.T) {
	for _, tc := range []struct {
		name     string
		maxNodes int
		leaves   int
		trunc    bool
	}{
		{"no limit", 0, 1, false},
		{"limit above the tree", 1 << 20, 1, false},
		{"limit 60", 60, 1, true},
		{"limit 60, leaves in flight", 60, 4, true},
		{"limit 1: one simulation at least", 1, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(ModePUCT, 400)
			cfg.MaxNodes, cfg.LeavesInFlight = tc.maxNodes, tc.leaves
			s, err := NewSearch(cfg, UniformEvaluator{}, 1)
			if err != nil {
				t.Fatal(err)
			}
			res := run(t, s, position(t, 0))
			if res.Truncated != tc.trunc {
				t.Fatalf("Truncated = %v, want %v (%d simulations, tree %d)", res.Truncated, tc.trunc, res.Simulations, res.TreeSize)
			}
			if !tc.trunc {
				if res.Simulations != 400 {
					t.Errorf("%d simulations, want 400", res.Simulations)
				}
				return
			}
			// One round expands at most leaves nodes of at most 9 children.
			if res.Simulations < 1 || res.Simulations >= 400 || res.TreeSize > max(tc.maxNodes, 10)+9*tc.leaves {
				t.Errorf("%d simulations, tree of %d nodes with a limit of %d", res.Simulations, res.TreeSize, tc.maxNodes)
			}
			checkTree(t, s)
		})
	}
	bad := testConfig(ModePUCT, 10)
	bad.MaxNodes = -1
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "max_nodes") {
		t.Errorf("negative max_nodes: %v", err)
	}
}

// rankEvaluator gives the i-th legal action a prior proportional to i+1.
type rankEvaluator struct{}

func (rankEvaluator) Evaluate(_ context.Context, _ env.State, legal []int, priors []float32) (float32, error) {
	for i := range legal {
		priors[i] = float32(i + 1)
	}
	return 0, nil
}

func TestPolicyTemperature(t *testing.T) {
	for _, tc := range []struct {
		temp float64
		mode Mode
	}{{0, ModePUCT}, {1, ModePUCT}, {2, ModePUCT}, {0.5, ModePUCT}, {2, ModeGumbel}} {
		cfg := testConfig(tc.mode, 16)
		cfg.PolicyTemperature = tc.temp
		s, err := NewSearch(cfg, rankEvaluator{}, 1)
		if err != nil {
			t.Fatal(err)
		}
		res := run(t, s, position(t, 4))
		e := 1.0
		if tc.temp > 0 {
			e = 1 / tc.temp
		}
		var norm float64
		for i := range res.Priors {
			norm += math.Pow(float64(i+1), e)
		}
		for i, p := range res.Priors {
			if want := math.Pow(float64(i+1), e) / norm; math.Abs(float64(p)-want) > 1e-6 {
				t.Fatalf("temperature %v, %s: priors %v, want action %d at %v", tc.temp, tc.mode, res.Priors, i, want)
			}
		}
	}
}

// SetProgress reports snapshots as the search goes and changes nothing in
// it: the same seed gives the same result with and without it.
func TestProgress(t *testing.T) {
	for _, mode := range []Mode{ModePUCT, ModeGumbel} {
		cfg := testConfig(mode, 200)
		cfg.LeavesInFlight = 4
		cfg.TemperatureMoves = 9 // the move is sampled: a random draw would show
		eval, err := NewRolloutEvaluator(1, 3)
		if err != nil {
			t.Fatal(err)
		}
		st := position(t, 4)
		for seed := uint64(1); seed <= 8; seed++ {
			plain, err := NewSearch(cfg, eval, seed)
			if err != nil {
				t.Fatal(err)
			}
			want, err := plain.Run(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			watched, err := NewSearch(cfg, eval, seed)
			if err != nil {
				t.Fatal(err)
			}
			var seen []Progress
			watched.SetProgress(50, func(p Progress) { seen = append(seen, p) })
			got, err := watched.Run(context.Background(), st)
			if err != nil {
				t.Fatal(err)
			}
			if got.Action != want.Action || !slices.Equal(got.Visits, want.Visits) || got.Value != want.Value {
				t.Errorf("%v seed %d: the progress reports changed the search: %+v vs %+v", mode, seed, got, want)
			}
			if len(seen) < 2 { // a Gumbel round can be long
				t.Fatalf("%v: %d progress reports in 200 simulations every 50", mode, len(seen))
			}
			for i, p := range seen {
				total := 0
				for _, v := range p.Visits {
					total += v
				}
				if p.Simulations < 50*(i+1) || p.Simulations >= 200 || total < p.Simulations || p.Player != 1 ||
					!slices.Equal(p.Actions, want.Actions) || (i > 0 && p.Simulations <= seen[i-1].Simulations) {
					t.Errorf("%v: report %d: %d simulations, %d visits, player %d, actions %v", mode, i, p.Simulations, total, p.Player, p.Actions)
				}
			}
		}
	}
}
