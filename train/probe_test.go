package train

import (
	"math"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/model/torch"
)

// constNet returns fixed logits and values for every position.
type constNet struct {
	logits []float32 // per action
	values []float32 // per row
}

func (c constNet) Forward(obs []float32, n int, logits, values []float32) error {
	for i := range n {
		copy(logits[i*len(c.logits):], c.logits)
		values[i] = c.values[i]
	}
	return nil
}

func TestProbe(t *testing.T) {
	shape := torch.Shape{Planes: 1, Height: 1, Width: 1, Actions: 4}
	for _, tc := range []struct {
		name         string
		logits       []float32
		mask         []float32 // 2 rows of 4
		values       []float32 // predictions
		targets      []float32
		wantEntropy  float64
		wantAccuracy float64
	}{
		{"uniform over two legal", []float32{0, 0, 5, 5}, []float32{1, 1, 0, 0, 1, 1, 0, 0}, []float32{0.5, -0.5}, []float32{1, 1},
			math.Log(2), 0.5},
		{"one legal action", []float32{1, 2, 3, 4}, []float32{0, 0, 1, 0, 0, 1, 0, 0}, []float32{0.2, -0.1}, []float32{1, -1},
			0, 1},
		{"draws are not decisive", []float32{0, 0, 0, 0}, []float32{1, 1, 1, 1, 1, 1, 1, 1}, []float32{0.9, 0.9}, []float32{0, -1},
			math.Log(4), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p probe
			b := data.Batch{Obs: make([]float32, 2), Mask: tc.mask, Value: tc.targets}
			ent, acc, err := p.run(constNet{tc.logits, tc.values}, b, 2, shape)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(ent-tc.wantEntropy) > 1e-5 || math.Abs(acc-tc.wantAccuracy) > 1e-9 {
				t.Fatalf("entropy %v accuracy %v, want %v and %v", ent, acc, tc.wantEntropy, tc.wantAccuracy)
			}
		})
	}
}

func TestHelpers(t *testing.T) {
	if d := firstDifference("a\nb\nc", "a\nb\nc"); d != "" {
		t.Fatalf("equal texts: %q", d)
	}
	if d := firstDifference("a\nb: 1\n", "a\nb: 2\n"); d == "" || !contains(d, "line 2") {
		t.Fatalf("difference: %q", d)
	}
	if d := firstDifference("a", "a\nextra"); !contains(d, "line 2") {
		t.Fatalf("longer text: %q", d)
	}
	for in, want := range map[string]string{"random": "random", "alphabeta:depth=2": "alphabeta_depth_2", "MCTS:sims=8": "mcts_sims_8"} {
		if got := metricName(in); got != want {
			t.Errorf("metricName(%q) = %q, want %q", in, got, want)
		}
	}
	seen := map[uint64]string{}
	for _, p := range []string{"buffer", "eval"} {
		for n := range uint64(1000) {
			s := deriveSeed(1, p, n)
			if prev, ok := seen[s]; ok {
				t.Fatalf("deriveSeed collision: %s/%d and %s", p, n, prev)
			}
			seen[s] = p
		}
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
