package torch

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"

	lib "github.com/sugarme/gotch/libtch"
	"github.com/sugarme/gotch/ts"
)

// core is the state that views of one network (Net.WithBoard) share.
type core struct {
	mu  sync.Mutex // serialises all libtorch work on st
	cfg Config
	dev Device  // where st's tensors live (cfg.Device resolved)
	st  *store  // nil once closed
	eng *engine // for inference, used under mu
	// extra is the number of non-spatial logits of a spatial policy head.
	extra int
}

// Net is a policy/value network. Its methods are safe for concurrent use;
// calls are serialised. A Net holds libtorch memory: Close it when done (a
// forgotten Net is freed when garbage collected).
type Net struct {
	c     *core
	shape Shape
	// obs2 is the scratch batch of two for padding single positions.
	obs2 []float32
}

// New creates a network with fresh weights drawn from a generator seeded
// with seed (the same seed gives the same weights), on the device
// cfg.Device names (ResolveDevice).
func New(cfg Config, shape Shape, seed uint64) (*Net, error) {
	rng := rand.New(rand.NewPCG(seed, 0x6d6f64656c))
	return build(cfg, shape, func(t *namedTensor) []float32 { return initValues(t, rng) })
}

// build validates cfg and shape and creates a network whose tensors get
// values(t).
func build(cfg Config, shape Shape, values func(t *namedTensor) []float32) (*Net, error) {
	cfg = cfg.WithDefaults()
	if err := errors.Join(cfg.Validate(), shape.Validate(cfg)); err != nil {
		return nil, err
	}
	dev, err := ResolveDevice(cfg.Device)
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	singleThreadedBLAS()
	if cfg.Threads > 0 {
		lib.SetNumThreads(cfg.Threads)
	}
	c := &core{cfg: cfg, dev: dev, st: newStore(cfg, shape), eng: newEngine(dev), extra: shape.ExtraActions(cfg)}
	if err := c.st.create(c.eng, values); err != nil {
		return nil, err
	}
	runtime.AddCleanup(c, func(s *store) { s.free() }, c.st)
	return &Net{c: c, shape: shape, obs2: make([]float32, 2*shape.Size())}, nil
}

// Config returns the network's configuration (with defaults applied).
func (n *Net) Config() Config { return n.c.cfg }

// Device returns the device the network runs on (its configuration's
// Device, resolved when the network was made).
func (n *Net) Device() Device { return n.c.dev }

// Shape returns the observation shape and number of actions of this view.
func (n *Net) Shape() Shape { return n.shape }

// NumParams returns the number of trained parameters.
func (n *Net) NumParams() int {
	n.c.mu.Lock()
	defer n.c.mu.Unlock()
	if n.c.st == nil {
		return 0
	}
	return n.c.st.numParams()
}

// Close frees the network's libtorch memory, for every view of it. Later
// calls return an error. Close is idempotent.
func (n *Net) Close() {
	n.c.mu.Lock()
	defer n.c.mu.Unlock()
	if n.c.st != nil {
		n.c.st.free()
		n.c.st = nil
	}
}

// WithBoard returns a view of a spatial-policy network for another board
// size: it shares the weights (and Close) with n and maps
// Planes x height x width observations to PolicyPlanes*height*width + extra
// actions, where extra is n's number of non-spatial actions.
func (n *Net) WithBoard(height, width int) (*Net, error) {
	cfg := n.c.cfg
	if cfg.PolicyHead != PolicySpatial {
		return nil, fmt.Errorf("model: WithBoard(%d, %d): the %q policy head is tied to its %dx%d board; use %q",
			height, width, cfg.PolicyHead, n.shape.Height, n.shape.Width, PolicySpatial)
	}
	s := Shape{Planes: n.shape.Planes, Height: height, Width: width,
		Actions: cfg.PolicyPlanes*height*width + n.c.extra}
	if err := s.Validate(cfg); err != nil {
		return nil, err
	}
	return &Net{c: n.c, shape: s, obs2: make([]float32, 2*s.Size())}, nil
}

