package torch

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"unsafe"

	lib "github.com/sugarme/gotch/libtch"
)

// Optimizer kinds.
const (
	// OptimizerSGD is stochastic gradient descent with momentum and L2
	// weight decay (added to the gradient).
	OptimizerSGD = "sgd"
	// OptimizerAdam is Adam with L2 weight decay (added to the gradient).
	OptimizerAdam = "adam"
	// OptimizerAdamW is Adam with decoupled weight decay.
	OptimizerAdamW = "adamw"
)

// maskedLogit replaces the logits of illegal actions before log_softmax:
// large enough to vanish in the softmax, small enough that a zero target
// times it is still zero (not NaN, as with -Inf).
const maskedLogit = -1e9

// TrainConfig configures training. Start from DefaultTrainConfig: unmarshal
// YAML onto it so that fields the YAML leaves out keep their defaults.
type TrainConfig struct {
	// Optimizer is OptimizerSGD, OptimizerAdam or OptimizerAdamW.
	Optimizer string `yaml:"optimizer" json:"optimizer"`
	// Schedule gives the learning rate of each step.
	Schedule Schedule `yaml:"schedule" json:"schedule"`
	// Momentum and Nesterov are for SGD.
	Momentum float64 `yaml:"momentum" json:"momentum"`
	Nesterov bool    `yaml:"nesterov" json:"nesterov"`
	// Beta1, Beta2 and Epsilon are for Adam and AdamW.
	Beta1   float64 `yaml:"beta1" json:"beta1"`
	Beta2   float64 `yaml:"beta2" json:"beta2"`
	Epsilon float64 `yaml:"epsilon" json:"epsilon"`
	// WeightDecay applies to convolution and linear weights, not to biases
	// and batch norm parameters.
	WeightDecay float64 `yaml:"weight_decay" json:"weight_decay"`
	// GradClipNorm scales the gradients down when their global L2 norm
	// exceeds it (0: no clipping).
	GradClipNorm float64 `yaml:"grad_clip_norm" json:"grad_clip_norm"`
	// ValueLossWeight multiplies the value loss in the total loss.
	ValueLossWeight float64 `yaml:"value_loss_weight" json:"value_loss_weight"`
	// OwnershipLossWeight multiplies the ownership loss (the mean squared
	// error of the ownership head over the cells) in the total loss; above
	// 0 it needs a network with an ownership head and batches with
	// Ownership targets.
	OwnershipLossWeight float64 `yaml:"ownership_loss_weight" json:"ownership_loss_weight,omitempty"`
}

// DefaultTrainConfig is AdamW at a constant 1e-3 with light weight decay.
func DefaultTrainConfig() TrainConfig {
	return TrainConfig{
		Optimizer:       OptimizerAdamW,
		Schedule:        Schedule{Kind: ScheduleConstant, LearningRate: 1e-3, StepFactor: 0.1},
		Momentum:        0.9,
		Beta1:           0.9,
		Beta2:           0.999,
		Epsilon:         1e-8,
		WeightDecay:     1e-2,
		ValueLossWeight: 1,
	}
}

// Validate checks every field.
func (c TrainConfig) Validate() error {
	errs := []error{c.Schedule.Validate()}
	in := func(field string, v, lo, hi float64, hiOpen bool) {
		if math.IsNaN(v) || v < lo || v > hi || (hiOpen && v == hi) {
			bracket := "]"
			if hiOpen {
				bracket = ")"
			}
			errs = append(errs, fmt.Errorf("train config: %s must be in [%v, %v%s, got %v", field, lo, hi, bracket, v))
		}
	}
	switch c.Optimizer {
	case OptimizerSGD:
		in("momentum", c.Momentum, 0, 1, true)
		if c.Nesterov && c.Momentum == 0 {
			errs = append(errs, errors.New("train config: nesterov needs momentum > 0"))
		}
	case OptimizerAdam, OptimizerAdamW:
		in("beta1", c.Beta1, 0, 1, true)
		in("beta2", c.Beta2, 0, 1, true)
		if !(c.Epsilon > 0) {
			errs = append(errs, fmt.Errorf("train config: epsilon must be positive, got %v", c.Epsilon))
		}
	default:
		errs = append(errs, fmt.Errorf("train config: optimizer must be %q, %q or %q, got %q", OptimizerSGD, OptimizerAdam, OptimizerAdamW, c.Optimizer))
	}
	in("weight_decay", c.WeightDecay, 0, 1, false)
	in("grad_clip_norm", c.GradClipNorm, 0, math.MaxFloat64, false)
	in("value_loss_weight", c.ValueLossWeight, 0, 1e6, false)
	in("ownership_loss_weight", c.OwnershipLossWeight, 0, 1e6, false)
	return errors.Join(errs...)
}

