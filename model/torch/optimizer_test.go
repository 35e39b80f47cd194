package torch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	lib "github.com/sugarme/gotch/libtch"
	"github.com/zerokit/zerokit/model/arch"
)

// refOptimizer is the per-parameter optimizer the trainer's flat update
// must match: clipping by the global norm, weight decay on the weights
// only, and SGD, Adam or AdamW, each parameter tensor on its own, in
// float64 on the host.
type refOptimizer struct {
	cfg   TrainConfig
	step  int
	slots map[string][][]float64 // parameter name -> one slice per slot
}

// update applies one step at rate lr to the weights w given the gradients
// g (both by parameter name) and returns the gradients' norm before
// clipping.
func (r *refOptimizer) update(params []*namedTensor, w, g map[string][]float64, lr float64) float64 {
	cfg := r.cfg
	sq := 0.0
	for _, p := range params {
		for _, x := range g[p.Name] {
			sq += x * x
		}
	}
	norm := math.Sqrt(sq)
	coef := 1.0
	if cfg.GradClipNorm > 0 && norm > cfg.GradClipNorm {
		coef = cfg.GradClipNorm / (norm + 1e-6)
	}
	r.step++
	bc1 := 1 - math.Pow(cfg.Beta1, float64(r.step))
	bc2 := 1 - math.Pow(cfg.Beta2, float64(r.step))
	for _, p := range params {
		decay := 0.0
		if p.Role == arch.RoleWeight {
			decay = cfg.WeightDecay
		}
		ws, gs := w[p.Name], g[p.Name]
		if r.slots[p.Name] == nil {
			for range cfg.slotNames() {
				r.slots[p.Name] = append(r.slots[p.Name], make([]float64, len(ws)))
			}
		}
		s := r.slots[p.Name]
		for i := range ws {
			gi := gs[i] * coef
			switch cfg.Optimizer {
			case OptimizerSGD:
				gi += decay * ws[i]
				s[0][i] = cfg.Momentum*s[0][i] + gi
				d := s[0][i]
				if cfg.Nesterov {
					d = cfg.Momentum*s[0][i] + gi
				}
				ws[i] -= lr * d
			case OptimizerAdam, OptimizerAdamW:
				if cfg.Optimizer == OptimizerAdam {
					gi += decay * ws[i]
				} else {
					ws[i] *= 1 - lr*decay
				}
				s[0][i] += (1 - cfg.Beta1) * (gi - s[0][i])
				s[1][i] += (1 - cfg.Beta2) * (gi*gi - s[1][i])
				ws[i] -= lr / bc1 * s[0][i] / (math.Sqrt(s[1][i])/math.Sqrt(bc2) + cfg.Epsilon)
			}
		}
	}
	return norm
}

// probeGradients returns the gradients of b's total loss (batch norm in
// training mode) with respect to the trained tensors of a network with
// the values values, by name.
func probeGradients(t *testing.T, cfg Config, values map[string][]float32, tc TrainConfig, b Batch) map[string][]float64 {
	t.Helper()
	net, err := build(onCPUUnlessSet(cfg), tinyShape, func(nt *namedTensor) []float32 { return values[nt.Name] })
	if err != nil {
		t.Fatal(err)
	}
	defer net.Close()
	tr, err := NewTrainer(net, tc)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	prev := lib.SetGradEnabled(true)
	defer lib.SetGradEnabled(prev)
	e := tr.eng
	e.reset()
	pl, vl, _, total := tr.losses(b, tinyShape, true)
	e.gradients(total, tr.inputs, tr.grads)
	e.free(pl)
	e.free(vl)
	e.free(total)
	out := map[string][]float64{}
	for i, p := range tr.order {
		v := make([]float32, p.NumElements())
		if tr.grads[i] == nil {
			t.Fatalf("no gradient for %s", p.Name)
		}
		e.copyOut(tr.grads[i], v)
		e.free(tr.grads[i])
		tr.grads[i] = nil
		g := make([]float64, len(v))
		for k, x := range v {
			g[k] = float64(x)
		}
		out[p.Name] = g
	}
	if e.err != nil {
		t.Fatal(e.err)
	}
	return out
}

