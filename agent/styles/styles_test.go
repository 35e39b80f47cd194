package styles

import (
	"context"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/squatter"
	"github.com/zerokit/zerokit/env/wyb"
)

// position builds a Watch Your Back! position from 8 rows of the referee's
// diagram written without the spaces between squares.
func position(t *testing.T, rows []string, phase wyb.Phase, turn int) *wyb.State {
	t.Helper()
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = strings.Join(strings.Split(r, ""), " ")
	}
	s, err := wyb.NewPosition(wyb.Options{}, strings.Join(lines, "\n"), phase, turn)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// play returns the action style plays in s (seed 1).
func play(t *testing.T, game env.Game, style string, depth int, s env.State) int {
	t.Helper()
	f, err := Factory(game, style, depth)
	if err != nil {
		t.Fatal(err)
	}
	a, err := f(1)
	if err != nil {
		t.Fatal(err)
	}
	act, err := a.Act(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return act
}

func after(t *testing.T, s *wyb.State, a int) *wyb.State {
	t.Helper()
	c := s.Clone().(*wyb.State)
	if err := c.ApplyAction(a); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCentrality(t *testing.T) {
	sq := func(x, y int) uint64 { return 1 << (y*8 + x) }
	for _, tc := range []struct {
		name string
		m    uint64
		want int
	}{
		{"empty", 0, 0},
		{"centre square", sq(3, 3), 6},
		{"all four centre squares", sq(3, 3) | sq(4, 3) | sq(3, 4) | sq(4, 4), 24},
		{"edge middle", sq(0, 3), 3},
		{"next to a corner", sq(1, 0), 1},
		{"corner", sq(7, 7), 0},
	} {
		if got := Centrality(tc.m); got != tc.want {
			t.Errorf("%s: Centrality = %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestMobility(t *testing.T) {
	for _, tc := range []struct {
		name         string
		rows         []string
		white, black int
	}{
		{"open board", []string{
			"X------X",
			"--------",
			"--------",
			"---O----",
			"--------",
			"------@-",
			"--------",
			"X------X",
		}, 4, 4},
		{"jumps and a blocked edge", []string{
			"X------X",
			"--------",
			"--------",
			"---O@---",
			"--------",
			"--------",
			"--------",
			"X@-----X",
		}, 4, 4 + 2},
		{"next to a corner", []string{
			"XO-----X",
			"O@------",
			"-O------",
			"--------",
			"--------",
			"--------",
			"--------",
			"X------X",
		}, 1 + 2 + 3, 2},
	} {
		s := position(t, tc.rows, wyb.Moving, 10)
		b := s.Board()
		if got := Mobility(b, b.White); got != tc.white {
			t.Errorf("%s: White's mobility %d, want %d", tc.name, got, tc.white)
		}
		if got := Mobility(b, b.Black); got != tc.black {
			t.Errorf("%s: Black's mobility %d, want %d", tc.name, got, tc.black)
		}
	}
}

// TestWatchYourBackStyles checks each style's defining habit in a position
// built for it.
func TestWatchYourBackStyles(t *testing.T) {
	game := wyb.New(wyb.Options{})
	t.Run("centre moves towards the centre", func(t *testing.T) {
		s := position(t, []string{
			"X------X",
			"------@-",
			"-O------",
			"--------",
			"--------",
			"-O------",
			"------@-",
			"X------X",
		}, wyb.Moving, 10)
		before := Centrality(s.Board().White)
		c := after(t, s, play(t, game, CentreName, 3, s))
		if got := Centrality(c.Board().White); got <= before {
			t.Errorf("White's centrality %d after the centre-holder's move, %d before", got, before)
		}
		// Material still comes first: it takes a piece offered at the edge
		// rather than step inwards.
		s = position(t, []string{
			"X------X",
			"------@-",
			"--------",
			"--------",
			"---O----",
			"-O@-----",
			"------@-",
			"X------X",
		}, wyb.Moving, 10)
		c = after(t, s, play(t, game, CentreName, 3, s))
		if c.Pieces(1) >= s.Pieces(1) {
			t.Errorf("the centre-holder did not capture: Black keeps %d pieces", c.Pieces(1))
		}
	})
	t.Run("locker leaves the fewest moves", func(t *testing.T) {
		s := position(t, []string{
			"X------X",
			"--------",
			"--------",
			"--------",
			"--------",
			"-----O--",
			"-@----O-",
			"X-----@X",
		}, wyb.Moving, 10)
		s2 := position(t, []string{
			"X------X",
			"--------",
			"--------",
			"--------",
			"--------",
			"--------",
			"@--O--O-",
			"X-----@X",
		}, wyb.Moving, 10)
		for _, st := range []*wyb.State{s, s2} {
			a := play(t, game, LockerName, 1, st)
			c := after(t, st, a)
			got := Mobility(c.Board(), c.Board().Black)
			var legal []int
			for _, m := range st.LegalActions(legal) {
				o := after(t, st, m)
				if o.Pieces(0) < st.Pieces(0) {
					continue
				}
				if n := Mobility(o.Board(), o.Board().Black); n < got {
					t.Errorf("the locker played %s leaving Black %d moves; %s leaves %d", wyb.FormatAction(a), got, wyb.FormatAction(m), n)
				}
			}
		}
	})
	t.Run("trader seeks contact and trades", func(t *testing.T) {
		s := position(t, []string{
			"X------X",
			"--------",
			"--------",
			"--------",
			"----@---",
			"--------",
			"--------",
			"X------X",
		}, wyb.Placing, 2)
		c := after(t, s, play(t, game, TraderName, 1, s))
		if Contact(c.Board().White, c.Board().Black) == 0 {
			t.Errorf("the trader placed away from Black's pieces:\n%v", c)
		}
		// It takes an even trade: (4,2)-(4,3) captures (3,3), and Black's
		// (5,2)-(4,2) takes the piece back; quiet moves keep 4 v 4.
		s = position(t, []string{
			"X------X",
			"--------",
			"----O@--",
			"--O@----",
			"----@---",
			"--------",
			"-O----@-",
			"X------X",
		}, wyb.Moving, 10)
		c = after(t, s, play(t, game, TraderName, 2, s))
		if c.Pieces(1) >= s.Pieces(1) {
			t.Errorf("the trader did not trade:\n%v", c)
		}
		// With material level, fewer pieces is better: an even trade
		// raises its evaluation, and a lost piece lowers it.
		level := position(t, []string{
			"X------X",
			"--------",
			"--O-----",
			"--------",
			"----@---",
			"--------",
			"--------",
			"X------X",
		}, wyb.Moving, 10)
		more := position(t, []string{
			"X------X",
			"--------",
			"--O--O--",
			"--------",
			"----@-@-",
			"--------",
			"--------",
			"X------X",
		}, wyb.Moving, 10)
		if l, m := TraderEval(level, 0), TraderEval(more, 0); l != -20 || m != -40 {
			t.Errorf("TraderEval = %v with 1 v 1 pieces, %v with 2 v 2; want -20 and -40", l, m)
		}
	})
}

// TestSquatterStyles checks the blocker's and the mirror's habits.
func TestSquatterStyles(t *testing.T) {
	game, err := squatter.New(6)
	if err != nil {
		t.Fatal(err)
	}
	at := func(x, y int) int { return y*6 + x }
	// threat: a diamond of three of the first player's pieces around
	// (1,1), whose fourth closes it, and one around (4,4).
	for _, tc := range []struct {
		name    string
		actions []int
	}{
		{"one threat", []int{at(1, 0), at(5, 5), at(0, 1), at(5, 4), at(2, 1), at(4, 5)}},
		{"threat at the far side", []int{at(4, 3), at(0, 0), at(3, 4), at(0, 5), at(5, 4), at(5, 0)}},
	} {
		t.Run("blocker "+tc.name, func(t *testing.T) {
			s, err := game.FromActions(tc.actions...)
			if err != nil {
				t.Fatal(err)
			}
			if threat := bestReply(t, s.Copy()); threat == 0 {
				t.Fatal("no capture threatened: the test position is wrong")
			}
			a := play(t, game, BlockerName, 0, s)
			c := s.Copy()
			if err := c.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
			if got := bestReply(t, c); got != 0 {
				t.Errorf("after the blocker's %s the opponent can still score %d:\n%v", s.ActionString(a), got, c)
			}
		})
	}
	t.Run("mirror answers with the point-symmetric cell", func(t *testing.T) {
		s := game.NewState()
		f, err := Factory(game, MirrorName, 0)
		if err != nil {
			t.Fatal(err)
		}
		m, err := f(1)
		if err != nil {
			t.Fatal(err)
		}
		for i, first := range []int{at(2, 2), at(0, 3), at(5, 1), at(1, 4)} {
			if err := s.ApplyAction(first); err != nil {
				t.Fatal(err)
			}
			a, err := m.Act(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			if want := 35 - first; a != want {
				t.Errorf("move %d: mirror answered %s with %s, want %s", i, s.ActionString(first), s.ActionString(a), s.ActionString(want))
			}
			if err := s.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
		}
	})
	t.Run("mirror falls back where the image is taken", func(t *testing.T) {
		// The first player took (3,3), the image of (2,2): no image is free.
		s, err := game.FromActions(at(3, 3), at(0, 0), at(2, 2))
		if err != nil {
			t.Fatal(err)
		}
		if a, ok := MirrorMove(s); ok {
			// (0,0) is the mirror's own piece: only the opponent's
			// pieces are mirrored.
			t.Errorf("MirrorMove = %s, want none", s.ActionString(a))
		}
	})
}

// bestReply is the most the player to move in s can score with one move.
func bestReply(t *testing.T, s *squatter.State) int {
	t.Helper()
	p := s.ToMove()
	best := 0
	for _, a := range s.LegalActions(nil) {
		c := s.Copy()
		if err := c.ApplyAction(a); err != nil {
			t.Fatal(err)
		}
		best = max(best, c.Score(p)-s.Score(p))
	}
	return best
}
