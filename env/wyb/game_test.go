package wyb

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
)

func TestGameProperties(t *testing.T) {
	cases := []struct {
		opts    Options
		name    string
		maxLen  int
		limitOf int
	}{
		{Options{TurnLimit: DefaultTurnLimit}, "wyb", 24 + 256, 256},
		{Options{}, "wyb-nolimit", 0, 0},
		{Options{TurnLimit: 100}, "wyb-limit100", 124, 100},
		{Options{TurnLimit: -3}, "wyb-nolimit", 0, 0},
		{Options{TurnLimit: 1 << 40}, "wyb-limit1073741824", 24 + 1<<30, 1 << 30},
	}
	for _, c := range cases {
		g := New(c.opts)
		if g.Name() != c.name || g.MaxGameLength() != c.maxLen || g.Options().TurnLimit != c.limitOf {
			t.Errorf("%+v: name %q max %d limit %d, want %q %d %d", c.opts, g.Name(), g.MaxGameLength(), g.Options().TurnLimit, c.name, c.maxLen, c.limitOf)
		}
		if g.NumActions() != 577 || g.EncodingVersion() != 2 {
			t.Errorf("NumActions %d EncodingVersion %d", g.NumActions(), g.EncodingVersion())
		}
		if sh := g.ObservationShape(); sh != (env.Shape{Planes: NumPlanes, Height: 8, Width: 8}) {
			t.Errorf("shape %v", sh)
		}
		syms := g.Symmetries()
		if len(syms) != 1 || syms[0].Name != "identity" {
			t.Errorf("symmetries %v, want only the identity", syms)
		}
	}
}

func TestInitialState(t *testing.T) {
	s := New(Options{TurnLimit: DefaultTurnLimit}).NewInitialState().(*State)
	want := "X - - - - - - X\n" + "- - - - - - - -\n" + "- - - - - - - -\n" + "- - - - - - - -\n" +
		"- - - - - - - -\n" + "- - - - - - - -\n" + "- - - - - - - -\n" + "X - - - - - - X\n" +
		"0 turns into the placing phase"
	if got := s.RefereeString(); got != want {
		t.Errorf("initial state\n%s\nwant\n%s", got, want)
	}
	if s.CurrentPlayer() != WhitePlayer || s.Phase() != Placing || s.Turn() != 0 || s.MoveNumber() != 0 {
		t.Errorf("initial: player %d phase %v turn %d moves %d", s.CurrentPlayer(), s.Phase(), s.Turn(), s.MoveNumber())
	}
	if n := len(s.LegalActions(nil)); n != 46 { // rows 0-5 minus the two top corners
		t.Errorf("%d legal places, want 46", n)
	}
	if s.At(0, 0) != Corner || s.At(3, 3) != Empty || s.At(-1, 0) != Removed || s.RefereeWinner() != "None" {
		t.Errorf("At or winner wrong")
	}
	if s.ToPlace(WhitePlayer) != 12 || s.ToPlace(BlackPlayer) != 12 {
		t.Errorf("to place %d %d", s.ToPlace(0), s.ToPlace(1))
	}
}

// TestCloneIndependent checks that a clone does not share state.
func TestCloneIndependent(t *testing.T) {
	s := New(Options{}).NewState()
	if err := s.ApplyAction(PlaceAction(3, 3)); err != nil {
		t.Fatal(err)
	}
	c := s.Clone().(*State)
	if err := c.ApplyAction(PlaceAction(4, 4)); err != nil {
		t.Fatal(err)
	}
	if s.At(4, 4) != Empty || c.At(4, 4) != Black || s.Hash() == c.Hash() || s.MoveNumber() != 1 {
		t.Errorf("clone shares state with its original")
	}
}

// TestHashDistinguishes checks that the hash covers the turn, the phase
// and the player to move, not only the pieces.
func TestHashDistinguishes(t *testing.T) {
	board := diag("X------X", emptyRow, "--O-O---", emptyRow, "---@-@--", emptyRow, emptyRow, "X------X")
	seen := map[uint64]string{}
	for _, c := range []struct {
		phase Phase
		turn  int
	}{{Placing, 4}, {Placing, 5}, {Placing, 6}, {Moving, 4}, {Moving, 5}, {Moving, 100}} {
		s := mustPosition(t, Options{}, board, c.phase, c.turn)
		if prev, dup := seen[s.Hash()]; dup {
			t.Errorf("%v turn %d has the same hash as %s", c.phase, c.turn, prev)
		}
		seen[s.Hash()] = c.phase.String()
	}
	a := mustPosition(t, Options{}, board, Moving, 10)
	b := mustPosition(t, Options{TurnLimit: 50}, board, Moving, 10)
	if a.Hash() == b.Hash() {
		t.Errorf("the turn limit is not in the hash")
	}
}

