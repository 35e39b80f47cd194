package torch

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	lib "github.com/sugarme/gotch/libtch"
	"github.com/sugarme/gotch/ts"
)

// tinyConfig is a network small enough for fast tests.
func tinyConfig() Config {
	return Config{Blocks: 1, Channels: 16, PolicyChannels: 4, ValueChannels: 8, ValueHidden: 16}
}

var tinyShape = Shape{Planes: 3, Height: 4, Width: 5, Actions: 7}

func newTestNet(t testing.TB, cfg Config, shape Shape) *Net {
	t.Helper()
	n, err := New(onCPUUnlessSet(cfg), shape, 7)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(n.Close)
	return n
}

// onCPUUnlessSet puts a test network whose configuration names no device
// on the CPU: the default, auto, would pick a GPU where libtorch sees one,
// and the CPU tests (and the CPU side of the CUDA comparisons) must run on
// the CPU there too.
func onCPUUnlessSet(cfg Config) Config {
	if cfg.Device == "" {
		cfg.Device = "cpu"
	}
	return cfg
}

// randomObs returns count observations of shape s with values in [0, 1).
func randomObs(rng *rand.Rand, s Shape, count int) []float32 {
	obs := make([]float32, count*s.Size())
	for i := range obs {
		obs[i] = float32(rng.IntN(2))
	}
	return obs
}

func forward(t testing.TB, n *Net, obs []float32, count int) (logits, values []float32) {
	t.Helper()
	logits = make([]float32, count*n.Shape().Actions)
	values = make([]float32, count)
	if err := n.Forward(obs, count, logits, values); err != nil {
		t.Fatalf("Forward: %v", err)
	}
	return logits, values
}

func TestForwardShapesAndRange(t *testing.T) {
	spatial := tinyConfig()
	spatial.PolicyHead, spatial.PolicyPlanes, spatial.ValueMaxPool = PolicySpatial, 2, true
	tests := []struct {
		name  string
		cfg   Config
		shape Shape
	}{
		{"dense", tinyConfig(), tinyShape},
		{"dense no blocks", Config{Blocks: 0, Channels: 8}, tinyShape},
		{"spatial exact", spatial, Shape{Planes: 2, Height: 3, Width: 3, Actions: 18}},
		{"spatial with extras", spatial, Shape{Planes: 2, Height: 3, Width: 3, Actions: 20}},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := newTestNet(t, tc.cfg, tc.shape)
			for _, count := range []int{1, 2, 5} {
				obs := randomObs(rng, tc.shape, count)
				logits, values := forward(t, n, obs, count)
				for _, v := range values {
					if !(v >= -1 && v <= 1) {
						t.Fatalf("value %v outside [-1, 1]", v)
					}
				}
				for _, l := range logits {
					if math.IsNaN(float64(l)) || math.IsInf(float64(l), 0) {
						t.Fatalf("non-finite logit %v", l)
					}
				}
				// Each position's output must not depend on the rest of
				// the batch (evaluation mode).
				for i := 0; i < count; i++ {
					l1, v1 := forward(t, n, obs[i*tc.shape.Size():(i+1)*tc.shape.Size()], 1)
					if math.Abs(float64(v1[0]-values[i])) > 1e-5 {
						t.Fatalf("batch %d position %d: value %v alone, %v in batch", count, i, v1[0], values[i])
					}
					for a := range l1 {
						if math.Abs(float64(l1[a]-logits[i*tc.shape.Actions+a])) > 1e-4 {
							t.Fatalf("batch %d position %d action %d: logit %v alone, %v in batch", count, i, a, l1[a], logits[i*tc.shape.Actions+a])
						}
					}
				}
			}
		})
	}
}

