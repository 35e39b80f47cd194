package torch

import (
	"errors"
	"fmt"
	"math"
	"runtime"

	lib "github.com/sugarme/gotch/libtch"
	"github.com/zerokit/zerokit/model/arch"
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
	// Total is Policy + ValueLossWeight * Value, the minimised loss.
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
type Trainer struct {
	net    *Net
	cfg    TrainConfig
	eng    *engine
	params []*namedTensor
	slots  [][]handle // per parameter, one per slot name
	step   int64
	lr     float64 // override of the schedule, if > 0
	closed bool

	// stage is the host memory a batch is copied through (pinned on a
	// GPU): observations, policy targets, values and the illegal-action
	// mask, one after the other.
	stage staging
	dims  []int64
}

// NewTrainer creates a trainer for net with zeroed optimizer state.
func NewTrainer(net *Net, cfg TrainConfig) (*Trainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := net.c
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st == nil {
		return nil, errClosed
	}
	t := &Trainer{net: net, cfg: cfg, eng: newEngine(c.dev), params: c.st.trainable(), dims: make([]int64, 4)}
	e := t.eng
	e.reset()
	n := len(cfg.slotNames())
	for _, p := range t.params {
		s := make([]handle, n)
		for k := range s {
			s[k] = e.zerosLike(p.h)
		}
		t.slots = append(t.slots, s)
	}
	if e.err != nil {
		t.freeSlots()
		return nil, fmt.Errorf("model: creating optimizer state: %w", e.err)
	}
	runtime.AddCleanup(t, func(slots [][]handle) { freeSlots(slots) }, t.slots)
	return t, nil
}

func freeSlots(slots [][]handle) {
	for _, s := range slots {
		for k, h := range s {
			if h != nil {
				lib.AtFree(h)
				s[k] = nil
			}
		}
	}
}

func (t *Trainer) freeSlots() { freeSlots(t.slots) }

// Close frees the optimizer state. The network stays usable.
func (t *Trainer) Close() {
	c := t.net.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if !t.closed {
		t.freeSlots()
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
	return s, err
}

func (t *Trainer) run(b Batch, train bool) (Losses, error) {
	s, err := t.batchShape(b)
	if err != nil {
		return Losses{}, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c := t.net.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st == nil || t.closed {
		return Losses{}, errClosed
	}
	c.useThreads()
	prev := lib.SetGradEnabled(train)
	defer lib.SetGradEnabled(prev)

	e := t.eng
	e.reset()
	n, size, na := b.N, s.Size(), s.Actions
	x, target, z, illegal := t.stageBatch(b, n, size, na, s)
	logits, value := c.forward(e, x, train)
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
	policyLoss := e.sumAll(prod)
	e.free(prod)
	e.mulScalar_(policyLoss, -1/float64(b.N))
	v := e.reshape1(value)
	e.free(value)
	valueLoss := e.mse(v, z)
	e.free(v)
	e.free(z)
	weighted := e.mulScalar(valueLoss, t.cfg.ValueLossWeight)
	total := e.add(policyLoss, weighted)
	e.free(weighted)

	l := Losses{Policy: e.scalar(policyLoss), Value: e.scalar(valueLoss), Total: e.scalar(total)}
	e.free(policyLoss)
	e.free(valueLoss)
	if e.err == nil && train {
		if math.IsNaN(l.Total) || math.IsInf(l.Total, 0) {
			e.err = fmt.Errorf("non-finite loss (policy %v, value %v); weights left unchanged", l.Policy, l.Value)
		} else {
			e.backward(total)
		}
	}
	e.free(total)
	if e.err == nil && train {
		lib.SetGradEnabled(false)
		l.LearningRate = t.learningRate()
		l.GradNorm = t.update(l.LearningRate)
	}
	if train {
		t.zeroGrads()
	}
	if e.err != nil {
		return Losses{}, fmt.Errorf("model: training step %d: %w", t.step, e.err)
	}
	if train {
		t.step++
	}
	return l, nil
}

// stageBatch copies b into the trainer's staging memory and returns it as
// tensors on the network's device: observations (N, Planes, H, W), policy
// targets (N, Actions), values (N) and, when b has a legal mask, the
// illegal actions as a bool (N, Actions) mask (else nil).
func (t *Trainer) stageBatch(b Batch, n, size, na int, s Shape) (x, target, z, illegal handle) {
	e := t.eng
	total := n * (size + na + 1)
	if b.Legal != nil {
		total += n * na
	}
	t.stage.ensure(e, total, 0)
	if e.err != nil {
		return nil, nil, nil, nil
	}
	buf := floats(t.stage.inPtr, total)
	copy(buf, b.Obs)
	copy(buf[n*size:], b.Policy)
	copy(buf[n*(size+na):], b.Value)
	t.dims[0], t.dims[1], t.dims[2], t.dims[3] = int64(n), int64(s.Planes), int64(s.Height), int64(s.Width)
	x = e.staged(t.stage.in, 0, t.dims, kindFloat32)
	t.dims[1] = int64(na)
	target = e.staged(t.stage.in, n*size, t.dims[:2], kindFloat32)
	z = e.staged(t.stage.in, n*(size+na), t.dims[:1], kindFloat32)
	if b.Legal != nil {
		mask := buf[n*(size+na+1):]
		for i, ok := range b.Legal {
			mask[i] = 0
			if !ok {
				mask[i] = 1
			}
		}
		illegal = e.staged(t.stage.in, n*(size+na+1), t.dims[:2], kindBool)
	}
	return x, target, z, illegal
}

// update clips the gradients and applies one optimizer step at rate lr. It
// returns the gradients' global norm before clipping. Grad mode is off.
func (t *Trainer) update(lr float64) (norm float64) {
	e := t.eng
	grads := make([]handle, len(t.params))
	defer func() {
		for _, g := range grads {
			e.free(g)
		}
	}()
	// The squared norms add up on the device and are read once: a read
	// per parameter would wait for the device thirty times a step.
	var acc handle
	for i, p := range t.params {
		g := e.grad(p.h)
		if !e.defined(g) {
			e.free(g)
			continue
		}
		grads[i] = g
		sq := e.mul(g, g)
		s := e.sumAll(sq)
		e.free(sq)
		if acc == nil {
			acc = s
		} else {
			e.add_(acc, s)
			e.free(s)
		}
	}
	if acc != nil {
		norm = math.Sqrt(e.scalar(acc))
		e.free(acc)
	}
	if e.err != nil {
		return norm
	}
	if math.IsNaN(norm) || math.IsInf(norm, 0) {
		e.err = fmt.Errorf("non-finite gradient norm %v; weights left unchanged", norm)
		return norm
	}
	if clip := t.cfg.GradClipNorm; clip > 0 && norm > clip {
		coef := clip / (norm + 1e-6)
		for _, g := range grads {
			if g != nil {
				e.mulScalar_(g, coef)
			}
		}
	}
	cfg := t.cfg
	step := float64(t.step + 1)
	for i, p := range t.params {
		g := grads[i]
		if g == nil {
			continue
		}
		decay := 0.0
		if p.Role == arch.RoleWeight {
			decay = cfg.WeightDecay
		}
		slots := t.slots[i]
		switch cfg.Optimizer {
		case OptimizerSGD:
			if decay > 0 {
				wd := e.mulScalar(p.h, decay)
				e.add_(g, wd)
				e.free(wd)
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
			e.add_(p.h, upd)
			e.free(upd)
		case OptimizerAdam, OptimizerAdamW:
			if decay > 0 && cfg.Optimizer == OptimizerAdam {
				wd := e.mulScalar(p.h, decay)
				e.add_(g, wd)
				e.free(wd)
			}
			if decay > 0 && cfg.Optimizer == OptimizerAdamW {
				e.mulScalar_(p.h, 1-lr*decay)
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
			e.add_(p.h, upd)
			e.free(upd)
		}
	}
	return norm
}

// zeroGrads zeroes every parameter's gradient (kept even after an error).
func (t *Trainer) zeroGrads() {
	e := t.eng
	err := e.err
	e.err = nil
	for _, p := range t.params {
		g := e.grad(p.h)
		if e.defined(g) {
			e.zero_(g)
		}
		e.free(g)
	}
	if err != nil {
		e.err = err
	}
}
