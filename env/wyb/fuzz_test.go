package wyb

import (
	"encoding/json"
	"errors"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkInvariants verifies the structural invariants of a state.
func checkInvariants(t *testing.T, s *State) {
	t.Helper()
	b := &s.b
	if b.pieces[0]&b.pieces[1] != 0 {
		t.Fatalf("a square holds pieces of both colours\n%s", s.RefereeString())
	}
	if (b.pieces[0]|b.pieces[1])&^(b.live&^b.corners) != 0 {
		t.Fatalf("a piece stands on a corner or a removed square\n%s", s.RefereeString())
	}
	want := newBoard()
	for i := 0; i < int(b.shrinks); i++ {
		want.shrink()
	}
	if b.live != want.live || b.corners != want.corners {
		t.Fatalf("corners/removed squares do not match %d shrinks\n%s", b.shrinks, s.RefereeString())
	}
	if s.Pieces(0) != bits.OnesCount64(b.pieces[0]) || s.Pieces(1) != bits.OnesCount64(b.pieces[1]) {
		t.Fatalf("piece counts do not match the bitboards")
	}
	for p := 0; p < 2; p++ {
		if s.Pieces(p) > s.Placed(p) || s.Placed(p)+s.ToPlace(p) != PiecesPerPlayer {
			t.Fatalf("player %d: %d pieces, %d placed, %d to place", p, s.Pieces(p), s.Placed(p), s.ToPlace(p))
		}
	}
	switch s.phase {
	case Placing:
		if b.shrinks != 0 || s.turn < 0 || s.turn >= PlacingTurns || s.outcome != Ongoing || int(s.moves) != int(s.turn) {
			t.Fatalf("bad placing state: turn %d moves %d shrinks %d outcome %v", s.turn, s.moves, b.shrinks, s.outcome)
		}
	case Moving:
		wantShrinks := 0
		if s.turn >= FirstShrink {
			wantShrinks++
		}
		if s.turn >= SecondShrink {
			wantShrinks++
		}
		// The shrink of turn 128 or 192 is skipped if the game ended then.
		if int(b.shrinks) != wantShrinks && !(s.outcome != Ongoing && int(b.shrinks) == wantShrinks-1) {
			t.Fatalf("moving turn %d with %d shrinks", s.turn, b.shrinks)
		}
		if int(s.moves) != PlacingTurns+int(s.turn) {
			t.Fatalf("moving turn %d after %d actions", s.turn, s.moves)
		}
	}
	if s.Hash() != s.recomputeHash() {
		t.Fatalf("incremental hash %#x, recomputed %#x", s.Hash(), s.recomputeHash())
	}
	legal := s.LegalActions(nil)
	if s.IsTerminal() != (len(legal) == 0) {
		t.Fatalf("terminal %v with %d legal actions", s.IsTerminal(), len(legal))
	}
	if s.NumLegal() != len(legal) {
		t.Fatalf("NumLegal %d, LegalActions %d", s.NumLegal(), len(legal))
	}
	if !slices.IsSorted(legal) {
		t.Fatalf("legal actions not sorted: %v", legal)
	}
	// RandomLegal maps the n equal parts of [0, 2^64) onto the n legal
	// actions, one each.
	n := len(legal)
	var picked []int
	for i := 0; i < n; i++ {
		q, rem := bits.Div64(uint64(i), 0, uint64(n)) // ⌈i·2^64/n⌉ starts part i
		if rem != 0 {
			q++
		}
		picked = append(picked, s.RandomLegal(q))
		if i > 0 && s.RandomLegal(q-1) != picked[i-1] {
			t.Fatalf("RandomLegal(%#x) = %d, want %d (the action of part %d)", q-1, s.RandomLegal(q-1), picked[i-1], i-1)
		}
	}
	slices.Sort(picked)
	if !slices.Equal(picked, legal) {
		t.Fatalf("RandomLegal picks %v, legal actions %v", picked, legal)
	}
	if s.IsTerminal() && (s.RandomLegal(12345) != -1 || s.PlayRandom(12345) != -1) {
		t.Fatalf("RandomLegal or PlayRandom of a finished game is not -1")
	}
	if s.IsTerminal() {
		if s.CurrentPlayer() != -1 {
			t.Fatalf("terminal state with player %d to move", s.CurrentPlayer())
		}
	} else {
		if s.CurrentPlayer() != int(s.turn&1) {
			t.Fatalf("player %d to move at turn %d", s.CurrentPlayer(), s.turn)
		}
		if s.Returns() != [2]float32{} {
			t.Fatalf("non-zero returns before the end")
		}
	}
}

// playRandom plays one game from seed, checking at each step the invariants,
// that the legal actions agree with the reference model, that every legal
// action applies and every other one is rejected without a change.
func playRandom(t *testing.T, seed uint64, turnLimit int, maxSteps int, exhaustive bool) {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	s := New(Options{TurnLimit: turnLimit}).NewState()
	ref := newRefGame(s.TurnLimit())
	var legal []int
	for step := 0; step < maxSteps; step++ {
		checkInvariants(t, s)
		if !s.IsTerminal() {
			checkMoverThreats(t, s)
		}
		if got, want := s.RefereeString(), ref.String(); got != want {
			t.Fatalf("seed %d step %d: engine\n%s\nreference\n%s", seed, step, got, want)
		}
		legal = s.LegalActions(legal)
		for k := -1; k <= len(legal); k++ {
			want := -1
			if k >= 0 && k < len(legal) {
				want = legal[k]
			}
			if got := s.NthLegal(k); got != want {
				t.Fatalf("NthLegal(%d) = %d, want %d", k, got, want)
			}
		}
		if exhaustive {
			for a := 0; a < NumActions; a++ {
				isLegal := slices.Contains(legal, a)
				if s.IsLegal(a) != isLegal || ref.legal(a) != isLegal {
					t.Fatalf("seed %d step %d action %s: IsLegal %v, listed %v, reference %v\n%s",
						seed, step, FormatAction(a), s.IsLegal(a), isLegal, ref.legal(a), s.RefereeString())
				}
				if isLegal {
					c := s.Clone().(*State)
					if err := c.ApplyAction(a); err != nil {
						t.Fatalf("legal action %s rejected: %v", FormatAction(a), err)
					}
					if c.MoveNumber() != s.MoveNumber()+1 {
						t.Fatalf("move number %d after %d", c.MoveNumber(), s.MoveNumber())
					}
				}
			}
		}
		// An illegal action (possibly out of range) changes nothing.
		if a := rng.IntN(NumActions+10) - 5; !slices.Contains(legal, a) {
			before := *s
			err := s.ApplyAction(a)
			var ae *ActionError
			if !errors.As(err, &ae) {
				t.Fatalf("illegal action %d: error %v", a, err)
			}
			if *s != before {
				t.Fatalf("illegal action %s (%v) changed the state", FormatAction(a), ae.Reason)
			}
			if raw := RefereeAction(a); raw != "" && !s.IsTerminal() {
				if _, err := s.RefereeAction([]byte(raw)); err == nil {
					t.Fatalf("referee form %s of illegal action accepted", raw)
				}
			}
		}
		if s.IsTerminal() {
			return
		}
		a := legal[rng.IntN(len(legal))]
		if raw := RefereeAction(a); raw != "" {
			ra, err := s.RefereeAction([]byte(raw))
			if err != nil || ra != a {
				t.Fatalf("referee form %s of legal action %s: %d, %v", raw, FormatAction(a), ra, err)
			}
		}
		if err := s.ApplyAction(a); err != nil {
			t.Fatalf("legal action %s: %v", FormatAction(a), err)
		}
		ref.update(a)
	}
}

// TestRandomPlayAgainstReference plays seeded random games to the end (no
// turn limit: random games end within a few hundred turns, usually after
// the second shrink) and with turn limits.
func TestRandomPlayAgainstReference(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 10
	}
	for seed := uint64(0); seed < uint64(n); seed++ {
		limit := 0
		switch seed % 3 {
		case 1:
			limit = DefaultTurnLimit
		case 2:
			limit = 1 + int(seed*37%200)
		}
		playRandom(t, seed, limit, 5000, seed%4 == 0)
	}
}