// slotNames names the optimizer's per-parameter state tensors.
func (c TrainConfig) slotNames() []string {
	if c.Optimizer == OptimizerSGD {
		return []string{"momentum"}
	}
	return []string{"exp_avg", "exp_avg_sq"}
}

// Batch is a batch of training examples.
type Batch struct {
	// N is the number of examples.
	N int
	// Obs holds N observations (N * Planes*Height*Width values).
	Obs []float32
	// Policy holds N target distributions over the actions (N * Actions).
	Policy []float32
	// Value holds N target values in [-1, 1].
	Value []float32
	// Legal optionally holds N legal-action masks (N * Actions); the logits
	// of illegal actions are masked out before the softmax.
	Legal []bool
	// Ownership holds N ownership targets (N * Height*Width values in
	// [-1, 1], the cells in observation order) when the trainer's
	// OwnershipLossWeight is above 0, and must be nil otherwise.
	Ownership []float32
	// Height and Width optionally give the board size of this batch, for a
	// spatial-policy network trained on several sizes (0: the network's).
	Height, Width int
}

// Losses are the losses of one batch.
type Losses struct {
	// Policy is the soft-target cross entropy -sum(target * log_softmax).
	Policy float64
	// Value is the mean squared error of the value.
	Value float64
	// Ownership is the mean squared error of the ownership head over the
	// cells (0 without an ownership loss).
	Ownership float64
	// Total is Policy + ValueLossWeight * Value + OwnershipLossWeight *
	// Ownership, the minimised loss.
	Total float64
	// GradNorm is the global L2 norm of the gradients before clipping
	// (training steps only).
	GradNorm float64
	// LearningRate is the rate the step used (training steps only).
	LearningRate float64
}

// Trainer updates a network's weights. It shares the network's lock, so
// training steps and Forward calls on the same Net are serialised. Close it
// when done.
//
// The optimizer works on whole buffers: the network's trained tensors alias
// one flat buffer (store.flat), a step's gradients are gathered into one
// flat tensor of the same layout, and the optimizer state is one flat
// tensor per slot, so that the norm, clipping, weight decay and the update
// are a dozen ops a step whatever the number of parameter tensors.
type Trainer struct {
	net    *Net
	cfg    TrainConfig
	eng    *engine
	params []*namedTensor // the trained tensors, in the store's order
	// order lists the trained tensors in the flat buffer's order; inputs
	// holds their handles, grads a step's gradients of them, and list the
	// gradients and pads that flatten into the flat gradient.
	order  []*namedTensor
	inputs []handle
	grads  []handle
	list   []handle
	// st is the trainer's libtorch memory, freed by Close (or when the
	// trainer is garbage collected).
	st    *optState
	step  int64
	lr    float64 // override of the schedule, if > 0
	flat  int     // elements of the flat buffers
	decay int     // leading elements with weight decay
	// closed is set by Close.
	closed bool

	// stage is the host memory a batch is copied through (pinned on a
	// GPU): observations, policy targets, values and the illegal-action
	// mask, one after the other.
	stage staging
	dims  []int64
	// batches are NewBatch's buffers.
	batches []*hostBatch
}

// optState is a trainer's libtorch memory.
type optState struct {
	// slots are the optimizer's state, one flat tensor per slot name
	// (TrainConfig.slotNames), laid out like the parameters' flat buffer.
	slots []handle
	// pads[i] is a zero tensor for the gap after order[i] in the flat
	// layout (nil where there is none).
	pads []handle
	// decayed is a view of the part of the parameters' flat buffer that
	// has weight decay (nil without weights).
	decayed handle
	// batches are the host buffers of NewBatch's batches.
	batches []handle
}

