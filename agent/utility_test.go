package agent

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/squatter"
	"github.com/zerokit/zerokit/env/tictactoe"
	"github.com/zerokit/zerokit/env/wyb"
	"github.com/zerokit/zerokit/mcts"
)

// saturated values every state at v for the player to move, with uniform
// priors: a network sure of the result whatever the material.
type saturated struct{ v float32 }

func (e saturated) Evaluate(ctx context.Context, s env.State, legal []int, priors []float32) (float32, error) {
	if _, err := (mcts.UniformEvaluator{}).Evaluate(ctx, s, legal, priors); err != nil {
		return 0, err
	}
	return e.v, nil
}

// captureRows: Black to move (turn 11) captures White's (3,3) by stepping
// (5,3) -> (4,3); three pieces each.
const captureRows = "X - - - - - - X/- - - - - - - -/- - - - - - - -/- - @ O - @ - -/- - - - - - - -/- - - - - - @ -/- O - - O - - -/X - - - - - - X"

func TestMaterialUtilityValue(t *testing.T) {
	g := wyb.New(wybOpts)
	s := position(t, captureRows, 11) // material 0
	// After the capture: White to move, 2 White against 3 Black.
	after := position(t, "X - - - - - - X/- - - - - - - -/- - - - - - - -/- - @ - @ - - -/- - - - - - - -/- - - - - - @ -/- O - - O - - -/X - - - - - - X", 12)
	tests := []struct {
		name  string
		u     MaterialUtility
		state *wyb.State
		v     float32
		want  float64
	}{
		{"weight 0 is the value", MaterialUtility{Weight: 0, Scale: 2}, after, 0.9, 0.9},
		{"even material", MaterialUtility{Weight: 0.25, Scale: 2}, s, 0.8, 0.75 * 0.8},
		// White to move, one piece down: material -1.
		{"one piece down", MaterialUtility{Weight: 0.25, Scale: 2}, after, 0.8, 0.75*0.8 + 0.25*math.Tanh(-0.5)},
		{"scale", MaterialUtility{Weight: 0.5, Scale: 1}, after, -0.2, 0.5*-0.2 + 0.5*math.Tanh(-1)},
		{"material term", MaterialUtility{Weight: 0.25, Scale: 2, Term: TermMaterial}, after, 0.8, 0.75*0.8 + 0.25*math.Tanh(-0.5)},
		// Far from the shrink the shrink term is the material balance.
		{"shrink term", MaterialUtility{Weight: 0.25, Scale: 2, Term: TermShrink}, after, 0.8, 0.75*0.8 + 0.25*math.Tanh(-0.5)},
		{"evaluation term", MaterialUtility{Weight: 0.25, Scale: 2, Term: TermEvaluation}, after, 0.8,
			0.75*0.8 + 0.25*math.Tanh(wyb.DefaultWeights.Evaluate(after, 0)/2)},
		// White's (1,6) and (4,6) are off the final board; Black's (2,3)
		// and (4,3) are on it, its (6,5) is not: for White the balance is
		// -1 + DefaultFinal*(0-2).
		{"final term", MaterialUtility{Weight: 0.25, Scale: 2, Term: TermFinal}, after, 0.8,
			0.75*0.8 + 0.25*math.Tanh((-1-2*wyb.DefaultFinal)/2)},
		// after is move 24+12 = 36: a term until move 37 applies, one
		// until move 36 leaves the network's value alone.
		{"until after the state", MaterialUtility{Weight: 0.25, Scale: 2, Until: 37}, after, 0.8, 0.75*0.8 + 0.25*math.Tanh(-0.5)},
		{"until the state", MaterialUtility{Weight: 0.25, Scale: 2, Until: 36}, after, 0.8, 0.8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eval, err := tt.u.Wrap(g, saturated{tt.v})
			if err != nil {
				t.Fatal(err)
			}
			legal := tt.state.LegalActions(nil)
			priors := make([]float32, len(legal))
			got, err := eval.Evaluate(context.Background(), tt.state, legal, priors)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(float64(got)-tt.want) > 1e-6 {
				t.Errorf("value %v, want %v", got, tt.want)
			}
			if math.Abs(float64(priors[0])-1/float64(len(legal))) > 1e-6 {
				t.Errorf("prior %v: the inner evaluator's priors should pass through", priors[0])
			}
		})
	}
}

