package torch

import (
	"errors"
	"fmt"
	"unsafe"

	lib "github.com/sugarme/gotch/libtch"
	"github.com/zerokit/zerokit/model/arch"
)

// handle is a libtorch tensor handle (a heap-allocated torch::Tensor). Every
// handle an op returns must be freed exactly once with engine.free.
type handle = lib.Ctensor

// libtorch scalar type codes (c10::ScalarType).
const (
	kindInt64   = 4
	kindFloat32 = 6
	kindBool    = 11
)

// bnMomentum and bnEpsilon are batch norm's running-average momentum and
// variance epsilon (PyTorch's defaults).
const (
	bnMomentum = 0.1
	bnEpsilon  = arch.BNEpsilon
)

// engine runs libtorch ops on raw handles through gotch's C layer, without
// the ts package's per-op Go allocations. It keeps the first error: once an
// op fails every later op returns nil and does nothing, so straight-line
// code can run to the end, free what it holds (freeing nil is a no-op) and
// check err once.
//
// libtorch reports errors and grad mode per OS thread: an engine must be
// used by a goroutine locked to its thread (runtime.LockOSThread) for the
// whole sequence of ops it runs. An engine is not safe for concurrent use.
type engine struct {
	// out is the array the C wrappers write result handles into. It is an
	// allocation of its own: cgo's pointer check inspects the whole object
	// a *handle argument points into, and it must hold no Go pointers.
	out *[8]handle
	err error
	// dev is gotch's number of the device new tensors go to (-1: CPU).
	dev int32

	// Argument arrays, allocated once so that calls do not allocate.
	ones2   []int64 // stride and dilation {1, 1}
	pad1    []int64 // padding {1, 1}
	pad0    []int64 // padding {0, 0}
	spatial []int64 // dims {2, 3}
	dims4   []int64
	dims2   []int64
	dims1   []int64
	pair    []handle // for cat
	shape   [8]int64
}

func newEngine(d Device) *engine {
	return &engine{
		dev:     d.code(),
		out:     new([8]handle),
		ones2:   []int64{1, 1},
		pad1:    []int64{1, 1},
		pad0:    []int64{0, 0},
		spatial: []int64{2, 3},
		dims4:   make([]int64, 4),
		dims2:   make([]int64, 2),
		dims1:   make([]int64, 1),
		pair:    make([]handle, 2),
	}
}

// reset clears the kept error before a new sequence of ops.
func (e *engine) reset() { e.err = nil }

// check records the calling thread's libtorch error, if any, as e.err.
func (e *engine) check(op string) bool {
	if msg, failed := lib.LastError(); failed {
		if e.err == nil {
			e.err = fmt.Errorf("libtorch %s: %s", op, firstLineOf(msg))
		}
		return false
	}
	return true
}

// result returns the handle an op wrote, or nil if it failed.
func (e *engine) result(op string) handle {
	if !e.check(op) {
		return nil
	}
	return e.out[0]
}

// inplace finishes an in-place op: the wrapper returns a second handle to
// the same tensor, which is freed; the caller keeps using its own handle.
func (e *engine) inplace(op string) {
	if e.check(op) {
		lib.AtFree(e.out[0])
	}
}

func (e *engine) free(h handle) {
	if h != nil {
		lib.AtFree(h)
	}
}

func firstLineOf(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}

// fromFloat32 copies data into a new float32 tensor of the given shape on
// the engine's device, after checking that it fills the shape.
func (e *engine) fromFloat32(data []float32, dims []int64) handle {
	if e.err != nil {
		return nil
	}
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	if int64(len(data)) < n || n == 0 {
		e.err = fmt.Errorf("tensor data: %d values for shape %v", len(data), dims)
		return nil
	}
	h := lib.AtTensorOfData(unsafe.Pointer(&data[0]), dims, uint(len(dims)), 4, kindFloat32)
	if !e.check("tensor_of_data") {
		return nil
	}
	if e.dev < 0 {
		return h
	}
	// Data always arrives in host memory; copy it to the device.
	lib.AtgTo(&e.out[0], h, e.dev)
	d := e.result("to(device)")
	lib.AtFree(h)
	return d
}

// zerosLike returns a new float32 tensor of zeros with x's shape, not
// requiring grad.
func (e *engine) zerosLike(x handle) handle {
	if e.err != nil {
		return nil
	}
	lib.AtgZerosLike(&e.out[0], x)
	return e.result("zeros_like")
}

