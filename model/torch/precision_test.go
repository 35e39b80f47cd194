package torch

import (
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// TestBFloat16Forward checks mixed precision against float32 on the same
// weights: close (bfloat16 keeps 8 bits of mantissa) but not identical (the
// convolutions really ran in bfloat16), and a float32 network evaluated on
// the same OS thread afterwards is unaffected (autocast is thread state).
func TestBFloat16Forward(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, tc := range []struct {
		name  string
		cfg   Config
		shape Shape
	}{
		{"dense", tinyConfig(), tinyShape},
		{"spatial", Config{Blocks: 2, Channels: 16, PolicyHead: PolicySpatial, PolicyPlanes: 2, ValueMaxPool: true, OwnershipHead: true},
			Shape{Planes: 3, Height: 4, Width: 4, Actions: 33}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			full := newTestNet(t, tc.cfg, tc.shape)
			obs := randomObs(rand.New(rand.NewPCG(3, 4)), tc.shape, 6)
			wantL, wantV := forward(t, full, obs, 6)

			mixed, err := full.CloneThreads(1)
			if err != nil {
				t.Fatal(err)
			}
			defer mixed.Close()
			mixed.c.cfg.Precision = PrecisionBFloat16
			gotL, gotV := forward(t, mixed, obs, 6)
			maxDiff, same := 0.0, true
			for i := range wantL {
				maxDiff = math.Max(maxDiff, math.Abs(float64(gotL[i]-wantL[i])))
				same = same && gotL[i] == wantL[i]
			}
			for i := range wantV {
				maxDiff = math.Max(maxDiff, math.Abs(float64(gotV[i]-wantV[i])))
				same = same && gotV[i] == wantV[i]
			}
			t.Logf("largest difference between bf16 and fp32 outputs: %.4f", maxDiff)
			if same {
				t.Error("bf16 outputs are bitwise the fp32 ones: autocast did not run")
			}
			if maxDiff > 0.1 {
				t.Errorf("bf16 outputs differ from fp32 by %.4f (want < 0.1)", maxDiff)
			}

			againL, againV := forward(t, full, obs, 6)
			for i := range wantL {
				if againL[i] != wantL[i] {
					t.Fatalf("fp32 logit %d changed after a bf16 forward on this thread: %v, was %v", i, againL[i], wantL[i])
				}
			}
			for i := range wantV {
				if againV[i] != wantV[i] {
					t.Fatalf("fp32 value %d changed after a bf16 forward on this thread: %v, was %v", i, againV[i], wantV[i])
				}
			}
		})
	}
}

func TestPrecisionValidated(t *testing.T) {
	cfg := onCPUUnlessSet(tinyConfig())
	cfg.Precision = "fp16"
	_, err := New(cfg, tinyShape, 1)
	if err == nil || !strings.Contains(err.Error(), "precision") {
		t.Fatalf("New with precision fp16: error %v, want one naming precision", err)
	}
	for _, p := range []string{"", PrecisionFloat32, PrecisionBFloat16} {
		cfg.Precision = p
		n, err := New(cfg, tinyShape, 1)
		if err != nil {
			t.Fatalf("precision %q: %v", p, err)
		}
		n.Close()
	}
}
