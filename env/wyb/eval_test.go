package wyb

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
)

var evalOpts = Options{TurnLimit: DefaultTurnLimit}

// evalPosition builds a moving-phase position from a diagram whose rows are
// separated by "/" (symbols as in NewPosition).
func evalPosition(t testing.TB, rows string, turn int) *State {
	t.Helper()
	s, err := NewPosition(evalOpts, strings.ReplaceAll(rows, "/", "\n"), Moving, turn)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestMaterial(t *testing.T) {
	g := New(evalOpts)
	s := g.NewInitialState()
	if m := Material(s, 0); m != 0 {
		t.Errorf("initial material %v", m)
	}
	if err := s.ApplyAction(PlaceAction(3, 3)); err != nil {
		t.Fatal(err)
	}
	if m := Material(s, 0); m != 0 {
		t.Errorf("after one placement: %v, want 0 (pieces in hand count)", m)
	}
	p := evalPosition(t, "X - - - - - - X/- - - - - - - -/- - O @ - - - -/- - - - - - - -/- - - O - - - -/- - - @ - - - -/- - - @ - - - -/X - - - - - - X", 10)
	if m := Material(p, 1); m != 1 {
		t.Errorf("3 Black vs 2 White: material for Black %v, want 1", m)
	}
}

func TestEvaluationTerms(t *testing.T) {
	tests := []struct {
		name   string
		rows   string
		turn   int
		w      Weights
		player int
		want   float64
	}{
		{
			// Black to move (odd turn) can capture White's (3,3) by
			// stepping (5,3) -> (4,3); White's pieces threaten nothing.
			name: "mover can capture",
			rows: "X - - - - - - X/- - - - - - - -/- - - - - - - -/- - @ O - @ - -/- - - - - - - -/- - - - - - - -/- O - - - - - -/X - - - - - - X",
			turn: 11, w: Weights{Capture: 1}, player: 1, want: 0 + 1,
		},
		{
			// Same pieces, White to move: White's (3,3) is threatened, so
			// White must defend it.
			name: "mover threatened",
			rows: "X - - - - - - X/- - - - - - - -/- - - - - - - -/- - @ O - @ - -/- - - - - - - -/- - - - - - - -/- O - - - - - -/X - - - - - - X",
			turn: 10, w: Weights{Threatened: 1}, player: 0, want: 0 - 1,
		},
		{
			// A corner is the far side of the sandwich: Black at (1,0)
			// next to the (0,0) corner, White can step (3,0) -> (2,0).
			name: "corner sandwich",
			rows: "X @ - O - - - X/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - - - - - - -/- - - O - - - @/X - - - - - - X",
			turn: 10, w: Weights{Capture: 1}, player: 0, want: 0 + 1,
		},
		{
			name: "centre",
			rows: "X - - - - - - X/- - - - - - - -/- - - - - - - -/O - - O - - - @/- - - - - - - -/- - - - - - - -/- @ - - - - - -/X - - - - - - X",
			turn: 10, w: Weights{Centre: 1}, player: 0, want: 3 - 1,
		},
		{
			// One turn before the first shrink, White's edge piece and
			// Black's piece on a future corner square (1,1) are doomed.
			name: "shrink imminent",
			rows: "X - - - - - - X/- @ - - - - - -/- - - - - - - -/O - - O - - - -/- - - - - - - -/- - - - @ - - -/- - - - - - - -/X - - - - - - X",
			turn: 127, w: Weights{Shrink: 1, ShrinkHorizon: 10}, player: 0, want: -1 + 1,
		},
		{
			name: "shrink far away",
			rows: "X - - - - - - X/- @ - - - - - -/- - - - - - - -/O - - O - - - -/- - - - - - - -/- - - - @ - - -/- - - - - - - -/X - - - - - - X",
			turn: 100, w: Weights{Shrink: 1, ShrinkHorizon: 10}, player: 0, want: 0,
		},
		{
			// White's (3,3) stands on the board the second shrink
			// leaves; its (2,2) becomes a corner there and (0,3) is on
			// the edge. None of Black's three pieces is on that board.
			name: "final board",
			rows: "X - - - - - - X/- - - - - - @ -/- - O - - - - -/O - - O - - - -/- - - - - - - -/- - - - - - - -/- @ - - @ - - -/X - - - - - - X",
			turn: 10, w: Weights{Final: 1}, player: 0, want: 1,
		},
		{
			// After the second shrink every piece is on the final board:
			// only the material (3 against 2) counts.
			name: "final board after the second shrink",
			rows: "               /               /    X - - X    /    - O O -    /    - - O -    /    X @ @ X    /               /               ",
			turn: 200, w: Weights{Final: 1}, player: 0, want: 1,
		},
		{
			// Steps: White 4 + 2 (a corner blocks (0,6)), Black 4 + 3.
			name: "mobility",
			rows: "X - - - - - - X/- - - - - - - -/- - - - - - - @/- - - O - - - -/- - - - - - - -/- - - - - - - -/O - - - - - @ -/X - - - - - - X",
			turn: 10, w: Weights{Mobility: 1}, player: 0, want: (4 + 2) - (4 + 3),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := evalPosition(t, tt.rows, tt.turn)
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

func TestEvaluationAntisymmetric(t *testing.T) {
	g := New(evalOpts)
	rng := rand.New(rand.NewPCG(3, 4))
	for range 4 {
		s := g.NewInitialState()
		for !s.IsTerminal() {
			checkEvaluation(t, s)
			legal := s.LegalActions(nil)
			if err := s.ApplyAction(legal[rng.IntN(len(legal))]); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func checkEvaluation(t *testing.T, s env.State) {
	t.Helper()
	a, b := Evaluation(s, 0), Evaluation(s, 1)
	if a != -b || math.IsNaN(a) || math.Abs(a) > 100 {
		t.Fatalf("evaluations %v and %v\n%s", a, b, s)
	}
}

func FuzzEvaluation(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5})
	f.Add([]byte(strings.Repeat("\x07\x91", 120)))
	g := New(evalOpts)
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
			checkEvaluation(t, s)
		}
	})
}
