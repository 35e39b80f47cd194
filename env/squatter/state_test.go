package squatter

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
)

func TestNew(t *testing.T) {
	tests := []struct {
		n       int
		wantErr bool
		name    string
	}{
		{5, true, ""},
		{0, true, ""},
		{-6, true, ""},
		{6, false, "squatter6"},
		{8, false, "squatter8"},
		{12, false, "squatter12"},
		{MaxN, false, "squatter13"},
		{MaxN + 1, true, ""},
	}
	for _, tc := range tests {
		g, err := New(tc.n)
		if tc.wantErr {
			if err == nil || !strings.Contains(err.Error(), "board size") {
				t.Errorf("New(%d) error = %v, want a board size error", tc.n, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("New(%d): %v", tc.n, err)
		}
		if g.Name() != tc.name || g.N() != tc.n || g.NumActions() != tc.n*tc.n || g.MaxGameLength() != tc.n*tc.n {
			t.Errorf("New(%d): name %q N %d actions %d max length %d", tc.n, g.Name(), g.N(), g.NumActions(), g.MaxGameLength())
		}
		if want := (env.Shape{Planes: Planes, Height: tc.n, Width: tc.n}); g.ObservationShape() != want {
			t.Errorf("New(%d): shape %v, want %v", tc.n, g.ObservationShape(), want)
		}
	}
}

func TestInitialState(t *testing.T) {
	g := mustGame(t, 6)
	s := g.NewInitialState()
	if s.CurrentPlayer() != 0 || s.IsTerminal() || s.MoveNumber() != 0 || s.Returns() != [2]float32{} {
		t.Fatalf("initial state: player %d terminal %v moves %d", s.CurrentPlayer(), s.IsTerminal(), s.MoveNumber())
	}
	legal := s.LegalActions(nil)
	if len(legal) != 36 || legal[0] != 0 || legal[35] != 35 {
		t.Fatalf("initial legal actions %v", legal)
	}
	// Equal positions from different Game values hash equally.
	if s.Hash() != mustGame(t, 6).NewInitialState().Hash() {
		t.Error("initial hashes differ between two games of the same size")
	}
}

func TestIllegalActions(t *testing.T) {
	g := mustGame(t, 6)
	// Black's diamond has captured 2,2 (x=2, y=2); 2,1 is a Black piece.
	s := playMoves(t, g, "r1c2 r5c5 r2c1 r5c4 r2c3 r5c3 r3c2")
	tests := []struct {
		action int
		want   string
	}{
		{-1, "out of range"},
		{36, "out of range"},
		{2*6 + 2, "captured territory"},
		{1*6 + 2, "occupied by Black"},
		{5*6 + 5, "occupied by White"},
	}
	for _, tc := range tests {
		before := *s
		if s.IsLegal(tc.action) {
			t.Errorf("IsLegal(%d) = true", tc.action)
		}
		err := s.ApplyAction(tc.action)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ApplyAction(%d) error = %v, want it to mention %q", tc.action, err, tc.want)
		}
		if *s != before {
			t.Errorf("refused action %d changed the state", tc.action)
		}
	}
	end := playMoves(t, g, "r0c0 r0c1 r0c2 r0c3 r0c4 r0c5 r1c0 r1c1 r1c2 r1c3 r1c4 r1c5 "+
		"r2c0 r2c1 r2c2 r2c3 r2c4 r2c5 r3c0 r3c1 r3c2 r3c3 r3c4 r3c5 "+
		"r4c0 r4c1 r4c2 r4c3 r4c4 r4c5 r5c0 r5c1 r5c2 r5c3 r5c4 r5c5")
	if err := end.ApplyAction(0); err == nil || !strings.Contains(err.Error(), "game is over") {
		t.Errorf("action after the end: error %v", err)
	}
}

func TestCloneIsIndependent(t *testing.T) {
	s := playMoves(t, mustGame(t, 6), "r1c2 r5c5 r2c1")
	c := s.Clone()
	if c.Hash() != s.Hash() || c.String() != s.String() {
		t.Fatal("clone differs from the original")
	}
	if err := c.ApplyAction(2*6 + 3); err != nil {
		t.Fatal(err)
	}
	if s.MoveNumber() != 3 || !s.IsLegal(2*6+3) || s.Hash() == c.Hash() {
		t.Error("playing on the clone changed the original")
	}
}

func TestActionNotation(t *testing.T) {
	s := mustGame(t, 7).NewState()
	for a := range 49 {
		str := s.ActionString(a)
		got, err := s.ParseAction(str)
		if err != nil || got != a {
			t.Fatalf("ParseAction(%q) = %d, %v; want %d", str, got, err, a)
		}
	}
	if got := s.ActionString(3*7 + 5); got != "5,3" {
		t.Errorf("ActionString(column 5, row 3) = %q, want \"5,3\"", got)
	}
	tests := []struct {
		in   string
		want int
		err  string
	}{
		{" 2 , 4 ", 4*7 + 2, ""},
		{"6,6", 48, ""},
		{"7,0", 0, "off the 7x7 board"},
		{"-1,0", 0, "off the 7x7 board"},
		{"3", 0, "want \"x,y\""},
		{"a,1", 0, "column"},
		{"1,b", 0, "row"},
		{"pass", 0, "want \"x,y\""},
	}
	for _, tc := range tests {
		got, err := s.ParseAction(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseAction(%q) error = %v, want it to mention %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseAction(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

// FuzzParseAction checks that ParseAction never panics and that whatever it
// accepts is an action that ActionString writes back and that parses again
// to the same action.
func FuzzParseAction(f *testing.F) {
	for _, seed := range []string{"0,0", "5,5", " 3 ,2", "6,0", "x", "", ",", "1,2,3", "+1,+2", "99999999999999999999,1"} {
		f.Add(seed)
	}
	s := mustGame(f, 6).NewState()
	f.Fuzz(func(t *testing.T, in string) {
		a, err := s.ParseAction(in)
		if err != nil {
			return
		}
		if a < 0 || a >= 36 {
			t.Fatalf("ParseAction(%q) = %d, off the board", in, a)
		}
		back, err := s.ParseAction(s.ActionString(a))
		if err != nil || back != a {
			t.Fatalf("round trip of %q: %d -> %q -> %d, %v", in, a, s.ActionString(a), back, err)
		}
	})
}

func TestString(t *testing.T) {
	s := playMoves(t, mustGame(t, 6), "r2c2 r1c2 r5c5 r2c1 r5c4 r2c3 r5c3 r3c2")
	want := `   0  1  2  3  4  5
 0 .  .  .  .  .  .
 1 .  .  W  .  .  .
 2 .  W  Bw W  .  .
 3 .  .  W  .  .  .
 4 .  .  .  .  .  .
 5 .  .  .  B  B  B
Black to move; score Black 0, White 1; 28 free
`
	if got := s.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
}

// TestObservation checks every plane against the cell accessors.
func TestObservation(t *testing.T) {
	g := mustGame(t, 6)
	// White's diamond holds a dead Black piece; Black to move.
	s := playMoves(t, g, "r2c2 r1c2 r5c5 r2c1 r5c4 r2c3 r5c3 r3c2")
	for _, st := range []*State{s, playMoves(t, g, "r2c2 r1c2 r5c5 r2c1 r5c4 r2c3 r5c3 r3c2 r0c0")} {
		obs := make([]float32, g.ObservationShape().Size())
		for i := range obs {
			obs[i] = -7 // Observation must overwrite everything.
		}
		st.Observation(obs)
		me := st.CurrentPlayer()
		n := 36
		for c := range n {
			cs := st.CellAt(c)
			want := [Planes]float32{
				b2f(cs.Piece == me && cs.Owner < 0),
				b2f(cs.Piece == 1-me && cs.Owner < 0),
				b2f(cs.Piece == me && cs.Owner >= 0),
				b2f(cs.Piece == 1-me && cs.Owner >= 0),
				b2f(cs.Owner == me),
				b2f(cs.Owner == 1-me),
				b2f(cs.Free()),
				1,
				float32(st.Score(me)-st.Score(1-me)) / 36,
				float32(st.FreeCount()) / 36,
			}
			for p := range Planes {
				if got := obs[p*n+c]; got != want[p] {
					t.Errorf("mover %d plane %d cell %s = %v, want %v", me, p, st.ActionString(c), got, want[p])
				}
			}
		}
	}
}

func b2f(b bool) float32 {
	if b {
		return 1
	}
	return 0
}

// TestSymmetries plays random games and their images under each symmetry:
// the image game is legal move for move, and its board, scores,
// observation and legal actions are the images of the original's.
func TestSymmetries(t *testing.T) {
	for _, n := range []int{6, 7, 8} {
		g := mustGame(t, n)
		syms := g.Symmetries()
		if len(syms) != 8 || syms[0].Name != "identity" {
			t.Fatalf("N=%d: %d symmetries, first %q", n, len(syms), syms[0].Name)
		}
		seen := map[string]bool{}
		for _, sym := range syms {
			if !slices.Equal(sym.Cells, sym.Actions) {
				t.Fatalf("%s: actions do not map like cells", sym.Name)
			}
			key := fmt.Sprint(sym.Cells)
			if seen[key] {
				t.Fatalf("%s duplicates another symmetry", sym.Name)
			}
			seen[key] = true
			sorted := slices.Clone(sym.Cells)
			slices.Sort(sorted)
			for i, c := range sorted {
				if c != i {
					t.Fatalf("%s is not a permutation", sym.Name)
				}
			}
		}
		shape := g.ObservationShape()
		obs := make([]float32, shape.Size())
		img := make([]float32, shape.Size())
		want := make([]float32, shape.Size())
		for seed := range uint64(6) {
			rng := rand.New(rand.NewPCG(seed, 99))
			var actions []int
			s := g.NewState()
			var legal []int
			for !s.IsTerminal() {
				legal = s.LegalActions(legal)
				a := pickMove(rng, s, legal)
				actions = append(actions, a)
				if err := s.ApplyAction(a); err != nil {
					t.Fatal(err)
				}
				if len(actions) == n*n/2 {
					break // compare a mid-game position too
				}
			}
			for _, sym := range syms {
				im := g.NewState()
				for _, a := range actions {
					if err := im.ApplyAction(sym.Actions[a]); err != nil {
						t.Fatalf("N=%d %s: image of a legal game is illegal: %v", n, sym.Name, err)
					}
				}
				for c := range g.cells {
					if s.CellAt(c) != im.CellAt(sym.Cells[c]) {
						t.Fatalf("N=%d %s seed %d: cell %d is not mapped\n%s\n%s", n, sym.Name, seed, c, s, im)
					}
				}
				for p := range 2 {
					if s.Score(p) != im.Score(p) || s.Territory(p) != im.Territory(p) {
						t.Fatalf("N=%d %s: scores differ", n, sym.Name)
					}
				}
				s.Observation(obs)
				sym.TransformObservation(shape, obs, img)
				im.Observation(want)
				if !slices.Equal(img, want) {
					t.Fatalf("N=%d %s: transformed observation differs from the image's", n, sym.Name)
				}
				var mapped []int
				for _, a := range s.LegalActions(nil) {
					mapped = append(mapped, sym.Actions[a])
				}
				slices.Sort(mapped)
				if !slices.Equal(mapped, im.LegalActions(nil)) {
					t.Fatalf("N=%d %s: legal actions are not mapped", n, sym.Name)
				}
			}
		}
	}
}

// TestCellOwners plays random games to their end and checks the holders on
// every position against Cell: the territory's player, else the piece's,
// else -1; at the end no cell is nobody's, and the cells held as territory
// are Territory's count.
func TestCellOwners(t *testing.T) {
	g := mustGame(t, 6)
	rng := rand.New(rand.NewPCG(45, 2))
	owners := make([]int8, 36)
	for range 6 {
		s := g.NewState()
		var st env.State = s
		if _, ok := st.(env.CellOwner); !ok {
			t.Fatal("State does not implement env.CellOwner")
		}
		for {
			s.CellOwners(owners)
			var terr [2]int
			for y := range 6 {
				for x := range 6 {
					cs := s.Cell(x, y)
					want := int8(cs.Piece)
					if cs.Owner >= 0 {
						want = int8(cs.Owner)
						terr[cs.Owner]++
					}
					if got := owners[y*6+x]; got != want {
						t.Fatalf("move %d, cell (%d,%d) %+v: owner %d, want %d\n%s", s.MoveNumber(), x, y, cs, got, want, s)
					}
					if s.IsTerminal() && want < 0 {
						t.Fatalf("cell (%d,%d) is nobody's at the end\n%s", x, y, s)
					}
				}
			}
			if terr[0] != s.Territory(0) || terr[1] != s.Territory(1) {
				t.Fatalf("move %d: territory %v, Territory says %d and %d", s.MoveNumber(), terr, s.Territory(0), s.Territory(1))
			}
			if s.IsTerminal() {
				break
			}
			legal := s.LegalActions(nil)
			if err := s.ApplyAction(legal[rng.IntN(len(legal))]); err != nil {
				t.Fatal(err)
			}
		}
	}
}