func (o *optState) free() {
	for _, hs := range [][]handle{o.slots, o.pads, {o.decayed}, o.batches} {
		for i, h := range hs {
			if h != nil {
				lib.AtFree(h)
				hs[i] = nil
			}
		}
	}
	o.decayed = nil
}

// NewTrainer creates a trainer for net with zeroed optimizer state.
func NewTrainer(net *Net, cfg TrainConfig) (*Trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.OwnershipLossWeight > 0 && !net.c.cfg.OwnershipHead {
		return nil, errors.New("train config: ownership_loss_weight needs a network with an ownership head (ownership_head)")
	}
	c := net.c
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st == nil {
		return nil, errClosed
	}
	st := c.st
	t := &Trainer{net: net, cfg: cfg, eng: newEngine(c.dev), params: st.trainable(), order: st.flatOrder(),
		flat: st.flatLen, decay: st.decayLen, dims: make([]int64, 4), st: &optState{}}
	e := t.eng
	e.reset()
	for _, p := range t.order {
		t.inputs = append(t.inputs, p.h)
	}
	t.grads = make([]handle, len(t.order))
	for range cfg.slotNames() {
		t.st.slots = append(t.st.slots, e.zerosLike(st.flat))
	}
	t.st.pads = make([]handle, len(t.order))
	for i, p := range t.order {
		next := t.flat
		if i+1 < len(t.order) {
			next = t.order[i+1].off
		}
		if gap := next - p.off - p.NumElements(); gap > 0 {
			e.dims1[0] = int64(gap)
			t.st.pads[i] = e.fromFloat32(make([]float32, gap), e.dims1)
		}
	}
	if t.decay > 0 {
		t.st.decayed = e.narrow(st.flat, 0, 0, int64(t.decay))
	}
	if e.err != nil {
		t.st.free()
		return nil, fmt.Errorf("model: creating optimizer state: %w", e.err)
	}
	runtime.AddCleanup(t, func(o *optState) { o.free() }, t.st)
	return t, nil
}

// Close frees the optimizer state. The network stays usable.
func (t *Trainer) Close() {
	c := t.net.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if !t.closed {
		t.st.free()
		t.stage.free()
		t.closed = true
	}
}

// StepCount returns the number of steps taken (restored from a checkpoint
// by Restore).
func (t *Trainer) StepCount() int64 {
	t.net.c.mu.Lock()
	defer t.net.c.mu.Unlock()
	return t.step
}

// SetLearningRate overrides the schedule for the following steps; 0 goes
// back to the schedule.
func (t *Trainer) SetLearningRate(lr float64) error {
	if lr < 0 || math.IsNaN(lr) || math.IsInf(lr, 0) {
		return fmt.Errorf("model: learning rate %v", lr)
	}
	t.net.c.mu.Lock()
	defer t.net.c.mu.Unlock()
	t.lr = lr
	return nil
}

// LearningRate returns the rate the next step will use.
func (t *Trainer) LearningRate() float64 {
	t.net.c.mu.Lock()
	defer t.net.c.mu.Unlock()
	return t.learningRate()
}

func (t *Trainer) learningRate() float64 {
	if t.lr > 0 {
		return t.lr
	}
	return t.cfg.Schedule.At(t.step)
}

// Step takes one optimisation step on b (batch norm in training mode) and
// returns the batch's losses before the update. A non-finite loss returns
// an error and leaves the weights unchanged.
func (t *Trainer) Step(b Batch) (Losses, error) {
	return t.run(b, true)
}

// Loss evaluates b without changing anything (batch norm in evaluation
// mode, no gradients).
func (t *Trainer) Loss(b Batch) (Losses, error) {
	return t.run(b, false)
}

