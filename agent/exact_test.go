package agent

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/wyb"
	"github.com/zerokit/zerokit/mcts"
)

// minimax is the plain exact value of s for its player to move: the
// reference exactSolve's pruning must agree with.
func minimax(s env.State, tb env.Tablebase) float32 {
	me := s.CurrentPlayer()
	if v, _, ok := tb.Probe(s); ok {
		return v
	}
	best := float32(-2)
	for _, a := range s.LegalActions(nil) {
		next := s.Clone()
		if err := next.ApplyAction(a); err != nil {
			panic(err)
		}
		var v float32
		switch {
		case next.IsTerminal():
			v = next.Returns()[me]
		case next.CurrentPlayer() == me:
			v = minimax(next, tb)
		default:
			v = -minimax(next, tb)
		}
		best = max(best, v)
	}
	return best
}

// randomBeforeShrink is a random position after the first shrink at
// moving turn turn, with 2 to 4 pieces a side, or nil.
func randomBeforeShrink(rng *rand.Rand, turn int) *wyb.State {
	var rows [8][]string
	for y := range 8 {
		rows[y] = make([]string, 8)
		for x := range 8 {
			switch {
			case x < 1 || x > 6 || y < 1 || y > 6:
				rows[y][x] = " "
			case (x == 1 || x == 6) && (y == 1 || y == 6):
				rows[y][x] = "X"
			default:
				rows[y][x] = "-"
			}
		}
	}
	for _, p := range []struct {
		c string
		n int
	}{{"O", 2 + rng.IntN(3)}, {"@", 2 + rng.IntN(3)}} {
		for n := p.n; n > 0; {
			x, y := 1+rng.IntN(6), 1+rng.IntN(6)
			if rows[y][x] == "-" {
				rows[y][x] = p.c
				n--
			}
		}
	}
	var lines []string
	for _, r := range rows {
		lines = append(lines, strings.Join(r, " "))
	}
	s, err := wyb.NewPosition(wyb.Options{}, strings.Join(lines, "\n"), wyb.Moving, turn)
	if err != nil || s.IsTerminal() {
		return nil
	}
	return s
}

// TestExactSolveMatchesMinimax: exactSolve's alpha-beta values of every
// action agree with plain minimax to the table, in random positions 1 to
// 3 actions before the second shrink.
func TestExactSolveMatchesMinimax(t *testing.T) {
	tb := wyb.NewEndgame()
	tt := newExactTable() // shared by all positions, as an agent's is
	rng := rand.New(rand.NewPCG(7, 8))
	checked, decisive := 0, 0
	for checked < 60 {
		s := randomBeforeShrink(rng, wyb.SecondShrink-1-rng.IntN(3))
		if s == nil {
			continue
		}
		checked++
		actions, values, ok := exactSolve(context.Background(), s, tb, tt, ExactNodes)
		if !ok {
			t.Fatalf("no exact values within %d nodes:\n%v", ExactNodes, s)
		}
		me := s.CurrentPlayer()
		for i, a := range actions {
			next := s.Clone()
			if err := next.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
			var want float32
			switch {
			case next.IsTerminal():
				want = next.Returns()[me]
			case next.CurrentPlayer() == me:
				want = minimax(next, tb)
			default:
				want = -minimax(next, tb)
			}
			if values[i] != want {
				t.Fatalf("%s: exact %v, minimax %v in\n%v", s.ActionString(a), values[i], want, s)
			}
			if want != 0 {
				decisive++
			}
		}
	}
	if decisive == 0 {
		t.Error("no action won or lost: the positions test nothing")
	}
	// A budget too small gives up instead of guessing.
	s := randomBeforeShrink(rand.New(rand.NewPCG(1, 1)), wyb.SecondShrink-6)
	for s == nil {
		s = randomBeforeShrink(rng, wyb.SecondShrink-6)
	}
	if _, _, ok := exactSolve(context.Background(), s, tb, nil, 10); ok {
		t.Error("exactSolve claimed values within 10 nodes, 6 actions before the shrink")
	}
}

// refereedLoss is Black's position at moving turn 185 of a refereed loss
// (TestExactBeforeSecondShrink), and the table.
func refereedLoss(t *testing.T) (*wyb.State, env.Tablebase) {
	t.Helper()
	return afterFirstShrink(t, 185, "- - O O - -", "- @ O - O -", "- - @ - @ -", "- - @ - - -")
}