// FuzzRandomPlay drives random games from fuzzed seeds.
func FuzzRandomPlay(f *testing.F) {
	for _, s := range []uint64{0, 1, 42, 77000000, 1 << 40} {
		f.Add(s, uint16(0))
		f.Add(s, uint16(DefaultTurnLimit))
	}
	f.Fuzz(func(t *testing.T, seed uint64, limit uint16) {
		playRandom(t, seed, int(limit%400), 2000, true)
	})
}

// FuzzParseRefereeAction checks that any input parses without panicking,
// and that what parses formats back to the same action.
func FuzzParseRefereeAction(f *testing.F) {
	for _, s := range []string{
		"null", "[3, 4]", "[[3, 4], [3, 5]]", "[[3,4],[3,6]]", "[1, 2, 3]", "5",
		"[[2.0, 4], [2, 5]]", "[[6, 3], 6]", "[-1, -1]", "[true, false]",
		"[[0, 0], [8, 0]]", `"ab"`, "{}", "[1e3, 2]", "[99999999999999999999999, 0]", "",
		"[[1, 1], [2, 2]]", "[[1, 1], [1, 4]]", "[3, 4] x",
	} {
		f.Add([]byte(s))
	}
	initial := New(Options{}).NewState()
	moving := mustPositionF(f, diag(
		"X------X", emptyRow, "--O-----", "--@O----", "---@----", emptyRow, emptyRow, "X------X"), Moving, 0)
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ParseRefereeAction(data)
		if err != nil {
			var ae *ActionError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v is not an *ActionError", err)
			}
		} else {
			if a < 0 || a >= NumActions {
				t.Fatalf("action %d out of range", a)
			}
			back := RefereeAction(a)
			if back == "" {
				t.Fatalf("parsed action %d has no referee form", a)
			}
			b, err := ParseRefereeAction([]byte(back))
			if err != nil || b != a {
				t.Fatalf("%s -> %d -> %s -> %d, %v", data, a, back, b, err)
			}
			if !json.Valid(data) {
				t.Fatalf("invalid JSON %q accepted", data)
			}
			if n, err := ParseNotation(FormatAction(a)); err != nil || n != a {
				t.Fatalf("notation round trip of %d: %d, %v", a, n, err)
			}
		}
		for _, s := range []*State{initial, moving} {
			before := *s
			ra, err := s.RefereeAction(data)
			if *s != before {
				t.Fatalf("RefereeAction changed the state")
			}
			if err == nil && !s.IsLegal(ra) {
				t.Fatalf("RefereeAction(%s) = %s, which is illegal", data, FormatAction(ra))
			}
			if err == nil && a != ra {
				t.Fatalf("RefereeAction(%s) = %d but ParseRefereeAction = %d", data, ra, a)
			}
		}
	})
}

func mustPositionF(f *testing.F, board string, phase Phase, turn int) *State {
	s, err := NewPosition(Options{}, board, phase, turn)
	if err != nil {
		f.Fatal(err)
	}
	return s
}