// copyOut copies the first len(dst) values of a float32 tensor into dst
// (through host memory when the tensor is on a GPU).
func (e *engine) copyOut(x handle, dst []float32) {
	if e.err != nil || len(dst) == 0 {
		return
	}
	lib.AtCopyData(x, unsafe.Pointer(&dst[0]), uint(len(dst)), 4)
	e.check("copy_data")
}

// copyFrom copies src's values into x (same shape) in place.
func (e *engine) copyFrom(x, src handle) {
	if e.err != nil {
		return
	}
	lib.AtCopy_(x, src)
	e.check("copy_")
}

// scalar reads a one-element float32 tensor.
func (e *engine) scalar(x handle) float64 {
	var v [1]float32
	e.copyOut(x, v[:])
	return float64(v[0])
}

// dims returns x's shape (a view of a buffer the next call overwrites).
func (e *engine) dims(x handle) []int64 {
	if e.err != nil {
		return nil
	}
	n := int(lib.AtDim(x))
	if !e.check("dim") {
		return nil
	}
	if n > len(e.shape) {
		e.err = fmt.Errorf("tensor has %d dimensions", n)
		return nil
	}
	if n > 0 {
		lib.AtShape(x, unsafe.Pointer(&e.shape[0]))
		if !e.check("shape") {
			return nil
		}
	}
	return e.shape[:n]
}

// conv2d is a stride-1 2-D convolution, padded to keep the size when the
// kernel is 3x3 (same=true). b may be nil.
func (e *engine) conv2d(x, w, b handle, same bool) handle {
	if e.err != nil {
		return nil
	}
	pad := e.pad0
	if same {
		pad = e.pad1
	}
	lib.AtgConv2d(&e.out[0], x, w, b, e.ones2, 2, pad, 2, e.ones2, 2, 1)
	return e.result("conv2d")
}

// batchNorm normalises x per channel with batch statistics (train, which
// also updates the running averages in place) or running statistics.
func (e *engine) batchNorm(x, gamma, beta, mean, variance handle, train bool) handle {
	if e.err != nil {
		return nil
	}
	t := int32(0)
	if train {
		t = 1
	}
	lib.AtgBatchNorm(&e.out[0], x, gamma, beta, mean, variance, t, bnMomentum, bnEpsilon, 0)
	return e.result("batch_norm")
}

func (e *engine) relu_(x handle) {
	if e.err != nil {
		return
	}
	lib.AtgRelu_(&e.out[0], x)
	e.inplace("relu_")
}

func (e *engine) tanh_(x handle) {
	if e.err != nil {
		return
	}
	lib.AtgTanh_(&e.out[0], x)
	e.inplace("tanh_")
}

// add_ adds y to x in place.
func (e *engine) add_(x, y handle) {
	if e.err != nil {
		return
	}
	lib.AtgAdd_(&e.out[0], x, y)
	e.inplace("add_")
}

func (e *engine) linear(x, w, b handle) handle {
	if e.err != nil {
		return nil
	}
	lib.AtgLinear(&e.out[0], x, w, b)
	return e.result("linear")
}

// flatten reshapes (N, ...) to (N, rest).
func (e *engine) flatten(x handle) handle {
	if e.err != nil {
		return nil
	}
	lib.AtgFlatten(&e.out[0], x, 1, -1)
	return e.result("flatten")
}

// reshape1 reshapes x to one dimension.
func (e *engine) reshape1(x handle) handle {
	if e.err != nil {
		return nil
	}
	e.dims1[0] = -1
	lib.AtgReshape(&e.out[0], x, e.dims1, 1)
	return e.result("reshape")
}

// spatialMean averages (N, C, H, W) over H and W to (N, C).
func (e *engine) spatialMean(x handle) handle {
	if e.err != nil {
		return nil
	}
	lib.AtgMeanDim(&e.out[0], x, e.spatial, 2, 0, -1)
	return e.result("mean")
}

// spatialMax takes the maximum of (N, C, H, W) over H and W, giving (N, C).
func (e *engine) spatialMax(x handle) handle {
	if e.err != nil {
		return nil
	}
	lib.AtgAmax(&e.out[0], x, e.spatial, 2, 0)
	return e.result("amax")
}

// cat2 concatenates a and b along dim.
func (e *engine) cat2(a, b handle, dim int64) handle {
	if e.err != nil {
		return nil
	}
	e.pair[0], e.pair[1] = a, b
	lib.AtgCat(&e.out[0], e.pair, 2, dim)
	e.pair[0], e.pair[1] = nil, nil
	return e.result("cat")
}