// TestFlatUpdateMatchesPerParameter checks the trainer's update, done on
// the flat buffers, against refOptimizer for a few steps of each
// optimizer, with weight decay and (where the norm exceeds it) clipping:
// the weights after each step, the reported gradient norm, and the saved
// optimizer state.
func TestFlatUpdateMatchesPerParameter(t *testing.T) {
	checkFlatUpdate(t, "cpu", tolerance{abs: 1e-6, rel: 1e-3})
}

// TestCUDAFlatUpdateMatchesPerParameter is the same on a GPU, within
// looser bounds: cuDNN convolves in TF32, so weights that differ in their
// last float32 bit can give gradients that differ in the fourth digit.
func TestCUDAFlatUpdateMatchesPerParameter(t *testing.T) {
	needCUDA(t)
	checkFlatUpdate(t, "cuda", tolerance{abs: 1e-4, rel: 1e-2})
}

// tolerance bounds |got - want| by abs + rel*|want|.
type tolerance struct{ abs, rel float64 }

func checkFlatUpdate(t *testing.T, device string, tol tolerance) {
	cases := []func(c *TrainConfig){
		func(c *TrainConfig) { c.Optimizer, c.WeightDecay, c.GradClipNorm = OptimizerAdamW, 0.1, 0.5 },
		func(c *TrainConfig) { c.Optimizer, c.WeightDecay = OptimizerAdam, 0.05 },
		func(c *TrainConfig) {
			c.Optimizer, c.Nesterov, c.WeightDecay, c.GradClipNorm = OptimizerSGD, true, 0.05, 1
		},
		func(c *TrainConfig) { c.Optimizer, c.WeightDecay = OptimizerSGD, 0 },
	}
	for k, set := range cases {
		tc := DefaultTrainConfig()
		tc.Schedule.LearningRate = 0.02
		set(&tc)
		t.Run(fmt.Sprintf("%d-%s", k, tc.Optimizer), func(t *testing.T) {
			cfg := tinyConfig()
			cfg.Device = device
			net := newTestNet(t, cfg, tinyShape)
			tr, err := NewTrainer(net, tc)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			ck, err := snapshot(net, nil, Metadata{})
			if err != nil {
				t.Fatal(err)
			}
			values := map[string][]float32{}
			w := map[string][]float64{}
			for _, x := range ck.Tensors {
				values[x.Name] = x.Data
				w[x.Name] = make([]float64, len(x.Data))
				for i, v := range x.Data {
					w[x.Name][i] = float64(v)
				}
			}
			ref := &refOptimizer{cfg: tc, slots: map[string][][]float64{}}
			rng := rand.New(rand.NewPCG(uint64(k), 11))
			moved, clipped := 0.0, false
			for step := 0; step < 4; step++ {
				b := fixedBatch(rng, tinyShape, 8)
				for name := range w {
					for i, v := range w[name] {
						values[name][i] = float32(v)
					}
				}
				g := probeGradients(t, cfg, values, tc, b)
				before := append([]float64(nil), w[tr.params[0].Name]...)
				norm := ref.update(tr.params, w, g, tc.Schedule.LearningRate)
				clipped = clipped || (tc.GradClipNorm > 0 && norm > tc.GradClipNorm)
				for i, v := range before {
					moved = max(moved, math.Abs(w[tr.params[0].Name][i]-v))
				}
				l, err := tr.Step(b)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(l.GradNorm-norm) > tol.rel*norm/10 {
					t.Errorf("step %d: gradient norm %v, reference %v", step, l.GradNorm, norm)
				}
				got, err := snapshot(net, nil, Metadata{})
				if err != nil {
					t.Fatal(err)
				}
				for _, x := range got.Tensors {
					if x.Name == "" || len(w[x.Name]) != len(x.Data) {
						t.Fatalf("tensor %q", x.Name)
					}
					for _, p := range tr.params {
						if p.Name == x.Name {
							compareValues(t, fmt.Sprintf("step %d: %s", step, x.Name), x.Data, w[x.Name], tol)
						}
					}
				}
			}
			if moved < 1e-3 {
				t.Errorf("the first parameter moved at most %v: the test checks too little", moved)
			}
			if tc.GradClipNorm > 0 && !clipped {
				t.Errorf("clipping at %v never applied", tc.GradClipNorm)
			}
			// The optimizer state a checkpoint saves is the reference's.
			saved, err := snapshot(net, tr, Metadata{})
			if err != nil {
				t.Fatal(err)
			}
			names := tc.slotNames()
			if len(saved.Optimizer) != len(tr.params)*len(names) {
				t.Fatalf("%d optimizer tensors saved, want %d", len(saved.Optimizer), len(tr.params)*len(names))
			}
			for i, x := range saved.Optimizer {
				p, slot := tr.params[i/len(names)], i%len(names)
				if x.Name != p.Name+"/"+names[slot] {
					t.Fatalf("optimizer tensor %d is %s, want %s/%s", i, x.Name, p.Name, names[slot])
				}
				compareValues(t, "saved "+x.Name, x.Data, ref.slots[p.Name][slot], tol)
			}
		})
	}
}