// afterFirstShrink is the position at moving turn turn whose 6x6 board
// has the four middle rows rows (corners above and below), and the table.
func afterFirstShrink(t testing.TB, turn int, rows ...string) (*wyb.State, env.Tablebase) {
	t.Helper()
	gone := strings.Repeat(" ", 15)
	lines := []string{gone, "  X - - - - X"}
	for _, r := range rows {
		lines = append(lines, "  "+r)
	}
	lines = append(lines, "  X - - - - X", gone)
	s, err := wyb.NewPosition(wyb.Options{}, strings.Join(lines, "\n"), wyb.Moving, turn)
	if err != nil {
		t.Fatal(err)
	}
	return s, wyb.NewEndgame()
}

// TestExactBeforeSecondShrink replays a loss of the shipped agent as
// Black against alpha-beta depth 4 in the course referee (game 3 of
// docs/results.md's run at b47f4d1): 7 actions before the second shrink
// Black's position is a draw, and 3,4-4,4, the move it played, loses.
// With the exact search to the table an agent plays a drawing move; a
// plain search of the same budget is logged for comparison.
func TestExactBeforeSecondShrink(t *testing.T) {
	s, tb := refereedLoss(t)
	actions, values, ok := exactSolve(context.Background(), s, tb, nil, ExactNodes)
	if !ok {
		t.Fatalf("no exact values within %d nodes", ExactNodes)
	}
	value := map[int]float32{}
	best, losing := float32(-2), 0
	for i, a := range actions {
		value[a] = values[i]
		best = max(best, values[i])
		if values[i] < 0 {
			losing++
		}
	}
	played, err := wyb.ParseNotation("3,4-4,4")
	if err != nil {
		t.Fatal(err)
	}
	if best != 0 || value[played] != -1 {
		t.Fatalf("best %v, 3,4-4,4 %v: the test wants a drawn position that 3,4-4,4 loses", best, value[played])
	}
	m, err := NewPureMCTS(16, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	m.SetTablebase(tb)
	a, err := m.Act(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := NewPureMCTS(16, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	plain.search.SetTablebase(tb)
	b, err := plain.Act(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of %d moves lose; with the exact search %s (%v), the plain search %s (%v)", losing, len(actions), s.ActionString(a), value[a], s.ActionString(b), value[b])
	if value[a] != best {
		t.Errorf("played %s, worth %v; want a move worth %v", s.ActionString(a), value[a], best)
	}
}

// TestExactImproveFindsBest: in random positions 1 to 4 actions before the
// second shrink, with the search's choice and visits drawn at random,
// exactImprove returns the first action in visit order of the best exact
// value (by exactSolve), and nothing when the choice is already one.
func TestExactImproveFindsBest(t *testing.T) {
	tb := wyb.NewEndgame()
	tt := newExactTable()
	rng := rand.New(rand.NewPCG(9, 10))
	checked, replaced := 0, 0
	for checked < 60 {
		s := randomBeforeShrink(rng, wyb.SecondShrink-1-rng.IntN(4))
		if s == nil || !exactApplies(s, tb) {
			continue
		}
		checked++
		actions, values, ok := exactSolve(context.Background(), s, tb, nil, ExactNodes)
		if !ok {
			t.Fatalf("no exact values within %d nodes:\n%v", ExactNodes, s)
		}
		value := map[int]float32{}
		best := float32(-2)
		for i, a := range actions {
			value[a] = values[i]
			best = max(best, values[i])
		}
		res := mcts.Result{Action: actions[rng.IntN(len(actions))], Actions: actions, Visits: make([]int, len(actions))}
		for i := range res.Visits {
			res.Visits[i] = rng.IntN(50)
		}
		want := res.Action
		if value[want] < best {
			for _, a := range byVisits(actions, res) {
				if value[a] == best {
					want = a
					break
				}
			}
		}
		got, ok := exactImprove(context.Background(), s, tb, tt, res, ExactNodes)
		if !ok {
			got = res.Action
		}
		if got != want || ok != (want != res.Action) {
			t.Fatalf("chose %s (%v): exactImprove %s, %v; want %s (best %v) in\n%v", s.ActionString(res.Action), value[res.Action],
				s.ActionString(got), ok, s.ActionString(want), best, s)
		}
		if ok {
			replaced++
		}
	}
	if replaced == 0 {
		t.Error("no choice was replaced: the positions test nothing")
	}
	// A cancelled search proves nothing and replaces nothing.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for s := (*wyb.State)(nil); s == nil; {
		if s = randomBeforeShrink(rng, wyb.SecondShrink-6); s != nil {
			legal := s.LegalActions(nil)
			if _, ok := exactImprove(ctx, s, tb, nil, mcts.Result{Action: legal[0]}, ExactNodes); ok {
				t.Error("exactImprove replaced a choice with a cancelled context")
			}
		}
	}
}

// TestExactImproveReachesFurther: proving the chosen move lost takes one
// refutation and an alternative need only be shown better, so exactImprove
// replaces the losing move of TestExactBeforeSecondShrink's position on a
// node budget on which solving every move (exactSolve) gives up.
func TestExactImproveReachesFurther(t *testing.T) {
	s, tb := refereedLoss(t)
	played, err := wyb.ParseNotation("3,4-4,4")
	if err != nil {
		t.Fatal(err)
	}
	const budget = 90_000
	if _, _, ok := exactSolve(context.Background(), s, tb, nil, budget); ok {
		t.Fatalf("exactSolve solved every move within %d nodes: the budget tests nothing", budget)
	}
	a, ok := exactImprove(context.Background(), s, tb, nil, mcts.Result{Action: played}, budget)
	if !ok {
		t.Fatalf("exactImprove kept the losing %s within %d nodes", s.ActionString(played), budget)
	}
	actions, values, ok := exactSolve(context.Background(), s, tb, nil, ExactNodes)
	if !ok {
		t.Fatalf("no exact values within %d nodes", ExactNodes)
	}
	for i, b := range actions {
		if b == a && values[i] != 0 {
			t.Errorf("replaced by %s, worth %v; want a drawing move", s.ActionString(a), values[i])
		}
	}
}

// TestExactTableSavesNodes: with its transposition table the exact search
// solves every move of TestExactBeforeSecondShrink's position on a node
// budget on which it gives up without one; TestExactSolveMatchesMinimax
// checks the values with one table shared by all its positions.
func TestExactTableSavesNodes(t *testing.T) {
	s, tb := refereedLoss(t)
	const budget = 90_000
	if _, _, ok := exactSolve(context.Background(), s, tb, nil, budget); ok {
		t.Fatalf("solved within %d nodes without a table: the budget tests nothing", budget)
	}
	if _, _, ok := exactSolve(context.Background(), s, tb, newExactTable(), budget); !ok {
		t.Errorf("not solved within %d nodes with the table", budget)
	}
}

// TestExactOrderingSavesNodes: trying first the move that decided a
// position before (the table's) and the moves that caused cutoffs
// elsewhere (history) lets exactImprove replace the losing move of
// TestExactBeforeSecondShrink's position within 60,000 positions; in the
// order of the legal moves it took 103,269 (42,764 with the ordering).
func TestExactOrderingSavesNodes(t *testing.T) {
	s, tb := refereedLoss(t)
	played, err := wyb.ParseNotation("3,4-4,4")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := exactImprove(context.Background(), s, tb, newExactTable(), mcts.Result{Action: played}, 60_000); !ok {
		t.Errorf("kept the losing %s within 60,000 positions", s.ActionString(played))
	}
}

// drawnAt181 is Black's position at moving turn 181 of a refereed loss
// (game 11 of the equal-time Black match at f794a90, docs/results.md): 11
// actions before the second shrink it is a draw, 4,2-4,4, the move
// played, loses, and 5,4-5,5 draws.
func drawnAt181(t testing.TB) (*wyb.State, env.Tablebase) {
	t.Helper()
	return afterFirstShrink(t, 181, "- O O @ - -", "- O O @ @ -", "- - O - @ -", "- - O @ - -")
}

// BenchmarkExactImprove reports the positions (nodes/op) the exact search
// takes to replace the losing move of drawnAt181's position, with a fresh
// table each time.
func BenchmarkExactImprove(b *testing.B) {
	s, tb := drawnAt181(b)
	played, err := wyb.ParseNotation("4,2-4,4")
	if err != nil {
		b.Fatal(err)
	}
	var nodes int
	for b.Loop() {
		x := &exactSolver{ctx: context.Background(), tb: tb, tt: newExactTable(), limit: 1 << 40}
		a, ok := x.improve(s, mcts.Result{Action: played})
		if !ok {
			b.Fatalf("kept the losing %s", s.ActionString(played))
		}
		b.Logf("replaced by %s", s.ActionString(a))
		nodes += x.nodes
	}
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
}
