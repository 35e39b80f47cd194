package mcts

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/tictactoe"
)

// countingEvaluator returns priors and a value derived from the hash, and
// counts its calls.
type countingEvaluator struct{ calls atomic.Int64 }

func (c *countingEvaluator) Evaluate(_ context.Context, s env.State, legal []int, priors []float32) (float32, error) {
	c.calls.Add(1)
	var sum float32
	for i := range legal {
		priors[i] = float32(1 + (s.Hash()>>uint(i))&3)
		sum += priors[i]
	}
	for i := range legal {
		priors[i] /= sum
	}
	return float32(s.Hash()%200)/100 - 1, nil
}

// collidingState wraps a state but reports a fixed hash.
type collidingState struct {
	env.State
	hash uint64
}

func (c collidingState) Hash() uint64 { return c.hash }

func TestCacheHits(t *testing.T) {
	inner := &countingEvaluator{}
	c, err := NewCache(inner, 100)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st := position(t, 4, 0)
	legal := st.LegalActions(nil)
	p1 := make([]float32, len(legal))
	v1, err := c.Evaluate(ctx, st, legal, p1)
	if err != nil {
		t.Fatal(err)
	}
	p2 := make([]float32, len(legal))
	// The same position reached by another move order is a hit.
	v2, err := c.Evaluate(ctx, position(t, 4, 0), legal, p2)
	if err != nil {
		t.Fatal(err)
	}
	if v1 != v2 || !slices.Equal(p1, p2) {
		t.Errorf("hit returned %v %v, miss returned %v %v", v2, p2, v1, p1)
	}
	if inner.calls.Load() != 1 {
		t.Errorf("inner evaluator called %d times, want 1", inner.calls.Load())
	}
	st2 := c.Stats()
	if st2.Hits != 1 || st2.Misses != 1 || st2.Size != 1 || st2.HitRate() != 0.5 {
		t.Errorf("stats %+v", st2)
	}
	// A hash collision with different legal actions is a miss.
	fake := collidingState{State: position(t, 4), hash: st.Hash()}
	fl := fake.LegalActions(nil)
	if _, err := c.Evaluate(ctx, fake, fl, make([]float32, len(fl))); err != nil {
		t.Fatal(err)
	}
	if inner.calls.Load() != 2 {
		t.Error("a colliding position with other legal actions was served from the cache")
	}
}

func TestCacheBounded(t *testing.T) {
	inner := &countingEvaluator{}
	const capacity = 40
	c, err := NewCache(inner, capacity)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Every position after two moves: 72 distinct positions.
	var states []env.State
	for a := range 9 {
		for b := range 9 {
			if a != b {
				states = append(states, position(t, a, b))
			}
		}
	}
	for _, st := range states {
		legal := st.LegalActions(nil)
		if _, err := c.Evaluate(ctx, st, legal, make([]float32, len(legal))); err != nil {
			t.Fatal(err)
		}
	}
	if size := c.Stats().Size; size > capacity || size < capacity/2 {
		t.Errorf("size %d with capacity %d", size, capacity)
	}
	// The most recent position is still cached; the first was evicted
	// (first in, first out) unless its shard never filled.
	last := states[len(states)-1]
	calls := inner.calls.Load()
	legal := last.LegalActions(nil)
	if _, err := c.Evaluate(ctx, last, legal, make([]float32, len(legal))); err != nil {
		t.Fatal(err)
	}
	if inner.calls.Load() != calls {
		t.Error("most recent position was not cached")
	}
	if _, err := NewCache(inner, 0); err == nil {
		t.Error("capacity 0 accepted")
	}
	if _, err := NewCache(nil, 10); err == nil {
		t.Error("nil evaluator accepted")
	}
}

func TestCacheConcurrentSearches(t *testing.T) {
	inner := &countingEvaluator{}
	c, err := NewCache(inner, 10000)
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(ModePUCT, 100)
	cfg.LeavesInFlight = 4
	var wg sync.WaitGroup
	var evaluations atomic.Int64
	for k := range 4 {
		wg.Go(func() {
			s, err := NewSearch(cfg, c, uint64(k))
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := s.Run(context.Background(), tictactoe.New().NewInitialState()); err != nil {
				t.Error(err)
			}
			evaluations.Add(int64(s.Stats().Evaluations))
		})
	}
	wg.Wait()
	st := c.Stats()
	if st.Hits+st.Misses != evaluations.Load() {
		t.Errorf("stats %+v, but the searches made %d evaluations", st, evaluations.Load())
	}
	if st.Misses != inner.calls.Load() || int64(st.Size) > st.Misses {
		t.Errorf("stats %+v, inner calls %d", st, inner.calls.Load())
	}
	if st.HitRate() < 0.5 {
		t.Errorf("four identical searches should mostly share evaluations: %+v", st)
	}
}