func TestNewIsReproducible(t *testing.T) {
	obs := randomObs(rand.New(rand.NewPCG(3, 4)), tinyShape, 3)
	a := newTestNet(t, tinyConfig(), tinyShape)
	b := newTestNet(t, tinyConfig(), tinyShape)
	c, err := New(tinyConfig(), tinyShape, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	la, va := forward(t, a, obs, 3)
	lb, vb := forward(t, b, obs, 3)
	lc, _ := forward(t, c, obs, 3)
	if !equalFloats(la, lb) || !equalFloats(va, vb) {
		t.Fatal("two networks from the same seed differ")
	}
	if equalFloats(la, lc) {
		t.Fatal("networks from different seeds are equal")
	}
}

func equalFloats(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

func TestPadSingleMatchesUnpadded(t *testing.T) {
	cfg := tinyConfig()
	padded := newTestNet(t, cfg, tinyShape)
	cfg.NoPadSingle = true
	plain := newTestNet(t, cfg, tinyShape)
	obs := randomObs(rand.New(rand.NewPCG(5, 6)), tinyShape, 1)
	lp, vp := forward(t, padded, obs, 1)
	lq, vq := forward(t, plain, obs, 1)
	for i := range lp {
		if math.Abs(float64(lp[i]-lq[i])) > 1e-4 {
			t.Fatalf("logit %d: %v padded, %v unpadded", i, lp[i], lq[i])
		}
	}
	if math.Abs(float64(vp[0]-vq[0])) > 1e-5 {
		t.Fatalf("value %v padded, %v unpadded", vp[0], vq[0])
	}
}

func TestForwardErrors(t *testing.T) {
	n := newTestNet(t, tinyConfig(), tinyShape)
	size, na := tinyShape.Size(), tinyShape.Actions
	tests := []struct {
		name                string
		obs, logits, values int
		count               int
		want                string
	}{
		{"zero batch", size, na, 1, 0, "batch of 0 observations"},
		{"short obs", size - 1, na, 1, 1, "needs 60 observation, 7 logit and 1 value slots; got 59, 7 and 1"},
		{"short logits", 2 * size, 2*na - 1, 2, 2, "got 120, 13 and 2"},
		{"short values", 2 * size, 2 * na, 1, 2, "got 120, 14 and 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := n.Forward(make([]float32, tc.obs), tc.count, make([]float32, tc.logits), make([]float32, tc.values))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	n.Close()
	n.Close()
	err := n.Forward(make([]float32, size), 1, make([]float32, na), make([]float32, 1))
	if !errors.Is(err, errClosed) {
		t.Fatalf("Forward after Close: %v", err)
	}
}

func TestForwardDoesNotAllocate(t *testing.T) {
	n := newTestNet(t, tinyConfig(), tinyShape)
	for _, count := range []int{1, 4} {
		obs := randomObs(rand.New(rand.NewPCG(1, 1)), tinyShape, count)
		logits := make([]float32, count*tinyShape.Actions)
		values := make([]float32, count)
		allocs := testing.AllocsPerRun(50, func() {
			if err := n.Forward(obs, count, logits, values); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Fatalf("batch %d: %v allocations per Forward", count, allocs)
		}
	}
}

// TestForwardStagingReuse: batches of changing sizes go through the same
// host buffers (staging), growing and shrinking; every row must come out as
// it does when the position is evaluated alone, whatever the batch before
// left in the buffers.
func TestForwardStagingReuse(t *testing.T) {
	n := newTestNet(t, tinyConfig(), tinyShape)
	rng := rand.New(rand.NewPCG(3, 4))
	size, na := tinyShape.Size(), tinyShape.Actions
	for _, count := range []int{3, 1, 40, 2, 17, 1, 200, 5} {
		obs := randomObs(rng, tinyShape, count)
		logits, values := forward(t, n, obs, count)
		for _, i := range []int{0, count / 2, count - 1} {
			l1, v1 := forward(t, n, obs[i*size:(i+1)*size], 1)
			if d := maxDiff(logits[i*na:(i+1)*na], l1); d > 1e-5 {
				t.Fatalf("batch %d, row %d: logits differ from the row alone by %g", count, i, d)
			}
			if d := maxDiff(values[i:i+1], v1); d > 1e-5 {
				t.Fatalf("batch %d, row %d: value differs from the row alone by %g", count, i, d)
			}
		}
	}
}

func TestWithBoard(t *testing.T) {
	cfg := tinyConfig()
	cfg.PolicyHead = PolicySpatial
	base := newTestNet(t, cfg, Shape{Planes: 3, Height: 5, Width: 5, Actions: 26}) // 25 cells + pass
	rng := rand.New(rand.NewPCG(9, 9))
	for _, side := range []int{3, 5, 7} {
		v, err := base.WithBoard(side, side)
		if err != nil {
			t.Fatalf("WithBoard(%d): %v", side, err)
		}
		if want := (Shape{Planes: 3, Height: side, Width: side, Actions: side*side + 1}); v.Shape() != want {
			t.Fatalf("WithBoard(%d) shape %v, want %v", side, v.Shape(), want)
		}
		forward(t, v, randomObs(rng, v.Shape(), 2), 2)
	}
	dense := newTestNet(t, tinyConfig(), tinyShape)
	if _, err := dense.WithBoard(6, 6); err == nil || !strings.Contains(err.Error(), "tied to its 4x5 board") {
		t.Fatalf("dense WithBoard: %v", err)
	}
}

func TestForwardTMatchesForward(t *testing.T) {
	n := newTestNet(t, tinyConfig(), tinyShape)
	obs := randomObs(rand.New(rand.NewPCG(2, 2)), tinyShape, 3)
	logits, values := forward(t, n, obs, 3)

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := len(ts.ExistingTensors)
	x, err := ts.NewTensorFromData(obs, []int64{3, 3, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	var lt, vt *ts.Tensor
	ts.NoGrad(func() { lt, vt, err = n.ForwardT(x, false) })
	if err != nil {
		t.Fatal(err)
	}
	gotL := make([]float32, len(logits))
	gotV := make([]float32, len(values))
	lt.MustCopyData(gotL, uint(len(gotL)))
	vt.MustCopyData(gotV, uint(len(gotV)))
	if !equalFloats(gotL, logits) || !equalFloats(gotV, values) {
		t.Fatalf("ForwardT differs from Forward:\n%v %v\n%v %v", gotL, gotV, logits, values)
	}
	flat := x.MustView([]int64{3, 60}, false)
	if _, _, err := n.ForwardT(flat, false); err == nil || !strings.Contains(err.Error(), "input shape [3 60]") {
		t.Fatalf("ForwardT with a flat input: %v", err)
	}
	flat.MustDrop()
	x.MustDrop()
	lt.MustDrop()
	vt.MustDrop()
	if after := len(ts.ExistingTensors); after != before {
		t.Fatalf("%d tensors alive before, %d after", before, after)
	}
}

// TestConcurrentUse runs Forward from several goroutines while a trainer
// steps the same network: calls must serialise and grad mode must be per
// call, not leak between threads.
func TestConcurrentUse(t *testing.T) {
	n := newTestNet(t, tinyConfig(), tinyShape)
	tr, err := NewTrainer(n, DefaultTrainConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	batch := fixedBatch(rand.New(rand.NewPCG(4, 4)), tinyShape, 8)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 0))
			logits := make([]float32, 2*tinyShape.Actions)
			values := make([]float32, 2)
			for i := 0; i < 100; i++ {
				if err := n.Forward(randomObs(rng, tinyShape, 2), 2, logits, values); err != nil {
					errs <- err
					return
				}
				runtime.Gosched()
			}
		}(g)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 20; i++ {
			if _, err := tr.Step(batch); err != nil {
				errs <- err
				return
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	// Grad mode must be back on for threads that ran Forward.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if prev := lib.SetGradEnabled(true); !prev {
		t.Fatal("grad mode left off on this thread")
	}
}

func TestClone(t *testing.T) {
	n := newTestNet(t, tinyConfig(), tinyShape)
	obs := randomObs(rand.New(rand.NewPCG(8, 8)), tinyShape, 4)
	c, err := n.Clone()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	l0, v0 := forward(t, n, obs, 4)
	lc, vc := forward(t, c, obs, 4)
	if !equalFloats(l0, lc) || !equalFloats(v0, vc) {
		t.Fatal("clone computes something else")
	}
	tr, err := NewTrainer(n, DefaultTrainConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if _, err := tr.Step(fixedBatch(rand.New(rand.NewPCG(1, 1)), tinyShape, 8)); err != nil {
		t.Fatal(err)
	}
	l1, _ := forward(t, n, obs, 4)
	lc2, _ := forward(t, c, obs, 4)
	if equalFloats(l0, l1) {
		t.Fatal("training step changed nothing")
	}
	if !equalFloats(lc, lc2) {
		t.Fatal("training the original changed the clone")
	}
}

// TestCloneThreadsInParallel runs two single-threaded copies of a network
// at the same time, as the self-play batcher's workers do: each must compute
// what the original computes.
func TestCloneThreadsInParallel(t *testing.T) {
	n := newTestNet(t, tinyConfig(), tinyShape)
	obs := randomObs(rand.New(rand.NewPCG(9, 9)), tinyShape, 8)
	wantL, wantV := forward(t, n, obs, 8)
	clones, err := n.Copies(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range clones {
		defer c.Close()
		if c.Config().Threads != 1 {
			t.Fatalf("copy threads %d, want 1", c.Config().Threads)
		}
	}
	near := func(a, b []float32) bool {
		for i := range a {
			if math.Abs(float64(a[i]-b[i])) > 1e-4 {
				return false
			}
		}
		return len(a) == len(b)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 2*20)
	for _, c := range clones {
		wg.Go(func() {
			for range 20 {
				l := make([]float32, 8*tinyShape.Actions)
				v := make([]float32, 8)
				if err := c.Forward(obs, 8, l, v); err != nil {
					errs <- err
					return
				}
				if !near(l, wantL) || !near(v, wantV) {
					errs <- errors.New("a single-threaded clone computes something else")
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestBLASSingleThreaded: building a network leaves OpenBLAS (when libtorch
// uses it) at one thread per call.
func TestBLASSingleThreaded(t *testing.T) {
	n := newTestNet(t, tinyConfig(), tinyShape)
	_ = n
	if got := BLASThreads(); got != 1 && got != -1 {
		t.Fatalf("OpenBLAS uses %d threads per call after building a network, want 1", got)
	}
}
