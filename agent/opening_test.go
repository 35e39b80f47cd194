package agent

import (
	"context"
	"testing"

	"github.com/zerokit/zerokit/env/wyb"
)

// TestWithOpening checks that the opening's actions are random and seeded
// and that the wrapped agent plays the rest.
func TestWithOpening(t *testing.T) {
	game := wyb.New(wyb.Options{})
	base, err := AlphaBetaFactory(game, AlphaBetaConfig{Depth: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WithOpening(base, -1); err == nil {
		t.Error("WithOpening(-1) gave no error")
	}
	if f, err := WithOpening(base, 0); err != nil || f == nil {
		t.Errorf("WithOpening(0) = %v, %v", f, err)
	}
	const n = 3
	f, err := WithOpening(base, n)
	if err != nil {
		t.Fatal(err)
	}
	// openingOf plays 2n actions of one agent against itself and returns
	// them.
	openingOf := func(seed uint64) []int {
		a, err := f(seed)
		if err != nil {
			t.Fatal(err)
		}
		s := game.NewInitialState()
		var acts []int
		for range 2 * n {
			x, err := a.Act(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			acts = append(acts, x)
			if err := s.ApplyAction(x); err != nil {
				t.Fatal(err)
			}
		}
		return acts
	}
	one, again := openingOf(7), openingOf(7)
	for i := range one {
		if one[i] != again[i] {
			t.Fatalf("seed 7 played %v, then %v", one, again)
		}
	}
	distinct := map[[n]int]bool{}
	for seed := range uint64(20) {
		var k [n]int
		copy(k[:], openingOf(seed))
		distinct[k] = true
	}
	if len(distinct) < 15 {
		t.Errorf("20 seeds played %d distinct openings of %d actions", len(distinct), n)
	}
	// After the opening the wrapped agent moves: a deterministic
	// alpha-beta gives the same action from the same position.
	a, _ := f(3)
	s := game.NewInitialState()
	for range n {
		x, _ := a.Act(context.Background(), s)
		_ = s.ApplyAction(x)
	}
	plain, _ := base(3)
	want, _ := plain.Act(context.Background(), s)
	if got, _ := a.Act(context.Background(), s); got != want {
		t.Errorf("after the opening: %s, the wrapped agent plays %s", wyb.FormatAction(got), wyb.FormatAction(want))
	}
	if name := a.Name(); name != "alphabeta-d1+opening3" {
		t.Errorf("Name = %q", name)
	}
}
