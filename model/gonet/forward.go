package gonet

import (
	"math"

	"github.com/zerokit/zerokit/model/arch"
)

// scratch is the memory of one Forward call. Activations are stored
// channel-major over the whole batch: element (channel c, board n, cell i)
// of a batch of count boards of hw cells is at c*count*hw + n*hw + i, so
// that a convolution is one matrix product for the whole batch.
type scratch struct {
	col, t, u, r, p, v, cell, flat, pooled, hid []float32
}

// grow returns a slice of n values, reusing b's memory when it is large
// enough. The values are not cleared.
func grow(b *[]float32, n int) []float32 {
	if cap(*b) < n {
		*b = make([]float32, n, n+n/4)
	}
	return (*b)[:n]
}

// forward runs the network on count observations of shape (checked by
// Forward) and writes the logits and values.
func (w *weights) forward(s *scratch, shape arch.Shape, obs []float32, count int, logits, values []float32) {
	h, wd := shape.Height, shape.Width
	hw := h * wd
	np := count * hw
	ch := w.cfg.Channels
	maxK := max(w.planes, ch) * 9
	col := grow(&s.col, maxK*np)
	t := grow(&s.t, ch*np)
	r := grow(&s.r, ch*np)
	u := grow(&s.u, ch*np)

	// Stem: the observations are (board, plane, cell).
	im2col3(col, obs, w.planes, count, h, wd, hw, w.planes*hw)
	w.stem.apply(col, t, np, nil, true)
	for i := range w.blocks {
		b := &w.blocks[i]
		im2col3(col, t, ch, count, h, wd, np, hw)
		b[0].apply(col, r, np, nil, true)
		im2col3(col, r, ch, count, h, wd, np, hw)
		b[1].apply(col, u, np, t, true)
		t, u = u, t
	}

	// Policy head.
	na := shape.Actions
	pc := w.polConv.out
	p := grow(&s.p, pc*np)
	w.polConv.apply(t, p, np, nil, true)
	switch w.cfg.PolicyHead {
	case arch.PolicyDense:
		// Flatten each board's (channel, cell) features into a row.
		k := pc * hw
		flat := grow(&s.flat, count*k)
		for c := 0; c < pc; c++ {
			for n := 0; n < count; n++ {
				copy(flat[n*k+c*hw:n*k+c*hw+hw], p[c*np+n*hw:c*np+n*hw+hw])
			}
		}
		w.polFC.apply(flat, count, logits, na, false)
	case arch.PolicySpatial:
		pp := w.polCell.out
		cell := grow(&s.cell, pp*np)
		w.polCell.apply(p, cell, np, nil, false)
		for pl := 0; pl < pp; pl++ {
			for n := 0; n < count; n++ {
				copy(logits[n*na+pl*hw:n*na+pl*hw+hw], cell[pl*np+n*hw:pl*np+n*hw+hw])
			}
		}
		if w.extra > 0 {
			pooled := grow(&s.pooled, count*pc)
			poolMean(pooled, p, pc, count, hw, 0, pc)
			w.polExtra.apply(pooled, count, logits[pp*hw:], na, false)
		}
	}

	// Value head.
	vc := w.valConv.out
	v := grow(&s.v, vc*np)
	w.valConv.apply(t, v, np, nil, true)
	in := w.valFC1.in
	pooled := grow(&s.pooled, count*in)
	poolMean(pooled, v, vc, count, hw, 0, in)
	if w.cfg.ValueMaxPool {
		poolMax(pooled, v, vc, count, hw, vc, in)
	}
	hid := grow(&s.hid, count*w.valFC1.out)
	w.valFC1.apply(pooled, count, hid, w.valFC1.out, true)
	nh := w.valFC2.in
	w2, b2 := w.valFC2.wt[:nh], w.valFC2.b[0]
	for n := 0; n < count; n++ {
		sum := b2
		for j, x := range hid[n*nh : n*nh+nh] {
			sum += x * w2[j]
		}
		values[n] = float32(math.Tanh(float64(sum)))
	}
}

