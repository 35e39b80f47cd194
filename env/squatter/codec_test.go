package squatter

import (
	"strings"
	"testing"
)

func TestCodecParseAction(t *testing.T) {
	g := mustGame(t, 6)
	start := g.NewState()
	second := playMoves(t, g, "r0c0")
	tests := []struct {
		name string
		s    *State
		text string
		want int
		err  string // a part of the error, "" for none
	}{
		{"white's first move", start, "1 2 3", 2*6 + 3, ""},
		{"blanks around", start, "  1  5 0 ", 5 * 6, ""},
		{"black's move", second, "2 0 1", 1, ""},
		{"black's piece on white's turn", start, "2 0 0", 0, "P is 2, but white (P = 1) is to move"},
		{"white's piece on black's turn", second, "1 0 1", 0, "P is 1, but black (P = 2) is to move"},
		{"unknown piece", start, "3 0 0", 0, "P is 3"},
		{"row off the board", start, "1 6 0", 0, "off the 6x6 board"},
		{"column off the board", start, "1 0 6", 0, "off the 6x6 board"},
		{"negative row", start, "1 -1 0", 0, "off the 6x6 board"},
		{"two numbers", start, "1 0", 0, "three integers"},
		{"four numbers", start, "1 0 0 0", 0, "three integers"},
		{"not a number", start, "1 a 0", 0, `Row "a" is not an integer`},
		{"empty", start, "", 0, "three integers"},
		{"occupied", playMoves(t, g, "r0c0 r5c5"), "1 5 5", 0, "cell (row 5, col 5) is occupied by a black piece"},
		{"captured", playMoves(t, g, "r1c2 r5c5 r2c1 r5c4 r2c3 r5c3 r3c2"), "2 2 2", 0, "cell (row 2, col 2) lies in white's captured territory"},
		{"a captured piece", playMoves(t, g, "r1c2 r2c2 r2c1 r5c5 r2c3 r5c4 r3c2"), "2 2 2", 0, "cell (row 2, col 2) is occupied by a black piece"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Codec{}.ParseAction(tc.s, tc.text)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("ParseAction(%q): %v", tc.text, err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("ParseAction(%q) = %d, %v; want an error containing %q", tc.text, got, err, tc.err)
			case tc.err == "" && got != tc.want:
				t.Fatalf("ParseAction(%q) = %d, want %d", tc.text, got, tc.want)
			}
		})
	}
}

func TestCodecFormatActionRoundTrip(t *testing.T) {
	for _, n := range []int{6, 7, 9} {
		g := mustGame(t, n)
		s := g.NewState()
		for i := 0; !s.IsTerminal(); i++ {
			legal := s.LegalActions(nil)
			a := legal[(i*7)%len(legal)]
			text, err := Codec{}.FormatAction(s, a)
			if err != nil {
				t.Fatal(err)
			}
			back, err := Codec{}.ParseAction(s, text)
			if err != nil || back != a {
				t.Fatalf("N=%d: FormatAction(%d) = %q, read back as %d, %v", n, a, text, back, err)
			}
			if err := s.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func TestCodecJudge(t *testing.T) {
	g := mustGame(t, 6)
	tests := []struct {
		name, moves, want string
	}{
		{"empty board", "", "0 ++++++/++++++/++++++/++++++/++++++/++++++"},
		{"white's piece first, black's second", "r0c0 r5c5", "0 W+++++/++++++/++++++/++++++/++++++/+++++B"},
		{"a captured empty cell", "r1c2 r5c5 r2c1 r5c4 r2c3 r5c3 r3c2", "0 ++++++/++W+++/+W-W++/++W+++/++++++/+++BBB"},
		{"a captured black piece", "r1c2 r2c2 r2c1 r5c5 r2c3 r5c4 r3c2", "0 ++++++/++W+++/+WbW++/++W+++/++++++/++++BB"},
		{"a captured white piece", "r5c5 r1c2 r2c2 r2c1 r5c4 r2c3 r5c3 r3c2", "0 ++++++/++B+++/+BwB++/++B+++/++++++/+++WWW"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Codec{}.Judge(playMoves(t, g, tc.moves))
			if err != nil || got != tc.want {
				t.Errorf("Judge = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// TestCodecJudgeWinner plays whole games and checks the reported winner
// against the scores, and that it is 0 until the last move.
func TestCodecJudgeWinner(t *testing.T) {
	seen := map[byte]bool{}
	for _, n := range []int{6, 7} {
		g := mustGame(t, n)
		for seed := range 40 {
			s := g.NewState()
			for i := 0; ; i++ {
				j, err := Codec{}.Judge(s)
				if err != nil {
					t.Fatal(err)
				}
				if !s.IsTerminal() {
					if j[0] != '0' {
						t.Fatalf("N=%d seed %d move %d: winner %q before the end", n, seed, i, j[:1])
					}
					legal := s.LegalActions(nil)
					if err := s.ApplyAction(legal[(i*31+seed*17)%len(legal)]); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want := byte('3')
				switch a, b := s.Score(0), s.Score(1); {
				case a > b:
					want = '1'
				case a < b:
					want = '2'
				}
				if j[0] != want {
					t.Fatalf("N=%d seed %d: winner %c, scores %d-%d", n, seed, j[0], s.Score(0), s.Score(1))
				}
				if strings.Contains(j, "+") {
					t.Fatalf("N=%d seed %d: a free cell in the final board %q", n, seed, j)
				}
				seen[want] = true
				break
			}
		}
	}
	if !seen['1'] || !seen['2'] {
		t.Errorf("the games' winners %v do not include both colours", seen)
	}
}
