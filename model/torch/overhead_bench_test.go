//go:build torchref

package torch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"

	lib "github.com/sugarme/gotch/libtch"
	"github.com/zerokit/zerokit/model/torch/internal/torchref"
)

// refNet wraps n's parameters for the C++ reference forward pass.
func refNet(n *Net) *torchref.Net {
	var hs []unsafe.Pointer
	for _, t := range n.c.st.tensors {
		hs = append(hs, unsafe.Pointer(t.h))
	}
	r := torchref.New(hs)
	cfg := n.c.cfg
	r.Blocks, r.Spatial, r.MaxPool = cfg.Blocks, cfg.PolicyHead == PolicySpatial, cfg.ValueMaxPool
	r.Planes, r.H, r.W, r.A = n.shape.Planes, n.shape.Height, n.shape.Width, n.shape.Actions
	return r
}

// TestReferenceMatches checks the C++ reference computes what Forward does,
// so that the overhead benchmark compares equal work.
func TestReferenceMatches(t *testing.T) {
	spatial := tinyConfig()
	spatial.PolicyHead, spatial.ValueMaxPool = PolicySpatial, true
	for _, tc := range []struct {
		cfg   Config
		shape Shape
	}{{tinyConfig(), tinyShape}, {spatial, Shape{Planes: 3, Height: 4, Width: 4, Actions: 17}}} {
		tc.cfg.NoPadSingle = true
		n := newTestNet(t, tc.cfg, tc.shape)
		r := refNet(n)
		defer r.Close()
		obs := randomObs(rand.New(rand.NewPCG(1, 1)), tc.shape, 3)
		l0, v0 := forward(t, n, obs, 3)
		l1 := make([]float32, len(l0))
		v1 := make([]float32, len(v0))
		if err := r.Forward(obs, 3, l1, v1); err != nil {
			t.Fatal(err)
		}
		for i := range l0 {
			if math.Abs(float64(l0[i]-l1[i])) > 1e-5 {
				t.Fatalf("logit %d: %v, reference %v", i, l0[i], l1[i])
			}
		}
		for i := range v0 {
			if math.Abs(float64(v0[i]-v1[i])) > 1e-6 {
				t.Fatalf("value %d: %v, reference %v", i, v0[i], v1[i])
			}
		}
	}
}

// BenchmarkOverhead compares Forward with the same forward pass written in
// C++ (one cgo call), at equal batch (no padding) and one intra-op thread.
// The two alternate call by call, so that load from other processes hits
// both alike. Reported per call: the minimum (the cost without
// interference) and the median of each, and the Go side's overhead in
// percent for both statistics.
//
//	go test ./model/ -tags torchref -run '^$' -bench Overhead -benchtime 200x
func BenchmarkOverhead(b *testing.B) {
	// tiny is so small that libtorch's own per-op cost dominates: the
	// worst case for the relative overhead of the Go side.
	archs := append(benchArchs, struct {
		name string
		cfg  Config
	}{"tiny", Config{Blocks: 1, Channels: 16, PolicyChannels: 2, ValueChannels: 2, ValueHidden: 8}})
	for _, arch := range archs {
		cfg := arch.cfg
		cfg.NoPadSingle = true
		n := benchNet(b, cfg, 1)
		r := refNet(n)
		b.Cleanup(r.Close)
		for _, batch := range []int{1, 2, 8, 64} {
			obs := randomObs(rand.New(rand.NewPCG(1, 2)), wybShape, batch)
			logits := make([]float32, batch*wybShape.Actions)
			values := make([]float32, batch)
			b.Run(fmt.Sprintf("%s/batch=%d", arch.name, batch), func(b *testing.B) {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				lib.SetNumThreads(1)
				goTimes := make([]time.Duration, 0, b.N)
				cppTimes := make([]time.Duration, 0, b.N)
				for range b.N {
					t0 := time.Now()
					if err := n.Forward(obs, batch, logits, values); err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					if err := r.Forward(obs, batch, logits, values); err != nil {
						b.Fatal(err)
					}
					t2 := time.Now()
					goTimes = append(goTimes, t1.Sub(t0))
					cppTimes = append(cppTimes, t2.Sub(t1))
				}
				g, c := slices.Min(goTimes).Seconds(), slices.Min(cppTimes).Seconds()
				b.ReportMetric(g*1e3, "go-min-ms")
				b.ReportMetric(c*1e3, "cpp-min-ms")
				b.ReportMetric(100*(g-c)/c, "min-overhead-%")
				gm, cm := medianOf(goTimes).Seconds(), medianOf(cppTimes).Seconds()
				b.ReportMetric(gm*1e3, "go-med-ms")
				b.ReportMetric(cm*1e3, "cpp-med-ms")
				b.ReportMetric(100*(gm-cm)/cm, "med-overhead-%")
			})
		}
	}
}