// maskedFill_ sets x to v where mask is true, in place.
func (e *engine) maskedFill_(x, mask handle, v float64) {
	if e.err != nil {
		return
	}
	s := lib.AtsFloat(v)
	lib.AtgMaskedFill_(&e.out[0], x, mask, s)
	lib.AtsFree(s)
	e.inplace("masked_fill_")
}

// logicalNot returns !x for a bool tensor.
func (e *engine) logicalNot(x handle) handle {
	if e.err != nil {
		return nil
	}
	lib.AtgLogicalNot(&e.out[0], x)
	return e.result("logical_not")
}

func (e *engine) logSoftmax(x handle, dim int64) handle {
	if e.err != nil {
		return nil
	}
	lib.AtgLogSoftmax(&e.out[0], x, dim, -1)
	return e.result("log_softmax")
}

func (e *engine) mul(x, y handle) handle {
	if e.err != nil {
		return nil
	}
	lib.AtgMul(&e.out[0], x, y)
	return e.result("mul")
}

func (e *engine) div(x, y handle) handle {
	if e.err != nil {
		return nil
	}
	lib.AtgDiv(&e.out[0], x, y)
	return e.result("div")
}

func (e *engine) sqrt(x handle) handle {
	if e.err != nil {
		return nil
	}
	lib.AtgSqrt(&e.out[0], x)
	return e.result("sqrt")
}

// sumAll sums every element of x to a scalar tensor.
func (e *engine) sumAll(x handle) handle {
	if e.err != nil {
		return nil
	}
	lib.AtgSum(&e.out[0], x, -1)
	return e.result("sum")
}

// mse is the mean squared error between x and y.
func (e *engine) mse(x, y handle) handle {
	if e.err != nil {
		return nil
	}
	lib.AtgMseLoss(&e.out[0], x, y, 1) // reduction 1: mean
	return e.result("mse_loss")
}

func (e *engine) mulScalar_(x handle, v float64) {
	if e.err != nil {
		return
	}
	s := lib.AtsFloat(v)
	lib.AtgMulScalar_(&e.out[0], x, s)
	lib.AtsFree(s)
	e.inplace("mul_")
}

func (e *engine) addScalar_(x handle, v float64) {
	if e.err != nil {
		return
	}
	s := lib.AtsFloat(v)
	lib.AtgAddScalar_(&e.out[0], x, s)
	lib.AtsFree(s)
	e.inplace("add_")
}

// lerp_ sets x to x + w*(y-x) in place.
func (e *engine) lerp_(x, y handle, w float64) {
	if e.err != nil {
		return
	}
	s := lib.AtsFloat(w)
	lib.AtgLerp_(&e.out[0], x, y, s)
	lib.AtsFree(s)
	e.inplace("lerp_")
}

// defined reports whether x is a defined tensor.
func (e *engine) defined(x handle) bool {
	if e.err != nil {
		return false
	}
	d := lib.AtDefined(x)
	return e.check("defined") && d
}

// requiresGrad_ marks a leaf tensor as a parameter.
func (e *engine) requiresGrad_(x handle) {
	if e.err != nil {
		return
	}
	lib.AtgRequiresGrad_(&e.out[0], x, 1)
	e.inplace("requires_grad_")
}

// errClosed is returned by every method of a closed Net or Trainer.
var errClosed = errors.New("model: use after Close")

func (e *engine) add(x, y handle) handle {
	if e.err != nil {
		return nil
	}
	lib.AtgAdd(&e.out[0], x, y)
	return e.result("add")
}

func (e *engine) mulScalar(x handle, v float64) handle {
	if e.err != nil {
		return nil
	}
	s := lib.AtsFloat(v)
	lib.AtgMulScalar(&e.out[0], x, s)
	lib.AtsFree(s)
	return e.result("mul")
}

// narrow returns a view of x's elements start to start+length-1 along dim.
func (e *engine) narrow(x handle, dim, start, length int64) handle {
	if e.err != nil {
		return nil
	}
	lib.AtgNarrow(&e.out[0], x, dim, start, length)
	return e.result("narrow")
}

// view returns x viewed with the given shape (x must be contiguous).
func (e *engine) view(x handle, dims []int64) handle {
	if e.err != nil {
		return nil
	}
	lib.AtgView(&e.out[0], x, dims, len(dims))
	return e.result("view")
}

// toDevice returns a copy of x's float32 values on the engine's device.
// The copy is a blocking one: a non-blocking copy from pinned memory makes
// libtorch record an event for the pinned block at every call, which its
// host allocator releases only when it allocates again (never, here).
func (e *engine) toDevice(x handle) handle {
	if e.err != nil {
		return nil
	}
	lib.AtgToDevice(&e.out[0], x, e.dev, kindFloat32, 0, 0)
	return e.result("to(device)")
}

