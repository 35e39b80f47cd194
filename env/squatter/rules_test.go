package squatter

import (
	"fmt"
	"strings"
	"testing"
)

// mustGame returns the game on an n x n board.
func mustGame(t testing.TB, n int) *Game {
	t.Helper()
	g, err := New(n)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// parseMoves reads moves written in the specification's (row, column)
// notation as "r4c3" tokens separated by spaces and returns the actions.
func parseMoves(t testing.TB, n int, moves string) []int {
	t.Helper()
	var actions []int
	for _, tok := range strings.Fields(moves) {
		var r, c int
		if _, err := fmt.Sscanf(tok, "r%dc%d", &r, &c); err != nil {
			t.Fatalf("bad move token %q: %v", tok, err)
		}
		if r < 0 || c < 0 || r >= n || c >= n {
			t.Fatalf("move token %q off the %dx%d board", tok, n, n)
		}
		actions = append(actions, r*n+c)
	}
	return actions
}

// playMoves plays moves (see parseMoves) from the initial state.
func playMoves(t testing.TB, g *Game, moves string) *State {
	t.Helper()
	s, err := g.FromActions(parseMoves(t, g.N(), moves)...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkBoard compares s with a picture drawn like the specification's
// figures, one string per row (top first) and one token per cell: the first
// character is the piece ("B", "W"), "-" for an empty captured cell or "."
// for a free cell; an optional second character gives the territory owner
// ("b" or "w"). black is the player who plays Black in the picture.
func checkBoard(t *testing.T, s *State, black int, rows []string) {
	t.Helper()
	n := s.N()
	if len(rows) != n {
		t.Fatalf("picture has %d rows, board %d", len(rows), n)
	}
	colour := map[byte]int{'B': black, 'W': 1 - black, 'b': black, 'w': 1 - black}
	bad := 0
	for y, row := range rows {
		toks := strings.Fields(row)
		if len(toks) != n {
			t.Fatalf("picture row %d has %d cells, want %d", y, len(toks), n)
		}
		for x, tok := range toks {
			want := CellState{Piece: -1, Owner: -1}
			switch tok[0] {
			case 'B', 'W':
				want.Piece = colour[tok[0]]
			case '-', '.':
			default:
				t.Fatalf("picture row %d cell %d: bad token %q", y, x, tok)
			}
			if len(tok) == 2 {
				want.Owner = colour[tok[1]]
			}
			if got := s.Cell(x, y); got != want {
				t.Errorf("row %d col %d (%s): got piece %d owner %d, want piece %d owner %d",
					y, x, tok, got.Piece, got.Owner, want.Piece, want.Owner)
				bad++
			}
		}
	}
	if bad > 0 {
		t.Logf("board (B = player 0):\n%s", s)
	}
}

// The moves of the specification's figures. The figures are separate
// illustrations rather than one game, so each has its own move order; in
// each, a piece that ends up inside a loop is placed before the loop closes.
const (
	// figure1Moves reaches the first figure, Black first (9 Black, 8 White);
	// Black's last move closes the loop around X and a White piece.
	figure1Moves = "r1c3 r4c2 r3c0 r0c3 r3c1 r1c2 r3c2 r2c0 r4c0 r2c1 r5c0 r2c2 r5c1 r3c3 r5c2 r5c3 r4c3"
	// figure2Moves reaches the second figure (and the rules section's
	// identical one), Black first (15 and 15). Black's first loop closes on
	// r5c2, White's on r2c1 and Black's second on r5c4.
	figure2Moves = "r4c3 r4c2 r2c3 r3c3 r1c3 r2c4 r1c4 r4c4 r3c0 r0c1 r3c1 r0c2 r3c2 r0c3 r4c0 r0c4 " +
		"r5c0 r1c0 r5c1 r1c2 r5c2 r2c0 r2c5 r2c1 r3c5 r5c3 r4c5 r5c5 r5c4 r2c2"
	// figure4Moves reaches the last figure, Black first (16 and 16): White
	// fills its own enclosure at r1c1, and Black's r5c3 turns its shared
	// piece r4c3 into the inside of one big region.
	figure4Moves = "r4c3 r4c2 r2c3 r3c3 r1c3 r2c4 r1c4 r4c4 r3c0 r0c1 r3c1 r0c2 r3c2 r0c3 r4c0 r0c4 " +
		"r5c0 r1c0 r5c1 r1c1 r5c2 r1c2 r2c5 r2c1 r3c5 r2c0 r4c5 r0c0 r5c4 r2c2 r5c3 r5c5"
	// figure4EarlyMoves reaches the same figure with Black's r5c3 played
	// first: the result does not depend on the order.
	figure4EarlyMoves = "r5c3 r4c2 r4c3 r3c3 r2c3 r2c4 r1c3 r4c4 r1c4 r0c1 r3c0 r0c2 r3c1 r0c3 r3c2 r0c4 " +
		"r4c0 r1c0 r5c0 r1c1 r5c1 r1c2 r5c2 r2c1 r2c5 r2c0 r3c5 r0c0 r4c5 r2c2 r5c4 r5c5"
)

// TestSpecificationFigures encodes every board of the specification with
// its counts.
func TestSpecificationFigures(t *testing.T) {
	tests := []struct {
		name  string
		moves string
		// black is the player playing Black: 0 when Black moved first.
		black int
		rows  []string
		// score and territory are (Black, White).
		score, territory [2]int
		terminal         bool
	}{
		{
			name:  "figure 1: Black loop captures X and a White piece",
			moves: figure1Moves, black: 0,
			rows: []string{
				".  .  .  W  .  .",
				".  .  W  B  .  .",
				"W  W  W  .  .  .",
				"B  B  B  W  .  .",
				"B  -b Wb B  .  .",
				"B  B  B  W  .  .",
			},
			score: [2]int{2, 0}, territory: [2]int{2, 0},
		},
		{
			name:  "figure 1, White plays Y: the dead White piece forms no loop",
			moves: figure1Moves + " r4c4", black: 0,
			rows: []string{
				".  .  .  W  .  .",
				".  .  W  B  .  .",
				"W  W  W  .  .  .",
				"B  B  B  W  .  .",
				"B  -b Wb B  W  .",
				"B  B  B  W  .  .",
			},
			score: [2]int{2, 0}, territory: [2]int{2, 0},
		},
		{
			name:  "figure 2: Black 2 + 4 = 6, White 1",
			moves: figure2Moves, black: 0,
			rows: []string{
				".  W  W  W  W  .",
				"W  -w W  B  B  .",
				"W  W  W  B  Wb B",
				"B  B  B  Wb -b B",
				"B  -b Wb B  Wb B",
				"B  B  B  W  B  W",
			},
			score: [2]int{6, 1}, territory: [2]int{6, 1},
		},
		{
			name: "figure 3: final board, no new loops, Black wins 6 to 1",
			// 16 Black and 17 White pieces: White moved first here.
			moves: "r0c5 " + figure2Moves + " r0c0 r1c5", black: 1,
			rows: []string{
				"B  W  W  W  W  W",
				"W  -w W  B  B  W",
				"W  W  W  B  Wb B",
				"B  B  B  Wb -b B",
				"B  -b Wb B  Wb B",
				"B  B  B  W  B  W",
			},
			score: [2]int{6, 1}, territory: [2]int{6, 1}, terminal: true,
		},
		{
			name:  "figure 4: one region of 7 holding a Black piece, 6 count; White 0",
			moves: figure4Moves, black: 0,
			rows: []string{
				"W  W  W  W  W  .",
				"W  W  W  B  B  .",
				"W  W  W  B  Wb B",
				"B  B  B  Wb -b B",
				"B  -b Wb Bb Wb B",
				"B  B  B  B  B  W",
			},
			score: [2]int{6, 0}, territory: [2]int{7, 0},
		},
		{
			name:  "figure 4 with r5c3 played first",
			moves: figure4EarlyMoves, black: 0,
			rows: []string{
				"W  W  W  W  W  .",
				"W  W  W  B  B  .",
				"W  W  W  B  Wb B",
				"B  B  B  Wb -b B",
				"B  -b Wb Bb Wb B",
				"B  B  B  B  B  W",
			},
			score: [2]int{6, 0}, territory: [2]int{7, 0},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := playMoves(t, mustGame(t, 6), tc.moves)
			checkBoard(t, s, tc.black, tc.rows)
			b, w := tc.black, 1-tc.black
			if got := [2]int{s.Score(b), s.Score(w)}; got != tc.score {
				t.Errorf("scores (Black, White) = %v, want %v", got, tc.score)
			}
			if got := [2]int{s.Territory(b), s.Territory(w)}; got != tc.territory {
				t.Errorf("territories (Black, White) = %v, want %v", got, tc.territory)
			}
			if s.IsTerminal() != tc.terminal {
				t.Errorf("IsTerminal = %v, want %v", s.IsTerminal(), tc.terminal)
			}
			if tc.terminal {
				var want [2]float32
				want[b], want[w] = 1, -1
				if got := s.Returns(); got != want {
					t.Errorf("Returns = %v, want %v (Black is player %d)", got, want, b)
				}
			}
		})
	}
}

// TestRules covers the rule decisions of rules.go one by one. Black moves
// first in every case.
func TestRules(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		moves string
		rows  []string
		// score is (Black, White); lastGain the territory the last move
		// added to its player.
		score    [2]int
		lastGain int
		terminal bool
	}{
		{
			name: "diagonal links close a loop: a diamond captures its centre",
			n:    6, moves: "r1c2 r5c5 r2c1 r5c4 r2c3 r5c3 r3c2",
			rows: []string{
				".  .  .  .  .  .",
				".  .  B  .  .  .",
				".  B  -b B  .  .",
				".  .  B  .  .  .",
				".  .  .  .  .  .",
				".  .  .  W  W  W",
			},
			score: [2]int{1, 0}, lastGain: 1,
		},
		{
			name: "an orthogonal gap leaves the loop open",
			n:    6, moves: "r1c2 r5c5 r2c1 r5c4 r3c2 r5c3 r3c3",
			rows: []string{
				".  .  .  .  .  .",
				".  .  B  .  .  .",
				".  B  .  .  .  .",
				".  .  B  B  .  .",
				".  .  .  .  .  .",
				".  .  .  W  W  W",
			},
		},
		{
			name: "the board edge is not part of a loop",
			n:    6, moves: "r0c1 r5c5 r1c1 r5c4 r1c0 r5c3 r2c2 r4c5 r1c2 r3c5 r0c3",
			rows: []string{
				".  B  .  B  .  .",
				"B  B  B  .  .  .",
				".  .  B  .  .  .",
				".  .  .  .  .  W",
				".  .  .  .  .  W",
				".  .  .  W  W  W",
			},
		},
		{
			name: "a solid block encloses only its own pieces: no territory",
			n:    6,
			moves: "r1c1 r5c0 r1c2 r5c1 r1c3 r5c2 r2c1 r5c3 r2c2 r5c4 r2c3 r5c5 " +
				"r3c1 r4c0 r3c2 r4c5 r3c3",
			rows: []string{
				".  .  .  .  .  .",
				".  B  B  B  .  .",
				".  B  B  B  .  .",
				".  B  B  B  .  .",
				"W  .  .  .  .  W",
				"W  W  W  W  W  W",
			},
		},
		{
			name: "a live diamond captures the enemy piece inside",
			n:    6, moves: "r2c2 r1c2 r5c5 r2c1 r5c4 r2c3 r5c3 r3c2",
			rows: []string{
				".  .  .  .  .  .",
				".  .  W  .  .  .",
				".  W  Bw W  .  .",
				".  .  W  .  .  .",
				".  .  .  .  .  .",
				".  .  .  B  B  B",
			},
			score: [2]int{0, 1}, lastGain: 1,
		},
		{
			name: "one move closes two loops",
			n:    6, moves: "r1c1 r5c0 r2c0 r5c1 r3c1 r5c2 r1c3 r5c3 r3c3 r5c4 r2c4 r5c5 r2c2",
			rows: []string{
				".  .  .  .  .  .",
				".  B  .  B  .  .",
				"B  -b B  -b B  .",
				".  B  .  B  .  .",
				".  .  .  .  .  .",
				"W  W  W  W  W  W",
			},
			score: [2]int{2, 0}, lastGain: 2,
		},
		{
			name: "territory changes hands; own pieces in own territory do not count",
			n:    7,
			// Black's diamond takes White's r3c3, then White's larger
			// diamond encloses Black's loop and territory.
			moves: "r2c3 r3c3 r3c2 r1c3 r3c4 r2c2 r4c3 r3c1 r6c0 r4c2 r6c1 r5c3 r6c2 r4c4 " +
				"r6c3 r3c5 r6c4 r2c4",
			rows: []string{
				".  .  .  .  .  .  .",
				".  .  .  W  .  .  .",
				".  .  W  Bw W  .  .",
				".  W  Bw Ww Bw W  .",
				".  .  W  Bw W  .  .",
				".  .  .  W  .  .  .",
				"B  B  B  B  B  .  .",
			},
			score: [2]int{0, 4}, lastGain: 5,
		},
		{
			name: "a larger loop merges old territory, own pieces and new cells into one region",
			n:    8,
			// Black's diamond around r3c3, then a 5x5 ring around it. The
			// pockets between the ring and the diamond close one by one,
			// each merging with the old territory through the diamond
			// pieces it leaves inside; the last move (r2c1) encloses r2c2
			// and with it the diamond pieces r2c3 and r3c2.
			moves: "r2c3 r7c0 r3c2 r7c1 r3c4 r7c2 r4c3 r7c3 r1c1 r7c4 r1c2 r7c5 r1c3 r7c6 r1c4 r7c7 " +
				"r1c5 r6c7 r2c5 r5c7 r3c5 r4c7 r4c5 r3c7 r5c5 r2c7 r5c4 r1c7 r5c3 r0c7 r5c2 r0c6 " +
				"r5c1 r0c5 r4c1 r0c4 r3c1 r0c3 r2c1",
			rows: []string{
				".  .  .  W  W  W  W  W",
				".  B  B  B  B  B  .  W",
				".  B  -b Bb -b B  .  W",
				".  B  Bb -b Bb B  .  W",
				".  B  -b Bb -b B  .  W",
				".  B  B  B  B  B  .  W",
				".  .  .  .  .  .  .  W",
				"W  W  W  W  W  W  W  W",
			},
			score: [2]int{5, 0}, lastGain: 3,
		},
		{
			name: "stripes fill the board without a loop: a 0-0 draw",
			n:    6,
			moves: "r0c0 r0c1 r0c2 r0c3 r0c4 r0c5 r1c0 r1c1 r1c2 r1c3 r1c4 r1c5 " +
				"r2c0 r2c1 r2c2 r2c3 r2c4 r2c5 r3c0 r3c1 r3c2 r3c3 r3c4 r3c5 " +
				"r4c0 r4c1 r4c2 r4c3 r4c4 r4c5 r5c0 r5c1 r5c2 r5c3 r5c4 r5c5",
			rows: []string{
				"B  W  B  W  B  W",
				"B  W  B  W  B  W",
				"B  W  B  W  B  W",
				"B  W  B  W  B  W",
				"B  W  B  W  B  W",
				"B  W  B  W  B  W",
			},
			terminal: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGame(t, tc.n)
			actions := parseMoves(t, tc.n, tc.moves)
			before, err := g.FromActions(actions[:len(actions)-1]...)
			if err != nil {
				t.Fatal(err)
			}
			mover := before.CurrentPlayer()
			s := before.Copy()
			if err := s.ApplyAction(actions[len(actions)-1]); err != nil {
				t.Fatal(err)
			}
			checkBoard(t, s, 0, tc.rows)
			if got := [2]int{s.Score(0), s.Score(1)}; got != tc.score {
				t.Errorf("scores = %v, want %v", got, tc.score)
			}
			if got := s.Territory(mover) - before.Territory(mover); got != tc.lastGain {
				t.Errorf("last move gained %d cells of territory, want %d", got, tc.lastGain)
			}
			if s.IsTerminal() != tc.terminal {
				t.Errorf("IsTerminal = %v, want %v", s.IsTerminal(), tc.terminal)
			}
			if tc.terminal {
				var want [2]float32
				switch {
				case tc.score[0] > tc.score[1]:
					want = [2]float32{1, -1}
				case tc.score[0] < tc.score[1]:
					want = [2]float32{-1, 1}
				}
				if got := s.Returns(); got != want {
					t.Errorf("Returns = %v, want %v", got, want)
				}
			}
		})
	}
}

// TestTranspositionsHashEqual checks that two move orders reaching the same
// position (the specification's last figure) give equal hashes, and that a
// different position does not.
func TestTranspositionsHashEqual(t *testing.T) {
	g := mustGame(t, 6)
	a := playMoves(t, g, figure4Moves)
	b := playMoves(t, g, figure4EarlyMoves)
	if a.Hash() != b.Hash() || a.String() != b.String() {
		t.Errorf("same position, different hashes %x and %x", a.Hash(), b.Hash())
	}
	c := playMoves(t, g, figure2Moves)
	if c.Hash() == a.Hash() {
		t.Error("different positions share a hash")
	}
}
