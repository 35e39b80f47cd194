package tictactoe

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
)

func mustPlay(t testing.TB, actions ...int) *State {
	t.Helper()
	s, err := FromActions(actions...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestOutcomes(t *testing.T) {
	tests := []struct {
		name     string
		actions  []int
		terminal bool
		returns  [2]float32
		player   int
	}{
		{"empty", nil, false, [2]float32{}, 0},
		{"one mark", []int{4}, false, [2]float32{}, 1},
		{"X row", []int{0, 3, 1, 4, 2}, true, [2]float32{1, -1}, -1},
		{"O column", []int{0, 1, 3, 4, 8, 7}, true, [2]float32{-1, 1}, -1},
		{"X diagonal", []int{0, 1, 4, 2, 8}, true, [2]float32{1, -1}, -1},
		{"O anti-diagonal", []int{0, 2, 1, 4, 8, 6}, true, [2]float32{-1, 1}, -1},
		{"draw", []int{0, 1, 2, 4, 3, 5, 7, 6, 8}, true, [2]float32{}, -1},
		{"X wins on last cell", []int{0, 1, 2, 3, 4, 5, 7, 6, 8}, true, [2]float32{1, -1}, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := FromActions(tc.actions...)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.IsTerminal(); got != tc.terminal {
				t.Fatalf("IsTerminal = %v, want %v\n%s", got, tc.terminal, s)
			}
			if got := s.Returns(); got != tc.returns {
				t.Errorf("Returns = %v, want %v", got, tc.returns)
			}
			if got := s.CurrentPlayer(); got != tc.player {
				t.Errorf("CurrentPlayer = %d, want %d", got, tc.player)
			}
			legal := s.LegalActions(nil)
			if tc.terminal != (len(legal) == 0) {
				t.Errorf("terminal %v but %d legal actions", tc.terminal, len(legal))
			}
			if s.MoveNumber() != len(tc.actions) {
				t.Errorf("MoveNumber = %d, want %d", s.MoveNumber(), len(tc.actions))
			}
		})
	}
}

func TestIllegalActionsLeaveStateUnchanged(t *testing.T) {
	s := mustPlay(t, 4)
	before := *s
	for _, a := range []int{-1, 9, 4} {
		if s.IsLegal(a) {
			t.Errorf("IsLegal(%d) = true", a)
		}
		if err := s.ApplyAction(a); err == nil {
			t.Errorf("ApplyAction(%d) succeeded", a)
		}
		if *s != before {
			t.Fatalf("state changed by illegal action %d", a)
		}
	}
	won := mustPlay(t, 0, 3, 1, 4, 2)
	if err := won.ApplyAction(8); err == nil || !strings.Contains(err.Error(), "over") {
		t.Errorf("move after the end: err = %v", err)
	}
}

// walk visits every reachable state once per path and reports game counts.
func walk(s *State, seen map[uint64]*State, games *int, t *testing.T) {
	if prev, ok := seen[s.Hash()]; ok {
		if prev.board != s.board {
			t.Fatalf("hash collision:\n%s\n%s", prev, s)
		}
	} else {
		seen[s.Hash()] = s
	}
	if s.IsTerminal() {
		*games++
		return
	}
	for _, a := range s.LegalActions(nil) {
		c := s.Clone().(*State)
		if err := c.ApplyAction(a); err != nil {
			t.Fatal(err)
		}
		walk(c, seen, games, t)
	}
}

// TestGameTree checks the well-known counts: 255168 possible games and 5478
// distinct positions (including the empty board), which also shows that the
// hash separates all positions.
func TestGameTree(t *testing.T) {
	seen := map[uint64]*State{}
	games := 0
	walk(&State{}, seen, &games, t)
	if games != 255168 {
		t.Errorf("games = %d, want 255168", games)
	}
	if len(seen) != 5478 {
		t.Errorf("distinct positions = %d, want 5478", len(seen))
	}
}

func negamax(s *State) float32 {
	if s.IsTerminal() {
		return s.Returns()[s.moves%2]
	}
	best := float32(-2)
	for _, a := range s.LegalActions(nil) {
		c := *s
		_ = c.ApplyAction(a)
		best = max(best, -negamax(&c))
	}
	return best
}

func TestPerfectPlayIsADraw(t *testing.T) {
	if v := negamax(&State{}); v != 0 {
		t.Errorf("game value = %v, want 0", v)
	}
}

func TestHashIsPathIndependent(t *testing.T) {
	a := mustPlay(t, 0, 4, 8)
	b := mustPlay(t, 8, 4, 0)
	if a.Hash() != b.Hash() {
		t.Error("transposed move orders give different hashes")
	}
	c := mustPlay(t, 4, 0, 8)
	if a.Hash() == c.Hash() {
		t.Error("different positions share a hash")
	}
	if (&State{}).Hash() == mustPlay(t, 4).Hash() {
		t.Error("hash ignores a move")
	}
}

func TestObservation(t *testing.T) {
	g := New()
	s := mustPlay(t, 0, 4, 8) // X on 0 and 8, O on 4; O to move
	obs := make([]float32, g.ObservationShape().Size())
	for i := range obs {
		obs[i] = 7 // must be overwritten
	}
	s.Observation(obs)
	want := make([]float32, len(obs))
	want[4] = 1       // mover (O) marks
	want[Cells+0] = 1 // opponent (X)
	want[Cells+8] = 1 //
	for c := 0; c < Cells; c++ {
		want[2*Cells+c] = 1 // mover is player 1
	}
	if !slices.Equal(obs, want) {
		t.Errorf("observation\n got %v\nwant %v", obs, want)
	}
}

func TestParseAction(t *testing.T) {
	tests := []struct {
		in      string
		want    int
		wantErr bool
	}{
		{"0", 0, false},
		{"8", 8, false},
		{" 4 ", 4, false},
		{"0,0", 0, false},
		{"2,0", 2, false},
		{"0,2", 6, false},
		{"1, 2", 7, false},
		{"9", 0, true},
		{"-1", 0, true},
		{"3,0", 0, true},
		{"0,-1", 0, true},
		{"a", 0, true},
		{"1,", 0, true},
		{"", 0, true},
		{"1,1,1", 0, true},
	}
	s := &State{}
	for _, tc := range tests {
		got, err := s.ParseAction(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("ParseAction(%q) err = %v, wantErr %v", tc.in, err, tc.wantErr)
			continue
		}
		if err == nil && got != tc.want {
			t.Errorf("ParseAction(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
	for a := 0; a < Cells; a++ {
		got, err := s.ParseAction(s.ActionString(a))
		if err != nil || got != a {
			t.Errorf("round trip of %d via %q: %d, %v", a, s.ActionString(a), got, err)
		}
	}
}

func TestSymmetries(t *testing.T) {
	g := New()
	syms := g.Symmetries()
	if len(syms) != 8 {
		t.Fatalf("%d symmetries, want 8", len(syms))
	}
	if syms[0].Name != "identity" || !slices.Equal(syms[0].Cells, env.Identity(Cells, Cells).Cells) {
		t.Errorf("element 0 is not the identity: %+v", syms[0])
	}
	distinct := map[string]bool{}
	for _, sym := range syms {
		sorted := slices.Clone(sym.Cells)
		slices.Sort(sorted)
		if !slices.Equal(sorted, env.Identity(Cells, Cells).Cells) {
			t.Errorf("%s is not a permutation: %v", sym.Name, sym.Cells)
		}
		if sym.Cells[4] != 4 {
			t.Errorf("%s moves the centre", sym.Name)
		}
		distinct[fmtInts(sym.Cells)] = true
	}
	if len(distinct) != 8 {
		t.Errorf("only %d distinct symmetries", len(distinct))
	}
	// Exactness: playing the image of every move gives the image position,
	// with the same outcome and the transformed observation and legal set.
	rng := rand.New(rand.NewPCG(1, 2))
	shape := g.ObservationShape()
	obs := make([]float32, shape.Size())
	img := make([]float32, shape.Size())
	obs2 := make([]float32, shape.Size())
	for game := 0; game < 200; game++ {
		for _, sym := range syms {
			s := &State{}
			m := &State{}
			for !s.IsTerminal() {
				legal := s.LegalActions(nil)
				mapped := make([]int, len(legal))
				for i, a := range legal {
					mapped[i] = sym.Actions[a]
				}
				slices.Sort(mapped)
				if !slices.Equal(mapped, m.LegalActions(nil)) {
					t.Fatalf("%s: legal actions do not map", sym.Name)
				}
				a := legal[rng.IntN(len(legal))]
				if err := s.ApplyAction(a); err != nil {
					t.Fatal(err)
				}
				if err := m.ApplyAction(sym.Actions[a]); err != nil {
					t.Fatalf("%s: image of legal move illegal: %v", sym.Name, err)
				}
				s.Observation(obs)
				sym.TransformObservation(shape, obs, img)
				m.Observation(obs2)
				if !slices.Equal(img, obs2) {
					t.Fatalf("%s: observation does not commute\n%s\n%s", sym.Name, s, m)
				}
			}
			if !m.IsTerminal() || m.Returns() != s.Returns() {
				t.Fatalf("%s: outcome differs: %v vs %v", sym.Name, s.Returns(), m.Returns())
			}
		}
	}
}

func fmtInts(xs []int) string {
	var b strings.Builder
	for _, x := range xs {
		b.WriteString(" ")
		b.WriteByte(byte('0' + x))
	}
	return b.String()
}

func TestString(t *testing.T) {
	s := mustPlay(t, 0, 4, 8)
	want := "X..\n.O.\n..X\n"
	if s.String() != want {
		t.Errorf("String =\n%s want\n%s", s, want)
	}
}

func TestGymEnv(t *testing.T) {
	e := env.NewEnv(New())
	_, info := e.Reset(3)
	if info.NumLegal != 9 || info.Player != 0 {
		t.Fatalf("reset info %+v", info)
	}
	var reward float32
	var done bool
	var err error
	for _, a := range []int{0, 3, 1, 4, 2} {
		_, reward, done, _, err = e.Step(a)
		if err != nil {
			t.Fatal(err)
		}
	}
	if !done || reward != 1 {
		t.Errorf("done %v reward %v, want true 1", done, reward)
	}
}

func FuzzParseAction(f *testing.F) {
	for _, s := range []string{"0", "8", "1,2", "x", "3,3", "", "-0", "1,,2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		a, err := ParseAction(in)
		if err != nil {
			return
		}
		if a < 0 || a >= Cells {
			t.Fatalf("ParseAction(%q) = %d out of range", in, a)
		}
		b, err := ParseAction(cellString(a))
		if err != nil || b != a {
			t.Fatalf("round trip of %d failed: %d %v", a, b, err)
		}
	})
}

// FuzzPlay applies arbitrary action sequences and checks the state's
// invariants after every step.
func FuzzPlay(f *testing.F) {
	f.Add([]byte{4, 0, 8, 2, 6, 3})
	f.Add([]byte{0, 0, 9, 255, 1})
	f.Fuzz(func(t *testing.T, moves []byte) {
		s := &State{}
		for _, m := range moves {
			a := int(m) - 3 // include some negative actions
			before := *s
			legal := s.IsLegal(a)
			err := s.ApplyAction(a)
			if legal != (err == nil) {
				t.Fatalf("IsLegal(%d)=%v but ApplyAction err=%v", a, legal, err)
			}
			if err != nil {
				if *s != before {
					t.Fatal("illegal action changed the state")
				}
				continue
			}
			var h uint64
			xs, os := 0, 0
			for c, v := range s.board {
				if v != 0 {
					h ^= zobrist(c, int(v-1))
				}
				switch v {
				case 1:
					xs++
				case 2:
					os++
				}
			}
			if s.moves%2 == 1 {
				h ^= zobrist(Cells, 0)
			}
			if h != s.hash {
				t.Fatal("incremental hash differs from recomputed hash")
			}
			if xs != os && xs != os+1 || xs+os != int(s.moves) {
				t.Fatalf("bad mark counts X=%d O=%d moves=%d", xs, os, s.moves)
			}
			if s.IsTerminal() != (len(s.LegalActions(nil)) == 0) {
				t.Fatal("terminal disagrees with legal actions")
			}
			r := s.Returns()
			if r[0] != -r[1] || (!s.IsTerminal() && r != [2]float32{}) {
				t.Fatalf("bad returns %v", r)
			}
		}
	})
}
