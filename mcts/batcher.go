package mcts

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/zerokit/zerokit/env"
)

// ErrClosed is returned by Batcher.Evaluate after Close.
var ErrClosed = errors.New("mcts: batcher is closed")

// BatcherConfig sets how a Batcher forms batches.
type BatcherConfig struct {
	// MaxBatch is the largest number of positions per Forward call. Keep
	// it at or below the number of requests that can be outstanding at
	// once (concurrent searches x LeavesInFlight): a batch that cannot
	// fill waits the full MaxWait.
	MaxBatch int `yaml:"max_batch"`
	// MaxWait is how long the first request of a batch may wait for more
	// requests before the batch is evaluated anyway. 0 evaluates whatever
	// has arrived as soon as the network is free.
	MaxWait time.Duration `yaml:"max_wait"`
	// MinBatch, if > 0, ends the wait early: a batch of at least MinBatch
	// positions is evaluated as soon as no more requests are waiting,
	// without waiting out MaxWait. With several workers, a free worker
	// would otherwise grab requests one by one as they arrive (MaxWait 0),
	// or always wait the full MaxWait (MinBatch 0).
	MinBatch int `yaml:"min_batch"`
}

// DefaultBatcherConfig returns a configuration suited to a GPU network and
// a few dozen concurrent searches.
func DefaultBatcherConfig() BatcherConfig {
	return BatcherConfig{MaxBatch: 64, MaxWait: 2 * time.Millisecond}
}

// Validate reports the first bad field by its YAML name.
func (c BatcherConfig) Validate() error {
	if c.MaxBatch < 1 {
		return fmt.Errorf("mcts batcher config: max_batch = %d: want at least 1", c.MaxBatch)
	}
	if c.MaxWait < 0 {
		return fmt.Errorf("mcts batcher config: max_wait = %v: want a duration >= 0", c.MaxWait)
	}
	if c.MinBatch < 0 || c.MinBatch > c.MaxBatch {
		return fmt.Errorf("mcts batcher config: min_batch = %d: want a value in [0, max_batch = %d]", c.MinBatch, c.MaxBatch)
	}
	return nil
}

// Batcher is an Evaluator that gathers concurrent Evaluate calls into
// batches and answers each batch with a single Network.Forward call. Many
// searches (and many leaves in flight per search) call Evaluate from their
// own goroutines; a worker goroutine, locked to its OS thread as libtorch
// requires, owns the network. With several copies of the network
// (NewBatcherWorkers) several workers take batches from the same queue and
// run them in parallel: on a CPU, single-threaded forward passes on every
// core outrun one multi-threaded pass on small networks, whose operations
// are too small to split well across threads.
//
// Callers encode their observation themselves and turn their logits into
// priors over their legal actions themselves (MaskedSoftmax's softmax), so
// that this work runs in parallel; the worker only gathers each position's
// legal logits.
type Batcher struct {
	nets    []Network
	cfg     BatcherConfig
	obsSize int
	actions int

	// The queue: a slice under a mutex, which a worker empties a batch at
	// a time, rather than a channel that it would drain request by
	// request while thousands of callers contend for the channel's lock.
	qmu     sync.Mutex
	pending []*batchRequest
	closed  bool
	// wake tells a worker to look at the queue: sent when the queue
	// becomes non-empty, reaches need or MaxBatch, or keeps requests
	// after a worker took its batch.
	wake chan struct{}
	// need is the queue length at which a worker stops waiting for more
	// (MinBatch, or MaxBatch without one).
	need int

	quit    chan struct{}
	done    chan struct{} // closed when every worker has exited
	close   sync.Once
	workers sync.WaitGroup
	pool    sync.Pool

	mu    sync.Mutex
	stats BatcherStats
	start time.Time
}

type batchRequest struct {
	obs    []float32
	legal  []int
	priors []float32
	value  float32
	err    error
	ctx    context.Context
	done   chan struct{}
}

// BatcherStats describes a Batcher's work since it was created.
type BatcherStats struct {
	// Batches is the number of Forward calls.
	Batches int64
	// Positions is the number of positions evaluated.
	Positions int64
	// MaxBatchSeen is the largest batch.
	MaxBatchSeen int
	// ForwardTime is the total time spent inside Forward, summed over the
	// workers.
	ForwardTime time.Duration
	// Elapsed is the time since the Batcher was created (or closed).
	Elapsed time.Duration
	// Workers is the number of workers (network copies).
	Workers int
}