func TestNotationRoundTrip(t *testing.T) {
	for a := 0; a < NumActions; a++ {
		kind, _, _, tx, ty := DecodeAction(a)
		s := FormatAction(a)
		got, err := ParseNotation(s)
		if (kind == StepKind || kind == JumpKind) && !onBoard(tx, ty) {
			if err == nil {
				t.Errorf("off-board move %q parsed as %d", s, got)
			}
			if RefereeAction(a) != "" {
				t.Errorf("off-board move %d has referee form %q", a, RefereeAction(a))
			}
			continue
		}
		if err != nil || got != a {
			t.Errorf("ParseNotation(%q) = %d, %v; want %d", s, got, err, a)
		}
		if r, err := ParseRefereeAction([]byte(RefereeAction(a))); err != nil || r != a {
			t.Errorf("referee round trip of %d (%s): %d, %v", a, RefereeAction(a), r, err)
		}
	}
	for _, bad := range []string{"", "3", "3,", "a,b", "8,0", "3,4-3,7", "3,4-4,5", "3,4-3,4", "3,4-"} {
		if a, err := ParseNotation(bad); err == nil {
			t.Errorf("ParseNotation(%q) = %d, want an error", bad, a)
		}
	}
	if FormatAction(MoveAction(3, 4, Down, true)) != "3,4-3,6" || FormatAction(PassAction) != "pass" || FormatAction(PlaceAction(3, 4)) != "3,4" {
		t.Errorf("notation examples wrong")
	}
	if RefereeAction(MoveAction(3, 4, Down, false)) != "[[3, 4], [3, 5]]" || RefereeAction(PlaceAction(3, 4)) != "[3, 4]" || RefereeAction(PassAction) != "null" {
		t.Errorf("referee examples wrong")
	}
}

