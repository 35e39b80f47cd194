package wyb

import (
	"strings"
	"testing"
)

// TestLocked: a position is locked only without a turn limit, after the
// second shrink, when neither side has a move; and it stays locked through
// any number of forfeits.
func TestLocked(t *testing.T) {
	gone := strings.Repeat(" ", 15)
	full := []string{gone, gone, "    X O O X", "    O O O @", "    O O @ @", "    X @ @ X", gone, gone}
	// One free square, which the pieces beside it can step into.
	open := []string{gone, gone, "    X O O X", "    O O O @", "    O O - @", "    X @ @ X", gone, gone}
	tests := []struct {
		name  string
		opts  Options
		rows  []string
		turn  int
		want  bool
		after int // forfeits played before asking again
	}{
		{"full 4x4 board, no limit", Options{}, full, SecondShrink + 10, true, 0},
		{"the same, the other side to move", Options{}, full, SecondShrink + 11, true, 0},
		{"the same after 1,001 forfeits", Options{}, full, SecondShrink + 10, true, 1001},
		{"a free square", Options{}, open, SecondShrink + 10, false, 0},
		{"full board under a turn limit", Options{TurnLimit: 256}, full, SecondShrink + 10, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewPosition(tt.opts, strings.Join(tt.rows, "\n"), Moving, tt.turn)
			if err != nil {
				t.Fatal(err)
			}
			for range tt.after {
				if err := s.ApplyAction(PassAction); err != nil {
					t.Fatalf("forfeit in a locked position: %v", err)
				}
			}
			if got := s.Locked(); got != tt.want {
				t.Fatalf("Locked() = %v, want %v\n%s", got, tt.want, s)
			}
		})
	}
}
