package mcts

import (
	"context"
	"errors"
	"fmt"

	"github.com/zerokit/zerokit/env"
)

// EvalStats describes the work of a NetEvaluator: its batcher's
// (BatcherStats: batches, positions, forward time) and its cache's
// lookups.
type EvalStats struct {
	BatcherStats
	// CacheHits and CacheMisses count cache lookups (zero without a cache).
	CacheHits, CacheMisses int64
}

// Sub returns the work done between an earlier snapshot o and s.
func (s EvalStats) Sub(o EvalStats) EvalStats {
	return EvalStats{
		BatcherStats: s.BatcherStats.Sub(o.BatcherStats),
		CacheHits:    s.CacheHits - o.CacheHits,
		CacheMisses:  s.CacheMisses - o.CacheMisses,
	}
}

// Add returns the work of s and o together (see BatcherStats.Add).
func (s EvalStats) Add(o EvalStats) EvalStats {
	return EvalStats{
		BatcherStats: s.BatcherStats.Add(o.BatcherStats),
		CacheHits:    s.CacheHits + o.CacheHits,
		CacheMisses:  s.CacheMisses + o.CacheMisses,
	}
}

// CacheHitRate is the fraction of lookups answered by the cache.
func (s EvalStats) CacheHitRate() float64 {
	if n := s.CacheHits + s.CacheMisses; n > 0 {
		return float64(s.CacheHits) / float64(n)
	}
	return 0
}

// NetEvaluator evaluates positions with a network for many concurrent
// searches: a Batcher gathers their requests into batches, optionally
// behind a Cache. Build a new one whenever the network's weights
// change (the cache would otherwise answer with the old network), and Close
// it before the network is used for anything else (training).
type NetEvaluator struct {
	batcher *Batcher
	cache   *Cache
	eval    Evaluator
}

// NetEvaluatorConfig configures a NetEvaluator.
type NetEvaluatorConfig struct {
	// Batcher configures the batcher.
	Batcher BatcherConfig
	// CacheSize > 0 puts a cache of that many positions in front of the
	// batcher.
	CacheSize int
	// Pad evaluates every batch at one of a few sizes (PadBatches), for
	// networks that prepare each new batch size slowly (libtorch).
	Pad bool
	// Symmetries, when set, averages each network's outputs over them
	// (NewSymmetryAverage; element 0 must be the identity).
	Symmetries []env.Symmetry
}

// NewNetEvaluator starts a batcher over nets (copies of one network, one
// batcher worker each, see NewBatcherWorkers) for game, each network
// wrapped as cfg says. It is the one way the toolkit turns networks into a
// search's evaluator: for self-play, the trainer's evaluation and the
// network agents.
func NewNetEvaluator(nets []Network, game env.Game, cfg NetEvaluatorConfig) (*NetEvaluator, error) {
	if cfg.CacheSize < 0 {
		return nil, errors.New("mcts: negative cache size")
	}
	wrapped := make([]Network, len(nets))
	for i, n := range nets {
		if n == nil {
			return nil, fmt.Errorf("mcts: network %d of %d is nil", i+1, len(nets))
		}
		if len(cfg.Symmetries) > 0 {
			var err error
			if n, err = NewSymmetryAverage(n, game.ObservationShape(), game.NumActions(), cfg.Symmetries); err != nil {
				return nil, err
			}
		}
		if cfg.Pad {
			n = PadBatches(n, game)
		}
		wrapped[i] = n
	}
	b, err := NewBatcherWorkers(wrapped, game, cfg.Batcher)
	if err != nil {
		return nil, err
	}
	e := &NetEvaluator{batcher: b, eval: b}
	if cfg.CacheSize > 0 {
		c, err := NewCache(b, cfg.CacheSize)
		if err != nil {
			b.Close()
			return nil, err
		}
		e.cache, e.eval = c, c
	}
	return e, nil
}

// Evaluate implements Evaluator.
func (e *NetEvaluator) Evaluate(ctx context.Context, s env.State, legal []int, priors []float32) (float32, error) {
	return e.eval.Evaluate(ctx, s, legal, priors)
}

// EvalStats returns the counters since the evaluator was created.
func (e *NetEvaluator) EvalStats() EvalStats {
	st := EvalStats{BatcherStats: e.batcher.Stats()}
	if e.cache != nil {
		c := e.cache.Stats()
		st.CacheHits, st.CacheMisses = c.Hits, c.Misses
	}
	return st
}

// Close stops the batcher; later evaluations fail with ErrClosed.
func (e *NetEvaluator) Close() error { return e.batcher.Close() }

// PadBatches returns a network that evaluates each batch of n positions as
// a batch of the next bucket size (1, 2, 4, 8, then multiples of 16),
// padding with empty observations and dropping their outputs. libtorch
// spends from tens to hundreds of milliseconds preparing each batch size it
// sees for the first time (measured: 50-400 ms for sizes above 64 on two
// cores), and a batcher produces dozens of different sizes, which made the
// first minute of self-play several times slower; buckets bound the number
// of sizes at the cost of at most 15 padded positions per batch. The
// returned network is not safe for concurrent use (a Batcher calls it from
// one goroutine).
func PadBatches(net Network, game env.Game) Network {
	return &paddedNet{net: net, obsSize: game.ObservationShape().Size(), actions: game.NumActions()}
}

type paddedNet struct {
	net              Network
	obsSize, actions int
	obs, logits, val []float32
}

// bucket is the padded size of a batch of n.
func bucket(n int) int {
	switch {
	case n <= 2:
		return n
	case n <= 4:
		return 4
	case n <= 8:
		return 8
	}
	return (n + 15) / 16 * 16
}

// Forward implements Network.
func (p *paddedNet) Forward(obs []float32, n int, logits, values []float32) error {
	m := bucket(n)
	if m == n {
		return p.net.Forward(obs, n, logits, values)
	}
	if len(obs) < n*p.obsSize || len(logits) < n*p.actions || len(values) < n {
		return fmt.Errorf("mcts: forward of %d positions with short buffers", n)
	}
	if len(p.obs) < m*p.obsSize {
		p.obs = make([]float32, m*p.obsSize)
		p.logits = make([]float32, m*p.actions)
		p.val = make([]float32, m)
	}
	copy(p.obs, obs[:n*p.obsSize])
	clear(p.obs[n*p.obsSize : m*p.obsSize])
	if err := p.net.Forward(p.obs[:m*p.obsSize], m, p.logits[:m*p.actions], p.val[:m]); err != nil {
		return err
	}
	copy(logits, p.logits[:n*p.actions])
	copy(values, p.val[:n])
	return nil
}
