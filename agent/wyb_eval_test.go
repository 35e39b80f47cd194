package agent

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/wyb"
)

var wybOpts = wyb.Options{TurnLimit: wyb.DefaultTurnLimit}

// position builds a moving-phase position from a diagram whose rows are
// separated by "/" (symbols as in wyb.NewPosition).
func position(t testing.TB, rows string, turn int) *wyb.State {
	t.Helper()
	s, err := wyb.NewPosition(wybOpts, strings.ReplaceAll(rows, "/", "\n"), wyb.Moving, turn)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const emptyRows = "X - - - - - - X/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - - - - - - -/X - - - - - - X"

func TestWYBMaterial(t *testing.T) {
	g := wyb.New(wybOpts)
	s := g.NewInitialState()
	if m := WYBMaterial(s, 0); m != 0 {
		t.Errorf("initial material %v", m)
	}
	if err := s.ApplyAction(wyb.PlaceAction(3, 3)); err != nil {
		t.Fatal(err)
	}
	if m := WYBMaterial(s, 0); m != 0 {
		t.Errorf("after one placement: %v, want 0 (pieces in hand count)", m)
	}
	p := position(t, "X - - - - - - X/- - - - - - - -/- - O @ - - - -/- - - - - - - -/- - - O - - - -/- - - @ - - - -/- - - @ - - - -/X - - - - - - X", 10)
	if m := WYBMaterial(p, 1); m != 1 {
		t.Errorf("3 Black vs 2 White: material for Black %v, want 1", m)
	}
}

func TestWYBEvaluationTerms(t *testing.T) {
	tests := []struct {
		name   string
		rows   string
		turn   int
		w      WYBWeights
		player int
		want   float64
	}{
		{
			// Black to move (odd turn) can capture White's (3,3) by
			// stepping (5,3) -> (4,3); White's pieces threaten nothing.
			name: "mover can capture",
			rows: "X - - - - - - X/- - - - - - - -/- - - - - - - -/- - @ O - @ - -/- - - - - - - -/- - - - - - - -/- O - - - - - -/X - - - - - - X",
			turn: 11, w: WYBWeights{Capture: 1}, player: 1, want: 0 + 1,
		},
		{
			// Same pieces, White to move: White's (3,3) is threatened, so
			// White must defend it.
			name: "mover threatened",
			rows: "X - - - - - - X/- - - - - - - -/- - - - - - - -/- - @ O - @ - -/- - - - - - - -/- - - - - - - -/- O - - - - - -/X - - - - - - X",
			turn: 10, w: WYBWeights{Threatened: 1}, player: 0, want: 0 - 1,
		},
		{
			// A corner is the far side of the sandwich: Black at (1,0)
			// next to the (0,0) corner, White can step (3,0) -> (2,0).
			name: "corner sandwich",
			rows: "X @ - O - - - X/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - - O - - - @/X - - - - - - X",
			turn: 10, w: WYBWeights{Capture: 1}, player: 0, want: 0 + 1,
		},
		{
			name: "centre",
			rows: "X - - - - - - X/- - - - - - - -/- - - - - - - -/O - - O - - - @/- - - - - - - -/- - - - - - - -/- @ - - - - - -/X - - - - - - X",
			turn: 10, w: WYBWeights{Centre: 1}, player: 0, want: 3 - 1,
		},
		{
			// One turn before the first shrink, White's edge piece and
			// Black's piece on a future corner square (1,1) are doomed.
			name: "shrink imminent",
			rows: "X - - - - - - X/- @ - - - - - -/- - - - - - - -/O - - O - - - -/- - - - - - - -/- - - - @ - - -/- - - - - - - -/X - - - - - - X",
			turn: 127, w: WYBWeights{Shrink: 1, ShrinkHorizon: 10}, player: 0, want: -1 + 1,
		},
		{
			name: "shrink far away",
			rows: "X - - - - - - X/- @ - - - - - -/- - - - - - - -/O - - O - - - -/- - - - - - - -/- - - - @ - - -/- - - - - - - -/X - - - - - - X",
			turn: 100, w: WYBWeights{Shrink: 1, ShrinkHorizon: 10}, player: 0, want: 0,
		},
		{
			// Steps: White 4 + 2 (a corner blocks (0,6)), Black 4 + 3.
			name: "mobility",
			rows: "X - - - - - - X/- - - - - - - -/- - - - - - - @/- - - O - - - -/- - - - - - - -/- - - - - - - -/O - - - - - @ -/X - - - - - - X",
			turn: 10, w: WYBWeights{Mobility: 1}, player: 0, want: (4 + 2) - (4 + 3),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := position(t, tt.rows, tt.turn)
			if s.IsTerminal() {
				t.Fatalf("position is terminal:\n%s", s)
			}
			got := tt.w.Evaluate(s, tt.player)
			if math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("Evaluate = %v, want %v\n%s", got, tt.want, s)
			}
			if other := tt.w.Evaluate(s, 1-tt.player); other != -got {
				t.Errorf("not antisymmetric: %v and %v", got, other)
			}
		})
	}
}