func TestMaterialUtilityValidate(t *testing.T) {
	g := wyb.New(wybOpts)
	for _, u := range []MaterialUtility{
		{Weight: -0.1, Scale: 2}, {Weight: 1, Scale: 2}, {Weight: math.NaN(), Scale: 2},
		{Weight: 0.2, Scale: 0}, {Weight: 0.2, Scale: -1}, {Weight: 0.2, Scale: math.Inf(1)},
		{Weight: 0.2, Scale: 2, Term: "rollout"}, {Weight: 0.2, Scale: 2, Until: -1},
	} {
		if _, err := u.Wrap(g, saturated{}); err == nil {
			t.Errorf("%+v: no error", u)
		}
	}
}

// With values saturated at a win whatever happens, plain search has no
// reason to take a free piece; the material utility makes it take it.
func TestMaterialUtilitySearchTakesMaterial(t *testing.T) {
	g := wyb.New(wybOpts)
	u := MaterialUtility{Weight: 0.2, Scale: DefaultMaterialScale}
	eval, err := u.Wrap(g, saturated{0.95})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewMCTS("mat", mcts.PlayConfig(400), eval, 1)
	if err != nil {
		t.Fatal(err)
	}
	s := position(t, captureRows, 11)
	a, err := m.Act(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ApplyAction(a); err != nil {
		t.Fatal(err)
	}
	if got := wyb.Material(s, 1); got != 1 {
		t.Errorf("played %s: Black's material %v, want 1 (the capture)", s.ActionString(a), got)
	}
}

// With values saturated at a win, eight turns before the first shrink, the
// shrink and evaluation terms make the search step White's piece off the
// outer ring the shrink removes; the material term sees no difference
// between moves.
func TestMaterialUtilityLeavesDoomedRing(t *testing.T) {
	g := wyb.New(wybOpts)
	rows := "X - - - - - - X/- - - - - - - -/- - - - - - - -/O - - O - - - -/- - - - - @ - -/- - - - - - - -/- - - @ - - - -/X - - - - - - X"
	for _, term := range []string{TermShrink, TermEvaluation} {
		t.Run(term, func(t *testing.T) {
			s := position(t, rows, wyb.FirstShrink-8)
			u := MaterialUtility{Weight: 0.3, Scale: DefaultMaterialScale, Term: term}
			eval, err := u.Wrap(g, saturated{0.95})
			if err != nil {
				t.Fatal(err)
			}
			m, err := NewMCTS(term, mcts.PlayConfig(400), eval, 1)
			if err != nil {
				t.Fatal(err)
			}
			a, err := m.Act(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			name := s.ActionString(a)
			if err := s.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
			if doomed := s.Board().White & firstShrinkDoomed(); doomed != 0 {
				t.Errorf("played %s: White still has pieces on squares the shrink removes (%#x)", name, doomed)
			}
		})
	}
}

// firstShrinkDoomed is the squares the first shrink eliminates: the outer
// ring and the squares that become its new corners.
func firstShrinkDoomed() uint64 {
	var d uint64
	for y := range 8 {
		for x := range 8 {
			outer := x == 0 || x == 7 || y == 0 || y == 7
			corner := (x == 1 || x == 6) && (y == 1 || y == 6)
			if outer || corner {
				d |= 1 << uint(y*8+x)
			}
		}
	}
	return d
}

// ShrinkMaterial is the material balance until the shrink horizon, then
// discounts the pieces the next shrink eliminates.
func TestShrinkMaterial(t *testing.T) {
	h, err := ShrinkMaterial(wyb.New(wybOpts))
	if err != nil {
		t.Fatal(err)
	}
	// White: (0,3) on the outer ring and (3,3); Black: (5,4) and (3,6).
	rows := "X - - - - - - X/- - - - - - - -/- - - - - - - -/O - - O - - - -/- - - - - @ - -/- - - - - - - -/- - - @ - - - -/X - - - - - - X"
	tests := []struct {
		turn int
		want float64
	}{
		{0, 0},
		{wyb.FirstShrink - wyb.DefaultWeights.ShrinkHorizon, 0},
		// One turn before the shrink, the doomed piece loses Shrink in full.
		{wyb.FirstShrink - 1, -wyb.DefaultWeights.Shrink},
		{wyb.FirstShrink - 1 - wyb.DefaultWeights.ShrinkHorizon/2, -wyb.DefaultWeights.Shrink / 2},
	}
	for _, tt := range tests {
		s := position(t, rows, tt.turn)
		if got := h.Evaluate(s, 0); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("turn %d: %v for White, want %v", tt.turn, got, tt.want)
		}
		if got := h.Evaluate(s, 1); math.Abs(got+tt.want) > 1e-9 {
			t.Errorf("turn %d: %v for Black, want %v", tt.turn, got, -tt.want)
		}
	}
}

// Every term exists for every game, and the initial position is level
// for each of them; the help and the names list every term.
func TestUtilityTermsListed(t *testing.T) {
	for _, term := range []string{TermMaterial, TermShrink, TermEvaluation, TermFinal, TermTable} {
		if !ValidTerm(term) || !strings.Contains(TermHelp(), term+" (") || !strings.Contains(TermNames(), `"`+term+`"`) {
			t.Errorf("term %q: valid %v, in help %q, in names %q", term, ValidTerm(term), TermHelp(), TermNames())
		}
	}
	if ValidTerm("tables") || !ValidTerm("") {
		t.Error(`ValidTerm: "tables" valid or "" not`)
	}
	if n := TermNames(); !strings.HasSuffix(n, ` or "table"`) || strings.Count(n, ",") != 3 {
		t.Errorf("TermNames = %s", n)
	}
}

// Every term exists for every game, and the initial position is level
// for each of them.
func TestUtilityTermsEveryGame(t *testing.T) {
	sq, err := squatter.New(6)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []env.Game{sq, tictactoe.New(), wyb.New(wybOpts)} {
		terms := []string{""}
		for _, t := range utilityTerms() {
			terms = append(terms, t.name)
		}
		for _, term := range terms {
			u := MaterialUtility{Weight: 0.3, Scale: 2, Term: term}
			eval, err := u.Wrap(g, saturated{0.5})
			if err != nil {
				t.Fatalf("%s, term %q: %v", g.Name(), term, err)
			}
			s := g.NewInitialState()
			legal := s.LegalActions(nil)
			v, err := eval.Evaluate(context.Background(), s, legal, make([]float32, len(legal)))
			if err != nil || math.Abs(float64(v)-0.7*0.5) > 1e-6 {
				t.Errorf("%s, term %q: initial value %v (%v), want %v", g.Name(), term, v, err, 0.7*0.5)
			}
		}
	}
}

// With values saturated whatever happens, the final-board term makes the
// search place on the 12 squares the second shrink leaves while the
// placing phase lasts (Until 24); with Until already passed it is the
// network's value alone again, and the search has no reason to.
func TestFinalTermPlacesOnFinalBoard(t *testing.T) {
	g := wyb.New(wybOpts)
	// A placement is its square y*8+x (wyb.PlaceAction).
	final := func(a int) bool {
		x, y := a%8, a/8
		corner := (x == 2 || x == 5) && (y == 2 || y == 5)
		return a < 64 && x >= 2 && x <= 5 && y >= 2 && y <= 5 && !corner
	}
	for _, tt := range []struct {
		until int
		want  bool
	}{{24, true}, {1, false}} {
		u := MaterialUtility{Weight: 0.3, Scale: DefaultMaterialScale, Term: TermFinal, Until: tt.until}
		eval, err := u.Wrap(g, saturated{0.5})
		if err != nil {
			t.Fatal(err)
		}
		m, err := NewMCTS("final", mcts.PlayConfig(200), eval, 1)
		if err != nil {
			t.Fatal(err)
		}
		s := g.NewState()
		a, err := m.Act(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if got := final(a); got != tt.want {
			t.Errorf("until %d: placed %s, on the final board %v, want %v", tt.until, s.ActionString(a), got, tt.want)
		}
	}
}

// TestTableTermValue: between the shrinks the table term blends in the
// final-board balance plus wyb.TablePieces times the table's value of the
// pieces if the second shrink came now, for the player to move.
func TestTableTermValue(t *testing.T) {
	s, _ := refereedLoss(t) // moving turn 185, Black to move
	g := wyb.New(wyb.Options{})
	now, ok := wyb.NewEndgame().ShrinkNow(s, s.CurrentPlayer())
	if !ok || now == 0 {
		t.Fatalf("the test wants a position whose pieces the shrink decides: %v, %v", now, ok)
	}
	h := g.FinalMaterial().Evaluate(s, s.CurrentPlayer()) + wyb.TablePieces*float64(now)
	u := MaterialUtility{Weight: 0.25, Scale: 2, Term: TermTable}
	eval, err := u.Wrap(g, saturated{0.8})
	if err != nil {
		t.Fatal(err)
	}
	legal := s.LegalActions(nil)
	got, err := eval.Evaluate(context.Background(), s, legal, make([]float32, len(legal)))
	if want := 0.75*0.8 + 0.25*math.Tanh(h/2); err != nil || math.Abs(float64(got)-want) > 1e-6 {
		t.Errorf("value %v (%v), want %v", got, err, want)
	}
}