// batchShape validates b against the network and returns its shape.
func (t *Trainer) batchShape(b Batch) (Shape, error) {
	s := t.net.shape
	if (b.Height != 0 || b.Width != 0) && (b.Height != s.Height || b.Width != s.Width) {
		v, err := t.net.WithBoard(b.Height, b.Width)
		if err != nil {
			return Shape{}, fmt.Errorf("model: batch of %dx%d boards: %w", b.Height, b.Width, err)
		}
		s = v.shape
	}
	if b.N <= 0 {
		return Shape{}, fmt.Errorf("model: batch of %d examples", b.N)
	}
	check := func(field string, got, per int) error {
		if got != b.N*per {
			return fmt.Errorf("model: batch of %d: %s has %d values, want %d (%d each)", b.N, field, got, b.N*per, per)
		}
		return nil
	}
	err := errors.Join(check("Obs", len(b.Obs), s.Size()), check("Policy", len(b.Policy), s.Actions), check("Value", len(b.Value), 1))
	if b.Legal != nil {
		err = errors.Join(err, check("Legal", len(b.Legal), s.Actions))
	}
	switch {
	case t.ownership() && b.Ownership == nil:
		err = errors.Join(err, fmt.Errorf("model: batch of %d: no Ownership targets, which ownership_loss_weight %v needs", b.N, t.cfg.OwnershipLossWeight))
	case t.ownership():
		err = errors.Join(err, check("Ownership", len(b.Ownership), s.Height*s.Width))
	case b.Ownership != nil:
		err = errors.Join(err, fmt.Errorf("model: batch of %d: Ownership targets, but the trainer has no ownership loss (ownership_loss_weight 0)", b.N))
	}
	return s, err
}

// ownership reports whether the trainer trains the ownership head.
func (t *Trainer) ownership() bool { return t.cfg.OwnershipLossWeight > 0 }

// acquire locks the calling goroutine to its thread and the trainer's
// network, as every libtorch call of the trainer needs, and fails on a
// closed trainer or network. Call release when done, whatever the error.
func (t *Trainer) acquire() (release func(), err error) {
	runtime.LockOSThread()
	c := t.net.c
	c.mu.Lock()
	release = func() {
		c.mu.Unlock()
		runtime.UnlockOSThread()
	}
	if c.st == nil || t.closed {
		return release, errClosed
	}
	return release, nil
}

func (t *Trainer) run(b Batch, train bool) (Losses, error) {
	s, err := t.batchShape(b)
	if err != nil {
		return Losses{}, err
	}
	release, err := t.acquire()
	defer release()
	if err != nil {
		return Losses{}, err
	}
	c := t.net.c
	c.useThreads()
	prev := lib.SetGradEnabled(train)
	defer lib.SetGradEnabled(prev)

	e := t.eng
	e.reset()
	policyLoss, valueLoss, ownLoss, total := t.losses(b, s, train)

	// The gradients, their flat concatenation and its squared norm are
	// queued before anything is read, so that the device works through
	// the whole step and the host waits for it once, reading the losses
	// and the norm together. A non-finite loss is caught then, before any
	// weight changes.
	var g, sq handle
	if train {
		e.gradients(total, t.inputs, t.grads)
	}
	lib.SetGradEnabled(false)
	if train {
		g = t.flatGradient()
		g2 := e.mul(g, g)
		sq = e.sumAll(g2)
		e.free(g2)
	}
	read := []handle{policyLoss, valueLoss, total, sq}
	if !train {
		read = read[:3]
	}
	if ownLoss != nil {
		read = append(read, ownLoss)
	}
	all := e.stack(read)
	var vals [5]float32
	e.copyOut(all, vals[:len(read)])
	e.free(all)
	e.free(sq)
	e.free(policyLoss)
	e.free(valueLoss)
	e.free(ownLoss)
	e.free(total)
	l := Losses{Policy: float64(vals[0]), Value: float64(vals[1]), Total: float64(vals[2])}
	if ownLoss != nil {
		l.Ownership = float64(vals[len(read)-1])
	}
	if e.err == nil && train {
		norm := math.Sqrt(float64(vals[3]))
		switch {
		case math.IsNaN(l.Total) || math.IsInf(l.Total, 0):
			e.err = fmt.Errorf("non-finite loss (policy %v, value %v, ownership %v); weights left unchanged", l.Policy, l.Value, l.Ownership)
		case math.IsNaN(norm) || math.IsInf(norm, 0):
			e.err = fmt.Errorf("non-finite gradient norm %v; weights left unchanged", norm)
		default:
			l.GradNorm, l.LearningRate = norm, t.learningRate()
			t.update(g, norm, l.LearningRate)
		}
	}
	e.free(g)
	if e.err != nil {
		return Losses{}, fmt.Errorf("model: training step %d: %w", t.step, e.err)
	}
	if train {
		t.step++
	}
	return l, nil
}

