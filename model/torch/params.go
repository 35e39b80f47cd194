package torch

import (
	"fmt"
	"math"
	"math/rand/v2"

	lib "github.com/sugarme/gotch/libtch"
	"github.com/zerokit/zerokit/model/arch"
)

// namedTensor is one parameter or buffer of a network: its description
// in the layout and its libtorch tensor.
type namedTensor struct {
	arch.Tensor
	h handle
}

// batchNorm groups the four tensors of a batch norm layer.
type batchNorm struct{ gamma, beta, mean, variance *namedTensor }

type block struct {
	conv1 *namedTensor
	bn1   batchNorm
	conv2 *namedTensor
	bn2   batchNorm
}

// store holds a network's tensors, in a fixed order (checkpoints and the
// optimizer use it).
type store struct {
	tensors []*namedTensor

	stem     *namedTensor
	stemBN   batchNorm
	blocks   []block
	polConv  *namedTensor
	polBN    batchNorm
	polFC    *namedTensor // dense head
	polFCB   *namedTensor
	polCell  *namedTensor // spatial head
	polCellB *namedTensor
	polExtra *namedTensor // spatial head with extra actions
	polExtB  *namedTensor
	valConv  *namedTensor
	valBN    batchNorm
	valFC1   *namedTensor
	valFC1B  *namedTensor
	valFC2   *namedTensor
	valFC2B  *namedTensor

	// stage is inference's host memory (Net.Forward).
	stage staging
}

// free deletes every tensor handle. It is idempotent.
func (s *store) free() {
	for _, t := range s.tensors {
		if t.h != nil {
			lib.AtFree(t.h)
			t.h = nil
		}
	}
	s.stage.free()
}

// newStore lays out the tensors of the network cfg for shape (without
// creating them), after arch.NewLayout.
func newStore(cfg Config, shape Shape) *store {
	l := arch.NewLayout(cfg, shape)
	s := &store{}
	for _, t := range l.Tensors {
		s.tensors = append(s.tensors, &namedTensor{Tensor: t})
	}
	at := func(i int) *namedTensor {
		if i < 0 {
			return nil
		}
		return s.tensors[i]
	}
	bn := func(b arch.BatchNorm) batchNorm {
		return batchNorm{gamma: at(b.Weight), beta: at(b.Bias), mean: at(b.RunningMean), variance: at(b.RunningVar)}
	}
	s.stem, s.stemBN = at(l.Stem), bn(l.StemBN)
	for _, b := range l.Blocks {
		s.blocks = append(s.blocks, block{conv1: at(b.Conv1), bn1: bn(b.BN1), conv2: at(b.Conv2), bn2: bn(b.BN2)})
	}
	s.polConv, s.polBN = at(l.PolicyConv), bn(l.PolicyBN)
	s.polFC, s.polFCB = at(l.PolicyFC), at(l.PolicyFCBias)
	s.polCell, s.polCellB = at(l.PolicyCell), at(l.PolicyCellBias)
	s.polExtra, s.polExtB = at(l.PolicyExtra), at(l.PolicyExtraBias)
	s.valConv, s.valBN = at(l.ValueConv), bn(l.ValueBN)
	s.valFC1, s.valFC1B = at(l.ValueFC1), at(l.ValueFC1Bias)
	s.valFC2, s.valFC2B = at(l.ValueFC2), at(l.ValueFC2Bias)
	return s
}

// initValues draws t's initial values from rng.
func initValues(t *namedTensor, rng *rand.Rand) []float32 {
	v := make([]float32, t.NumElements())
	switch t.Init {
	case arch.InitHe:
		std := math.Sqrt(2 / float64(t.FanIn))
		for i := range v {
			v[i] = float32(rng.NormFloat64() * std)
		}
	case arch.InitUniform:
		bound := 1 / math.Sqrt(float64(t.FanIn))
		for i := range v {
			v[i] = float32((2*rng.Float64() - 1) * bound)
		}
	case arch.InitOne:
		for i := range v {
			v[i] = 1
		}
	case arch.InitZero:
	}
	return v
}

// create makes every tensor of s, with values from values(t), and marks the
// trained ones as requiring grad. On error the tensors created so far are
// freed.
func (s *store) create(e *engine, values func(t *namedTensor) []float32) error {
	e.reset()
	for _, t := range s.tensors {
		t.h = e.fromFloat32(values(t), t.Shape)
		if t.Role != arch.RoleBuffer {
			e.requiresGrad_(t.h)
		}
		if e.err != nil {
			s.free()
			return fmt.Errorf("creating %s: %w", t.Name, e.err)
		}
	}
	return nil
}

// trainable lists the tensors the optimizer updates.
func (s *store) trainable() []*namedTensor {
	var out []*namedTensor
	for _, t := range s.tensors {
		if t.Role != arch.RoleBuffer {
			out = append(out, t)
		}
	}
	return out
}

// numParams counts trained values.
func (s *store) numParams() int {
	n := 0
	for _, t := range s.tensors {
		if t.Role != arch.RoleBuffer {
			n += t.NumElements()
		}
	}
	return n
}
