package torch

import (
	"unsafe"

	lib "github.com/sugarme/gotch/libtch"
)

// staging is the host memory inference copies through: one flat float32
// tensor for the observations and one for the logits and values, grown to
// the largest batch seen and then reused, so that a forward pass allocates
// no host memory. On a GPU the buffers are pinned (page-locked), which lets
// the copies to and from the device run by DMA at the bus's speed instead
// of through the driver's pageable staging, and lets the input's copy be
// done without allocating.
type staging struct {
	in, out       handle
	inPtr, outPtr unsafe.Pointer
	inCap, outCap int
}

// minStaging is the smallest staging buffer, in floats (1 MiB): batches
// grow from there by doubling, so that a network that sees batches of 1 to
// 4,096 reallocates a few times, not at every new size.
const minStaging = 1 << 18

// ensure makes the buffers hold at least in and out floats.
func (s *staging) ensure(e *engine, in, out int) {
	if s.inCap < in {
		s.grow(e, &s.in, &s.inPtr, &s.inCap, in)
	}
	if s.outCap < out {
		s.grow(e, &s.out, &s.outPtr, &s.outCap, out)
	}
}

// grow replaces the buffer *h (of *capacity floats at *p) by one of at
// least n floats, doubling so that a slowly growing batch reallocates
// rarely. After an error the old buffer stays.
func (s *staging) grow(e *engine, h *handle, p *unsafe.Pointer, capacity *int, n int) {
	if e.err != nil {
		return
	}
	n = max(n, 2**capacity, minStaging)
	t := hostBuffer(e, n)
	if t == nil {
		return
	}
	e.free(*h)
	*h, *p, *capacity = t, lib.AtDataPtr(t), n
}

// hostBuffer returns a new flat float32 tensor of n elements in host
// memory, page-locked when the engine's device is a GPU (nil after an
// error, which e.err then holds).
func hostBuffer(e *engine, n int) handle {
	if e.err != nil {
		return nil
	}
	e.dims1[0] = int64(n)
	lib.AtgEmpty(&e.out[0], e.dims1, 1, kindFloat32, -1)
	t := e.result("empty")
	if t != nil && e.dev >= 0 {
		lib.AtgPinMemory(&e.out[0], t, e.dev)
		lib.AtFree(t)
		t = e.result("pin_memory")
	}
	return t
}

// free releases the buffers; it is idempotent.
func (s *staging) free() {
	for _, h := range []handle{s.in, s.out} {
		if h != nil {
			lib.AtFree(h)
		}
	}
	*s = staging{}
}

// floats returns the first n floats of a staging buffer as a Go slice.
func floats(p unsafe.Pointer, n int) []float32 {
	return unsafe.Slice((*float32)(p), n)
}