// losses stages b and returns its policy, value, ownership (nil without an
// ownership loss) and total losses as scalar tensors (nil after an error,
// which e.err then holds); with grad mode on, the total's graph reaches the
// parameters.
func (t *Trainer) losses(b Batch, s Shape, train bool) (policyLoss, valueLoss, ownLoss, total handle) {
	e := t.eng
	c := t.net.c
	n, size, na := b.N, s.Size(), s.Actions
	x, target, z, owners, illegal := t.stageBatch(b, n, size, na, s)
	var own handle
	wantOwn := &own
	if owners == nil {
		wantOwn = nil
	}
	logits, value := c.forward(e, x, train, wantOwn)
	e.free(x)
	if illegal != nil {
		e.maskedFill_(logits, illegal, maskedLogit)
		e.free(illegal)
	}
	logp := e.logSoftmax(logits, 1)
	e.free(logits)
	prod := e.mul(target, logp)
	e.free(logp)
	e.free(target)
	policyLoss = e.sumAll(prod)
	e.free(prod)
	e.mulScalar_(policyLoss, -1/float64(b.N))
	v := e.reshape1(value)
	e.free(value)
	valueLoss = e.mse(v, z)
	e.free(v)
	e.free(z)
	weighted := e.mulScalar(valueLoss, t.cfg.ValueLossWeight)
	total = e.add(policyLoss, weighted)
	e.free(weighted)
	if owners != nil {
		ownLoss = e.mse(own, owners)
		e.free(own)
		e.free(owners)
		w := e.mulScalar(ownLoss, t.cfg.OwnershipLossWeight)
		sum := e.add(total, w)
		e.free(w)
		e.free(total)
		total = sum
	}
	if e.err != nil {
		e.free(policyLoss)
		e.free(valueLoss)
		e.free(ownLoss)
		e.free(total)
		return nil, nil, nil, nil
	}
	return policyLoss, valueLoss, ownLoss, total
}

// flatGradient returns the step's gradients (t.grads, which it frees)
// concatenated in the layout of the parameters' flat buffer, the gaps
// zero. A parameter the loss does not depend on gets a zero gradient.
func (t *Trainer) flatGradient() handle {
	e := t.eng
	list := t.list[:0]
	var zeros []handle
	for i, g := range t.grads {
		if g == nil && e.err == nil {
			g = e.zerosLike(t.inputs[i])
			zeros = append(zeros, g)
		}
		list = append(list, g)
		if p := t.st.pads[i]; p != nil {
			list = append(list, p)
		}
	}
	var flat handle
	if e.err == nil {
		flat = e.flattenDense(list)
	}
	clear(list)
	t.list = list
	for i, g := range t.grads {
		e.free(g)
		t.grads[i] = nil
	}
	for _, z := range zeros {
		e.free(z)
	}
	return flat
}

