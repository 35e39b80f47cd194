package mcts

import (
	"context"
	"errors"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/tictactoe"
)

// fakeNet is a deterministic Network: the logits and value of a position
// are simple functions of its observation, so answers can be checked.
// It counts calls and can be made to block or fail.
type fakeNet struct {
	obsSize, actions int
	calls            atomic.Int64
	positions        atomic.Int64
	release          chan struct{} // if non-nil, Forward waits on it
	entered          chan struct{} // if non-nil, Forward signals entry
	err              error
}

func newFakeNet(g env.Game) *fakeNet {
	return &fakeNet{obsSize: g.ObservationShape().Size(), actions: g.NumActions()}
}

// fakeOutputs computes what fakeNet returns for one observation.
func fakeOutputs(obs []float32, actions int) (logits []float32, value float32) {
	var h float32
	for j, x := range obs {
		h += x * float32(j%7+1)
	}
	logits = make([]float32, actions)
	for a := range logits {
		logits[a] = float32((a*int(h+1))%5) * 0.5
	}
	return logits, float32(math.Tanh(float64(h)/10 - 1))
}

func (f *fakeNet) Forward(obs []float32, n int, logits, values []float32) error {
	f.calls.Add(1)
	f.positions.Add(int64(n))
	if f.entered != nil {
		f.entered <- struct{}{}
	}
	if f.release != nil {
		<-f.release
	}
	if f.err != nil {
		return f.err
	}
	if len(obs) != n*f.obsSize || len(logits) != n*f.actions || len(values) != n {
		return errors.New("fakeNet: bad buffer sizes")
	}
	for i := range n {
		l, v := fakeOutputs(obs[i*f.obsSize:(i+1)*f.obsSize], f.actions)
		copy(logits[i*f.actions:], l)
		values[i] = v
	}
	return nil
}

