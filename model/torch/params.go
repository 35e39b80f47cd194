package torch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	lib "github.com/sugarme/gotch/libtch"
	"github.com/zerokit/zerokit/model/arch"
)

// namedTensor is one parameter or buffer of a network: its description
// in the layout and its libtorch tensor.
type namedTensor struct {
	arch.Tensor
	h handle
	// off is where a trained tensor's values start in the store's flat
	// parameter buffer.
	off int
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
	own      *namedTensor // ownership head (nil without one)
	ownB     *namedTensor

	// flat holds every trained tensor's values, one after the other at
	// their offsets (weights first, each start aligned to flatAlign
	// elements, zeros between): the trained tensors alias it, so that the
	// optimizer updates all of them with a few ops on the whole buffer.
	flat handle
	// flatLen is flat's length in elements; decayLen is the length of its
	// leading part that holds the weights (arch.RoleWeight, the tensors
	// with weight decay) and the padding between them.
	flatLen, decayLen int

	// stage is inference's host memory (Net.Forward).
	stage staging
}

// flatAlign is the alignment, in float32 elements (64 bytes), of each
// trained tensor's start in the flat buffer: vectorised kernels and cuDNN
// want their operands aligned.
const flatAlign = 16

// free deletes every tensor handle. It is idempotent.
func (s *store) free() {
	for _, t := range s.tensors {
		if t.h != nil {
			lib.AtFree(t.h)
			t.h = nil
		}
	}
	if s.flat != nil {
		lib.AtFree(s.flat)
		s.flat = nil
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
	s.own, s.ownB = at(l.Ownership), at(l.OwnershipBias)
	s.layoutFlat()
	return s
}

// layoutFlat gives each trained tensor its offset in the flat buffer: the
// weights first, in the store's order, then the other trained tensors.
func (s *store) layoutFlat() {
	n := 0
	place := func(weights bool) {
		for _, t := range s.tensors {
			if t.Role != arch.RoleBuffer && (t.Role == arch.RoleWeight) == weights {
				n = (n + flatAlign - 1) / flatAlign * flatAlign
				t.off = n
				n += t.NumElements()
			}
		}
	}
	place(true)
	s.decayLen = n
	place(false)
	s.flatLen = n
}

// flatOrder lists the trained tensors in the order of the flat buffer.
func (s *store) flatOrder() []*namedTensor {
	out := s.trainable()
	slices.SortStableFunc(out, func(a, b *namedTensor) int { return a.off - b.off })
	return out
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
//
// The trained tensors are then moved into the flat buffer: each keeps its
// handle (and so its identity for autograd) but has its storage replaced
// by its part of flat (set_), so that what changes flat changes them.
func (s *store) create(e *engine, values func(t *namedTensor) []float32) error {
	e.reset()
	flat := make([]float32, s.flatLen)
	for _, t := range s.tensors {
		v := values(t)
		t.h = e.fromFloat32(v, t.Shape)
		if t.Role != arch.RoleBuffer && len(v) >= t.NumElements() {
			copy(flat[t.off:t.off+t.NumElements()], v)
		}
		if e.err != nil {
			s.free()
			return fmt.Errorf("creating %s: %w", t.Name, e.err)
		}
	}
	e.dims1[0] = int64(s.flatLen)
	s.flat = e.fromFloat32(flat, e.dims1)
	for _, t := range s.trainable() {
		e.alias(t.h, s.flat, t.off, t.Shape)
		e.requiresGrad_(t.h)
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