// TestObservation checks every plane on one position.
func TestObservation(t *testing.T) {
	s := mustPosition(t, Options{TurnLimit: 200}, diag(
		"........",
		".X----X.",
		".-O----.",
		".--@---.",
		".---O--.",
		".----@-.",
		".X----X.",
		"........"), Moving, 150)
	if s.CurrentPlayer() != WhitePlayer {
		t.Fatal("want White to move")
	}
	obs := make([]float32, New(Options{}).ObservationShape().Size())
	for i := range obs {
		obs[i] = 9 // must be overwritten
	}
	s.Observation(obs)
	plane := func(p int) []float32 { return obs[p*64 : (p+1)*64] }
	cell := func(p, x, y int) float32 { return plane(p)[y*8+x] }
	sum := func(p int) (t float32) {
		for _, v := range plane(p) {
			t += v
		}
		return t
	}
	checks := []struct {
		name      string
		got, want float32
	}{
		{"own (2,2)", cell(PlaneOwn, 2, 2), 1},
		{"own count", sum(PlaneOwn), 2},
		{"opp (3,3)", cell(PlaneOpp, 3, 3), 1},
		{"opp count", sum(PlaneOpp), 2},
		{"corner (6,1)", cell(PlaneCorners, 6, 1), 1},
		{"corner count", sum(PlaneCorners), 4},
		{"removed count", sum(PlaneRemoved), 28},
		{"removed (0,0)", cell(PlaneRemoved, 0, 0), 1},
		{"placeable", sum(PlanePlaceable), 0},
		{"placing", sum(PlanePlacing), 0},
		{"white", sum(PlaneMoverIsWhite), 64},
		{"shrink", cell(PlaneShrink, 5, 5), 42.0 / 128},
		{"own to place", sum(PlaneOwnToPlace), 0},
		{"opp to place", sum(PlaneOppToPlace), 0},
		{"progress", cell(PlaneProgress, 0, 7), 0.75},
		{"own threatened", sum(PlaneOwnThreatened), 0},
		{"opp threatened", sum(PlaneOppThreatened), 0},
		{"next shrink count", sum(PlaneNextShrink), 24},
		{"next shrink (1,1)", cell(PlaneNextShrink, 1, 1), 1},
		{"next shrink new corner (2,2)", cell(PlaneNextShrink, 2, 2), 1},
		{"next shrink (3,3)", cell(PlaneNextShrink, 3, 3), 0},
		{"shrink near", sum(PlaneShrinkNear), 0},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	// Black to move in the placing phase: own = Black, placeable = Black's
	// empty zone squares.
	p := mustPosition(t, Options{}, diag("X------X", emptyRow, "--O-----", emptyRow, emptyRow, emptyRow, emptyRow, "X------X"), Placing, 1)
	p.Observation(obs)
	if sum(PlaneOwn) != 0 || sum(PlaneOpp) != 1 || sum(PlanePlaceable) != 45 || sum(PlanePlacing) != 64 ||
		sum(PlaneMoverIsWhite) != 0 || cell(PlaneOwnToPlace, 0, 0) != 1 || cell(PlaneOppToPlace, 0, 0) != 11.0/12 ||
		cell(PlaneShrink, 0, 0) != 1 || sum(PlaneProgress) != 0 || sum(PlaneNextShrink) != 32 ||
		sum(PlaneOwnThreatened) != 0 || sum(PlaneOppThreatened) != 0 || sum(PlaneShrinkNear) != 0 {
		t.Errorf("placing observation wrong")
	}
	// Threats both ways, three turns before the first shrink, Black to
	// move: White's (3,5) stepping up to (3,4) sandwiches Black's (3,3)
	// against (3,2); Black's (4,4) stepping left to (3,4) sandwiches
	// White's (3,5) against (3,6).
	m := mustPosition(t, Options{}, diag(
		"X------X",
		emptyRow,
		"---O----",
		"---@----",
		"----@---",
		"---O----",
		"---@----",
		"X------X"), Moving, 125)
	if m.CurrentPlayer() != BlackPlayer {
		t.Fatal("want Black to move")
	}
	m.Observation(obs)
	wantOwn := m.ThreatenedBy(WhitePlayer)
	wantOpp := m.ThreatenedBy(BlackPlayer)
	for sq := range 64 {
		if got := plane(PlaneOwnThreatened)[sq]; got != float32(wantOwn>>sq&1) {
			t.Errorf("own threatened square %d: %v", sq, got)
		}
		if got := plane(PlaneOppThreatened)[sq]; got != float32(wantOpp>>sq&1) {
			t.Errorf("opp threatened square %d: %v", sq, got)
		}
	}
	if wantOwn != bit(3+8*3) || wantOpp != bit(3+8*5) {
		t.Errorf("position meant to have threats both ways: %#x %#x", wantOwn, wantOpp)
	}
	if got, want := cell(PlaneShrinkNear, 0, 0), float32(1-2.0/ShrinkNear); got != want {
		t.Errorf("shrink near %v, want %v", got, want)
	}
}

// TestMirrorSymmetry checks that the mirror maps cells and actions
// consistently (an involution that maps legal actions to legal actions and
// results to mirrored results away from the shrinks), while Symmetries
// excludes it.
func TestMirrorSymmetry(t *testing.T) {
	m := MirrorSymmetry()
	for a := 0; a < NumActions; a++ {
		if m.Actions[m.Actions[a]] != a {
			t.Fatalf("mirror is not an involution on action %d", a)
		}
	}
	mirror := func(s *State) *State {
		c := *s
		var w, b uint64
		for sq := 0; sq < 64; sq++ {
			if s.b.pieces[0]&bit(sq) != 0 {
				w |= bit(m.Cells[sq])
			}
			if s.b.pieces[1]&bit(sq) != 0 {
				b |= bit(m.Cells[sq])
			}
		}
		c.b.pieces = [2]uint64{w, b}
		c.b.hash = 0
		c.b.hash = c.recomputeHash() ^ c.metaKey()
		return &c
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for game := 0; game < 20; game++ {
		s := New(Options{}).NewState()
		// Play up to the first shrink, where the corner order breaks the
		// symmetry.
		for !s.IsTerminal() && (s.Phase() == Placing || s.Turn() < FirstShrink-1) {
			ms := mirror(s)
			legal := s.LegalActions(nil)
			var mapped []int
			for _, a := range legal {
				mapped = append(mapped, m.Actions[a])
			}
			slices.Sort(mapped)
			if got := ms.LegalActions(nil); !slices.Equal(got, mapped) {
				t.Fatalf("mirrored legal actions differ at move %d", s.MoveNumber())
			}
			a := legal[rng.IntN(len(legal))]
			if err := ms.ApplyAction(m.Actions[a]); err != nil {
				t.Fatal(err)
			}
			if err := s.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
			if mirror(s).String() != ms.String() {
				t.Fatalf("mirrored play diverged at move %d", s.MoveNumber())
			}
		}
	}
}

// TestGymEnv runs the gym wrapper through random games.
func TestGymEnv(t *testing.T) {
	e := env.NewEnv(New(Options{TurnLimit: DefaultTurnLimit}))
	rng := rand.New(rand.NewPCG(3, 4))
	for game := 0; game < 5; game++ {
		_, info := e.Reset(int64(game))
		for steps := 0; ; steps++ {
			var legal []int
			for a, ok := range info.LegalMask {
				if ok {
					legal = append(legal, a)
				}
			}
			if len(legal) != info.NumLegal || len(legal) == 0 {
				t.Fatalf("mask has %d actions, NumLegal %d", len(legal), info.NumLegal)
			}
			_, reward, done, next, err := e.Step(legal[rng.IntN(len(legal))])
			if err != nil {
				t.Fatal(err)
			}
			info = next
			if done {
				if reward != 1 && reward != -1 && reward != 0 {
					t.Fatalf("reward %v", reward)
				}
				if steps+1 > e.Game().MaxGameLength() {
					t.Fatalf("game of %d actions exceeds MaxGameLength", steps+1)
				}
				break
			}
		}
	}
}

func TestNewPositionErrors(t *testing.T) {
	empty := diag("X------X", emptyRow, emptyRow, emptyRow, emptyRow, emptyRow, emptyRow, "X------X")
	shrunk := diag("........", ".X----X.", ".------.", ".------.", ".------.", ".------.", ".X----X.", "........")
	cases := []struct {
		name    string
		board   string
		phase   Phase
		turn    int
		wantErr string
	}{
		{"placing turn too large", empty, Placing, 24, "placing turn 24"},
		{"negative moving turn", empty, Moving, -1, "negative moving turn"},
		{"unknown phase", empty, Phase(7), 0, "unknown phase"},
		{"seven lines", strings.Join(strings.Split(empty, "\n")[:7], "\n"), Moving, 0, "7 lines"},
		{"bad symbol", strings.Replace(empty, "-", "B", 1), Moving, 0, "unknown symbol 'B'"},
		{"no separator", strings.Replace(empty, "X -", "X--", 1), Moving, 0, "want a space"},
		{"line too long", strings.Replace(empty, "X - - - - - - X", "X - - - - - - X -", 1), Moving, 0, "bytes long"},
		{"shrunk board too early", shrunk, Moving, 127, "(0 shrinks)"},
		{"unshrunk board too late", empty, Moving, 128, "(1 shrinks)"},
		{"too many pieces while placing", diag("X------X", "OO------", emptyRow, emptyRow, emptyRow, emptyRow, emptyRow, "X------X"), Placing, 2, "White has 2 pieces"},
		{"too many pieces", diag("XOOOOOOX", "OOOOOOO-", emptyRow, emptyRow, emptyRow, emptyRow, emptyRow, "X------X"), Moving, 0, "White has 13 pieces"},
	}
	for _, c := range cases {
		if _, err := NewPosition(Options{}, c.board, c.phase, c.turn); err == nil || !strings.Contains(err.Error(), c.wantErr) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.wantErr)
		}
	}
	// A valid position round-trips through String, with trailing spaces of
	// removed squares optional.
	s := mustPosition(t, Options{}, strings.ReplaceAll(shrunk, "       \n", "\n"), Moving, 130)
	if s.String() != shrunk || s.Shrinks() != 1 || s.Board().Live != geo.ring[1]|geo.ring[2]|geo.ring[3] {
		t.Errorf("round trip failed:\n%s", s.String())
	}
}