// stageOut copies the first rows rows of x, a contiguous (N, cols) float32
// tensor, into the flat host tensor dst from element at on (a blocking
// copy: the values are there when it returns).
func (e *engine) stageOut(x, dst handle, at, rows, cols int) {
	if e.err != nil {
		return
	}
	top := e.narrow(x, 0, 0, int64(rows))
	src := e.reshape1(top)
	e.free(top)
	d := e.narrow(dst, 0, int64(at), int64(rows*cols))
	e.copyFrom(d, src)
	e.free(d)
	e.free(src)
}

// alias makes x a contiguous tensor of the given shape over the elements of
// the flat tensor src from element at on, in place (set_: x keeps its
// handle and autograd identity, and its old storage is released). Grad
// mode must be off or x must not require grad yet.
func (e *engine) alias(x, src handle, at int, shape []int64) {
	if e.err != nil {
		return
	}
	stride := make([]int64, len(shape))
	n := int64(1)
	for i := len(shape) - 1; i >= 0; i-- {
		stride[i] = n
		n *= shape[i]
	}
	lib.AtgSetSourceTensorStorageOffset_(&e.out[0], x, src, int64(at), shape, len(shape), stride, len(stride))
	e.inplace("set_")
}

// gradients back-propagates from the scalar loss and writes the gradient
// of each of inputs (tensors that require grad) into grads, without
// accumulating anything into the inputs' .grad. A gradient is nil where
// the loss does not depend on that input. The caller frees them.
func (e *engine) gradients(loss handle, inputs, grads []handle) {
	if e.err != nil || len(inputs) == 0 {
		return
	}
	clear(grads)
	e.pair[0] = loss
	lib.AtRunBackward(&e.pair[0], 1, &inputs[0], len(inputs), &grads[0], 0, 0)
	e.pair[0] = nil
	if !e.check("backward") {
		clear(grads)
		return
	}
	for i, g := range grads {
		if g != nil && !lib.AtDefined(g) {
			lib.AtFree(g)
			grads[i] = nil
		}
	}
}

// flattenDense concatenates the tensors of list, each flattened, into a
// new one-dimensional tensor (one copy kernel for the whole list).
func (e *engine) flattenDense(list []handle) handle {
	if e.err != nil {
		return nil
	}
	lib.AtgFlattenDenseTensors(&e.out[0], list, len(list))
	return e.result("flatten_dense_tensors")
}

// stack stacks tensors of the same shape along a new first dimension.
func (e *engine) stack(list []handle) handle {
	if e.err != nil {
		return nil
	}
	lib.AtgStack(&e.out[0], list, len(list), 0)
	return e.result("stack")
}

// viewKind returns x's memory viewed as elements of the scalar type kind
// (view(dtype): the last dimension scales with the element sizes).
func (e *engine) viewKind(x handle, kind int) handle {
	if e.err != nil {
		return nil
	}
	lib.AtgViewDtype(&e.out[0], x, int32(kind))
	return e.result("view(dtype)")
}

// autocastEnter turns on mixed precision (bfloat16 autocast) on the calling
// OS thread for the engine's device; autocastExit(prev) ends it, and must
// be called exactly when entered is true (an unmatched exit would unbalance
// libtorch's per-thread nesting count, which decides when cached weight
// casts are dropped). Between the two, convolutions and matrix products
// take bfloat16 copies of their float32 inputs and weights (autograd
// carries gradients back to the float32 weights).
func (e *engine) autocastEnter() (prev, entered bool) {
	if e.err != nil {
		return false, false
	}
	prev = lib.AutocastEnter(e.dev >= 0)
	return prev, e.check("autocast")
}

// autocastExit ends an entered autocastEnter region, even after an error.
func (e *engine) autocastExit(prev bool) {
	lib.AutocastExit(e.dev >= 0, prev)
	e.check("autocast exit")
}

// toFloat32 returns x as a float32 tensor (x itself, as a new handle, when
// it is one already).
func (e *engine) toFloat32(x handle) handle {
	if e.err != nil {
		return nil
	}
	lib.AtgToDevice(&e.out[0], x, e.dev, kindFloat32, 0, 0)
	return e.result("to(float32)")
}

// float32Of returns x converted to float32 and frees x.
func (e *engine) float32Of(x handle) handle {
	if x == nil {
		return nil
	}
	f := e.toFloat32(x)
	e.free(x)
	return f
}
