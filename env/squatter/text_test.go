package squatter

import (
	"strings"
	"testing"
)

// The status lines give the move, the free cells and each side's score
// and territory, so a person sees the count the game is decided by.
func TestStatus(t *testing.T) {
	name := func(p int) string { return []string{"Black", "White"}[p] }
	tests := []struct {
		name  string
		n     int
		moves string
		want  string
	}{
		{"initial 6x6", 6, "", "Move 1; 36 of 36 cells free.\n  Black: score 0 (territory 0 cells)\n  White: score 0 (territory 0 cells)\n"},
		{"initial 7x7", 7, "", "Move 1; 49 of 49 cells free.\n  Black: score 0 (territory 0 cells)\n  White: score 0 (territory 0 cells)\n"},
		// The diamond of TestRules: Black encloses one empty cell.
		{"a captured cell", 6, "r1c2 r5c5 r2c1 r5c4 r2c3 r5c3 r3c2",
			"Move 8; 28 of 36 cells free.\n  Black: score 1 (territory 1 cells)\n  White: score 0 (territory 0 cells)\n"},
		// Black's diamond around a White piece: the piece counts for Black.
		{"a captured piece", 6, "r2c2 r1c2 r5c5 r2c1 r5c4 r2c3 r5c3 r3c2",
			"Move 9; 28 of 36 cells free.\n  Black: score 0 (territory 0 cells)\n  White: score 1 (territory 1 cells)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := mustGame(t, tc.n)
			s := playMoves(t, g, tc.moves)
			if got := g.Status(s, name); got != tc.want {
				t.Errorf("status:\n%s\nwant:\n%s", got, tc.want)
			}
			if !strings.HasSuffix(g.Status(s, name), "\n") {
				t.Error("the status does not end with a newline")
			}
		})
	}
}
