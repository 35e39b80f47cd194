package wyb

import (
	"strings"
	"testing"
)

func TestGrid(t *testing.T) {
	g := New(Options{})
	s := g.NewState()
	if c := g.GridCell(s, 7, 0); !c.Corner || c.Piece != -1 {
		t.Errorf("(7, 0) = %+v, want a corner", c)
	}
	if c := g.GridCell(s, 3, 4); c.Corner || c.Removed || c.Piece != -1 {
		t.Errorf("(3, 4) = %+v, want empty", c)
	}
	if err := s.ApplyAction(PlaceAction(3, 4)); err != nil {
		t.Fatal(err)
	}
	if c := g.GridCell(s, 3, 4); c.Piece != WhitePlayer {
		t.Errorf("(3, 4) after White placed there = %+v", c)
	}
	tests := []struct {
		a        int
		from, to int
	}{
		{PlaceAction(2, 5), 5*8 + 2, 5*8 + 2},
		{MoveAction(3, 4, 1, false), 4*8 + 3, 5*8 + 3},
		{MoveAction(3, 4, 3, true), 4*8 + 3, 4*8 + 5},
		{MoveAction(0, 4, 2, false), -1, -1}, // off the board
		{PassAction, -1, -1},
	}
	for _, tc := range tests {
		if from, to := g.ActionCells(s, tc.a); from != tc.from || to != tc.to {
			t.Errorf("ActionCells(%s) = %d, %d, want %d, %d", FormatAction(tc.a), from, to, tc.from, tc.to)
		}
	}
	// After the first shrink the outer ring is removed and new corners
	// stand inside it.
	diagram := strings.Join([]string{
		"               ",
		"  X - - - - X  ",
		"  - O - - - -  ",
		"  - - - - - -  ",
		"  - - - - @ -  ",
		"  - - - - - -  ",
		"  X - - - - X  ",
		"               ",
	}, "\n")
	st, err := NewPosition(Options{}, diagram, Moving, 130)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		x, y            int
		piece           int
		corner, removed bool
	}{{0, 0, -1, false, true}, {7, 3, -1, false, true}, {1, 1, -1, true, false}, {2, 2, WhitePlayer, false, false}, {5, 4, BlackPlayer, false, false}} {
		c := g.GridCell(st, tc.x, tc.y)
		if c.Piece != tc.piece || c.Corner != tc.corner || c.Removed != tc.removed || c.Owner != -1 {
			t.Errorf("after a shrink, (%d, %d) = %+v", tc.x, tc.y, c)
		}
	}
}