// Add returns the work of s and o together (two batchers, or two stretches
// of one): counts and forward times add up; MaxBatchSeen, Elapsed and
// Workers are the larger of the two.
func (s BatcherStats) Add(o BatcherStats) BatcherStats {
	return BatcherStats{
		Batches:      s.Batches + o.Batches,
		Positions:    s.Positions + o.Positions,
		MaxBatchSeen: max(s.MaxBatchSeen, o.MaxBatchSeen),
		ForwardTime:  s.ForwardTime + o.ForwardTime,
		Elapsed:      max(s.Elapsed, o.Elapsed),
		Workers:      max(s.Workers, o.Workers),
	}
}

// Sub returns the work done between an earlier snapshot o and s;
// MaxBatchSeen and Workers are s's.
func (s BatcherStats) Sub(o BatcherStats) BatcherStats {
	return BatcherStats{
		Batches:      s.Batches - o.Batches,
		Positions:    s.Positions - o.Positions,
		MaxBatchSeen: s.MaxBatchSeen,
		ForwardTime:  s.ForwardTime - o.ForwardTime,
		Elapsed:      s.Elapsed - o.Elapsed,
		Workers:      s.Workers,
	}
}

// MeanBatch is the mean number of positions per Forward call.
func (s BatcherStats) MeanBatch() float64 {
	if s.Batches == 0 {
		return 0
	}
	return float64(s.Positions) / float64(s.Batches)
}

// ForwardShare is the fraction of the workers' wall time spent in the
// network: ForwardTime / (Elapsed * Workers).
func (s BatcherStats) ForwardShare() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.ForwardTime) / (float64(s.Elapsed) * float64(max(s.Workers, 1)))
}

// NewBatcher starts a Batcher serving net for game's observation and action
// sizes. Close it to stop its goroutine.
func NewBatcher(net Network, game env.Game, cfg BatcherConfig) (*Batcher, error) {
	return NewBatcherWorkers([]Network{net}, game, cfg)
}

// NewBatcherWorkers starts a Batcher with one worker goroutine per network
// of nets, all taking batches from one queue. The networks must compute the
// same function (copies of one network), since any of them may answer a
// request, and each is used by its worker only. Close the Batcher to stop
// its goroutines.
func NewBatcherWorkers(nets []Network, game env.Game, cfg BatcherConfig) (*Batcher, error) {
	if len(nets) == 0 {
		return nil, errors.New("mcts: batcher: no network")
	}
	for i, net := range nets {
		if net == nil {
			return nil, fmt.Errorf("mcts: batcher: network %d of %d is nil", i+1, len(nets))
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b := &Batcher{
		nets:    slices.Clone(nets),
		cfg:     cfg,
		obsSize: game.ObservationShape().Size(),
		actions: game.NumActions(),
		wake:    make(chan struct{}, 1),
		need:    cfg.MinBatch,
		quit:    make(chan struct{}),
		done:    make(chan struct{}),
		start:   time.Now(),
	}
	if b.need == 0 {
		b.need = cfg.MaxBatch
	}
	b.stats.Workers = len(nets)
	b.pool.New = func() any {
		return &batchRequest{obs: make([]float32, b.obsSize), done: make(chan struct{}, 1)}
	}
	b.workers.Add(len(b.nets))
	for _, net := range b.nets {
		go b.loop(net)
	}
	go func() {
		b.workers.Wait()
		b.finishStats()
		close(b.done)
	}()
	return b, nil
}

// Evaluate implements Evaluator. It blocks until the batch holding the
// request has been evaluated, ctx is done, or the Batcher is closed.
func (b *Batcher) Evaluate(ctx context.Context, s env.State, legal []int, priors []float32) (float32, error) {
	if len(priors) < len(legal) {
		return 0, fmt.Errorf("mcts: batcher: %d priors for %d legal actions", len(priors), len(legal))
	}
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("mcts: batcher: %w", err)
	}
	r := b.pool.Get().(*batchRequest)
	s.Observation(r.obs)
	r.legal = append(r.legal[:0], legal...) // the caller may reuse legal if it gives up
	r.priors = grow(r.priors, len(legal))
	r.ctx = ctx
	r.err = nil
	b.qmu.Lock()
	if b.closed {
		b.qmu.Unlock()
		b.recycle(r)
		return 0, ErrClosed
	}
	b.pending = append(b.pending, r)
	n := len(b.pending)
	b.qmu.Unlock()
	if n == 1 || n == b.need || n == b.cfg.MaxBatch {
		b.signal()
	}
	// Every queued request is answered, even after Close (the workers
	// drain the queue), so the wait needs no channel shared with other
	// callers but the caller's own context's (per search, see Search.Run).
	select {
	case <-r.done:
	case <-ctx.Done():
		// A worker may still own r and answer it; leave r to the
		// garbage collector rather than reuse it.
		return 0, fmt.Errorf("mcts: batcher: %w", ctx.Err())
	}
	v, err := r.value, r.err
	if err == nil {
		// The worker gathered the legal actions' logits; the softmax runs
		// here, on the caller's core, not in the worker's serial loop.
		copy(priors, r.priors[:len(legal)])
		err = softmaxLegal(legal, priors)
	}
	b.recycle(r)
	return v, err
}

func (b *Batcher) recycle(r *batchRequest) {
	r.ctx = nil
	b.pool.Put(r)
}

// Close stops the worker goroutines and waits for them to exit; later
// Evaluate calls return ErrClosed. Close is idempotent.
func (b *Batcher) Close() error {
	b.close.Do(func() {
		b.qmu.Lock()
		b.closed = true
		b.qmu.Unlock()
		close(b.quit)
	})
	<-b.done
	return nil
}

// Stats returns the work counters.
func (b *Batcher) Stats() BatcherStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	st := b.stats
	select {
	case <-b.done:
	default:
		st.Elapsed = time.Since(b.start)
	}
	return st
}

