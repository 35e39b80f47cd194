package connect4_test

import (
	"context"
	"slices"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/connect4"
	"github.com/zerokit/zerokit/env/connect4/solver"
)

// Any sequence of bytes, read as columns on a board of any size, keeps
// the rules' duties: illegal actions are errors that change nothing,
// legal ones agree with the solver's bitboards on who has four and on
// the full board, and the state converts to the solver's position.
func FuzzRules(f *testing.F) {
	f.Add(uint8(7), uint8(6), []byte{3, 3, 4, 4, 5, 5, 6})
	f.Add(uint8(4), uint8(4), []byte{0, 1, 0, 1, 0, 1, 0, 9, 200})
	f.Add(uint8(8), uint8(8), []byte{7, 7, 7, 7, 7, 7, 7, 7, 7})
	f.Fuzz(func(t *testing.T, c, r uint8, cols []byte) {
		g, err := connect4.New(connect4.Params{Columns: int(c), Rows: int(r)})
		if err != nil {
			return // the size is checked by New (TestRegistered)
		}
		geo, geoErr := solver.NewGeometry(int(c), int(r))
		s := g.NewInitialState()
		var pos solver.Position
		if geoErr == nil {
			pos = geo.New()
		}
		for _, b := range cols {
			a := int(b) - 1 // also -1 and past the last column
			before := s.Clone()
			legal := s.IsLegal(a)
			if legal != slices.Contains(s.LegalActions(nil), a) {
				t.Fatalf("IsLegal(%d) = %v disagrees with LegalActions", a, legal)
			}
			err := s.ApplyAction(a)
			if (err == nil) != legal {
				t.Fatalf("ApplyAction(%d) = %v, IsLegal %v", a, err, legal)
			}
			if err != nil {
				if s.Hash() != before.Hash() || s.MoveNumber() != before.MoveNumber() {
					t.Fatalf("an illegal action changed the state")
				}
				continue
			}
			if geoErr != nil {
				continue
			}
			pos.PlayColumn(a)
			won := s.Returns() != [2]float32{}
			if pos.HasFour() != won {
				t.Fatalf("after column %d: four %v, the rules' returns %v\n%s", a, pos.HasFour(), s.Returns(), s)
			}
			if s.IsTerminal() != (won || s.MoveNumber() == g.MaxGameLength()) {
				t.Fatalf("terminal %v with returns %v after %d moves", s.IsTerminal(), s.Returns(), s.MoveNumber())
			}
		}
	})
}

// The codec and the terminal reader never panic on any text, and what
// they accept writes back to itself.
func FuzzParse(f *testing.F) {
	g, err := connect4.New(connect4.Params{Columns: 7, Rows: 6})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"3", " 6 ", "-1", "7", "x", "", "03", "1e3"} {
		f.Add(s)
	}
	_, codec := g.Referee()
	ui := env.TextUI(g)
	f.Fuzz(func(t *testing.T, text string) {
		s := g.NewInitialState()
		if a, err := codec.ParseAction(s, text); err == nil {
			out, err := codec.FormatAction(s, a)
			if err != nil {
				t.Fatalf("ParseAction(%q) = %d, which FormatAction refuses: %v", text, a, err)
			}
			if b, err := codec.ParseAction(s, out); err != nil || b != a {
				t.Fatalf("round trip of %q: %q, %d, %v", text, out, b, err)
			}
		}
		if a, err := ui.ParseMove(s, text); err == nil && !s.IsLegal(a) {
			t.Fatalf("ParseMove(%q) = %d, illegal", text, a)
		}
		if a, err := s.ParseAction(text); err == nil && (a < 0 || a >= 7) {
			t.Fatalf("ParseAction(%q) = %d", text, a)
		}
	})
}

// The solver behind env.SolvableGame reads the game's states: a win in 1
// for X, and an error for a finished game.
func TestSolverOfTheGame(t *testing.T) {
	g, err := connect4.New(connect4.Params{Columns: 7, Rows: 6})
	if err != nil {
		t.Fatal(err)
	}
	sv, err := g.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	s := g.NewInitialState()
	for _, a := range []int{3, 4, 3, 4, 3, 4} {
		if err := s.ApplyAction(a); err != nil {
			t.Fatal(err)
		}
	}
	sol, best, err := sv.Best(context.Background(), s)
	if err != nil || sol != (env.Solution{Value: 1, Actions: 1}) || !slices.Equal(best, []int{3}) {
		t.Errorf("Best = %+v %v %v", sol, best, err)
	}
	v, keep, err := sv.Keeping(context.Background(), s)
	if err != nil || v != 1 || !slices.Contains(keep, 3) {
		t.Errorf("Keeping = %d %v %v", v, keep, err)
	}
	if err := s.ApplyAction(3); err != nil {
		t.Fatal(err)
	}
	if _, err := sv.Solve(context.Background(), s); err == nil {
		t.Error("solved a finished game")
	}
	big, err := connect4.New(connect4.Params{Columns: 8, Rows: 8})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := big.NewSolver(); err == nil {
		t.Error("a solver of 8x8")
	}
}