func TestWYBEvaluationAntisymmetric(t *testing.T) {
	g := wyb.New(wybOpts)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		s := randomWYB(rng, g, rng.IntN(250))
		checkWYBEval(t, s)
	}
}

func checkWYBEval(t *testing.T, s env.State) {
	t.Helper()
	a, b := WYBEvaluation(s, 0), WYBEvaluation(s, 1)
	if a != -b || math.IsNaN(a) || math.Abs(a) > 100 {
		t.Fatalf("evaluations %v and %v\n%s", a, b, s)
	}
}

func FuzzWYBEvaluation(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5})
	f.Add([]byte(strings.Repeat("\x07\x91", 120)))
	g := wyb.New(wybOpts)
	f.Fuzz(func(t *testing.T, choices []byte) {
		s := g.NewInitialState()
		for _, c := range choices {
			legal := s.LegalActions(nil)
			if len(legal) == 0 {
				break
			}
			if err := s.ApplyAction(legal[int(c)%len(legal)]); err != nil {
				t.Fatal(err)
			}
			checkWYBEval(t, s)
		}
	})
}

// Positions found by exhaustive search: White (to move) forces a win in
// exactly three plies (a double capture threat against Black's last two
// pieces), and cannot win in one.
var wybForcedWins = []string{
	"X - - - - - - X/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - O @ - - - -/- O - @ - O - -/X - - - - - - X",
	"X - - - - - - X/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - - O O - - -/- - - @ - - - -/- - - O - - - -/X - - @ - - - X",
	"X - - - - - - X/- - - - @ - - -/- - - O @ O - -/- - - - - - - -/- - - - - - O -/- - - - - - - -/- - - - - - - -/X - - - - - - X",
}

// winsWithin reports whether the player to move can force a win within n
// plies (plain search, for checking).
func winsWithin(s env.State, n int) bool {
	me := s.CurrentPlayer()
	for _, a := range s.LegalActions(nil) {
		c := s.Clone()
		if err := c.ApplyAction(a); err != nil {
			panic(err)
		}
		if c.IsTerminal() {
			if c.Returns()[me] > 0 {
				return true
			}
			continue
		}
		if n >= 3 && allRepliesLose(c, n-1, me) {
			return true
		}
	}
	return false
}

func allRepliesLose(c env.State, n, me int) bool {
	for _, b := range c.LegalActions(nil) {
		d := c.Clone()
		if err := d.ApplyAction(b); err != nil {
			panic(err)
		}
		if d.IsTerminal() {
			if d.Returns()[me] > 0 {
				continue
			}
			return false
		}
		if !winsWithin(d, n-1) {
			return false
		}
	}
	return true
}

func TestAlphaBetaWYBForcedWin(t *testing.T) {
	g := wyb.New(wybOpts)
	h, err := Evaluation(g)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := h.(Tactical); !ok {
		t.Fatal("the WYB evaluation is not Tactical")
	}
	for i, rows := range wybForcedWins {
		s := position(t, rows, 10)
		if winsWithin(s, 1) || !winsWithin(s, 3) {
			t.Fatalf("position %d is not a forced win in exactly 3", i)
		}
		for _, depth := range []int{3, 5} {
			ab, err := NewAlphaBeta(g, h, AlphaBetaConfig{Depth: depth, Seed: uint64(i)})
			if err != nil {
				t.Fatal(err)
			}
			res, err := ab.Search(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			if res.Score != WinScore-3 {
				t.Errorf("position %d depth %d: score %v, want %v", i, depth, res.Score, WinScore-3)
			}
			c := s.Clone()
			if err := c.ApplyAction(res.Action); err != nil {
				t.Fatal(err)
			}
			if !allRepliesLose(c, 2, 0) {
				t.Errorf("position %d depth %d: %s does not force the win", i, depth, s.ActionString(res.Action))
			}
		}
	}
}

func TestGreedyCapturesOnWYB(t *testing.T) {
	// White to move captures Black's (3,5), next to White's (2,5), by
	// stepping (4,6) -> (4,5); no other action changes the material.
	s := position(t, "X - - - - - - X/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - O @ - - - -/- - - - O - @ @/X - - - - - - X", 10)
	for seed := range uint64(5) {
		a, err := NewGreedy(HeuristicFunc(WYBMaterial), seed).Act(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.ActionString(a); got != "4,6-4,5" {
			t.Errorf("seed %d: greedy played %s, want the capture 4,6-4,5", seed, got)
		}
	}
}
