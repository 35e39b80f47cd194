//go:build torchref

// Package torchref is the network's forward pass written directly in C++
// against libtorch, used only by model's overhead benchmark to measure what
// the Go side of torch.Net.Forward adds. It is built only with the torchref
// tag (its C++ file takes a minute to compile):
//
//	go test ./model/ -tags torchref -run '^$' -bench Overhead
//
// The cgo flags are for Debian's libtorch-dev. With another libtorch (see
// scripts/setup.sh), pass its paths through the environment:
//
//	CGO_CXXFLAGS="-I$LIBTORCH/include -I$LIBTORCH/include/torch/csrc/api/include" \
//	CGO_LDFLAGS="-L$LIBTORCH/lib -Wl,-rpath,$LIBTORCH/lib" go test -tags torchref ...
package torchref

// #cgo CXXFLAGS: -std=c++17 -O2 -I/usr/include/torch/csrc/api/include
// #cgo LDFLAGS: -lstdc++ -ltorch -lc10 -ltorch_cpu
// #include <stdint.h>
// #include <stdlib.h>
// int zk_ref_forward(void **params, int nparams, int blocks, int spatial, int maxpool,
//                    const float *obs, int64_t n, int64_t planes, int64_t h, int64_t w,
//                    float *logits, int64_t actions, float *values, char *err, int errlen);
import "C"

import (
	"errors"
	"unsafe"
)

// Net describes the network to run: its parameter handles (torch::Tensor
// pointers, in model's store order, kept in C memory) and architecture.
type Net struct {
	params          unsafe.Pointer // C array of handles
	n               int
	Blocks          int
	Spatial         bool
	MaxPool         bool
	Planes, H, W, A int
	errBuf          unsafe.Pointer
}

// New copies the parameter handles into C memory (cgo forbids passing Go
// memory holding them).
func New(handles []unsafe.Pointer) *Net {
	size := C.size_t(len(handles)) * C.size_t(unsafe.Sizeof(uintptr(0)))
	p := C.malloc(size)
	copy(unsafe.Slice((*unsafe.Pointer)(p), len(handles)), handles)
	return &Net{params: p, n: len(handles), errBuf: C.malloc(256)}
}

// Close frees the C memory.
func (r *Net) Close() {
	C.free(r.params)
	C.free(r.errBuf)
}

// Forward runs the reference forward pass on n observations.
func (r *Net) Forward(obs []float32, n int, logits, values []float32) error {
	b2i := func(b bool) C.int {
		if b {
			return 1
		}
		return 0
	}
	rc := C.zk_ref_forward((*unsafe.Pointer)(r.params), C.int(r.n), C.int(r.Blocks), b2i(r.Spatial), b2i(r.MaxPool),
		(*C.float)(unsafe.Pointer(&obs[0])), C.int64_t(n), C.int64_t(r.Planes), C.int64_t(r.H), C.int64_t(r.W),
		(*C.float)(unsafe.Pointer(&logits[0])), C.int64_t(r.A), (*C.float)(unsafe.Pointer(&values[0])),
		(*C.char)(r.errBuf), 256)
	if rc != 0 {
		return errors.New("torchref: " + C.GoString((*C.char)(r.errBuf)))
	}
	return nil
}