// Forward evaluates count observations stored contiguously in obs (count *
// Shape().Size() values) and writes count * Shape().Actions policy logits
// into logits and count values in [-1, 1] into values. It runs in
// evaluation mode without recording gradients, and allocates nothing.
// It implements mcts.Network.
func (n *Net) Forward(obs []float32, count int, logits, values []float32) error {
	if count <= 0 {
		return fmt.Errorf("model: Forward: batch of %d observations", count)
	}
	size, na := n.shape.Size(), n.shape.Actions
	if len(obs) < count*size || len(logits) < count*na || len(values) < count {
		return fmt.Errorf("model: Forward: batch of %d needs %d observation, %d logit and %d value slots; got %d, %d and %d",
			count, count*size, count*na, count, len(obs), len(logits), len(values))
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c := n.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st == nil {
		return errClosed
	}
	c.useThreads()
	prev := lib.SetGradEnabled(false)
	err := n.infer(obs, count, logits, values)
	lib.SetGradEnabled(prev)
	return err
}

// infer runs Forward's work; c.mu is held and grad mode is off.
func (n *Net) infer(obs []float32, count int, logits, values []float32) error {
	c, e := n.c, n.c.eng
	size, na := n.shape.Size(), n.shape.Actions
	batch := count
	in := obs[:count*size]
	if count == 1 && !c.cfg.NoPadSingle {
		copy(n.obs2, in)
		copy(n.obs2[size:], in)
		in, batch = n.obs2, 2
	}
	e.reset()
	st := &c.st.stage
	st.ensure(e, batch*size, count*(na+1))
	if e.err != nil {
		return fmt.Errorf("model: Forward: %w", e.err)
	}
	copy(floats(st.inPtr, batch*size), in)
	e.dims4[0], e.dims4[1], e.dims4[2], e.dims4[3] = int64(batch), int64(n.shape.Planes), int64(n.shape.Height), int64(n.shape.Width)
	flat := e.narrow(st.in, 0, 0, int64(batch*size))
	x := e.view(flat, e.dims4)
	e.free(flat)
	if e.dev >= 0 {
		d := e.toDevice(x)
		e.free(x)
		x = d
	}
	pol, val := c.forward(e, x, false, nil)
	e.free(x)
	e.stageOut(pol, st.out, 0, count, na)
	e.stageOut(val, st.out, count*na, count, 1)
	e.free(pol)
	e.free(val)
	if e.err == nil {
		out := floats(st.outPtr, count*(na+1))
		copy(logits[:count*na], out)
		copy(values[:count], out[count*na:])
	}
	if e.err != nil {
		return fmt.Errorf("model: Forward: %w", e.err)
	}
	return nil
}

// ForwardT runs the network on x, a float32 tensor of shape (N, Planes, H,
// W), and returns new tensors of policy logits (N, Actions) and values (N,
// 1), which the caller must drop. With train, batch norm uses batch
// statistics and updates its running averages; otherwise it uses the
// running averages. Gradients are recorded if the calling thread's grad mode
// is on: the caller must keep its goroutine locked to one OS thread
// (runtime.LockOSThread) from here to the end of its use of the results.
// A spatial-policy network accepts any H and W; a dense one only its own.
// x must be on the network's device (Device).
func (n *Net) ForwardT(x *ts.Tensor, train bool) (logits, values *ts.Tensor, err error) {
	c := n.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st == nil {
		return nil, nil, errClosed
	}
	c.useThreads()
	e := newEngine(c.dev)
	xh := handle(x.Ctensor())
	d := e.dims(xh)
	if e.err == nil && (len(d) != 4 || d[1] != int64(n.shape.Planes) ||
		(c.cfg.PolicyHead == PolicyDense && (d[2] != int64(n.shape.Height) || d[3] != int64(n.shape.Width)))) {
		return nil, nil, fmt.Errorf("model: ForwardT: input shape %v, want (N, %d, %d, %d)", d, n.shape.Planes, n.shape.Height, n.shape.Width)
	}
	pol, val := c.forward(e, xh, train, nil)
	if e.err != nil {
		e.free(pol)
		e.free(val)
		return nil, nil, fmt.Errorf("model: ForwardT: %w", e.err)
	}
	return ts.New(pol), ts.New(val), nil
}

// useThreads applies cfg.Threads to the calling OS thread. libtorch's
// setting is global for threads that have not run an op yet, but a thread
// that has keeps the count it started with (OpenMP's is per thread).
func (c *core) useThreads() {
	if c.cfg.Threads > 0 && lib.NumThreads() != c.cfg.Threads {
		lib.SetNumThreads(c.cfg.Threads)
	}
}

// forward computes policy logits (N, Actions) and values (N, 1) for the
// input x (N, Planes, H, W), and, when own is not nil and the network has
// an ownership head, sets *own to its predictions (N, H*W) in [-1, 1]. It
// frees every intermediate; the caller frees x and the results (nil after
// an error, which e.err then holds). With Config.Precision bf16 the tower
// runs under autocast and its results are converted to float32.
func (c *core) forward(e *engine, x handle, train bool, own *handle) (logits, value handle) {
	if !c.cfg.BFloat16() {
		return c.tower(e, x, train, own)
	}
	prev, entered := e.autocastEnter()
	logits, value = c.tower(e, x, train, own)
	if entered {
		e.autocastExit(prev)
	}
	logits, value = e.float32Of(logits), e.float32Of(value)
	if own != nil {
		*own = e.float32Of(*own)
	}
	return logits, value
}

// tower is forward's network, in the calling thread's precision.
func (c *core) tower(e *engine, x handle, train bool, own *handle) (logits, value handle) {
	s := c.st
	t := e.conv2d(x, s.stem.h, nil, true)
	t = e.bnRelu(t, s.stemBN, train)
	for i := range s.blocks {
		b := &s.blocks[i]
		r := e.conv2d(t, b.conv1.h, nil, true)
		r = e.bnRelu(r, b.bn1, train)
		r2 := e.conv2d(r, b.conv2.h, nil, true)
		e.free(r)
		r = e.bn(r2, b.bn2, train)
		e.add_(r, t)
		e.relu_(r)
		e.free(t)
		t = r
	}

	p := e.conv2d(t, s.polConv.h, nil, false)
	p = e.bnRelu(p, s.polBN, train)
	switch c.cfg.PolicyHead {
	case PolicyDense:
		f := e.flatten(p)
		logits = e.linear(f, s.polFC.h, s.polFCB.h)
		e.free(f)
	case PolicySpatial:
		cell := e.conv2d(p, s.polCell.h, s.polCellB.h, false)
		logits = e.flatten(cell)
		e.free(cell)
		if s.polExtra != nil {
			pooled := e.spatialMean(p)
			extra := e.linear(pooled, s.polExtra.h, s.polExtB.h)
			e.free(pooled)
			all := e.cat2(logits, extra, 1)
			e.free(extra)
			e.free(logits)
			logits = all
		}
	}
	e.free(p)

	if own != nil && s.own != nil {
		o := e.conv2d(t, s.own.h, s.ownB.h, false)
		e.tanh_(o)
		*own = e.flatten(o)
		e.free(o)
	}

	v := e.conv2d(t, s.valConv.h, nil, false)
	e.free(t)
	v = e.bnRelu(v, s.valBN, train)
	pooled := e.spatialMean(v)
	if c.cfg.ValueMaxPool {
		mx := e.spatialMax(v)
		both := e.cat2(pooled, mx, 1)
		e.free(mx)
		e.free(pooled)
		pooled = both
	}
	e.free(v)
	h := e.linear(pooled, s.valFC1.h, s.valFC1B.h)
	e.free(pooled)
	e.relu_(h)
	value = e.linear(h, s.valFC2.h, s.valFC2B.h)
	e.free(h)
	e.tanh_(value)
	if e.err != nil {
		e.free(logits)
		e.free(value)
		if own != nil {
			e.free(*own)
			*own = nil
		}
		return nil, nil
	}
	return logits, value
}

// bn applies batch norm and frees its input.
func (e *engine) bn(x handle, bn batchNorm, train bool) handle {
	y := e.batchNorm(x, bn.gamma.h, bn.beta.h, bn.mean.h, bn.variance.h, train)
	e.free(x)
	return y
}

// bnRelu applies batch norm then ReLU and frees its input.
func (e *engine) bnRelu(x handle, bn batchNorm, train bool) handle {
	y := e.bn(x, bn, train)
	e.relu_(y)
	return y
}