// compareValues fails t when got and want differ by more than tol.
func compareValues(t *testing.T, what string, got []float32, want []float64, tol tolerance) {
	t.Helper()
	worst, at := 0.0, -1
	for i, v := range want {
		d := math.Abs(float64(got[i])-v) / (tol.abs + tol.rel*math.Abs(v))
		if d > worst {
			worst, at = d, i
		}
	}
	if worst > 1 {
		t.Errorf("%s: element %d is %v, reference %v", what, at, got[at], want[at])
	}
}

// TestFlatLayout checks the flat buffer's layout: every trained tensor
// inside it, aligned, without overlap, the weights first; and that the
// tensors alias it (changing the buffer changes them).
func TestFlatLayout(t *testing.T) {
	spatial := tinyConfig()
	spatial.PolicyHead = PolicySpatial
	for _, cfg := range []Config{tinyConfig(), spatial} {
		shape := tinyShape
		if cfg.PolicyHead == PolicySpatial {
			shape = Shape{Planes: 3, Height: 4, Width: 4, Actions: 17}
		}
		net := newTestNet(t, cfg, shape)
		st := net.c.st
		end, weights := 0, true
		for _, p := range st.flatOrder() {
			if p.off%flatAlign != 0 || p.off < end {
				t.Fatalf("%s at %d: unaligned or overlapping (previous end %d)", p.Name, p.off, end)
			}
			if p.Role != arch.RoleWeight {
				if weights && p.off < st.decayLen {
					t.Fatalf("%s (not a weight) at %d, inside the decayed part [0, %d)", p.Name, p.off, st.decayLen)
				}
				weights = false
			} else if !weights || p.off+p.NumElements() > st.decayLen {
				t.Fatalf("weight %s at %d after other parameters or past the decayed part", p.Name, p.off)
			}
			end = p.off + p.NumElements()
		}
		if end != st.flatLen {
			t.Fatalf("the flat buffer has %d elements, the last tensor ends at %d", st.flatLen, end)
		}
		runtime.LockOSThread()
		e := newEngine(net.c.dev)
		lib.SetGradEnabled(false)
		e.addScalar_(st.flat, 1)
		lib.SetGradEnabled(true)
		ck, err := snapshot(net, nil, Metadata{})
		runtime.UnlockOSThread()
		if err != nil || e.err != nil {
			t.Fatal(err, e.err)
		}
		probe := map[string]float32{}
		for _, x := range ck.Tensors {
			probe[x.Name] = x.Data[0]
		}
		// Fresh weights drawn the same way, for the values before the +1.
		fresh := newTestNet(t, cfg, shape)
		ck0, err := snapshot(fresh, nil, Metadata{})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range ck0.Tensors {
			want := x.Data[0]
			if isTrained(net, x.Name) {
				want++
			}
			if probe[x.Name] != want {
				t.Errorf("%s: first value %v after adding 1 to the flat buffer, want %v", x.Name, probe[x.Name], want)
			}
		}
	}
}

func isTrained(n *Net, name string) bool {
	for _, p := range n.c.st.trainable() {
		if p.Name == name {
			return true
		}
	}
	return false
}
