package connect4_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/connect4"
	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/internal/strictyaml"
)

// play plays columns from g's initial state; it fails the test on an
// illegal one before the last (so also on a game over too soon), and
// returns the last one's error.
func play(t *testing.T, g env.Game, cols ...int) (env.State, error) {
	t.Helper()
	s := g.NewInitialState()
	for i, c := range cols {
		if err := s.ApplyAction(c); err != nil {
			if i == len(cols)-1 {
				return s, err
			}
			t.Fatalf("move %d (column %d): %v", i, c, err)
		}
	}
	return s, nil
}

func TestRules(t *testing.T) {
	g, err := games.ByName("connect4-5x4")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		cols    []int
		winner  int // 0 or 1; -1 draw, -2 not over
		wantErr string
		legal   []int
	}{
		{name: "row", cols: []int{0, 0, 1, 1, 2, 2, 3}, winner: 0},
		{name: "top row with the last disc", cols: []int{3, 4, 3, 4, 3, 3, 0, 1, 4, 2, 0, 1, 2, 2, 0, 0, 1, 2, 4, 1}, winner: 1},
		{name: "column", cols: []int{0, 1, 0, 1, 0, 1, 0}, winner: 0},
		{name: "column by O", cols: []int{0, 1, 0, 1, 0, 1, 2, 1}, winner: 1},
		{name: "diagonal up", cols: []int{0, 1, 1, 2, 2, 3, 2, 3, 3, 0, 3}, winner: 0},
		{name: "diagonal down", cols: []int{4, 3, 3, 2, 2, 1, 2, 1, 1, 4, 1}, winner: 0},
		{name: "three is not four", cols: []int{0, 0, 1, 1, 2, 2}, winner: -2, legal: []int{0, 1, 2, 3, 4}},
		{name: "draw on a full board", cols: []int{0, 4, 0, 0, 2, 2, 3, 2, 4, 4, 2, 1, 3, 1, 3, 3, 4, 1, 1, 0}, winner: -1, legal: []int{}},
		{name: "full column", cols: []int{0, 0, 0, 0}, winner: -2, legal: []int{1, 2, 3, 4}},
		{name: "into a full column", cols: []int{0, 0, 0, 0, 0}, wantErr: "column 0 is full"},
		{name: "off the board", cols: []int{5}, wantErr: "out of range"},
		{name: "negative", cols: []int{-1}, wantErr: "out of range"},
		{name: "after the end", cols: []int{0, 1, 0, 1, 0, 1, 0, 1}, wantErr: "over"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := play(t, g, tc.cols...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				if s.MoveNumber() != len(tc.cols)-1 {
					t.Errorf("an illegal action changed the state: %d moves", s.MoveNumber())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			ret := s.Returns()
			switch tc.winner {
			case -2:
				if s.IsTerminal() || ret != [2]float32{} || s.CurrentPlayer() != len(tc.cols)%2 {
					t.Errorf("over (%v) or wrong mover %d:\n%s", ret, s.CurrentPlayer(), s)
				}
			case -1:
				if !s.IsTerminal() || ret != [2]float32{} || s.CurrentPlayer() != -1 {
					t.Errorf("want a draw, returns %v:\n%s", ret, s)
				}
			default:
				if !s.IsTerminal() || ret[tc.winner] != 1 || ret[1-tc.winner] != -1 {
					t.Errorf("want a win for %d, returns %v:\n%s", tc.winner, ret, s)
				}
			}
			if tc.legal != nil {
				got := s.LegalActions(nil)
				if !slices.Equal(got, tc.legal) {
					t.Errorf("legal %v, want %v", got, tc.legal)
				}
				for a := -1; a <= 5; a++ {
					if s.IsLegal(a) != slices.Contains(tc.legal, a) {
						t.Errorf("IsLegal(%d) = %v", a, s.IsLegal(a))
					}
				}
			}
			if s.IsTerminal() && len(s.LegalActions(nil)) != 0 {
				t.Error("legal actions after the end")
			}
		})
	}
}

