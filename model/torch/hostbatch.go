package torch

import (
	"fmt"
	"unsafe"

	lib "github.com/sugarme/gotch/libtch"
)

// batchLayout is how a batch of n examples (observations of size floats,
// na actions, own ownership targets) lies in host memory on its way to the
// device: observations, policy targets, values, ownership targets (own is
// 0 without an ownership loss), then the legal mask as bytes (libtorch's
// bool is a byte holding 0 or 1, like Go's), packed four to a float.
type batchLayout struct{ n, size, na, own int }

// ownAt is the float index where the ownership targets start.
func (l batchLayout) ownAt() int { return l.n * (l.size + l.na + 1) }

// maskAt is the float index where the mask's bytes start.
func (l batchLayout) maskAt() int { return l.n * (l.size + l.na + 1 + l.own) }

// floats is the layout's length in floats, with the mask.
func (l batchLayout) floats() int { return l.maskAt() + (l.n*l.na+3)/4 }

// hostBatch is a batch whose slices are one of a trainer's host buffers,
// in batchLayout.
type hostBatch struct {
	batchLayout
	h   handle
	ptr unsafe.Pointer
}

// NewBatch returns a batch of n examples of the network's board whose
// slices (Obs, Policy, Value, Legal, and Ownership when the trainer has an
// ownership loss) are host memory the trainer owns,
// page-locked when the network is on a GPU. Step sends such a batch to the
// device straight from there, with no copy on the host, so that a batch
// filled while the previous step trains costs the step nothing.
//
// Write into the slices in place; a batch whose slices were replaced or
// resliced is copied as any other. Set Legal to nil for a batch without a
// mask.
// Another goroutine may fill one such batch while Step trains on another.
// The memory is the trainer's: it is freed by Close (or when the trainer is
// garbage collected), after which the slices must not be touched.
func (t *Trainer) NewBatch(n int) (Batch, error) {
	if n <= 0 {
		return Batch{}, fmt.Errorf("model: new batch of %d examples", n)
	}
	release, err := t.acquire()
	defer release()
	if err != nil {
		return Batch{}, err
	}
	s := t.net.shape
	hb := &hostBatch{batchLayout: batchLayout{n: n, size: s.Size(), na: s.Actions}}
	if t.ownership() {
		hb.own = s.Height * s.Width
	}
	e := t.eng
	e.reset()
	hb.h = hostBuffer(e, hb.floats())
	if e.err != nil {
		return Batch{}, fmt.Errorf("model: new batch of %d examples: %w", n, e.err)
	}
	hb.ptr = lib.AtDataPtr(hb.h)
	t.st.batches = append(t.st.batches, hb.h)
	t.batches = append(t.batches, hb)
	buf := floats(hb.ptr, hb.floats())
	clear(buf)
	obs, pol, val, own := n*hb.size, n*(hb.size+hb.na), hb.ownAt(), hb.maskAt()
	b := Batch{
		N:      n,
		Obs:    buf[:obs:obs],
		Policy: buf[obs:pol:pol],
		Value:  buf[pol:val:val],
		Legal:  unsafe.Slice((*bool)(unsafe.Pointer(&buf[own])), n*hb.na),
	}
	if hb.own > 0 {
		b.Ownership = buf[val:own:own]
	}
	return b, nil
}

// hostBatchOf returns the host buffer b's slices are, or nil when b is not
// one of NewBatch's batches of shape s as it was returned.
func (t *Trainer) hostBatchOf(b Batch, s Shape) *hostBatch {
	if len(b.Obs) == 0 {
		return nil
	}
	at := func(p unsafe.Pointer, floats int) unsafe.Pointer { return unsafe.Add(p, 4*floats) }
	for _, hb := range t.batches {
		if hb.n != b.N || hb.size != s.Size() || hb.na != s.Actions || unsafe.Pointer(&b.Obs[0]) != hb.ptr {
			continue
		}
		ok := len(b.Policy) > 0 && unsafe.Pointer(&b.Policy[0]) == at(hb.ptr, hb.n*hb.size) &&
			len(b.Value) > 0 && unsafe.Pointer(&b.Value[0]) == at(hb.ptr, hb.n*(hb.size+hb.na)) &&
			(hb.own == 0 || len(b.Ownership) > 0 && unsafe.Pointer(&b.Ownership[0]) == at(hb.ptr, hb.ownAt())) &&
			(b.Legal == nil || len(b.Legal) > 0 && unsafe.Pointer(&b.Legal[0]) == at(hb.ptr, hb.maskAt()))
		if ok {
			return hb
		}
	}
	return nil
}
