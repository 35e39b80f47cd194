package torch

import (
	"bytes"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/sugarme/gotch/ts"
)

// residentBytes reads the process's resident set size from /proc.
func residentBytes(t testing.TB) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("no /proc/self/statm: %v", err)
	}
	f := bytes.Fields(b)
	if len(f) < 2 {
		t.Fatalf("statm: %q", b)
	}
	pages, err := strconv.ParseInt(string(f[1]), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}

// checkNoGrowth runs fn rounds*perRound times and fails if resident memory
// or the number of live gotch tensors keeps growing: after a warm-up round,
// growth over the remaining rounds must stay under limit bytes.
//
// The goroutine stays on one OS thread: every new thread that runs libtorch
// ops gets its own malloc arena and OpenMP team, which adds a few MB that
// stop growing once the runtime has made all its threads, but would blur a
// small leak.
func checkNoGrowth(t *testing.T, rounds, perRound int, limit int64, fn func()) {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i := 0; i < perRound; i++ {
		fn()
	}
	runtime.GC()
	rss0, tensors0 := residentBytes(t), len(ts.ExistingTensors)
	for r := 1; r < rounds; r++ {
		for i := 0; i < perRound; i++ {
			fn()
		}
	}
	runtime.GC()
	rss1, tensors1 := residentBytes(t), len(ts.ExistingTensors)
	t.Logf("%d calls after warm-up: resident %d -> %d KB, live gotch tensors %d -> %d",
		(rounds-1)*perRound, rss0>>10, rss1>>10, tensors0, tensors1)
	if tensors1 > tensors0 {
		t.Errorf("live gotch tensors grew from %d to %d", tensors0, tensors1)
	}
	if rss1-rss0 > limit {
		t.Errorf("resident memory grew by %d KB (limit %d KB)", (rss1-rss0)>>10, limit>>10)
	}
}

// The limits are far below what one leaked activation per call would cost
// (batch 16 x 32 channels x 8x8 floats = 128 KB; 3000 calls = 384 MB), and
// below one leaked handle per op (~40 ops x 32 bytes x 3000 calls = 4 MB).

func TestInferenceDoesNotLeak(t *testing.T) {
	n := newTestNet(t, Config{Blocks: 2, Channels: 32}, Shape{Planes: 4, Height: 8, Width: 8, Actions: 65})
	rng := rand.New(rand.NewPCG(1, 2))
	obs := randomObs(rng, n.Shape(), 16)
	logits := make([]float32, 16*n.Shape().Actions)
	values := make([]float32, 16)
	count := 0
	checkNoGrowth(t, 6, 500, 2<<20, func() {
		count = count%16 + 1 // batch sizes 1..16, padded and not
		if err := n.Forward(obs, count, logits, values); err != nil {
			t.Fatal(err)
		}
	})
}

func TestForwardTDoesNotLeak(t *testing.T) {
	n := newTestNet(t, Config{Blocks: 2, Channels: 32}, Shape{Planes: 4, Height: 8, Width: 8, Actions: 65})
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	obs := randomObs(rand.New(rand.NewPCG(1, 2)), n.Shape(), 8)
	x, err := ts.NewTensorFromData(obs, []int64{8, 4, 8, 8})
	if err != nil {
		t.Fatal(err)
	}
	defer x.MustDrop()
	checkNoGrowth(t, 4, 250, 2<<20, func() {
		var l, v *ts.Tensor
		var err error
		ts.NoGrad(func() { l, v, err = n.ForwardT(x, false) })
		if err != nil {
			t.Fatal(err)
		}
		l.MustDrop()
		v.MustDrop()
	})
}

func TestTrainingDoesNotLeak(t *testing.T) {
	// One leaked activation per step is 8 x 16 x 8x8 floats = 32 KB, or
	// 9.6 MB over 300 steps.
	shape := Shape{Planes: 4, Height: 8, Width: 8, Actions: 65}
	n := newTestNet(t, Config{Blocks: 1, Channels: 16}, shape)
	tr, err := NewTrainer(n, DefaultTrainConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	b := fixedBatch(rand.New(rand.NewPCG(3, 4)), shape, 8)
	checkNoGrowth(t, 4, 100, 2<<20, func() {
		if _, err := tr.Step(b); err != nil {
			t.Fatal(err)
		}
	})
}
