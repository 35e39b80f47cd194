package mcts

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/zerokit/zerokit/env"
)

// maxCacheShards bounds the number of independently locked shards.
const maxCacheShards = 16

// Cache is an Evaluator that remembers the results of another Evaluator by
// position hash (env.State.Hash), so that transpositions, tree reuse misses
// and repeated positions across games cost one evaluation. It is bounded:
// each of its shards evicts its oldest entry (first in, first out) when
// full. It is safe for concurrent use.
//
// An entry also records a checksum of the legal actions, so a hash
// collision between positions with different legal moves is treated as a
// miss rather than returning wrong-sized priors.
type Cache struct {
	inner        Evaluator
	shards       []cacheShard
	hits, misses atomic.Int64
}

type cacheShard struct {
	mu      sync.Mutex
	index   map[uint64]int32
	entries []cacheEntry
	next    int // ring position of the next insertion
}

type cacheEntry struct {
	key    uint64
	check  uint64
	value  float32
	priors []float32
}

// CacheStats counts cache lookups.
type CacheStats struct {
	// Hits and Misses count lookups; Size is the number of entries held.
	Hits, Misses int64
	Size         int
}

// HitRate is Hits / (Hits + Misses), or 0 before any lookup.
func (s CacheStats) HitRate() float64 {
	if s.Hits+s.Misses == 0 {
		return 0
	}
	return float64(s.Hits) / float64(s.Hits+s.Misses)
}

// NewCache wraps inner with a cache of at most capacity positions.
func NewCache(inner Evaluator, capacity int) (*Cache, error) {
	if inner == nil {
		return nil, errors.New("mcts: cache: nil evaluator")
	}
	if capacity < 1 {
		return nil, fmt.Errorf("mcts: cache: capacity = %d, want at least 1", capacity)
	}
	n := min(maxCacheShards, capacity)
	c := &Cache{inner: inner, shards: make([]cacheShard, n)}
	for i := range c.shards {
		size := capacity / n
		if i < capacity%n {
			size++
		}
		c.shards[i].index = make(map[uint64]int32, size)
		c.shards[i].entries = make([]cacheEntry, 0, size)
	}
	return c, nil
}

// legalChecksum mixes the legal actions into a 64-bit value.
func legalChecksum(legal []int) uint64 {
	h := uint64(len(legal)) * 0x9e3779b97f4a7c15
	for _, a := range legal {
		h ^= uint64(a) + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
	}
	return h
}

func (c *Cache) shard(key uint64) *cacheShard {
	// The high bits of a Fibonacci hash spread sequential keys too.
	return &c.shards[((key*0x9e3779b97f4a7c15)>>32)%uint64(len(c.shards))]
}

// Evaluate implements Evaluator.
func (c *Cache) Evaluate(ctx context.Context, s env.State, legal []int, priors []float32) (float32, error) {
	if len(priors) < len(legal) {
		return 0, fmt.Errorf("mcts: cache: %d priors for %d legal actions", len(priors), len(legal))
	}
	key := s.Hash()
	check := legalChecksum(legal)
	sh := c.shard(key)
	sh.mu.Lock()
	if i, ok := sh.index[key]; ok {
		e := &sh.entries[i]
		if e.check == check && len(e.priors) == len(legal) {
			copy(priors, e.priors)
			v := e.value
			sh.mu.Unlock()
			c.hits.Add(1)
			return v, nil
		}
	}
	sh.mu.Unlock()
	c.misses.Add(1)
	v, err := c.inner.Evaluate(ctx, s, legal, priors)
	if err != nil {
		return 0, err
	}
	sh.mu.Lock()
	sh.put(key, check, v, priors[:len(legal)])
	sh.mu.Unlock()
	return v, nil
}

// put stores an entry, replacing one for the same key or evicting the
// oldest when the shard is full.
func (sh *cacheShard) put(key, check uint64, v float32, priors []float32) {
	var e *cacheEntry
	if i, ok := sh.index[key]; ok {
		e = &sh.entries[i]
	} else if len(sh.entries) < cap(sh.entries) {
		sh.entries = append(sh.entries, cacheEntry{})
		sh.index[key] = int32(len(sh.entries) - 1)
		e = &sh.entries[len(sh.entries)-1]
	} else {
		e = &sh.entries[sh.next]
		delete(sh.index, e.key)
		sh.index[key] = int32(sh.next)
		sh.next = (sh.next + 1) % len(sh.entries)
	}
	e.key, e.check, e.value = key, check, v
	e.priors = append(e.priors[:0], priors...)
}

// Stats returns the lookup counters and the current size.
func (c *Cache) Stats() CacheStats {
	st := CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load()}
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.Lock()
		st.Size += len(sh.entries)
		sh.mu.Unlock()
	}
	return st
}
