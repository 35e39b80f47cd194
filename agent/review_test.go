package agent

import (
	"context"
	"testing"

	"github.com/zerokit/zerokit/env/wyb"
)

// TestReviewerMove: in refereedLoss's drawn position the reviewer proves
// the move played (3,4-4,4) lost and finds a drawing move; a drawing move
// gets no better one; a budget too small proves nothing; an illegal move
// and a missing table are errors.
func TestReviewerMove(t *testing.T) {
	s, tb := refereedLoss(t)
	losing, err := wyb.ParseNotation("3,4-4,4")
	if err != nil {
		t.Fatal(err)
	}
	actions, values, ok := exactSolve(context.Background(), s, tb, nil, ExactNodes)
	if !ok {
		t.Fatalf("no exact values within %d nodes", ExactNodes)
	}
	value := map[int]float32{}
	drawing := -1
	for i, a := range actions {
		value[a] = values[i]
		if values[i] == 0 && drawing < 0 {
			drawing = a
		}
	}
	if value[losing] != -1 || drawing < 0 {
		t.Fatalf("3,4-4,4 is worth %v and a drawing move %s: the test wants a drawn position that 3,4-4,4 loses", value[losing], s.ActionString(drawing))
	}
	tests := []struct {
		name        string
		played      int
		nodes       int
		solved      bool
		value       float32
		better      bool
		betterValue float32
	}{
		{"losing move", losing, 0, true, -1, true, 0},
		{"drawing move", drawing, 0, true, 0, false, 0},
		{"budget too small", losing, 10, false, 0, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewReviewer(tb) // a fresh table: nothing proven before
			if err != nil {
				t.Fatal(err)
			}
			rev, err := r.Move(context.Background(), s, tc.played, tc.nodes)
			if err != nil {
				t.Fatal(err)
			}
			if rev.Solved != tc.solved || (tc.solved && rev.Value != tc.value) {
				t.Fatalf("solved %v value %v, want %v %v", rev.Solved, rev.Value, tc.solved, tc.value)
			}
			if (rev.Better >= 0) != tc.better {
				t.Fatalf("better move %d, want one: %v", rev.Better, tc.better)
			}
			if tc.better && (value[rev.Better] != tc.betterValue || rev.BetterValue != tc.betterValue) {
				t.Fatalf("better move %s worth %v (reported %v), want %v", s.ActionString(rev.Better), value[rev.Better], rev.BetterValue, tc.betterValue)
			}
			if tc.solved && !tc.better && !rev.Complete {
				t.Fatal("a solved review without budget left moves unsettled")
			}
			if rev.Nodes == 0 {
				t.Fatal("no nodes counted")
			}
		})
	}
	// A fresh reviewer with a cancelled context proves nothing.
	fresh, _ := NewReviewer(tb)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// The cancelled context is seen every 4,096 nodes; a 10,000-node
	// budget would also end it, so give none.
	if rev, err := fresh.Move(ctx, s, losing, 0); err != nil || rev.Solved {
		t.Fatalf("cancelled: %+v, %v; want unsolved and no error", rev, err)
	}
	if _, err := fresh.Move(context.Background(), s, -5, 0); err == nil {
		t.Error("an illegal action was reviewed")
	}
	if _, err := NewReviewer(nil); err == nil {
		t.Error("a reviewer without a table")
	}
}