// waitGoroutines waits for the goroutine count to fall back to want.
func waitGoroutines(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > want {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("goroutine leak: %d running, want %d\n%s", runtime.NumGoroutine(), want,
				buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// evaluateAndCheck evaluates st through b and checks that the answer is
// the fake network's for st (and not another caller's).
func evaluateAndCheck(b *Batcher, g env.Game, st env.State) error {
	legal := st.LegalActions(nil)
	priors := make([]float32, len(legal))
	v, err := b.Evaluate(context.Background(), st, legal, priors)
	if err != nil {
		return err
	}
	obs := make([]float32, g.ObservationShape().Size())
	st.Observation(obs)
	logits, wantV := fakeOutputs(obs, g.NumActions())
	want := make([]float32, len(legal))
	if err := MaskedSoftmax(logits, legal, want); err != nil {
		return err
	}
	if v != wantV || !slices.Equal(priors, want) {
		return errors.New("caller got another position's answer")
	}
	return nil
}

func TestBatcherBatchesAndRoutesAnswers(t *testing.T) {
	base := runtime.NumGoroutine()
	g := tictactoe.New()
	net := newFakeNet(g)
	const callers = 8
	b, err := NewBatcher(net, g, BatcherConfig{MaxBatch: callers, MaxWait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for k := range callers {
		wg.Go(func() {
			if err := evaluateAndCheck(b, g, position(t, k)); err != nil { // a different position per caller
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// MaxWait is long and MaxBatch equals the number of callers, so all
	// eight requests must form one batch, answered by one Forward call.
	st := b.Stats()
	if net.calls.Load() != 1 || st.Batches != 1 || st.Positions != callers || st.MaxBatchSeen != callers {
		t.Errorf("calls %d, stats %+v: want one batch of %d", net.calls.Load(), st, callers)
	}
	if st.MeanBatch() != callers {
		t.Errorf("mean batch %v", st.MeanBatch())
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if _, err := b.Evaluate(context.Background(), position(t), []int{0}, make([]float32, 1)); !errors.Is(err, ErrClosed) {
		t.Errorf("Evaluate after Close: %v, want ErrClosed", err)
	}
	waitGoroutines(t, base)
}

func TestBatcherWithConcurrentSearches(t *testing.T) {
	base := runtime.NumGoroutine()
	g := tictactoe.New()
	net := newFakeNet(g)
	b, err := NewBatcher(net, g, BatcherConfig{MaxBatch: 16, MaxWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(ModePUCT, 64)
	cfg.LeavesInFlight = 4
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for k := range 4 {
		wg.Go(func() {
			s, err := NewSearch(cfg, b, uint64(k))
			if err != nil {
				errs <- err
				return
			}
			st := g.NewInitialState()
			for !st.IsTerminal() {
				res, err := s.Run(context.Background(), st)
				if err != nil {
					errs <- err
					return
				}
				_ = st.ApplyAction(res.Action)
				s.Advance(res.Action)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	st := b.Stats()
	if st.MeanBatch() <= 1.5 || st.MaxBatchSeen < 4 {
		t.Errorf("4 searches with 4 leaves in flight: mean batch %.2f, max %d", st.MeanBatch(), st.MaxBatchSeen)
	}
	if st.Positions != net.positions.Load() || st.Batches != net.calls.Load() {
		t.Errorf("stats %+v disagree with the network's counts %d/%d", st, net.calls.Load(), net.positions.Load())
	}
	if st.ForwardShare() <= 0 || st.ForwardShare() > 1 {
		t.Errorf("forward share %v", st.ForwardShare())
	}
	b.Close()
	waitGoroutines(t, base)
}

// TestBatcherWorkersRunInParallel checks that two workers evaluate two
// batches at the same time, each with its own network, and that every
// caller still gets its own position's answer.
func TestBatcherWorkersRunInParallel(t *testing.T) {
	base := runtime.NumGoroutine()
	g := tictactoe.New()
	entered := make(chan struct{}, 16)
	release := make(chan struct{})
	nets := []*fakeNet{newFakeNet(g), newFakeNet(g)}
	for _, n := range nets {
		n.entered, n.release = entered, release
	}
	b, err := NewBatcherWorkers([]Network{nets[0], nets[1]}, g, BatcherConfig{MaxBatch: 1, MaxWait: 0})
	if err != nil {
		t.Fatal(err)
	}
	const callers = 6
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for k := range callers {
		wg.Go(func() {
			if err := evaluateAndCheck(b, g, position(t, k)); err != nil {
				errs <- err
			}
		})
	}
	// Both workers must be inside Forward at once before either returns.
	for range 2 {
		select {
		case <-entered:
		case <-time.After(5 * time.Second):
			t.Fatal("the second worker never entered Forward while the first was busy")
		}
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st := b.Stats()
	if st.Workers != 2 || st.Positions != callers || nets[0].calls.Load() == 0 || nets[1].calls.Load() == 0 {
		t.Errorf("stats %+v, calls %d and %d: want both workers used", st, nets[0].calls.Load(), nets[1].calls.Load())
	}
	if sh := st.ForwardShare(); sh <= 0 || sh > 1 {
		t.Errorf("forward share %v, want a fraction of the two workers' time", sh)
	}
	b.Close()
	if _, err := NewBatcherWorkers(nil, g, DefaultBatcherConfig()); err == nil {
		t.Error("no networks: no error")
	}
	if _, err := NewBatcherWorkers([]Network{nets[0], nil}, g, DefaultBatcherConfig()); err == nil || !strings.Contains(err.Error(), "network 2 of 2") {
		t.Errorf("a nil network: %v", err)
	}
	waitGoroutines(t, base)
}

// TestBatcherMinBatch: with a long MaxWait, a batch that reached MinBatch
// is evaluated as soon as no more requests are waiting.
func TestBatcherMinBatch(t *testing.T) {
	g := tictactoe.New()
	net := newFakeNet(g)
	b, err := NewBatcher(net, g, BatcherConfig{MaxBatch: 8, MaxWait: time.Minute, MinBatch: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	done := make(chan error, 2)
	for k := range 2 {
		go func() {
			st := position(t, k)
			legal := st.LegalActions(nil)
			_, err := b.Evaluate(context.Background(), st, legal, make([]float32, len(legal)))
			done <- err
		}()
	}
	for range 2 {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("a batch of MinBatch positions waited for MaxWait")
		}
	}
	if _, err := NewBatcher(net, g, BatcherConfig{MaxBatch: 4, MinBatch: 5}); err == nil || !strings.Contains(err.Error(), "min_batch") {
		t.Errorf("min_batch above max_batch: %v", err)
	}
}

func TestBatcherCancellation(t *testing.T) {
	base := runtime.NumGoroutine()
	g := tictactoe.New()
	net := newFakeNet(g)
	net.release = make(chan struct{})
	net.entered = make(chan struct{}, 10)
	b, err := NewBatcher(net, g, BatcherConfig{MaxBatch: 4, MaxWait: 0})
	if err != nil {
		t.Fatal(err)
	}
	st := position(t)
	legal := st.LegalActions(nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := b.Evaluate(ctx, st, legal, make([]float32, len(legal)))
		done <- err
	}()
	<-net.entered // the request is inside Forward
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Evaluate did not return after cancellation")
	}
	close(net.release) // let the abandoned batch finish
	// An already-cancelled context fails without reaching the network.
	calls := net.calls.Load()
	if _, err := b.Evaluate(ctx, st, legal, make([]float32, len(legal))); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	b.Close()
	if net.calls.Load() != calls {
		t.Error("a cancelled request reached the network")
	}
	waitGoroutines(t, base)
}

func TestBatcherForwardError(t *testing.T) {
	g := tictactoe.New()
	net := newFakeNet(g)
	net.err = errors.New("cuda on fire")
	b, err := NewBatcher(net, g, BatcherConfig{MaxBatch: 4, MaxWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s, err := NewSearch(testConfig(ModePUCT, 10), b, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Run(context.Background(), position(t)); !errors.Is(err, net.err) {
		t.Errorf("err = %v, want the network's error", err)
	}
}

func TestBatcherCloseUnblocksWaiters(t *testing.T) {
	base := runtime.NumGoroutine()
	g := tictactoe.New()
	net := newFakeNet(g)
	net.release = make(chan struct{})
	net.entered = make(chan struct{}, 10)
	b, err := NewBatcher(net, g, BatcherConfig{MaxBatch: 1, MaxWait: 0})
	if err != nil {
		t.Fatal(err)
	}
	st := position(t)
	legal := st.LegalActions(nil)
	results := make(chan error, 3)
	for range 3 {
		go func() {
			_, err := b.Evaluate(context.Background(), st, legal, make([]float32, len(legal)))
			results <- err
		}()
	}
	<-net.entered // one request is in Forward, two wait to be sent
	closed := make(chan struct{})
	go func() {
		b.Close()
		close(closed)
	}()
	time.Sleep(10 * time.Millisecond)
	close(net.release)
	<-closed
	for range 3 {
		select {
		case err := <-results:
			if err != nil && !errors.Is(err, ErrClosed) {
				t.Errorf("unexpected error %v", err)
			}
		case <-time.After(2 * time.Second):
			t.Fatal("a caller is still blocked after Close")
		}
	}
	waitGoroutines(t, base)
}

func TestBatcherConfigValidate(t *testing.T) {
	g := tictactoe.New()
	for _, cfg := range []BatcherConfig{{MaxBatch: 0}, {MaxBatch: 4, MaxWait: -time.Second}} {
		if _, err := NewBatcher(newFakeNet(g), g, cfg); err == nil {
			t.Errorf("config %+v accepted", cfg)
		}
	}
	if _, err := NewBatcher(nil, g, DefaultBatcherConfig()); err == nil {
		t.Error("nil network accepted")
	}
}

// TestSearchCancelledWithLeavesInFlight cancels a search while its leaves
// wait inside the network: Run returns the context's error, discards the
// tree, and leaves no goroutine behind.
func TestSearchCancelledWithLeavesInFlight(t *testing.T) {
	base := runtime.NumGoroutine()
	g := tictactoe.New()
	net := newFakeNet(g)
	net.release = make(chan struct{}, 1)
	net.release <- struct{}{} // the root's evaluation passes, the next batch blocks
	net.entered = make(chan struct{}, 100)
	b, err := NewBatcher(net, g, BatcherConfig{MaxBatch: 8, MaxWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(ModePUCT, 100)
	cfg.LeavesInFlight = 4
	s, err := NewSearch(cfg, b, 1)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := s.Run(ctx, g.NewInitialState())
		done <- err
	}()
	<-net.entered // the root's evaluation
	<-net.entered // the first leaves
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Run did not return after cancellation")
	}
	if s.TreeSize() != 0 {
		t.Error("tree kept after a cancelled search")
	}
	close(net.release)
	b.Close()
	waitGoroutines(t, base)
}

func TestBatcherStatsAddSub(t *testing.T) {
	a := BatcherStats{Batches: 10, Positions: 80, MaxBatchSeen: 16, ForwardTime: 3 * time.Second, Elapsed: 5 * time.Second, Workers: 2}
	b := BatcherStats{Batches: 4, Positions: 20, MaxBatchSeen: 8, ForwardTime: time.Second, Elapsed: 2 * time.Second, Workers: 1}
	for _, tc := range []struct {
		name      string
		got, want BatcherStats
	}{
		{"add", a.Add(b), BatcherStats{Batches: 14, Positions: 100, MaxBatchSeen: 16, ForwardTime: 4 * time.Second, Elapsed: 5 * time.Second, Workers: 2}},
		{"sub", a.Sub(b), BatcherStats{Batches: 6, Positions: 60, MaxBatchSeen: 16, ForwardTime: 2 * time.Second, Elapsed: 3 * time.Second, Workers: 2}},
		{"add zero", BatcherStats{}.Add(a), a},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, tc.got, tc.want)
		}
	}
}

// nanNet answers every position with a NaN logit for action nan.
type nanNet struct {
	actions, nan int
}

func (f nanNet) Forward(obs []float32, n int, logits, values []float32) error {
	for i := range logits[:n*f.actions] {
		logits[i] = 0
		if i%f.actions == f.nan {
			logits[i] = float32(math.NaN())
		}
	}
	clear(values[:n])
	return nil
}

// TestBatcherBadLogits: the batcher checks its answers as MaskedSoftmax
// does (half in the worker, half in the caller): a NaN logit of a legal
// action and an action outside the network's range are errors that name
// them; a NaN logit of an illegal action is ignored.
func TestBatcherBadLogits(t *testing.T) {
	g := tictactoe.New()
	b, err := NewBatcher(nanNet{actions: g.NumActions(), nan: 4}, g, BatcherConfig{MaxBatch: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	st := g.NewInitialState()
	priors := make([]float32, 9)
	for _, tc := range []struct {
		legal []int
		want  string
	}{
		{[]int{0, 4, 8}, "logit of action 4 is NaN"},
		{[]int{0, 9}, "action 9 outside [0, 9)"},
		{[]int{0, 3}, ""},
	} {
		_, err := b.Evaluate(context.Background(), st, tc.legal, priors)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("legal %v: %v", tc.legal, err)
		case tc.want == "" && (priors[0] != 0.5 || priors[1] != 0.5):
			t.Errorf("legal %v: priors %v, want 0.5 each", tc.legal, priors[:2])
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("legal %v: error %v, want one containing %q", tc.legal, err, tc.want)
		}
	}
}
