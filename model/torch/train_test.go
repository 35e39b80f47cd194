package torch

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// fixedBatch returns count random examples for shape s: random binary
// observations, a random legal subset of actions with a soft target on it,
// and a random value in {-1, 0, 1}.
func fixedBatch(rng *rand.Rand, s Shape, count int) Batch {
	b := Batch{
		N:      count,
		Obs:    randomObs(rng, s, count),
		Policy: make([]float32, count*s.Actions),
		Value:  make([]float32, count),
		Legal:  make([]bool, count*s.Actions),
	}
	for i := 0; i < count; i++ {
		row := b.Policy[i*s.Actions : (i+1)*s.Actions]
		legal := b.Legal[i*s.Actions : (i+1)*s.Actions]
		sum := float32(0)
		for a := range row {
			if a == 0 || rng.IntN(2) == 0 {
				legal[a] = true
				row[a] = float32(rng.IntN(4))
				sum += row[a]
			}
		}
		if sum == 0 {
			row[0], sum = 1, 1
		}
		for a := range row {
			row[a] /= sum
		}
		b.Value[i] = float32(rng.IntN(3) - 1)
	}
	return b
}

// targetEntropy is the mean entropy of the batch's policy targets: the
// lowest policy loss possible.
func targetEntropy(b Batch, actions int) float64 {
	h := 0.0
	for _, p := range b.Policy {
		if p > 0 {
			h -= float64(p) * math.Log(float64(p))
		}
	}
	return h / float64(b.N)
}

func TestOverfitFixedBatch(t *testing.T) {
	sgd := DefaultTrainConfig()
	sgd.Optimizer, sgd.Schedule.LearningRate, sgd.Nesterov, sgd.WeightDecay = OptimizerSGD, 0.05, true, 1e-4
	adamw := DefaultTrainConfig()
	adamw.Schedule = Schedule{Kind: ScheduleCosine, LearningRate: 1e-2, WarmupSteps: 10, TotalSteps: 300, MinLearningRate: 1e-3}
	adam := DefaultTrainConfig()
	adam.Optimizer, adam.Schedule.LearningRate, adam.WeightDecay, adam.GradClipNorm = OptimizerAdam, 5e-3, 1e-4, 1
	spatial := tinyConfig()
	spatial.PolicyHead = PolicySpatial
	bf16 := tinyConfig()
	bf16.Precision = PrecisionBFloat16
	tests := []struct {
		name  string
		cfg   Config
		shape Shape
		train TrainConfig
		steps int
	}{
		{"adamw cosine", tinyConfig(), tinyShape, adamw, 150},
		{"adam clipped", tinyConfig(), tinyShape, adam, 150},
		{"sgd nesterov", tinyConfig(), tinyShape, sgd, 150},
		{"spatial adamw", spatial, Shape{Planes: 3, Height: 3, Width: 3, Actions: 10}, adamw, 150},
		{"adamw bf16", bf16, tinyShape, adamw, 150},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := newTestNet(t, tc.cfg, tc.shape)
			tr, err := NewTrainer(n, tc.train)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			b := fixedBatch(rand.New(rand.NewPCG(11, 12)), tc.shape, 16)
			floor := targetEntropy(b, tc.shape.Actions)
			first, err := tr.Loss(b)
			if err != nil {
				t.Fatal(err)
			}
			var last Losses
			for i := 0; i < tc.steps; i++ {
				if last, err = tr.Step(b); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if i == 0 && (last.GradNorm <= 0 || last.LearningRate <= 0) {
					t.Fatalf("step 0 reports grad norm %v and learning rate %v", last.GradNorm, last.LearningRate)
				}
			}
			final, err := tr.Loss(b)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("policy %.3f -> %.3f (floor %.3f), value %.3f -> %.3f; last training step %+v",
				first.Policy, final.Policy, floor, first.Value, final.Value, last)
			if final.Policy-floor > 0.1 {
				t.Errorf("policy loss %.3f did not approach the target entropy %.3f", final.Policy, floor)
			}
			if final.Value > 0.05 {
				t.Errorf("value loss %.3f did not fall below 0.05", final.Value)
			}
			if math.Abs(final.Total-(final.Policy+final.Value)) > 1e-4 {
				t.Errorf("total %v is not policy + value (%v + %v)", final.Total, final.Policy, final.Value)
			}
			if got := tr.StepCount(); got != int64(tc.steps) {
				t.Errorf("StepCount %d, want %d", got, tc.steps)
			}
		})
	}
}

