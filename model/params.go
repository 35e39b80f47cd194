package model

import (
	"fmt"
	"math"
	"math/rand/v2"

	lib "github.com/sugarme/gotch/libtch"
)

// role says how a tensor is trained.
type role int

const (
	roleWeight role = iota // trained, with weight decay (conv and linear weights)
	roleOther              // trained, without weight decay (biases, batch norm)
	roleBuffer             // not trained (batch norm running statistics)
)

// initKind is how a tensor is initialised.
type initKind int

const (
	initHe      initKind = iota // N(0, 2/fanIn): layers followed by ReLU
	initUniform                 // U(-1/sqrt(fanIn), 1/sqrt(fanIn)): output layers
	initZero
	initOne
)

// namedTensor is one parameter or buffer of a network.
type namedTensor struct {
	name  string
	shape []int64
	role  role
	init  initKind
	fanIn int
	h     handle
}

func (t *namedTensor) numel() int {
	n := 1
	for _, d := range t.shape {
		n *= int(d)
	}
	return n
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
}

// free deletes every tensor handle. It is idempotent.
func (s *store) free() {
	for _, t := range s.tensors {
		if t.h != nil {
			lib.AtFree(t.h)
			t.h = nil
		}
	}
}

func (s *store) add(name string, r role, ik initKind, fanIn int, shape ...int64) *namedTensor {
	t := &namedTensor{name: name, shape: shape, role: r, init: ik, fanIn: fanIn}
	s.tensors = append(s.tensors, t)
	return t
}

func (s *store) conv(name string, in, out, k int) *namedTensor {
	return s.add(name+".weight", roleWeight, initHe, in*k*k, int64(out), int64(in), int64(k), int64(k))
}

func (s *store) bn(name string, c int) batchNorm {
	return batchNorm{
		gamma:    s.add(name+".weight", roleOther, initOne, 0, int64(c)),
		beta:     s.add(name+".bias", roleOther, initZero, 0, int64(c)),
		mean:     s.add(name+".running_mean", roleBuffer, initZero, 0, int64(c)),
		variance: s.add(name+".running_var", roleBuffer, initOne, 0, int64(c)),
	}
}

func (s *store) linear(name string, in, out int, ik initKind) (w, b *namedTensor) {
	w = s.add(name+".weight", roleWeight, ik, in, int64(out), int64(in))
	b = s.add(name+".bias", roleOther, initZero, 0, int64(out))
	return w, b
}

// newStore lays out the tensors of the network cfg for shape (without
// creating them).
func newStore(cfg Config, shape Shape) *store {
	s := &store{}
	c := cfg.Channels
	s.stem = s.conv("stem.conv", shape.Planes, c, 3)
	s.stemBN = s.bn("stem.bn", c)
	for i := 0; i < cfg.Blocks; i++ {
		p := fmt.Sprintf("blocks.%d.", i)
		var b block
		b.conv1 = s.conv(p+"conv1", c, c, 3)
		b.bn1 = s.bn(p+"bn1", c)
		b.conv2 = s.conv(p+"conv2", c, c, 3)
		b.bn2 = s.bn(p+"bn2", c)
		s.blocks = append(s.blocks, b)
	}
	pc := cfg.PolicyChannels
	s.polConv = s.conv("policy.conv", c, pc, 1)
	s.polBN = s.bn("policy.bn", pc)
	switch cfg.PolicyHead {
	case PolicyDense:
		s.polFC, s.polFCB = s.linear("policy.fc", pc*shape.Height*shape.Width, shape.Actions, initUniform)
	case PolicySpatial:
		s.polCell = s.add("policy.cell.weight", roleWeight, initUniform, pc, int64(cfg.PolicyPlanes), int64(pc), 1, 1)
		s.polCellB = s.add("policy.cell.bias", roleOther, initZero, 0, int64(cfg.PolicyPlanes))
		if x := shape.extraActions(cfg); x > 0 {
			s.polExtra, s.polExtB = s.linear("policy.extra", pc, x, initUniform)
		}
	}
	vc := cfg.ValueChannels
	s.valConv = s.conv("value.conv", c, vc, 1)
	s.valBN = s.bn("value.bn", vc)
	pooled := vc
	if cfg.ValueMaxPool {
		pooled *= 2
	}
	s.valFC1, s.valFC1B = s.linear("value.fc1", pooled, cfg.ValueHidden, initHe)
	s.valFC2, s.valFC2B = s.linear("value.fc2", cfg.ValueHidden, 1, initUniform)
	return s
}

// initValues draws t's initial values from rng.
func initValues(t *namedTensor, rng *rand.Rand) []float32 {
	v := make([]float32, t.numel())
	switch t.init {
	case initHe:
		std := math.Sqrt(2 / float64(t.fanIn))
		for i := range v {
			v[i] = float32(rng.NormFloat64() * std)
		}
	case initUniform:
		bound := 1 / math.Sqrt(float64(t.fanIn))
		for i := range v {
			v[i] = float32((2*rng.Float64() - 1) * bound)
		}
	case initOne:
		for i := range v {
			v[i] = 1
		}
	case initZero:
	}
	return v
}

// create makes every tensor of s, with values from values(t), and marks the
// trained ones as requiring grad. On error the tensors created so far are
// freed.
func (s *store) create(e *engine, values func(t *namedTensor) []float32) error {
	e.reset()
	for _, t := range s.tensors {
		t.h = e.fromFloat32(values(t), t.shape)
		if t.role != roleBuffer {
			e.requiresGrad_(t.h)
		}
		if e.err != nil {
			s.free()
			return fmt.Errorf("creating %s: %w", t.name, e.err)
		}
	}
	return nil
}

// trainable lists the tensors the optimizer updates.
func (s *store) trainable() []*namedTensor {
	var out []*namedTensor
	for _, t := range s.tensors {
		if t.role != roleBuffer {
			out = append(out, t)
		}
	}
	return out
}

// numParams counts trained values.
func (s *store) numParams() int {
	n := 0
	for _, t := range s.tensors {
		if t.role != roleBuffer {
			n += t.numel()
		}
	}
	return n
}
