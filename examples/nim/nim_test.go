package nim

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
)

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		name, want, err string
	}{
		{name: "nim", want: "nim"},
		{name: "nim-3", want: "nim-3"},
		{name: "nim-6", want: "nim-6"},
		{name: "nim-4", err: `not the canonical name "nim"`},
		{name: "nim-03", err: `not the canonical name "nim-3"`},
		{name: "nim-7", err: "heaps: 7 out of range"},
		{name: "nim-x", err: "want nim or nim-N"},
	} {
		g, err := games.ByName(tc.name)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ByName(%q) error = %v, want one containing %q", tc.name, err, tc.err)
			}
		case err != nil:
			t.Errorf("ByName(%q): %v", tc.name, err)
		case g.Name() != tc.want:
			t.Errorf("ByName(%q).Name() = %q, want %q", tc.name, g.Name(), tc.want)
		}
	}
}

// TestRandomGames plays random games and checks the state's duties: the
// legal actions are exactly those IsLegal accepts, the hash follows the
// position, the last stone's taker wins, and the action text reads back.
func TestRandomGames(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, heaps := range []int{MinHeaps, DefaultHeaps, MaxHeaps} {
		g, err := New(Params{Heaps: heaps})
		if err != nil {
			t.Fatal(err)
		}
		obs := make([]float32, g.ObservationShape().Size())
		for range 50 {
			s := g.NewInitialState().(*State)
			for !s.IsTerminal() {
				legal := s.LegalActions(nil)
				n := 0
				for a := 0; a < g.NumActions(); a++ {
					if s.IsLegal(a) {
						n++
					}
				}
				if n != len(legal) || n == 0 {
					t.Fatalf("%s: %d legal actions, IsLegal accepts %d", s, len(legal), n)
				}
				a := legal[rng.IntN(len(legal))]
				if got, err := s.ParseAction(s.ActionString(a)); err != nil || got != a {
					t.Fatalf("ParseAction(%q) = %d, %v; want %d", s.ActionString(a), got, err, a)
				}
				mover, before := s.CurrentPlayer(), s.stones()
				if err := s.ApplyAction(a); err != nil {
					t.Fatal(err)
				}
				if s.hash != s.computeHash() {
					t.Fatalf("hash %x, recomputed %x", s.hash, s.computeHash())
				}
				s.Observation(obs)
				ones := 0
				for _, v := range obs {
					ones += int(v)
				}
				if ones != s.stones() || s.stones() >= before {
					t.Fatalf("observation has %d stones, the state %d (before %d)", ones, s.stones(), before)
				}
				if s.IsTerminal() {
					if r := s.Returns(); r[mover] != 1 || r[1-mover] != -1 {
						t.Fatalf("returns %v: player %d took the last stone", r, mover)
					}
				}
			}
			if s.MoveNumber() > g.MaxGameLength() {
				t.Fatalf("%d moves, over MaxGameLength %d", s.MoveNumber(), g.MaxGameLength())
			}
			if err := s.ApplyAction(0); err == nil {
				t.Fatal("an action after the end was accepted")
			}
		}
	}
}

// TestTheory: alpha-beta's evaluation is the nim-sum's verdict (1, 3, 5, 7
// sums to zero: the first player loses), and a grid click names one action.
func TestTheory(t *testing.T) {
	g, _ := New(Params{Heaps: DefaultHeaps})
	s := g.NewInitialState()
	if v := g.Evaluation().Evaluate(s, 0); v != -1 {
		t.Errorf("initial evaluation for the first player = %v, want -1", v)
	}
	a, err := g.ParseMove(s, "4:7")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ApplyAction(a); err != nil {
		t.Fatal(err)
	}
	if v := g.Evaluation().Evaluate(s, 1); v != 1 {
		t.Errorf("evaluation after 4:7 for the player to move = %v, want 1", v)
	}
	if _, err := g.ParseMove(s, "4:1"); err == nil || !strings.Contains(err.Error(), "heap 4 has fewer than 1 stones") {
		t.Errorf("ParseMove of an empty heap: %v", err)
	}
	seen := map[int]int{}
	for _, a := range s.LegalActions(nil) {
		from, to := g.ActionCells(s, a)
		w, _ := g.GridSize()
		if from != to || from < 0 || g.GridCell(s, from%w, from/w).Piece != 0 {
			t.Errorf("action %s: cells %d, %d, not a stone", s.ActionString(a), from, to)
		}
		if b, dup := seen[from]; dup {
			t.Errorf("actions %s and %s share cell %d", s.ActionString(a), s.ActionString(b), from)
		}
		seen[from] = a
	}
}

func TestCodec(t *testing.T) {
	g, _ := New(Params{Heaps: DefaultHeaps})
	rg, codec := g.Referee()
	s := rg.NewInitialState()
	for p := range 2 {
		if got, err := codec.Player(codec.Colour(p)); err != nil || got != p {
			t.Errorf("Player(Colour(%d)) = %d, %v", p, got, err)
		}
	}
	if _, err := codec.Player("white"); err == nil {
		t.Error("colour white accepted")
	}
	text, err := codec.FormatAction(s, 2*7+2)
	if err != nil || text != "3:3" {
		t.Errorf("FormatAction = %q, %v; want 3:3", text, err)
	}
	if _, err := codec.FormatAction(s, g.NumActions()); err == nil {
		t.Error("FormatAction of an action out of range succeeded")
	}
}

// FuzzParseAction: any text is read without a panic, into an action in
// range that reads back from its own text.
func FuzzParseAction(f *testing.F) {
	for _, s := range []string{"1:1", "4:7", "0:1", "3 3", "9:99", ":", "1:1:1", "-1:2", ""} {
		f.Add(s)
	}
	g, _ := New(Params{Heaps: DefaultHeaps})
	var s env.State = g.NewInitialState()
	f.Fuzz(func(t *testing.T, text string) {
		a, err := s.ParseAction(text)
		if err != nil {
			return
		}
		if a < 0 || a >= g.NumActions() {
			t.Fatalf("ParseAction(%q) = %d, out of range", text, a)
		}
		if b, err := s.ParseAction(s.ActionString(a)); err != nil || b != a {
			t.Fatalf("ParseAction(ActionString(%d)) = %d, %v", a, b, err)
		}
	})
}