func TestAccessors(t *testing.T) {
	s := mustPosition(t, Options{}, diag("X------X", emptyRow, "--O-----", "---@----", emptyRow, emptyRow, emptyRow, "X------X"), Placing, 3)
	b := s.Board()
	if b.White != bit(square(2, 2)) || b.Black != bit(square(3, 3)) || b.Corners != initialCorners || b.Live != allBits {
		t.Errorf("Board() = %+v", b)
	}
	if s.RefereeColour() != "B" || s.ActionString(PlaceAction(4, 4)) != "4,4" {
		t.Errorf("colour %s", s.RefereeColour())
	}
	if a, err := s.ParseAction("4,4"); err != nil || a != PlaceAction(4, 4) {
		t.Errorf("ParseAction: %d, %v", a, err)
	}
	if s.Placed(WhitePlayer) != 2 || s.Placed(BlackPlayer) != 1 || s.ToPlace(BlackPlayer) != 11 {
		t.Errorf("placed %d %d", s.Placed(0), s.Placed(1))
	}
	err := s.ApplyAction(PlaceAction(4, 0))
	var ae *ActionError
	if !errors.As(err, &ae) || ae.Reason.String() != "place_outside_zone" || ae.Error() == "" {
		t.Errorf("error %v", err)
	}
	if Reason(200).String() != "reason(200)" || Outcome(Draw).String() != "draw" || Placing.String() != "placing" {
		t.Errorf("String methods wrong")
	}
}

