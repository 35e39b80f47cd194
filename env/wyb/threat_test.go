package wyb

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// bruteThreats is the set of the opponent's pieces that the mover of s
// eliminates with at least one of its legal actions, found by playing each
// one on a clone.
func bruteThreats(t *testing.T, s *State) uint64 {
	t.Helper()
	p := s.CurrentPlayer()
	before := s.b.pieces[1-p]
	var out uint64
	for _, a := range s.LegalActions(nil) {
		c := s.Clone().(*State)
		if err := c.ApplyAction(a); err != nil {
			t.Fatalf("legal action %s: %v", FormatAction(a), err)
		}
		out |= before &^ c.b.pieces[1-p]
	}
	return out
}

// checkMoverThreats fails t unless ThreatenedBy(mover) is what the
// mover's legal actions eliminate, found by playing each one. On a turn the
// shrink follows, the pieces on the squares the shrink takes away count
// only when an action eliminates them on arrival. It reports whether the
// shrink follows, whether there is a threat, and whether the shrink added
// one.
func checkMoverThreats(t *testing.T, s *State) (shrinkNext, threat, byShrink bool) {
	t.Helper()
	p := s.CurrentPlayer()
	got := s.ThreatenedBy(p)
	want := bruteThreats(t, s)
	if s.TurnsToShrink() != 1 {
		if got != want {
			t.Fatalf("move %d: ThreatenedBy(mover) = %#x, actions eliminate %#x\n%s", s.MoveNumber(), got, want, s.RefereeString())
		}
		return false, got != 0, false
	}
	doomed := s.NextShrinkSquares()
	if got&^doomed != want&^doomed {
		t.Fatalf("move %d, before a shrink: ThreatenedBy(mover) = %#x off the shrink's squares, actions and shrink eliminate %#x\n%s",
			s.MoveNumber(), got&^doomed, want&^doomed, s.RefereeString())
	}
	arrival := s.b.threats(p, false)
	if got&doomed != arrival&doomed {
		t.Fatalf("move %d, before a shrink: ThreatenedBy(mover) = %#x on the shrink's squares, arrivals eliminate %#x\n%s",
			s.MoveNumber(), got&doomed, arrival&doomed, s.RefereeString())
	}
	return true, got != 0, got != arrival
}