// apply computes dst (out x np) = bias + w * src (src: in*k*k x np, an
// im2col matrix for k = 3, the input itself for k = 1), plus res (out x np)
// when res is not nil, then ReLU with relu.
func (c *conv) apply(src, dst []float32, np int, res []float32, relu bool) {
	flags := 0
	if res != nil {
		copy(dst[:c.out*np], res)
		flags |= gemmAcc
	}
	if relu {
		flags |= gemmReLU
	}
	kk := c.in * c.k * c.k
	gemm(c.out, np, kk, c.w, kk, src, np, dst, np, c.b, flags)
}

// apply computes rows of outputs dst[n*ldd : n*ldd+out] = bias + x[n] * W
// for the count input rows of x (each f.in values), then ReLU with relu.
func (f *linear) apply(x []float32, count int, dst []float32, ldd int, relu bool) {
	for n := 0; n < count; n++ {
		copy(dst[n*ldd:n*ldd+f.out], f.b)
	}
	flags := gemmAcc
	if relu {
		flags |= gemmReLU
	}
	gemm(count, f.out, f.in, x, f.in, f.wt, f.out, dst, ldd, nil, flags)
}

// poolMean writes the mean over the hw cells of each of the channels
// channels of src (channel-major, count boards) into dst[n*ld+off+c].
func poolMean(dst, src []float32, channels, count, hw, off, ld int) {
	np := count * hw
	inv := 1 / float64(hw)
	for c := 0; c < channels; c++ {
		for n := 0; n < count; n++ {
			var sum float64
			for _, x := range src[c*np+n*hw : c*np+n*hw+hw] {
				sum += float64(x)
			}
			dst[n*ld+off+c] = float32(sum * inv)
		}
	}
}

// poolMax is poolMean with the maximum.
func poolMax(dst, src []float32, channels, count, hw, off, ld int) {
	np := count * hw
	for c := 0; c < channels; c++ {
		for n := 0; n < count; n++ {
			cells := src[c*np+n*hw : c*np+n*hw+hw]
			m := cells[0]
			for _, x := range cells[1:] {
				if x > m {
					m = x
				}
			}
			dst[n*ld+off+c] = m
		}
	}
}

// im2col3 writes the 3x3 neighbourhoods (zero outside the board) of src
// into col, a (channels*9) x (count*h*w) matrix: row (c*3+ky)*3+kx, column
// n*h*w + y*w + x holds src's channel c of board n at cell (y+ky-1,
// x+kx-1). src's value (c, n, y, x) is at c*cs + n*ns + y*w + x.
//
// Each row is src shifted by (ky-1)*w + kx-1 cells (one copy for the whole
// batch when the boards of a channel are contiguous, ns == h*w), then the
// cells whose neighbour is off the board are cleared.
func im2col3(col, src []float32, channels, count, h, w, cs, ns int) {
	hw := h * w
	np := count * hw
	for c := 0; c < channels; c++ {
		for ky := 0; ky < 3; ky++ {
			for kx := 0; kx < 3; kx++ {
				row := col[((c*3+ky)*3+kx)*np:][:np]
				off := (ky-1)*w + kx - 1
				if ns == hw {
					shifted(row, src[c*cs:][:np], off)
				} else {
					for n := 0; n < count; n++ {
						shifted(row[n*hw:(n+1)*hw], src[c*cs+n*ns:][:hw], off)
					}
				}
				for n := 0; n < count; n++ {
					b := row[n*hw : (n+1)*hw]
					switch ky {
					case 0:
						clear(b[:w])
					case 2:
						clear(b[hw-w:])
					}
					switch kx {
					case 0:
						for i := 0; i < hw; i += w {
							b[i] = 0
						}
					case 2:
						for i := w - 1; i < hw; i += w {
							b[i] = 0
						}
					}
				}
			}
		}
	}
}

// shifted sets d[i] = s[i+off] where 0 <= i+off < len(s), and 0
// elsewhere; d and s have the same length.
func shifted(d, s []float32, off int) {
	n := len(d)
	lo, hi := max(0, -off), min(n, n-off)
	if lo >= hi {
		clear(d)
		return
	}
	clear(d[:lo])
	copy(d[lo:hi], s[lo+off:hi+off])
	clear(d[hi:])
}