func TestMaskedLogitsDoNotCount(t *testing.T) {
	n := newTestNet(t, tinyConfig(), tinyShape)
	tr, err := NewTrainer(n, DefaultTrainConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	b := fixedBatch(rand.New(rand.NewPCG(1, 3)), tinyShape, 4)
	masked, err := tr.Loss(b)
	if err != nil {
		t.Fatal(err)
	}
	b.Legal = nil
	unmasked, err := tr.Loss(b)
	if err != nil {
		t.Fatal(err)
	}
	// Masking removes probability mass from illegal actions, so the
	// cross-entropy on legal targets can only fall.
	if !(masked.Policy < unmasked.Policy) {
		t.Fatalf("masked policy loss %v not below unmasked %v", masked.Policy, unmasked.Policy)
	}
	// With every action legal, the mask changes nothing.
	b.Legal = make([]bool, b.N*tinyShape.Actions)
	for i := range b.Legal {
		b.Legal[i] = true
	}
	all, err := tr.Loss(b)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(all.Policy-unmasked.Policy) > 1e-6 {
		t.Fatalf("all-legal mask gives %v, no mask %v", all.Policy, unmasked.Policy)
	}
}

func TestStepErrors(t *testing.T) {
	n := newTestNet(t, tinyConfig(), tinyShape)
	tr, err := NewTrainer(n, DefaultTrainConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	good := fixedBatch(rand.New(rand.NewPCG(1, 1)), tinyShape, 2)
	tests := []struct {
		name   string
		modify func(b *Batch)
		want   string
	}{
		{"empty", func(b *Batch) { b.N = 0 }, "batch of 0 examples"},
		{"short obs", func(b *Batch) { b.Obs = b.Obs[1:] }, "Obs has 119 values, want 120 (60 each)"},
		{"short policy", func(b *Batch) { b.Policy = b.Policy[:3] }, "Policy has 3 values, want 14 (7 each)"},
		{"long value", func(b *Batch) { b.Value = append(b.Value, 0) }, "Value has 3 values, want 2 (1 each)"},
		{"short mask", func(b *Batch) { b.Legal = b.Legal[:1] }, "Legal has 1 values, want 14"},
		{"other board on dense", func(b *Batch) { b.Height, b.Width = 5, 5 }, "tied to its 4x5 board"},
		{"nan value", func(b *Batch) { b.Value = []float32{float32(math.NaN()), 0} }, "non-finite loss"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := good
			b.Obs = append([]float32(nil), good.Obs...)
			b.Value = append([]float32(nil), good.Value...)
			tc.modify(&b)
			before := tr.StepCount()
			_, err := tr.Step(b)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
			if tr.StepCount() != before {
				t.Fatal("a failed step was counted")
			}
		})
	}
	// The trainer still works after the failures.
	if _, err := tr.Step(good); err != nil {
		t.Fatalf("step after errors: %v", err)
	}
}

func TestSetLearningRate(t *testing.T) {
	n := newTestNet(t, tinyConfig(), tinyShape)
	cfg := DefaultTrainConfig()
	cfg.Schedule = Schedule{Kind: ScheduleStep, LearningRate: 0.1, StepEvery: 1, StepFactor: 0.5}
	tr, err := NewTrainer(n, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	b := fixedBatch(rand.New(rand.NewPCG(1, 1)), tinyShape, 2)
	want := []float64{0.1, 0.05, 0.3, 0.3, 0.1 / 16} // back on the schedule at step 4
	for i, w := range want {
		switch i {
		case 2:
			if err := tr.SetLearningRate(0.3); err != nil {
				t.Fatal(err)
			}
		case 4:
			if err := tr.SetLearningRate(0); err != nil {
				t.Fatal(err)
			}
		}
		if got := tr.LearningRate(); math.Abs(got-w) > 1e-12 {
			t.Fatalf("step %d: LearningRate %v, want %v", i, got, w)
		}
		l, err := tr.Step(b)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(l.LearningRate-w) > 1e-12 {
			t.Fatalf("step %d used rate %v, want %v", i, l.LearningRate, w)
		}
	}
	if err := tr.SetLearningRate(-1); err == nil {
		t.Fatal("negative learning rate accepted")
	}
}

func TestTrainSeveralBoardSizes(t *testing.T) {
	cfg := tinyConfig()
	cfg.PolicyHead = PolicySpatial
	n := newTestNet(t, cfg, Shape{Planes: 3, Height: 4, Width: 4, Actions: 17})
	tr, err := NewTrainer(n, DefaultTrainConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	rng := rand.New(rand.NewPCG(5, 5))
	for _, side := range []int{3, 4, 6} {
		s := Shape{Planes: 3, Height: side, Width: side, Actions: side*side + 1}
		b := fixedBatch(rng, s, 4)
		b.Height, b.Width = side, side
		if _, err := tr.Step(b); err != nil {
			t.Fatalf("%dx%d: %v", side, side, err)
		}
	}
}