func TestRepetitionKey(t *testing.T) {
	gone := "        "
	shrunk := func(r2, r3, r4, r5 string) string { return diag(gone, gone, r2, r3, r4, r5, gone, gone) }
	full := shrunk("  XOOX  ", "  OOO@  ", "  OO@@  ", "  X@@X  ")
	other := shrunk("  XOOX  ", "  OO-@  ", "  OO@@  ", "  X@@X  ")
	once := diag(gone, " X----X ", " -O---- ", " ------ ", " ---@-- ", " ------ ", " X----X ", gone)
	key := func(opts Options, board string, phase Phase, turn int) (uint64, bool) {
		t.Helper()
		return mustPosition(t, opts, board, phase, turn).RepetitionKey()
	}
	for _, c := range []struct {
		name  string
		opts  Options
		board string
		phase Phase
		turn  int
	}{
		{"placing", Options{}, diag("X------X", emptyRow, emptyRow, emptyRow, emptyRow, emptyRow, emptyRow, "X------X"), Placing, 0},
		{"before the second shrink", Options{}, once, Moving, 150},
		{"with a turn limit", Options{TurnLimit: 1000}, full, Moving, 300},
		{"game over", Options{}, shrunk("  X--X  ", "  -O--  ", "  ----  ", "  X--X  "), Moving, 200},
	} {
		if k, ok := key(c.opts, c.board, c.phase, c.turn); ok {
			t.Errorf("%s: RepetitionKey = %#x, true; want ok false (the turn counter matters)", c.name, k)
		}
	}
	k200, ok := key(Options{}, full, Moving, 200)
	if !ok {
		t.Fatal("no key after the second shrink without a limit")
	}
	if k, ok := key(Options{}, full, Moving, 1000); !ok || k != k200 {
		t.Errorf("the same position 800 turns later: key %#x, %v; want %#x, true", k, ok, k200)
	}
	for _, c := range []struct {
		name  string
		board string
		turn  int
	}{{"the other player to move", full, 201}, {"other pieces", other, 200}} {
		if k, ok := key(Options{}, c.board, Moving, c.turn); !ok || k == k200 {
			t.Errorf("%s: key %#x, %v; want ok and a key other than %#x", c.name, k, ok, k200)
		}
	}

	// Play: on the full board both sides can only forfeit, and the
	// position recurs every two turns.
	s := mustPosition(t, Options{}, full, Moving, 200)
	for range 2 {
		if legal := s.LegalActions(nil); len(legal) != 1 {
			t.Fatalf("full board: %d legal actions, want 1 (forfeit)", len(legal))
		}
		if err := s.ApplyAction(s.LegalActions(nil)[0]); err != nil {
			t.Fatal(err)
		}
	}
	if k, ok := s.RepetitionKey(); !ok || k != k200 || s.Hash() == mustPosition(t, Options{}, full, Moving, 200).Hash() {
		t.Errorf("after two forfeits: key %#x, %v (want %#x, true), and the hash must still differ (the turn is in it)", k, ok, k200)
	}
}

// TestCellOwners plays random games to their end (under a turn limit, so
// through both shrinks) and checks the holders against At on every
// position: the player of a White or Black piece, -1 on empty, corner and
// removed squares.
func TestCellOwners(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 1))
	owners := make([]int8, 64)
	for range 4 {
		s := New(Options{TurnLimit: DefaultTurnLimit}).NewState()
		var st env.State = s
		if _, ok := st.(env.CellOwner); !ok {
			t.Fatal("State does not implement env.CellOwner")
		}
		for {
			for i := range owners {
				owners[i] = 7 // must be overwritten
			}
			s.CellOwners(owners)
			var count [2]int
			for y := range 8 {
				for x := range 8 {
					want := int8(-1)
					switch s.At(x, y) {
					case White:
						want = WhitePlayer
					case Black:
						want = BlackPlayer
					}
					if got := owners[y*8+x]; got != want {
						t.Fatalf("move %d, square (%d,%d) holds %v: owner %d, want %d\n%s", s.MoveNumber(), x, y, s.At(x, y), got, want, s)
					}
					if want >= 0 {
						count[want]++
					}
				}
			}
			if count[0] != s.Pieces(WhitePlayer) || count[1] != s.Pieces(BlackPlayer) {
				t.Fatalf("move %d: owners count %v pieces, Pieces says %d and %d", s.MoveNumber(), count, s.Pieces(0), s.Pieces(1))
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