// stageBatch copies b into the trainer's staging memory (unless b is one
// of NewBatch's, which is there already) and returns it as tensors on the
// network's device: observations (N, Planes, H, W), policy targets (N,
// Actions), values (N), with an ownership loss the ownership targets (N,
// H*W) (else nil) and, when b has a legal mask, the illegal actions as a
// bool (N, Actions) mask (else nil). The staged values go to the device in
// one copy.
func (t *Trainer) stageBatch(b Batch, n, size, na int, s Shape) (x, target, z, owners, illegal handle) {
	e := t.eng
	l := batchLayout{n: n, size: size, na: na}
	if t.ownership() {
		l.own = s.Height * s.Width
	}
	maskAt, total := l.maskAt(), l.maskAt()
	if b.Legal != nil {
		total = l.floats()
	}
	var all handle
	if hb := t.hostBatchOf(b, s); hb != nil {
		// NewBatch's memory holds b already, in this layout.
		all = e.narrow(hb.h, 0, 0, int64(total))
	} else {
		t.stage.ensure(e, total, 0)
		if e.err != nil {
			return nil, nil, nil, nil, nil
		}
		buf := floats(t.stage.inPtr, total)
		copy(buf, b.Obs)
		copy(buf[n*size:], b.Policy)
		copy(buf[n*(size+na):], b.Value)
		copy(buf[l.ownAt():], b.Ownership)
		if b.Legal != nil {
			bytes := unsafe.Slice((*byte)(unsafe.Pointer(&buf[maskAt])), n*na)
			copy(bytes, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(b.Legal))), n*na))
		}
		all = e.narrow(t.stage.in, 0, 0, int64(total))
	}
	if e.dev >= 0 {
		d := e.toDevice(all)
		e.free(all)
		all = d
	}
	// part returns the staged values from element at on, shaped dims.
	part := func(at int, dims []int64) handle {
		n := int64(1)
		for _, d := range dims {
			n *= d
		}
		flat := e.narrow(all, 0, int64(at), n)
		if len(dims) == 1 {
			return flat
		}
		v := e.view(flat, dims)
		e.free(flat)
		return v
	}
	t.dims[0], t.dims[1], t.dims[2], t.dims[3] = int64(n), int64(s.Planes), int64(s.Height), int64(s.Width)
	x = part(0, t.dims)
	t.dims[1] = int64(na)
	target = part(n*size, t.dims[:2])
	z = part(n*(size+na), t.dims[:1])
	if l.own > 0 {
		t.dims[1] = int64(l.own)
		owners = part(l.ownAt(), t.dims[:2])
		t.dims[1] = int64(na)
	}
	if b.Legal != nil {
		packed := e.narrow(all, 0, int64(maskAt), int64(total-maskAt))
		asBytes := e.viewKind(packed, kindBool)
		e.free(packed)
		flat := e.narrow(asBytes, 0, 0, int64(n*na))
		e.free(asBytes)
		legal := e.view(flat, t.dims[:2])
		e.free(flat)
		illegal = e.logicalNot(legal)
		e.free(legal)
	}
	e.free(all)
	return x, target, z, owners, illegal
}

// update clips the flat gradient g, whose global norm is norm, and applies
// one optimizer step at rate lr to the parameters' flat buffer. Grad mode
// is off. Each element gets the ops a per-parameter optimizer gives it.
func (t *Trainer) update(g handle, norm, lr float64) {
	e := t.eng
	cfg := t.cfg
	if clip := cfg.GradClipNorm; clip > 0 && norm > clip {
		e.mulScalar_(g, clip/(norm+1e-6))
	}
	params := t.net.c.st.flat
	decay := cfg.WeightDecay
	if t.st.decayed == nil {
		decay = 0
	}
	// addDecay adds decay times the weights to their gradients (L2).
	addDecay := func() {
		gw := e.narrow(g, 0, 0, int64(t.decay))
		wd := e.mulScalar(t.st.decayed, decay)
		e.add_(gw, wd)
		e.free(wd)
		e.free(gw)
	}
	step := float64(t.step + 1)
	slots := t.st.slots
	switch cfg.Optimizer {
	case OptimizerSGD:
		if decay > 0 {
			addDecay()
		}
		buf := slots[0]
		e.mulScalar_(buf, cfg.Momentum)
		e.add_(buf, g)
		var upd handle
		if cfg.Nesterov {
			upd = e.mulScalar(buf, cfg.Momentum)
			e.add_(upd, g)
			e.mulScalar_(upd, -lr)
		} else {
			upd = e.mulScalar(buf, -lr)
		}
		e.add_(params, upd)
		e.free(upd)
	case OptimizerAdam, OptimizerAdamW:
		if decay > 0 && cfg.Optimizer == OptimizerAdam {
			addDecay()
		}
		if decay > 0 && cfg.Optimizer == OptimizerAdamW {
			e.mulScalar_(t.st.decayed, 1-lr*decay)
		}
		m, v := slots[0], slots[1]
		e.lerp_(m, g, 1-cfg.Beta1)
		g2 := e.mul(g, g)
		e.lerp_(v, g2, 1-cfg.Beta2)
		e.free(g2)
		bc1 := 1 - math.Pow(cfg.Beta1, step)
		bc2 := 1 - math.Pow(cfg.Beta2, step)
		den := e.sqrt(v)
		e.mulScalar_(den, 1/math.Sqrt(bc2))
		e.addScalar_(den, cfg.Epsilon)
		upd := e.div(m, den)
		e.free(den)
		e.mulScalar_(upd, -lr/bc1)
		e.add_(params, upd)
		e.free(upd)
	}
}
