package torch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"

	"github.com/zerokit/zerokit/model/ckpt"
)

// Checkpoint file layout (see package model/ckpt): a zip archive (entries
// stored uncompressed) with
//
//	zerokit-checkpoint.json  metadata (ckpt.Header)
//	config                   the Metadata.Config blob, verbatim (optional)
//	tensors/<name>           each network tensor, little-endian float32
//	optimizer/<name>/<slot>  each optimizer state tensor (optional)
const (
	headerEntry     = ckpt.HeaderEntry
	configEntry     = ckpt.ConfigEntry
	tensorPrefix    = ckpt.TensorPrefix
	optimizerPrefix = ckpt.OptimizerPrefix
	maxConfigBytes  = ckpt.MaxConfigBytes
)

// Metadata is what a checkpoint records besides the network and optimizer.
type Metadata struct {
	// Game is the game's name (env.Game.Name), e.g. "wyb" or "squatter6".
	Game string
	// EncodingVersion is the game's observation/action encoding version.
	EncodingVersion int
	// Step is the training step the checkpoint was taken at.
	Step int64
	// Seed is the run's random seed.
	Seed uint64
	// Config is an arbitrary blob (for example the run's configuration),
	// stored and returned verbatim.
	Config []byte
	// AveragedSteps lists the steps of the checkpoints whose mean the
	// weights are (ckpt.Average); nil for trained weights.
	AveragedSteps []int64
}

// Save writes net's weights, tr's optimizer state (tr may be nil) and meta
// to path atomically: a temporary file in the same directory, synced, then
// renamed over path.
func Save(path string, net *Net, tr *Trainer, meta Metadata) error {
	if tr != nil && tr.net.c != net.c {
		return fmt.Errorf("checkpoint %s: the trainer belongs to another network", path)
	}
	c, err := snapshot(net, tr, meta)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", path, err)
	}
	return ckpt.WriteFile(path, c)
}

// snapshot copies the network's (and optimizer's) tensors to Go memory.
func snapshot(net *Net, tr *Trainer, meta Metadata) (*ckpt.Checkpoint, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c := net.c
	c.mu.Lock()
	defer c.mu.Unlock()
	ck := &ckpt.Checkpoint{
		Header: ckpt.Header{
			Game: meta.Game, EncodingVersion: meta.EncodingVersion, Step: meta.Step, Seed: meta.Seed,
			Network: c.cfg, Shape: net.shape, AveragedSteps: meta.AveragedSteps,
		},
		RunConfig: meta.Config,
	}
	if c.st == nil || (tr != nil && tr.closed) {
		return nil, errClosed
	}
	e := newEngine(c.dev)
	for _, t := range c.st.tensors {
		v := make([]float32, t.NumElements())
		e.copyOut(t.h, v)
		ck.Tensors = append(ck.Tensors, ckpt.Tensor{Name: t.Name, Shape: t.Shape, Data: v})
	}
	if tr != nil {
		js, err := json.Marshal(tr.cfg)
		if err != nil {
			return nil, err
		}
		slots := tr.cfg.slotNames()
		ck.Header.Optimizer = &ckpt.OptimizerRecord{Config: js, Step: tr.step, Slots: slots}
		// Each parameter's state is its part of the flat slot tensors.
		for _, p := range tr.params {
			for k, sh := range tr.st.slots {
				v := make([]float32, p.NumElements())
				part := e.narrow(sh, 0, int64(p.off), int64(len(v)))
				e.copyOut(part, v)
				e.free(part)
				ck.Optimizer = append(ck.Optimizer, ckpt.Tensor{Name: p.Name + "/" + slots[k], Shape: p.Shape, Data: v})
			}
		}
	}
	return ck, e.err
}

// Expect is what Load checks a checkpoint against (see ckpt.Expect).
type Expect = ckpt.Expect

// Checkpoint is a loaded checkpoint.
type Checkpoint struct {
	// Metadata is what Save recorded.
	Metadata
	// Net is the network, ready for inference or training.
	Net *Net
	// Optimizer is the optimizer configuration saved with the checkpoint,
	// or nil when it has no optimizer state.
	Optimizer *TrainConfig

	path     string
	optStep  int64
	optSlots map[string][]float32 // "name/slot" -> values
}

// Load reads and validates a checkpoint. A file that is not a complete
// zerokit checkpoint, or that does not match want, gives an error naming
// the file and the problem.
func Load(path string, want Expect) (*Checkpoint, error) {
	f, size, err := ckpt.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return LoadFrom(path, f, size, want)
}

// LoadFrom reads and validates a checkpoint of size bytes from r, like
// Load; name identifies it in errors.
func LoadFrom(name string, r io.ReaderAt, size int64, want Expect) (*Checkpoint, error) {
	ck, err := load(name, r, size, want)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", name, err)
	}
	return ck, nil
}

