package torch

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// ownedConfig is tinyConfig with an ownership head.
func ownedConfig() Config {
	c := tinyConfig()
	c.OwnershipHead = true
	return c
}

// ownershipTrainConfig trains the ownership head at weight w.
func ownershipTrainConfig(w float64) TrainConfig {
	c := DefaultTrainConfig()
	c.Schedule.LearningRate = 1e-2
	c.OwnershipLossWeight = w
	return c
}

// withOwnership adds ownership targets to b that its observations decide:
// +1 where plane 0 is set, else -1 where plane 1 is set, else 0, so that a
// network can learn them exactly.
func withOwnership(b Batch, s Shape) Batch {
	cells := s.Height * s.Width
	b.Ownership = make([]float32, b.N*cells)
	for i := range b.N {
		obs := b.Obs[i*s.Size() : (i+1)*s.Size()]
		for c := range cells {
			switch {
			case obs[c] != 0:
				b.Ownership[i*cells+c] = 1
			case obs[cells+c] != 0:
				b.Ownership[i*cells+c] = -1
			}
		}
	}
	return b
}

// TestOwnershipHeadLearns trains the ownership head on a fixed batch: its
// loss must fall well below where it starts, and the total loss must be
// policy + value + weight * ownership.
func TestOwnershipHeadLearns(t *testing.T) {
	const w = 1.5
	n := newTestNet(t, ownedConfig(), tinyShape)
	tr, err := NewTrainer(n, ownershipTrainConfig(w))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	b := withOwnership(fixedBatch(rand.New(rand.NewPCG(4, 5)), tinyShape, 16), tinyShape)
	first, err := tr.Loss(b)
	if err != nil {
		t.Fatal(err)
	}
	if !(first.Ownership > 0.1) {
		t.Fatalf("ownership loss of a fresh network %v, want it clearly above 0", first.Ownership)
	}
	for i := range 150 {
		if _, err := tr.Step(b); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	final, err := tr.Loss(b)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ownership %.4f -> %.4f, policy %.3f -> %.3f, value %.3f -> %.3f", first.Ownership, final.Ownership, first.Policy, final.Policy, first.Value, final.Value)
	if final.Ownership > first.Ownership/4 || final.Ownership > 0.05 {
		t.Errorf("ownership loss fell from %.4f only to %.4f", first.Ownership, final.Ownership)
	}
	for _, l := range []Losses{first, final} {
		if want := l.Policy + l.Value + w*l.Ownership; math.Abs(l.Total-want) > 1e-4 {
			t.Errorf("total %v is not policy + value + %v * ownership (%v)", l.Total, w, want)
		}
	}
}

// TestOwnershipHeadOnlyTrainsWithItsLoss checks that a network with an
// ownership head trained without the loss learns exactly what the same
// network without the head learns: the head adds parameters, not
// gradients, and play never reads it.
func TestOwnershipHeadOnlyTrainsWithItsLoss(t *testing.T) {
	plain := newTestNet(t, tinyConfig(), tinyShape)
	owned := newTestNet(t, ownedConfig(), tinyShape)
	if got, want := owned.NumParams(), plain.NumParams()+tinyConfig().Channels+1; got != want {
		t.Fatalf("%d parameters with the ownership head, want %d (a 1x1 convolution to one plane and its bias)", got, want)
	}
	var losses [2][]float64
	for k, n := range []*Net{plain, owned} {
		tr, err := NewTrainer(n, DefaultTrainConfig())
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		b := fixedBatch(rand.New(rand.NewPCG(8, 9)), tinyShape, 8)
		for range 5 {
			l, err := tr.Step(b)
			if err != nil {
				t.Fatal(err)
			}
			if l.Ownership != 0 {
				t.Fatalf("ownership loss %v without ownership_loss_weight", l.Ownership)
			}
			losses[k] = append(losses[k], l.Total)
		}
	}
	// Both networks draw the shared tensors from the same generator in the
	// same order (the head comes last), so they start and stay equal.
	for i := range losses[0] {
		if math.Abs(losses[0][i]-losses[1][i]) > 1e-5 {
			t.Fatalf("step %d: loss %v with the head, %v without", i, losses[1][i], losses[0][i])
		}
	}
	obs := randomObs(rand.New(rand.NewPCG(1, 2)), tinyShape, 3)
	l0, v0 := forward(t, plain, obs, 3)
	l1, v1 := forward(t, owned, obs, 3)
	if !equalFloats(l0, l1) || !equalFloats(v0, v1) {
		t.Fatal("the ownership head changed what Forward computes")
	}
}

func TestOwnershipErrors(t *testing.T) {
	if _, err := NewTrainer(newTestNet(t, tinyConfig(), tinyShape), ownershipTrainConfig(1)); err == nil || !strings.Contains(err.Error(), "ownership head") {
		t.Errorf("ownership loss on a network without the head: error %v", err)
	}
	bad := ownershipTrainConfig(-1)
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "ownership_loss_weight") {
		t.Errorf("negative ownership_loss_weight: error %v", err)
	}
	tr, err := NewTrainer(newTestNet(t, ownedConfig(), tinyShape), ownershipTrainConfig(1))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	good := withOwnership(fixedBatch(rand.New(rand.NewPCG(1, 1)), tinyShape, 2), tinyShape)
	for _, tc := range []struct {
		name   string
		modify func(b *Batch)
		want   string
	}{
		{"no targets", func(b *Batch) { b.Ownership = nil }, "no Ownership targets"},
		{"short targets", func(b *Batch) { b.Ownership = b.Ownership[1:] }, "Ownership has 39 values, want 40 (20 each)"},
		{"nan target", func(b *Batch) { b.Ownership = append([]float32{float32(math.NaN())}, b.Ownership[1:]...) }, "non-finite loss"},
	} {
		b := good
		tc.modify(&b)
		if _, err := tr.Step(b); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
	if tr.StepCount() != 0 {
		t.Fatal("a failed step was counted")
	}
	plain, err := NewTrainer(newTestNet(t, ownedConfig(), tinyShape), DefaultTrainConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := plain.Step(good); err == nil || !strings.Contains(err.Error(), "no ownership loss") {
		t.Errorf("ownership targets without the loss: error %v", err)
	}
}
