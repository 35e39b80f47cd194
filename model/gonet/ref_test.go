package gonet

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/zerokit/zerokit/model/arch"
	"github.com/zerokit/zerokit/model/ckpt"
)

// randomCheckpoint makes a checkpoint of the network cfg for shape with
// random weights and non-trivial batch norm statistics, without libtorch.
func randomCheckpoint(cfg arch.Config, shape arch.Shape, seed uint64) *ckpt.Checkpoint {
	rng := rand.New(rand.NewPCG(seed, 17))
	cfg = cfg.WithDefaults()
	l := arch.NewLayout(cfg, shape)
	c := &ckpt.Checkpoint{Header: ckpt.Header{Game: "test", EncodingVersion: 1, Network: cfg, Shape: shape}}
	kind := map[int]string{}
	for _, bn := range allBN(l) {
		kind[bn.Weight], kind[bn.Bias], kind[bn.RunningMean], kind[bn.RunningVar] = "gamma", "beta", "mean", "var"
	}
	for i, t := range l.Tensors {
		v := make([]float32, t.NumElements())
		for j := range v {
			switch kind[i] {
			case "gamma":
				v[j] = float32(0.5 + rng.Float64())
			case "beta":
				v[j] = float32(0.2 * rng.NormFloat64())
			case "mean":
				v[j] = float32(0.5 * rng.NormFloat64())
			case "var":
				v[j] = float32(0.3 + 2*rng.Float64())
			default:
				fan := t.FanIn
				if fan == 0 {
					fan = 1
				}
				v[j] = float32(rng.NormFloat64() * math.Sqrt(2/float64(fan)))
			}
		}
		c.Tensors = append(c.Tensors, ckpt.Tensor{Name: t.Name, Shape: t.Shape, Data: v})
	}
	return c
}

func allBN(l *arch.Layout) []arch.BatchNorm {
	bns := []arch.BatchNorm{l.StemBN, l.PolicyBN, l.ValueBN}
	for _, b := range l.Blocks {
		bns = append(bns, b.BN1, b.BN2)
	}
	return bns
}

func writeCheckpoint(t testing.TB, c *ckpt.Checkpoint) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "net.zkc")
	if err := ckpt.WriteFile(path, c); err != nil {
		t.Fatal(err)
	}
	return path
}

func randomObs(rng *rand.Rand, s arch.Shape, count int) []float32 {
	obs := make([]float32, count*s.Size())
	for i := range obs {
		if rng.IntN(3) == 0 {
			obs[i] = 1
		}
	}
	return obs
}

// refForward is the network computed naively in float64, straight from
// the checkpoint's tensors (batch norm not folded), for shape (the
// checkpoint's or another board size for a spatial head).
func refForward(c *ckpt.Checkpoint, shape arch.Shape, obs []float32, count int) (logits, values []float64) {
	cfg := c.Header.Network
	l := arch.NewLayout(cfg, c.Header.Shape)
	T := func(i int) []float32 { return c.Tensors[i].Data }
	h, w := shape.Height, shape.Width
	type fmap [][]float64 // channel, cell
	conv := func(x fmap, wi int) fmap {
		sh := l.Tensors[wi].Shape
		out, in, k := int(sh[0]), int(sh[1]), int(sh[2])
		wt := T(wi)
		y := make(fmap, out)
		for o := range y {
			y[o] = make([]float64, h*w)
			for yy := 0; yy < h; yy++ {
				for xx := 0; xx < w; xx++ {
					var s float64
					for ci := 0; ci < in; ci++ {
						for ky := 0; ky < k; ky++ {
							for kx := 0; kx < k; kx++ {
								sy, sx := yy+ky-k/2, xx+kx-k/2
								if sy < 0 || sy >= h || sx < 0 || sx >= w {
									continue
								}
								s += float64(wt[((o*in+ci)*k+ky)*k+kx]) * x[ci][sy*w+sx]
							}
						}
					}
					y[o][yy*w+xx] = s
				}
			}
		}
		return y
	}
	bn := func(x fmap, b arch.BatchNorm, relu bool) {
		for ch := range x {
			g, be, m, v := float64(T(b.Weight)[ch]), float64(T(b.Bias)[ch]), float64(T(b.RunningMean)[ch]), float64(T(b.RunningVar)[ch])
			for i, val := range x[ch] {
				r := (val-m)/math.Sqrt(v+arch.BNEpsilon)*g + be
				if relu && r < 0 {
					r = 0
				}
				x[ch][i] = r
			}
		}
	}
	lin := func(x []float64, wi, bi int) []float64 {
		sh := l.Tensors[wi].Shape
		out, in := int(sh[0]), int(sh[1])
		y := make([]float64, out)
		for o := range y {
			s := float64(T(bi)[o])
			for i := 0; i < in; i++ {
				s += float64(T(wi)[o*in+i]) * x[i]
			}
			y[o] = s
		}
		return y
	}
	mean := func(x fmap) []float64 {
		y := make([]float64, len(x))
		for ch := range x {
			for _, v := range x[ch] {
				y[ch] += v
			}
			y[ch] /= float64(h * w)
		}
		return y
	}
	size := shape.Size()
	for n := 0; n < count; n++ {
		x := make(fmap, shape.Planes)
		for p := range x {
			x[p] = make([]float64, h*w)
			for i := range x[p] {
				x[p][i] = float64(obs[n*size+p*h*w+i])
			}
		}
		t := conv(x, l.Stem)
		bn(t, l.StemBN, true)
		for _, b := range l.Blocks {
			r := conv(t, b.Conv1)
			bn(r, b.BN1, true)
			r = conv(r, b.Conv2)
			bn(r, b.BN2, false)
			for ch := range r {
				for i := range r[ch] {
					r[ch][i] = math.Max(0, r[ch][i]+t[ch][i])
				}
			}
			t = r
		}
		p := conv(t, l.PolicyConv)
		bn(p, l.PolicyBN, true)
		switch cfg.PolicyHead {
		case arch.PolicyDense:
			var flat []float64
			for ch := range p {
				flat = append(flat, p[ch]...)
			}
			logits = append(logits, lin(flat, l.PolicyFC, l.PolicyFCBias)...)
		case arch.PolicySpatial:
			cell := conv(p, l.PolicyCell)
			for pl := range cell {
				for i := range cell[pl] {
					logits = append(logits, cell[pl][i]+float64(T(l.PolicyCellBias)[pl]))
				}
			}
			if l.PolicyExtra >= 0 {
				logits = append(logits, lin(mean(p), l.PolicyExtra, l.PolicyExtraBias)...)
			}
		}
		v := conv(t, l.ValueConv)
		bn(v, l.ValueBN, true)
		pooled := mean(v)
		if cfg.ValueMaxPool {
			for ch := range v {
				m := v[ch][0]
				for _, x := range v[ch] {
					m = math.Max(m, x)
				}
				pooled = append(pooled, m)
			}
		}
		hid := lin(pooled, l.ValueFC1, l.ValueFC1Bias)
		for i := range hid {
			hid[i] = math.Max(0, hid[i])
		}
		values = append(values, math.Tanh(lin(hid, l.ValueFC2, l.ValueFC2Bias)[0]))
	}
	return logits, values
}

// maxDiff is the largest absolute difference between a and b.
func maxDiff(a []float32, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i])-b[i]))
	}
	return d
}

func mustLoad(t testing.TB, path string) *Net {
	t.Helper()
	n, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
