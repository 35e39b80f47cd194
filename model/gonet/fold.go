package gonet

import (
	"fmt"
	"math"
	"sync"

	"github.com/zerokit/zerokit/model/arch"
)

// conv is a stride-1 convolution with batch norm folded in: out x
// (in*k*k) weights (rows in (channel, ky, kx) order, like an im2col matrix)
// and a bias per output channel.
type conv struct {
	out, in, k int
	w, b       []float32
}

// linear is a fully connected layer, its weight stored transposed (in x
// out) so that a batch of inputs (rows) times it gives a batch of outputs.
type linear struct {
	in, out int
	wt, b   []float32
}

// weights is a loaded network, read-only after fold; views of one network
// (Net.WithBoard) share it.
type weights struct {
	cfg    arch.Config
	planes int
	extra  int // non-spatial actions of a spatial policy head
	params int

	stem     conv
	blocks   [][2]conv
	polConv  conv
	polFC    linear // dense head
	polCell  conv   // spatial head (no batch norm; its own bias)
	polExtra linear // spatial head with extra actions
	valConv  conv
	valFC1   linear
	valFC2   linear

	pool sync.Pool // of *scratch
}

// fold builds the weights from the checkpoint's tensors (data[i] holds
// l.Tensors[i], checked), folding each batch norm into its convolution:
// w' = w * s and b' = beta - mean * s with s = gamma / sqrt(var + eps),
// computed in float64.
func fold(cfg arch.Config, shape arch.Shape, l *arch.Layout, data [][]float32) (*weights, error) {
	w := &weights{cfg: cfg, planes: shape.Planes, extra: shape.ExtraActions(cfg)}
	for i, t := range l.Tensors {
		if t.Role != arch.RoleBuffer {
			w.params += len(data[i])
		}
	}
	convBN := func(wi int, bn arch.BatchNorm) (conv, error) {
		sh := l.Tensors[wi].Shape
		c := conv{out: int(sh[0]), in: int(sh[1]), k: int(sh[2])}
		kk := c.in * c.k * c.k
		c.w = make([]float32, c.out*kk)
		c.b = make([]float32, c.out)
		gamma, beta, mean, variance := data[bn.Weight], data[bn.Bias], data[bn.RunningMean], data[bn.RunningVar]
		for o := 0; o < c.out; o++ {
			if variance[o] < 0 {
				return c, fmt.Errorf("tensor %s: value %d is negative (%v)", l.Tensors[bn.RunningVar].Name, o, variance[o])
			}
			s := float64(gamma[o]) / math.Sqrt(float64(variance[o])+arch.BNEpsilon)
			for j, v := range data[wi][o*kk : (o+1)*kk] {
				c.w[o*kk+j] = float32(float64(v) * s)
			}
			c.b[o] = float32(float64(beta[o]) - float64(mean[o])*s)
		}
		return c, nil
	}
	lin := func(wi, bi int) linear {
		sh := l.Tensors[wi].Shape
		f := linear{out: int(sh[0]), in: int(sh[1])}
		f.wt = make([]float32, f.in*f.out)
		src := data[wi]
		for o := 0; o < f.out; o++ {
			for i := 0; i < f.in; i++ {
				f.wt[i*f.out+o] = src[o*f.in+i]
			}
		}
		f.b = append([]float32(nil), data[bi]...)
		return f
	}
	var err error
	if w.stem, err = convBN(l.Stem, l.StemBN); err != nil {
		return nil, err
	}
	for _, b := range l.Blocks {
		var pair [2]conv
		if pair[0], err = convBN(b.Conv1, b.BN1); err != nil {
			return nil, err
		}
		if pair[1], err = convBN(b.Conv2, b.BN2); err != nil {
			return nil, err
		}
		w.blocks = append(w.blocks, pair)
	}
	if w.polConv, err = convBN(l.PolicyConv, l.PolicyBN); err != nil {
		return nil, err
	}
	switch cfg.PolicyHead {
	case arch.PolicyDense:
		w.polFC = lin(l.PolicyFC, l.PolicyFCBias)
	case arch.PolicySpatial:
		sh := l.Tensors[l.PolicyCell].Shape
		w.polCell = conv{out: int(sh[0]), in: int(sh[1]), k: 1,
			w: append([]float32(nil), data[l.PolicyCell]...), b: append([]float32(nil), data[l.PolicyCellBias]...)}
		if l.PolicyExtra >= 0 {
			w.polExtra = lin(l.PolicyExtra, l.PolicyExtraBias)
		}
	}
	if w.valConv, err = convBN(l.ValueConv, l.ValueBN); err != nil {
		return nil, err
	}
	w.valFC1 = lin(l.ValueFC1, l.ValueFC1Bias)
	w.valFC2 = lin(l.ValueFC2, l.ValueFC2Bias)
	return w, nil
}
