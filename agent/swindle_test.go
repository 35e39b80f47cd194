package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/wyb"
)

// trapShares values every move of s by the table for the player to move,
// and, for the drawing ones, the share of the opponent's replies that
// lose.
func trapShares(t *testing.T, s env.State, tb env.Tablebase) (values map[int]float32, shares map[int]float64) {
	t.Helper()
	me := s.CurrentPlayer()
	value := func(st env.State) float32 {
		if st.IsTerminal() {
			return st.Returns()[me]
		}
		v, _, ok := tb.Probe(st)
		if !ok {
			t.Fatalf("not in the table:\n%v", st)
		}
		if st.CurrentPlayer() != me {
			v = -v
		}
		return v
	}
	values, shares = map[int]float32{}, map[int]float64{}
	for _, a := range s.LegalActions(nil) {
		next := s.Clone()
		if err := next.ApplyAction(a); err != nil {
			t.Fatal(err)
		}
		values[a] = value(next)
		if values[a] != 0 || next.IsTerminal() {
			continue
		}
		replies := next.LegalActions(nil)
		lose := 0
		for _, r := range replies {
			after := next.Clone()
			if err := after.ApplyAction(r); err != nil {
				t.Fatal(err)
			}
			if value(after) > 0 {
				lose++
			}
		}
		shares[a] = float64(lose) / float64(len(replies))
	}
	return values, shares
}

// TestSwindleInDrawnEndgame: in a 2-against-2 endgame the table calls a
// draw, an agent with the table plays the drawing move that leaves the
// opponent the largest share of losing replies (3,3-4,3: 5 of 6); the
// search alone (all drawing moves worth 0) played 3,3-3,5 (3 of 5) when
// this test was written.
func TestSwindleInDrawnEndgame(t *testing.T) {
	gone := strings.Repeat(" ", 15)
	s, err := wyb.NewPosition(wyb.Options{}, strings.Join([]string{gone, gone,
		"    X - @ X", "    O @ - -", "    - O - -", "    X - - X", gone, gone}, "\n"), wyb.Moving, 201)
	if err != nil {
		t.Fatal(err)
	}
	tb := wyb.NewEndgame()
	if v, _, ok := tb.Probe(s); !ok || v != 0 {
		t.Fatalf("the table says %v (in it: %v); the test wants a drawn position", v, ok)
	}
	values, shares := trapShares(t, s, tb)
	most := 0.0
	for _, sh := range shares {
		most = max(most, sh)
	}
	if most == 0 {
		t.Fatal("no drawing move sets a trap: the test wants one that does")
	}
	m, err := NewPureMCTS(32, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	m.SetTablebase(tb)
	a, err := m.Act(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if values[a] != 0 || shares[a] != most {
		t.Errorf("played %s: value %v, %.2f of the replies lose; want a draw leaving %.2f", s.ActionString(a), values[a], shares[a], most)
	}

	// Search alone, for the record.
	plain, err := NewPureMCTS(32, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	plain.search.SetTablebase(tb)
	b, err := plain.Act(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("with contempt %s (%.2f of the replies lose); the search alone %s (%.2f)", s.ActionString(a), shares[a], s.ActionString(b), shares[b])
}

// TestSwindleLeavesOtherPositions: swindle plays no part outside drawn
// table positions: a won endgame (the search takes the win) and the
// initial position (not in the table).
func TestSwindleLeavesOtherPositions(t *testing.T) {
	gone := strings.Repeat(" ", 15)
	tb := wyb.NewEndgame()
	// White to move captures (3,3) between (2,3) and (4,3) and wins.
	won, err := wyb.NewPosition(wyb.Options{}, strings.Join([]string{gone, gone,
		"    X - - X", "    O @ - -", "    - - O @", "    X - - X", gone, gone}, "\n"), wyb.Moving, 200)
	if err != nil {
		t.Fatal(err)
	}
	if v, _, ok := tb.Probe(won); !ok || v != 1 {
		t.Fatalf("the table says %v (in it: %v); want a win", v, ok)
	}
	for _, s := range []env.State{won, wyb.New(wyb.Options{}).NewInitialState()} {
		if a, ok := swindle(s, tb, -1); ok {
			t.Errorf("swindle chose %s in a position that is not a table draw:\n%v", s.ActionString(a), s)
		}
	}
}
