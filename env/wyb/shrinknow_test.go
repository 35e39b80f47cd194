package wyb

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// between is the diagram of a board between the shrinks with the 6x6
// board's rows rows (6 rows of 6 symbols, space-separated).
func between(rows ...string) string {
	gone := strings.Repeat(" ", 15)
	lines := []string{gone}
	for _, r := range rows {
		lines = append(lines, "  "+r+"  ")
	}
	return strings.Join(append(lines, gone), "\n")
}

// final is the diagram of a board after the second shrink with the 4x4
// board's rows rows.
func final(rows ...string) string {
	gone := strings.Repeat(" ", 15)
	lines := []string{gone, gone}
	for _, r := range rows {
		lines = append(lines, "    "+r+"    ")
	}
	return strings.Join(append(lines, gone, gone), "\n")
}

// TestShrinkNow: the value of a board between the shrinks as if the
// second came now is the table's value of the board that shrink leaves
// (its ring's pieces and those on its new corners gone, those the new
// corners sandwich captured), White to move, for the player asked; a side
// the shrink leaves with fewer than 2 pieces loses.
func TestShrinkNow(t *testing.T) {
	tests := []struct {
		name   string
		before string
		over   bool    // the shrink ends the game
		want   float32 // for White, when over
	}{
		{name: "inner pieces, corners capture",
			before: between("X - - - - X", "- - O @ - -", "- O - @ - -", "- - @ O - -", "- - - - - -", "X - - - - X")},
		{name: "ring pieces and new corners leave White one piece", over: true, want: -1,
			before: between("X - - - @ X", "- O O @ - O", "- - - @ - -", "@ - O - - -", "- - - - O -", "X - - - - X")},
		{name: "Black left with one piece", over: true, want: 1,
			before: between("X @ - - - X", "- - O - - -", "- - - @ - -", "- - O - - -", "- - - - - -", "X - - - - X")},
	}
	e := NewEndgame()
	check := func(t *testing.T, s *State, over bool, want float32) {
		t.Helper()
		if !over {
			v, _, ok := e.Probe(shrunk(s))
			if !ok {
				t.Fatalf("the shrunk board is not in the table:\n%s", shrunk(s))
			}
			want = v
		}
		for _, p := range []int{WhitePlayer, BlackPlayer} {
			got, ok := e.ShrinkNow(s, p)
			w := want
			if p == BlackPlayer {
				w = -w
			}
			if !ok || got != w {
				t.Fatalf("player %d: ShrinkNow = %v, %v; want %v\n%s", p, got, ok, w, s)
			}
		}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := mustPosition(t, Options{}, tc.before, Moving, 181)
			if c := shrunk(s); c.IsTerminal() != tc.over {
				t.Fatalf("after the shrink the game is over: %v, want %v\n%s", c.IsTerminal(), tc.over, c)
			}
			check(t, s, tc.over, tc.want)
		})
	}
	// Random boards between the shrinks.
	rng := rand.New(rand.NewPCG(5, 5))
	decided := 0
	for n := 0; n < 400; n++ {
		var rows []string
		for y := range 6 {
			var cells []string
			for x := range 6 {
				c := "-"
				if (x == 0 || x == 5) && (y == 0 || y == 5) {
					c = "X"
				} else if r := rng.IntN(5); r == 1 {
					c = "O"
				} else if r == 2 {
					c = "@"
				}
				cells = append(cells, c)
			}
			rows = append(rows, strings.Join(cells, " "))
		}
		s, err := NewPosition(Options{}, between(rows...), Moving, 150+rng.IntN(40))
		if err != nil || s.IsTerminal() {
			continue
		}
		c := shrunk(s)
		over := c.IsTerminal()
		var want float32
		switch c.outcome {
		case WhiteWins:
			want = 1
		case BlackWins:
			want = -1
		}
		check(t, s, over, want)
		if v, _ := e.ShrinkNow(s, WhitePlayer); v != 0 {
			decided++
		}
	}
	if decided < 50 {
		t.Errorf("only %d random boards have a decided value: the test checks too little", decided)
	}
	// Not between the shrinks: no value.
	for _, s := range []*State{New(Options{}).NewState(), mustPosition(t, Options{}, final("X O O X", "- @ @ -", "- - - -", "X - - X"), Moving, 200)} {
		if _, ok := e.ShrinkNow(s, WhitePlayer); ok {
			t.Errorf("a value for\n%s", s)
		}
	}
}

// shrunk is s's board after the shrinks still to come, as the state at
// the second shrink (White to move), its end checked.
func shrunk(s *State) *State {
	c := s.Clone().(*State)
	for c.b.shrinks < 2 {
		c.b.shrink()
	}
	c.turn = SecondShrink
	c.outcome = endCheck(&c.b)
	return c
}

// TestTableMaterial: between the shrinks TableMaterial is FinalMaterial
// plus TablePieces times ShrinkNow; before the first shrink, after the
// second and in a game with a turn limit it is FinalMaterial.
func TestTableMaterial(t *testing.T) {
	g := New(Options{TurnLimit: 0})
	e := g.endgame
	fin := g.FinalMaterial()
	table := g.TableMaterial()
	lost := mustPosition(t, Options{}, between("X @ - - - X", "- - O - - -", "- - - @ - -", "- - O - - -", "- - - - - -", "X - - - - X"), Moving, 181)
	for _, p := range []int{WhitePlayer, BlackPlayer} {
		v, ok := e.ShrinkNow(lost, p)
		if !ok || v == 0 {
			t.Fatalf("the test wants a position the shrink decides: %v, %v", v, ok)
		}
		if got, want := table.Evaluate(lost, p), fin.Evaluate(lost, p)+TablePieces*float64(v); got != want {
			t.Errorf("player %d between the shrinks: %v, want %v", p, got, want)
		}
	}
	early := mustPosition(t, Options{}, "X - - - - - - X\n- - - - - - - -\n- - O - - - - -\n- - - @ - - - -\n- - - - - - - -\n- - - - - - - -\n- - - - - - - -\nX - - - - - - X", Moving, 40)
	after := mustPosition(t, Options{}, final("X O O X", "- @ @ -", "- - - -", "X - - X"), Moving, 200)
	limited, err := NewPosition(Options{TurnLimit: 256}, lost.String(), Moving, 181)
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		g *Game
		s *State
	}{"before the first shrink": {g, early}, "after the second": {g, after}, "turn limit": {New(Options{TurnLimit: 256}), limited}} {
		if got, want := c.g.TableMaterial().Evaluate(c.s, BlackPlayer), c.g.FinalMaterial().Evaluate(c.s, BlackPlayer); got != want {
			t.Errorf("%s: %v, want FinalMaterial's %v", name, got, want)
		}
	}
}
