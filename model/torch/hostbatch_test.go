package torch

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestNewBatchTrainsAsACopy: steps on NewBatch's batches (with and
// without a mask) give the losses and gradient norms that the same
// examples give in ordinary slices, without the trainer's copy buffer,
// and a batch that is resliced falls back to the copy.
func TestNewBatchTrainsAsACopy(t *testing.T) {
	checkNewBatch(t, "cpu", 0)
}

// TestCUDANewBatchTrainsAsACopy is the same on a GPU, where the batch's
// memory is page-locked, within TF32's bounds.
func TestCUDANewBatchTrainsAsACopy(t *testing.T) {
	needCUDA(t)
	checkNewBatch(t, "cuda", 1e-3)
}

func checkNewBatch(t *testing.T, device string, tol float64) {
	pair := func(owned bool) (*Trainer, *Trainer) {
		cfg, tc := tinyConfig(), DefaultTrainConfig()
		if owned {
			cfg, tc = ownedConfig(), ownershipTrainConfig(1)
		}
		cfg.Device = device
		var trs [2]*Trainer
		for i := range trs {
			tr, err := NewTrainer(newTestNet(t, cfg, tinyShape), tc)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(tr.Close)
			trs[i] = tr
		}
		return trs[0], trs[1]
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= tol*(1+math.Abs(b)) }
	// The ownership case checks that NewBatch's memory holds the
	// ownership targets where the trainer reads them.
	for _, c := range []struct{ masked, owned bool }{{true, false}, {false, false}, {true, true}} {
		masked := c.masked
		ref, tr := pair(c.owned)
		const n = 12
		cells := tinyShape.Height * tinyShape.Width
		var hbs [2]Batch
		for i := range hbs {
			b, err := tr.NewBatch(n)
			if err != nil {
				t.Fatal(err)
			}
			if len(b.Obs) != n*tinyShape.Size() || len(b.Policy) != n*tinyShape.Actions || len(b.Value) != n || len(b.Legal) != n*tinyShape.Actions {
				t.Fatalf("NewBatch(%d): lengths %d %d %d %d", n, len(b.Obs), len(b.Policy), len(b.Value), len(b.Legal))
			}
			want := 0
			if c.owned {
				want = n * cells
			}
			if len(b.Ownership) != want {
				t.Fatalf("NewBatch(%d) of a trainer with ownership loss %v: %d ownership values, want %d", n, c.owned, len(b.Ownership), want)
			}
			if !masked {
				b.Legal = nil
			}
			hbs[i] = b
		}
		rng := rand.New(rand.NewPCG(5, 6))
		for step := range 6 {
			src := fixedBatch(rng, tinyShape, n)
			if !masked {
				src.Legal = nil
			}
			if c.owned {
				src = withOwnership(src, tinyShape)
			}
			hb := hbs[step%2]
			copy(hb.Obs, src.Obs)
			copy(hb.Policy, src.Policy)
			copy(hb.Value, src.Value)
			copy(hb.Legal, src.Legal)
			copy(hb.Ownership, src.Ownership)
			want, err := ref.Step(src)
			if err != nil {
				t.Fatal(err)
			}
			got, err := tr.Step(hb)
			if err != nil {
				t.Fatal(err)
			}
			if !near(got.Total, want.Total) || !near(got.Value, want.Value) || !near(got.Ownership, want.Ownership) || !near(got.GradNorm, want.GradNorm) {
				t.Fatalf("masked %v, step %d: losses %+v from NewBatch's memory, %+v from a copy", masked, step, got, want)
			}
		}
		if tr.stage.inCap != 0 {
			t.Errorf("masked %v: the trainer allocated its copy buffer (%d floats) for NewBatch's batches", masked, tr.stage.inCap)
		}
		// A resliced batch is not the trainer's layout any more: it is
		// copied, and trains as its contents say.
		short := Batch{N: n - 1, Obs: hbs[0].Obs[tinyShape.Size():], Policy: hbs[0].Policy[tinyShape.Actions:], Value: hbs[0].Value[1:]}
		if c.owned {
			short.Ownership = hbs[0].Ownership[cells:]
		}
		want, err := ref.Loss(short)
		if err != nil {
			t.Fatal(err)
		}
		got, err := tr.Loss(short)
		if err != nil {
			t.Fatal(err)
		}
		if !near(got.Total, want.Total) || tr.stage.inCap == 0 {
			t.Errorf("masked %v: resliced batch: loss %v, want %v (copy buffer %d floats)", masked, got.Total, want.Total, tr.stage.inCap)
		}
	}

	_, tr := pair(false)
	if _, err := tr.NewBatch(0); err == nil || !strings.Contains(err.Error(), "0 examples") {
		t.Errorf("NewBatch(0): error %v", err)
	}
	tr.Close()
	if _, err := tr.NewBatch(4); err == nil {
		t.Error("NewBatch after Close: no error")
	}
}
