package wyb

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
)

// randomEndgame draws a position after the second shrink without a turn
// limit, with nw White and nb Black pieces on random playable squares,
// built from its diagram (NewPosition) rather than the table's indexing.
func randomEndgame(t *testing.T, rng *rand.Rand, nw, nb, mover int) *State {
	t.Helper()
	var squares [][2]int
	for y := 2; y <= 5; y++ {
		for x := 2; x <= 5; x++ {
			if (x == 2 || x == 5) && (y == 2 || y == 5) {
				continue
			}
			squares = append(squares, [2]int{x, y})
		}
	}
	rng.Shuffle(len(squares), func(i, j int) { squares[i], squares[j] = squares[j], squares[i] })
	var rows [Size][2*Size - 1]byte
	for y := range rows {
		for x := range rows[y] {
			rows[y][x] = ' '
		}
	}
	for y := 2; y <= 5; y++ {
		for x := 2; x <= 5; x++ {
			rows[y][2*x] = '-'
		}
	}
	for _, c := range [][2]int{{2, 2}, {5, 2}, {2, 5}, {5, 5}} {
		rows[c[1]][2*c[0]] = 'X'
	}
	for i, sq := range squares[:nw+nb] {
		sym := byte('O')
		if i >= nw {
			sym = '@'
		}
		rows[sq[1]][2*sq[0]] = sym
	}
	var lines []string
	for _, r := range rows {
		lines = append(lines, string(r[:]))
	}
	s, err := NewPosition(Options{}, strings.Join(lines, "\n"), Moving, SecondShrink+10+mover)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// outcomeFor is the table's view of a finished game: +1, 0 or -1 for
// player p.
func outcomeFor(s *State, p int) float32 { return s.Returns()[p] }

// TestEndgameBellman checks sampled entries against their moves: a win in
// d has a move to a loss in d-1 (or a move that wins, d = 1) and none
// faster; a loss in d has every move lead to a win for the opponent, the
// slowest in d-1; a draw has no winning move and a move that does not
// lose.
func TestEndgameBellman(t *testing.T) {
	e := NewEndgame()
	rng := rand.New(rand.NewPCG(1, 2))
	var seen [3]int
	for range 4000 {
		nw := 2 + rng.IntN(5)
		nb := 2 + rng.IntN(min(5, 12-nw-1))
		s := randomEndgame(t, rng, nw, nb, rng.IntN(2))
		if s.IsTerminal() {
			continue
		}
		v, d, ok := e.Probe(s)
		if !ok {
			t.Fatalf("position not in the table:\n%s", s)
		}
		seen[int(v)+1]++
		p := s.CurrentPlayer()
		fastestWin, slowestLoss, allLose, anyDraw := -1, -1, true, false
		for _, a := range s.LegalActions(nil) {
			c := s.Clone().(*State)
			if err := c.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
			cv, cd := float32(0), 0
			if c.IsTerminal() {
				cv = outcomeFor(c, p)
			} else {
				ov, od, ok := e.Probe(c)
				if !ok {
					t.Fatalf("successor not in the table:\n%s", c)
				}
				cv, cd = -ov, od
			}
			switch cv {
			case 1:
				allLose = false
				if fastestWin < 0 || cd+1 < fastestWin {
					fastestWin = cd + 1
				}
			case -1:
				slowestLoss = max(slowestLoss, cd+1)
			default:
				allLose, anyDraw = false, true
			}
		}
		switch {
		case fastestWin > 0:
			if v != 1 || d != fastestWin {
				t.Fatalf("table %v in %d; a move wins in %d:\n%s", v, d, fastestWin, s)
			}
		case allLose:
			if v != -1 || d != slowestLoss {
				t.Fatalf("table %v in %d; every move loses, the slowest in %d:\n%s", v, d, slowestLoss, s)
			}
		case anyDraw:
			if v != 0 || d != 0 {
				t.Fatalf("table %v in %d; want a draw:\n%s", v, d, s)
			}
		}
	}
	if seen[0] == 0 || seen[1] == 0 || seen[2] == 0 {
		t.Fatalf("losses, draws, wins sampled: %v; want each", seen)
	}
}

// solveTo is a plain minimax of s to depth plies: +1 if the player to move
// can force a win within depth actions, -1 if the opponent can, else 0.
func solveTo(s *State, depth int) int {
	if s.IsTerminal() {
		return 0 // handled by the caller
	}
	if depth == 0 {
		return 0
	}
	p := s.CurrentPlayer()
	best := -2
	for _, a := range s.LegalActions(nil) {
		c := s.Clone().(*State)
		_ = c.ApplyAction(a)
		var v int
		if c.IsTerminal() {
			v = int(outcomeFor(c, p))
		} else {
			v = -solveTo(c, depth-1)
		}
		best = max(best, v)
		if best == 1 {
			break
		}
	}
	return best
}

// TestEndgameMinimax compares the table with a plain minimax search on
// positions of few pieces: a result within 5 actions is found at exactly
// its depth, and no result is forced within 5 actions otherwise.
func TestEndgameMinimax(t *testing.T) {
	e := NewEndgame()
	rng := rand.New(rand.NewPCG(3, 4))
	const horizon = 5
	var decided int
	for range 300 {
		s := randomEndgame(t, rng, 2+rng.IntN(2), 2+rng.IntN(2), rng.IntN(2))
		if s.IsTerminal() {
			continue
		}
		v, d, _ := e.Probe(s)
		if v != 0 && d <= horizon {
			decided++
			if got := solveTo(s, d); got != int(v) {
				t.Fatalf("table %v in %d; minimax to depth %d: %d\n%s", v, d, d, got, s)
			}
			if d > 1 {
				if got := solveTo(s, d-1); got != 0 {
					t.Fatalf("table %v in %d; minimax to depth %d already: %d\n%s", v, d, d-1, got, s)
				}
			}
			continue
		}
		if got := solveTo(s, horizon); got != 0 {
			t.Fatalf("table %v in %d; minimax to depth %d: %d\n%s", v, d, horizon, got, s)
		}
	}
	if decided == 0 {
		t.Fatal("no position decided within the horizon sampled")
	}
}

// TestEndgameProbeScope checks which positions are in the table.
func TestEndgameProbeScope(t *testing.T) {
	e := New(Options{}).Tablebase()
	rng := rand.New(rand.NewPCG(5, 6))
	in := randomEndgame(t, rng, 3, 3, 0)
	limited := *in
	limited.turnLimit = DefaultTurnLimit
	over := randomEndgame(t, rng, 1, 3, 0)
	for _, c := range []struct {
		name string
		s    env.State
		want bool
	}{
		{"after the second shrink, no limit", in, true},
		{"with a turn limit", &limited, false},
		{"before any shrink", New(Options{}).NewInitialState(), false},
		{"game over", over, false},
	} {
		if _, _, ok := e.Probe(c.s); ok != c.want {
			t.Errorf("%s: in the table %v, want %v", c.name, ok, c.want)
		}
	}
}

// BenchmarkEndgameBuild measures solving the whole table.
func BenchmarkEndgameBuild(b *testing.B) {
	for b.Loop() {
		NewEndgame().build()
	}
}

func TestTableDistance(t *testing.T) {
	empty := "X - - - - - - X\n- - - - - - - -\n- - - - - - - -\n- O - - - - @ -\n- O - - - - @ -\n- - - - - - - -\n- - - - - - - -\nX - - - - - - X"
	pos := func(opts Options, phase Phase, turn int) *State {
		t.Helper()
		d := empty
		if phase == Placing {
			d = strings.ReplaceAll(strings.ReplaceAll(empty, "O", "-"), "@", "-")
		}
		s, err := NewPosition(opts, d, phase, turn)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, tc := range []struct {
		name string
		s    *State
		want int
		ok   bool
	}{
		{"placing", pos(Options{}, Placing, 0), 0, false},
		{"moving turn 100", pos(Options{}, Moving, 100), SecondShrink - 100, true},
		{"turn limit", pos(Options{TurnLimit: DefaultTurnLimit}, Moving, 100), 0, false},
	} {
		if n, ok := tc.s.TableDistance(); n != tc.want || ok != tc.ok {
			t.Errorf("%s: TableDistance = %d, %v; want %d, %v", tc.name, n, ok, tc.want, tc.ok)
		}
	}
}

func TestTimeWeight(t *testing.T) {
	empty := "X - - - - - - X\n- - - - - - - -\n- - - - - - - -\n- O - - - - @ -\n- O - - - - @ -\n- - - - - - - -\n- - - - - - - -\nX - - - - - - X"
	placing, err := NewPosition(Options{}, strings.ReplaceAll(strings.ReplaceAll(empty, "O", "-"), "@", "-"), Placing, 0)
	if err != nil {
		t.Fatal(err)
	}
	if w := placing.TimeWeight(); w != EarlyWeight {
		t.Errorf("placing: TimeWeight = %v, want %v", w, EarlyWeight)
	}
	for _, tc := range []struct {
		turn int
		want float64
	}{
		{0, EarlyWeight}, {EarlyTurns - 1, EarlyWeight}, {EarlyTurns, 1},
		{FirstShrink - ShrinkWindow/2 - 1, 1}, {FirstShrink - ShrinkWindow/2, FirstShrinkWeight},
		{FirstShrink - 1, FirstShrinkWeight}, {FirstShrink, 1}, {SecondShrink - ShrinkWindow - 1, 1},
		{SecondShrink - ShrinkWindow, SecondShrinkWeight}, {SecondShrink - 1, SecondShrinkWeight},
	} {
		board := empty
		if tc.turn >= FirstShrink {
			gone := strings.Repeat(" ", 15)
			board = strings.Join([]string{gone, "  X - - - - X", "  - - - - - -", "  O - - - @ -", "  O - - - @ -", "  - - - - - -", "  X - - - - X", gone}, "\n")
		}
		s, err := NewPosition(Options{}, board, Moving, tc.turn)
		if err != nil {
			t.Fatal(err)
		}
		if w := s.TimeWeight(); w != tc.want {
			t.Errorf("moving turn %d: TimeWeight = %v, want %v", tc.turn, w, tc.want)
		}
	}
}

// TestTimeWeightToGo: the weights of the mover's turns up to the second
// shrink (without a turn limit) or the limit, this one's included.
func TestTimeWeightToGo(t *testing.T) {
	// 12 placing turns and 96 moving turns up to the shrink: the placing
	// turns and the first EarlyTurns/2 moving turns weigh EarlyWeight, 4
	// FirstShrinkWeight, 8 SecondShrinkWeight.
	whole := (12+EarlyTurns/2)*EarlyWeight + float64(96-EarlyTurns/2-12) + 4*FirstShrinkWeight + 8*SecondShrinkWeight
	row := "- - - - - - - -\n"
	empty := "X - - - - - - X\n" + strings.Repeat(row, 6) + "X - - - - - - X"
	oneWhite := "X O - - - - - X\n" + strings.Repeat(row, 6) + "X - - - - - - X"
	gone := strings.Repeat(" ", 15)
	shrunk := strings.Join([]string{gone, "  X - - - - X", "  - - - - - -", "  O - - - @ -", "  O - - - @ -", "  - - - - - -", "  X - - - - X", gone}, "\n")
	for _, tc := range []struct {
		name  string
		board string
		phase Phase
		turn  int
		limit int
		want  float64
	}{
		{"placing, White", empty, Placing, 0, 0, whole},
		{"placing, Black", oneWhite, Placing, 1, 0, whole},
		{"moving turn 175", shrunk, Moving, 175, 0, 1 + 8*SecondShrinkWeight},
		{"moving turn 176", shrunk, Moving, 176, 0, 8 * SecondShrinkWeight},
		{"moving turn 191", shrunk, Moving, 191, 0, SecondShrinkWeight},
		{"turn limit 256, turn 191", shrunk, Moving, 191, 256, SecondShrinkWeight + 32},
	} {
		s, err := NewPosition(Options{TurnLimit: tc.limit}, tc.board, tc.phase, tc.turn)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := s.TimeWeightToGo(); got != tc.want {
			t.Errorf("%s: TimeWeightToGo = %v, want %v", tc.name, got, tc.want)
		}
	}
	// From the second shrink on the table plays.
	s, err := NewPosition(Options{}, strings.Join([]string{gone, gone, "    X - - X    ", "    O - @ -    ", "    O - @ -    ", "    X - - X    ", gone, gone}, "\n"), Moving, SecondShrink)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.TimeWeightToGo(); got != 0 {
		t.Errorf("at the second shrink: TimeWeightToGo = %v, want 0", got)
	}
}