// The state's other duties: hashes of transpositions agree, clones are
// independent, the mirror maps observations and actions, the evaluation
// is antisymmetric, moves read back.
func TestState(t *testing.T) {
	g, err := games.ByName("connect4-6x5")
	if err != nil {
		t.Fatal(err)
	}
	a, _ := play(t, g, 0, 1, 2)
	b, _ := play(t, g, 2, 1, 0)
	c, _ := play(t, g, 0, 2, 1)
	if a.Hash() != b.Hash() || a.Hash() == c.Hash() {
		t.Errorf("hashes %x %x %x: want the first two equal only", a.Hash(), b.Hash(), c.Hash())
	}
	d := a.Clone()
	if err := d.ApplyAction(3); err != nil || a.MoveNumber() != 3 || d.Hash() == a.Hash() {
		t.Errorf("clone not independent: %v, %d moves", err, a.MoveNumber())
	}
	sym := g.Symmetries()
	if len(sym) != 2 || sym[0].Name != "identity" {
		t.Fatalf("symmetries %v", sym)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	shape, ui, h := g.ObservationShape(), g.(env.TextUI), g.(env.Heuristics).Evaluation()
	for game := 0; game < 50; game++ {
		s, m := g.NewInitialState(), g.NewInitialState()
		for !s.IsTerminal() {
			obs, mobs, img := make([]float32, shape.Size()), make([]float32, shape.Size()), make([]float32, shape.Size())
			s.Observation(obs)
			m.Observation(mobs)
			sym[1].TransformObservation(shape, obs, img)
			if !slices.Equal(img, mobs) {
				t.Fatalf("the mirror of the observation of\n%s is not that of\n%s", s, m)
			}
			if e0, e1 := h.Evaluate(s, 0), h.Evaluate(s, 1); e0 != -e1 {
				t.Fatalf("evaluations %v, %v of\n%s", e0, e1, s)
			}
			legal := s.LegalActions(nil)
			act := legal[rng.IntN(len(legal))]
			if got, err := ui.ParseMove(s, ui.FormatMove(s, act)); err != nil || got != act {
				t.Fatalf("ParseMove(FormatMove(%d)) = %d, %v", act, got, err)
			}
			if err := s.ApplyAction(act); err != nil {
				t.Fatal(err)
			}
			if err := m.ApplyAction(sym[1].Actions[act]); err != nil {
				t.Fatal(err)
			}
		}
		if s.Returns() != m.Returns() || s.MoveNumber() > g.MaxGameLength() {
			t.Fatalf("mirrored games end %v and %v after %d moves", s.Returns(), m.Returns(), s.MoveNumber())
		}
	}
}

// The registry builds the game from its names and its configuration
// section, and lists it.
func TestRegistered(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"connect4", "connect4"}, {"connect4-5x4", "connect4-5x4"}, {"connect4-4x8", "connect4-4x8"},
		{"connect4-7x6", "error: not the canonical name \"connect4\""},
		{"connect4-3x4", "error: game.columns: 3 out of range"},
		{"connect4-4x9", "error: game.rows: 9 out of range"},
		{"connect4-7", "error: want connect4 or connect4-CxR"},
		{"connect4x", "error: want connect4 or connect4-CxR"},
	} {
		c, err := games.ConfigFromName(tc.name)
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else if g, err := games.New(c); err != nil {
			got = "error: " + err.Error()
		} else {
			got = g.Name()
		}
		if !strings.HasPrefix(got, tc.want) && !(strings.HasPrefix(tc.want, "error") && strings.Contains(got, tc.want[len("error: "):])) {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	var cfg struct {
		Game games.Config `yaml:"game"`
	}
	cfg.Game = games.DefaultConfig("connect4")
	if err := strictyaml.Decode("c.yaml", []byte("game:\n  name: connect4\n  columns: 7\n  rows: 6\n"), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Game != (games.Config{Name: "connect4", Params: connect4.Params{Columns: 7, Rows: 6}}) {
		t.Errorf("decoded %+v", cfg.Game)
	}
	err := strictyaml.Decode("c.yaml", []byte("game:\n  name: connect4\n  size: 7\n  depth: 3\n"), &cfg)
	if err == nil || !strings.Contains(err.Error(), "line 4: game.depth: not a parameter of connect4 (its parameters: columns, rows)") {
		t.Errorf("unknown parameter: %v", err)
	}
	if h := games.Help(nil); !strings.Contains(h, "Connect Four: connect4 (7 columns x 6 rows), connect4-CxR") {
		t.Errorf("Help = %q", h)
	}
}