func load(path string, r io.ReaderAt, size int64, want Expect) (*Checkpoint, error) {
	rd, err := ckpt.NewReader(r, size)
	if err != nil {
		return nil, err
	}
	h := &rd.Header
	if err := h.Check(want); err != nil {
		return nil, err
	}
	cfg := h.Network
	if want.Config != nil {
		cfg.Threads, cfg.NoPadSingle, cfg.Device, cfg.Precision = want.Config.Threads, want.Config.NoPadSingle, want.Config.Device, want.Config.Precision
	}
	if err := errors.Join(cfg.Validate(), h.Shape.Validate(cfg)); err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	layout, err := rd.Layout()
	if err != nil {
		return nil, err
	}
	tensors, err := rd.Tensors(layout)
	if err != nil {
		return nil, err
	}
	values := map[string][]float32{}
	for _, t := range tensors {
		values[t.Name] = t.Data
	}
	ck := &Checkpoint{
		Metadata: Metadata{Game: h.Game, EncodingVersion: h.EncodingVersion, Step: h.Step, Seed: h.Seed, AveragedSteps: h.AveragedSteps},
		path:     path,
	}
	if ck.Config, err = rd.RunConfig(); err != nil {
		return nil, err
	}
	if o := h.Optimizer; o != nil {
		var tc TrainConfig
		dec := json.NewDecoder(bytes.NewReader(o.Config))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&tc); err != nil {
			return nil, fmt.Errorf("optimizer metadata: config: %w", err)
		}
		if err := tc.Validate(); err != nil {
			return nil, fmt.Errorf("optimizer metadata: %w", err)
		}
		if !slices.Equal(o.Slots, tc.slotNames()) {
			return nil, fmt.Errorf("optimizer metadata: slots %q, want %q", o.Slots, tc.slotNames())
		}
		state, err := rd.OptimizerState(layout)
		if err != nil {
			return nil, err
		}
		ck.Optimizer = &tc
		ck.optStep = o.Step
		ck.optSlots = map[string][]float32{}
		for _, t := range state {
			ck.optSlots[t.Name] = t.Data
		}
	}
	net, err := build(cfg, h.Shape, func(t *namedTensor) []float32 { return values[t.Name] })
	if err != nil {
		return nil, err
	}
	if want.Shape != (Shape{}) && want.Shape != h.Shape {
		view, err := net.WithBoard(want.Shape.Height, want.Shape.Width)
		if err == nil && view.shape != want.Shape {
			err = fmt.Errorf("shape %s, expected %s", view.shape, want.Shape)
		}
		if err != nil {
			net.Close()
			return nil, err
		}
		net = view
	}
	ck.Net = net
	return ck, nil
}

// Restore loads the optimizer state and step count saved in ck into t.
// The checkpoint must have been loaded for t's network architecture and
// saved with the same optimizer kind.
func (t *Trainer) Restore(ck *Checkpoint) error {
	if ck.Optimizer == nil {
		return fmt.Errorf("checkpoint %s: has no optimizer state", ck.path)
	}
	if ck.Optimizer.Optimizer != t.cfg.Optimizer {
		return fmt.Errorf("checkpoint %s: optimizer is %s, expected %s", ck.path, ck.Optimizer.Optimizer, t.cfg.Optimizer)
	}
	release, err := t.acquire()
	defer release()
	if err != nil {
		return err
	}
	names := t.cfg.slotNames()
	for _, p := range t.params {
		for _, s := range names {
			v, ok := ck.optSlots[p.Name+"/"+s]
			if !ok || len(v) != p.NumElements() {
				return fmt.Errorf("checkpoint %s: no optimizer state %s/%s of %d values for this network", ck.path, p.Name, s, p.NumElements())
			}
		}
	}
	e := t.eng
	e.reset()
	for _, p := range t.params {
		for k, s := range names {
			e.dims1[0] = int64(p.NumElements())
			src := e.fromFloat32(ck.optSlots[p.Name+"/"+s], e.dims1)
			part := e.narrow(t.st.slots[k], 0, int64(p.off), e.dims1[0])
			e.copyFrom(part, src)
			e.free(part)
			e.free(src)
		}
	}
	if e.err != nil {
		return fmt.Errorf("checkpoint %s: restoring optimizer state: %w", ck.path, e.err)
	}
	t.step = ck.optStep
	return nil
}

// Clone returns an independent copy of the network (same weights and
// running statistics, own memory), for example a frozen copy for self-play
// while the original trains.
func (n *Net) Clone() (*Net, error) {
	return n.CloneThreads(n.c.cfg.Threads)
}

// Copies returns k independent copies of the network (CloneThreads(threads)
// each), for example one single-threaded copy per core to evaluate batches
// in parallel. On error the copies made so far are closed.
func (n *Net) Copies(k, threads int) ([]*Net, error) {
	copies := make([]*Net, 0, k)
	for range k {
		c, err := n.CloneThreads(threads)
		if err != nil {
			for _, c := range copies {
				c.Close()
			}
			return nil, err
		}
		copies = append(copies, c)
	}
	return copies, nil
}

// CloneThreads is Clone with the copy's operations running on threads
// libtorch threads (0: libtorch's default), for example single-threaded
// copies that evaluate batches on every core at once.
func (n *Net) CloneThreads(threads int) (*Net, error) {
	ck, err := snapshot(n, nil, Metadata{})
	if err != nil {
		return nil, fmt.Errorf("model: Clone: %w", err)
	}
	values := map[string][]float32{}
	for _, t := range ck.Tensors {
		values[t.Name] = t.Data
	}
	cfg := n.c.cfg
	cfg.Threads = threads
	return build(cfg, n.shape, func(t *namedTensor) []float32 { return values[t.Name] })
}