// TestThreatenedByMatchesActions compares ThreatenedBy with the pieces the
// mover's legal actions really eliminate, over seeded random games, for the
// mover and (in the moving phase, by handing the move over) for the other
// player. On a turn the shrink follows, the mover's threats must be what
// its actions and the shrink eliminate, leaving out the pieces on the
// squares the shrink takes away unless an action itself eliminates them.
func TestThreatenedByMatchesActions(t *testing.T) {
	games := 120
	if testing.Short() {
		games = 30
	}
	checked, nonEmpty, atShrink, byShrink := 0, 0, 0, 0
	for g := range games {
		rng := rand.New(rand.NewPCG(uint64(g), 7))
		s := New(Options{TurnLimit: DefaultTurnLimit}).NewState()
		for !s.IsTerminal() {
			p := s.CurrentPlayer()
			shrinkNext, threat, byShrink1 := checkMoverThreats(t, s)
			if shrinkNext {
				atShrink++
				if byShrink1 {
					byShrink++
				}
			} else {
				checked++
				if threat {
					nonEmpty++
				}
				if s.Phase() == Moving && s.TurnsToShrink() != 2 {
					o, err := NewPosition(Options{TurnLimit: s.TurnLimit()}, s.String(), Moving, s.Turn()+1)
					if err != nil {
						t.Fatalf("hand over: %v", err)
					}
					if o.IsTerminal() {
						goto next
					}
					if got, want := s.ThreatenedBy(1-p), bruteThreats(t, o); got != want {
						t.Fatalf("game %d move %d: ThreatenedBy(other) = %#x, its actions eliminate %#x\n%s", g, s.MoveNumber(), got, want, s.RefereeString())
					}
				}
			}
		next:
			legal := s.LegalActions(nil)
			if err := s.ApplyAction(legal[rng.IntN(len(legal))]); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d positions, %d with a threat; %d before a shrink, %d with a threat by the shrink", checked, nonEmpty, atShrink, byShrink)
	if atShrink == 0 || byShrink == 0 {
		t.Fatalf("%d positions before a shrink, %d with a threat by the shrink: the test sees too few", atShrink, byShrink)
	}
	if nonEmpty < checked/20 {
		t.Fatalf("only %d of %d positions had a threat: the test sees too few", nonEmpty, checked)
	}
}

// TestThreatenedBy checks set-up positions, among them the jump over the
// victim (the jumper leaves the square beyond the victim empty, so it does
// not eliminate it) and placements restricted to the zone.
func TestThreatenedBy(t *testing.T) {
	cases := []struct {
		name   string
		board  string
		phase  Phase
		turn   int
		player int
		want   []int // squares x + 8y
	}{
		{"no arrival beside the victim", diag("X------X", emptyRow, "---O----", "---@----", emptyRow, "----O---", emptyRow, "X------X"),
			Moving, 0, WhitePlayer, nil},
		{"step from below", diag("X------X", emptyRow, "---O----", "---@----", "--------", "---O----", emptyRow, "X------X"),
			Moving, 0, WhitePlayer, []int{3 + 8*3}},
		{"jump over the victim captures nothing", diag("X------X", emptyRow, emptyRow, "--O@----", emptyRow, emptyRow, emptyRow, "X------X"),
			Moving, 0, WhitePlayer, nil},
		{"corner as a stabber", diag("X@-----X", emptyRow, emptyRow, emptyRow, emptyRow, emptyRow, emptyRow, "X------X"),
			Moving, 0, WhitePlayer, nil},
		{"corner as a stabber, placement", diag("X@-----X", emptyRow, emptyRow, emptyRow, emptyRow, emptyRow, emptyRow, "X------X"),
			Placing, 2, WhitePlayer, []int{1}},
		{"placement outside the zone", diag("X------X", emptyRow, emptyRow, emptyRow, emptyRow, "O-------", "@-------", "X------X"),
			Placing, 2, WhitePlayer, nil},
		{"black placement inside its zone", diag("X------X", emptyRow, emptyRow, emptyRow, emptyRow, "-O@-----", emptyRow, "X------X"),
			Placing, 3, BlackPlayer, []int{1 + 8*5}},
		// Moving turn 191, Black to move, the second shrink next: Black
		// steps (5,5) -> (4,5), and the new corner at (2,5) closes on
		// White's (3,5). (The position of a lost match game.)
		{"a new corner as a stabber", diag("........", ".X----X.", ".------.", ".---O--.", ".--@---.", ".--O-@-.", ".X----X.", "........"),
			Moving, 191, BlackPlayer, []int{3 + 8*5}},
		// The same without the shrink (turn 189): no threat.
		{"no shrink, no new corner", diag("........", ".X----X.", ".------.", ".---O--.", ".--@---.", ".--O-@-.", ".X----X.", "........"),
			Moving, 189, BlackPlayer, nil},
		// Turn 191, Black's (5,5) stands on a square the shrink turns into
		// a corner: it goes whatever White does, and is no threat of
		// White's; (3,4) is, by the step (4,3) -> (3,3).
		{"doomed pieces are not threats", diag("........", ".X----X.", ".------.", ".---O--.", ".--@---.", ".--O-@-.", ".X----X.", "........"),
			Moving, 191, WhitePlayer, []int{3 + 8*4}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := mustPosition(t, Options{}, c.board, c.phase, c.turn)
			var want uint64
			for _, sq := range c.want {
				want |= bit(sq)
			}
			if got := s.ThreatenedBy(c.player); got != want {
				t.Errorf("ThreatenedBy(%d) = %#x, want %#x\n%s", c.player, got, want, s)
			}
		})
	}
}

// TestNextShrinkSquares compares NextShrinkSquares with what the shrink
// really takes away (removed squares and new corners) at each stage.
func TestNextShrinkSquares(t *testing.T) {
	b := newBoard()
	for k, wantCount := range []int{32, 24, 0} {
		s := &State{b: b}
		got := s.NextShrinkSquares()
		if n := bits.OnesCount64(got); n != wantCount {
			t.Errorf("shrink %d: %d squares, want %d", k, n, wantCount)
		}
		if k == 2 {
			break
		}
		after := b
		after.shrink()
		if want := (b.live &^ after.live) | (after.corners &^ b.corners); got != want {
			t.Errorf("shrink %d: %#x, want %#x", k, got, want)
		}
		b = after
	}
}