// loop is a worker: it gathers requests into batches and evaluates them
// with net.
func (b *Batcher) loop(net Network) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer b.workers.Done()

	batch := make([]*batchRequest, 0, b.cfg.MaxBatch)
	obs := make([]float32, b.cfg.MaxBatch*b.obsSize)
	logits := make([]float32, b.cfg.MaxBatch*b.actions)
	values := make([]float32, b.cfg.MaxBatch)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()

	for {
		select {
		case <-b.wake:
		case <-b.quit:
			b.drain()
			return
		}
		if b.cfg.MaxWait > 0 && b.queued() < b.need {
			// Wait for a fuller batch, for MaxWait at most.
			timer.Reset(b.cfg.MaxWait)
		wait:
			for b.queued() < b.need {
				select {
				case <-b.wake:
				case <-timer.C:
					break wait
				case <-b.quit:
					break wait
				}
			}
			timer.Stop()
		}
		if batch = b.take(batch[:0]); len(batch) > 0 {
			b.run(net, batch, obs, logits, values)
		}
	}
}

// signal wakes a worker, unless one has been woken already.
func (b *Batcher) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// queued returns the number of requests waiting.
func (b *Batcher) queued() int {
	b.qmu.Lock()
	defer b.qmu.Unlock()
	return len(b.pending)
}

// take moves up to MaxBatch requests, the oldest first, from the queue to
// batch, and wakes another worker if requests remain.
func (b *Batcher) take(batch []*batchRequest) []*batchRequest {
	b.qmu.Lock()
	k := min(len(b.pending), b.cfg.MaxBatch)
	batch = append(batch, b.pending[:k]...)
	left := copy(b.pending, b.pending[k:])
	clear(b.pending[left:])
	b.pending = b.pending[:left]
	b.qmu.Unlock()
	if left > 0 {
		b.signal()
	}
	return batch
}

// run evaluates one batch with net and answers its requests.
func (b *Batcher) run(net Network, batch []*batchRequest, obs, logits, values []float32) {
	// Drop requests whose caller has given up.
	live := batch[:0]
	for _, r := range batch {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			r.done <- struct{}{}
			continue
		}
		live = append(live, r)
	}
	n := len(live)
	if n == 0 {
		return
	}
	for i, r := range live {
		copy(obs[i*b.obsSize:(i+1)*b.obsSize], r.obs)
	}
	t0 := time.Now()
	err := net.Forward(obs[:n*b.obsSize], n, logits[:n*b.actions], values[:n])
	dt := time.Since(t0)
	b.mu.Lock()
	b.stats.Batches++
	b.stats.Positions += int64(n)
	b.stats.MaxBatchSeen = max(b.stats.MaxBatchSeen, n)
	b.stats.ForwardTime += dt
	b.mu.Unlock()
	for i, r := range live {
		if err != nil {
			r.err = fmt.Errorf("mcts: batcher: forward of %d positions: %w", n, err)
		} else {
			r.value = values[i]
			r.err = gatherLegal(logits[i*b.actions:(i+1)*b.actions], r.legal, r.priors)
		}
		r.done <- struct{}{}
	}
}

// drain answers the requests left in the queue at Close with ErrClosed.
func (b *Batcher) drain() {
	b.qmu.Lock()
	left := b.pending
	b.pending = nil
	b.qmu.Unlock()
	for _, r := range left {
		r.err = ErrClosed
		r.done <- struct{}{}
	}
}

func (b *Batcher) finishStats() {
	b.mu.Lock()
	b.stats.Elapsed = time.Since(b.start)
	b.mu.Unlock()
}
