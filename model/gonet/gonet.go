// Package gonet evaluates the networks of package model/torch in pure Go: no cgo
// and no libtorch, so that a process that only plays (an exported agent)
// stays small. It reads checkpoints written by torch.Save (through package
// model/ckpt) and computes what torch.Net.Forward computes in evaluation
// mode (batch norm with its running statistics), to within float32
// rounding.
//
// Batch norm is folded into the preceding convolutions when a network is
// loaded. Convolutions run as matrix products (3x3 ones over an im2col
// matrix) on a small float32 kernel: AVX2/FMA assembly on amd64 CPUs that
// have it, plain Go elsewhere. One call runs on the calling goroutine only;
// concurrent calls run in parallel.
package gonet

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/zerokit/zerokit/model/arch"
	"github.com/zerokit/zerokit/model/ckpt"
)

// Net is a policy/value network ready for inference. Its methods are safe
// for concurrent use: the weights are read-only and each call takes its
// scratch memory from a pool. The zero Net is not usable; get one from
// Load, LoadFrom or FromCheckpoint.
type Net struct {
	w     *weights
	shape arch.Shape
}

// Load reads the checkpoint at path (written by torch.Save) and returns its
// network for the shape it was saved with. Errors name the file and the
// problem. The checkpoint's metadata (game, encoding version) is not
// checked: read it with ckpt.ReadFile and use FromCheckpoint to check it.
func Load(path string) (*Net, error) {
	c, err := ckpt.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("gonet: %w", err)
	}
	n, err := fromCheckpoint(c)
	if err != nil {
		return nil, fmt.Errorf("gonet: checkpoint %s: %w", path, err)
	}
	return n, nil
}

// LoadFrom is Load for a checkpoint of size bytes in r (for example one
// embedded in the program); name identifies it in errors.
func LoadFrom(name string, r io.ReaderAt, size int64) (*Net, error) {
	c, err := ckpt.Read(r, size)
	if err == nil {
		var n *Net
		if n, err = fromCheckpoint(c); err == nil {
			return n, nil
		}
	}
	return nil, fmt.Errorf("gonet: checkpoint %s: %w", name, err)
}

// FromCheckpoint builds the network of a checkpoint read by package ckpt.
// It checks the architecture and shape in c.Header and that c.Tensors has
// exactly the network's tensors (by name), with the right shapes and
// finite values, and returns an error naming the first tensor at fault.
// It keeps no reference to c.
func FromCheckpoint(c *ckpt.Checkpoint) (*Net, error) {
	n, err := fromCheckpoint(c)
	if err != nil {
		return nil, fmt.Errorf("gonet: %w", err)
	}
	return n, nil
}

func fromCheckpoint(c *ckpt.Checkpoint) (*Net, error) {
	if c == nil {
		return nil, errors.New("no checkpoint")
	}
	cfg, shape := c.Header.Network, c.Header.Shape
	// Threads and NoPadSingle are libtorch settings: ignore them.
	cfg.Threads, cfg.NoPadSingle = 0, false
	if err := errors.Join(cfg.Validate(), shape.Validate(cfg)); err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	l := arch.NewLayout(cfg, shape)
	byName := make(map[string]*ckpt.Tensor, len(c.Tensors))
	for i := range c.Tensors {
		t := &c.Tensors[i]
		if _, dup := byName[t.Name]; dup {
			return nil, fmt.Errorf("tensor %s appears twice", t.Name)
		}
		byName[t.Name] = t
	}
	data := make([][]float32, len(l.Tensors))
	for i := range l.Tensors {
		want := &l.Tensors[i]
		t, ok := byName[want.Name]
		if !ok {
			return nil, fmt.Errorf("tensor %s %v missing", want.Name, want.Shape)
		}
		if !slices.Equal(t.Shape, want.Shape) {
			return nil, fmt.Errorf("tensor %s has shape %v; the network's is %v", want.Name, t.Shape, want.Shape)
		}
		if len(t.Data) != want.NumElements() {
			return nil, fmt.Errorf("tensor %s has %d values; its shape %v needs %d", want.Name, len(t.Data), want.Shape, want.NumElements())
		}
		for k, v := range t.Data {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				return nil, fmt.Errorf("tensor %s: value %d is %v", want.Name, k, v)
			}
		}
		data[i] = t.Data
		delete(byName, want.Name)
	}
	for _, t := range c.Tensors {
		if _, left := byName[t.Name]; left {
			return nil, fmt.Errorf("tensor %s is not one of the network's", t.Name)
		}
	}
	w, err := fold(cfg, shape, l, data)
	if err != nil {
		return nil, err
	}
	return &Net{w: w, shape: shape}, nil
}

// Config returns the network's architecture.
func (n *Net) Config() arch.Config {
	if n.w == nil {
		return arch.Config{}
	}
	return n.w.cfg
}

// Shape returns the observation shape and number of actions of this view
// of the network.
func (n *Net) Shape() arch.Shape { return n.shape }

// NumParams returns the number of trained values of the checkpoint's
// network (batch norm running statistics excluded), as torch.Net.NumParams.
func (n *Net) NumParams() int {
	if n.w == nil {
		return 0
	}
	return n.w.params
}

// WithBoard returns a view of a spatial-policy network for another board
// size, like torch.Net.WithBoard: it shares the weights with n and maps
// Planes x height x width observations to PolicyPlanes*height*width + extra
// actions, where extra is n's number of non-spatial actions.
func (n *Net) WithBoard(height, width int) (*Net, error) {
	if n.w == nil {
		return nil, errors.New("gonet: WithBoard on a Net not made by Load or FromCheckpoint")
	}
	cfg := n.w.cfg
	if cfg.PolicyHead != arch.PolicySpatial {
		return nil, fmt.Errorf("gonet: WithBoard(%d, %d): the %q policy head is tied to its %dx%d board; use %q",
			height, width, cfg.PolicyHead, n.shape.Height, n.shape.Width, arch.PolicySpatial)
	}
	s := arch.Shape{Planes: n.shape.Planes, Height: height, Width: width,
		Actions: cfg.PolicyPlanes*height*width + n.w.extra}
	if err := s.Validate(cfg); err != nil {
		return nil, fmt.Errorf("gonet: WithBoard: %w", err)
	}
	return &Net{w: n.w, shape: s}, nil
}

// chunkCells is the number of board cells (over all boards) one pass of
// the network evaluates at once.
var chunkCells = 256

// Forward evaluates count observations stored contiguously in obs (count *
// Shape().Size() values) and writes count * Shape().Actions policy logits
// into logits and count values in [-1, 1] into values, like
// torch.Net.Forward. It implements mcts.Network. It returns an error, and
// writes nothing, when count is not positive or a slice is too short.
func (n *Net) Forward(obs []float32, count int, logits, values []float32) error {
	if n == nil || n.w == nil {
		return errors.New("gonet: Forward on a Net not made by Load or FromCheckpoint")
	}
	if count <= 0 {
		return fmt.Errorf("gonet: Forward: batch of %d observations", count)
	}
	size, na := n.shape.Size(), n.shape.Actions
	if len(obs)/size < count || len(logits)/na < count || len(values) < count {
		return fmt.Errorf("gonet: Forward: batch of %d needs %d observation, %d logit and %d value slots; got %d, %d and %d",
			count, count*size, count*na, count, len(obs), len(logits), len(values))
	}
	s, _ := n.w.pool.Get().(*scratch)
	if s == nil {
		s = new(scratch)
	}
	// Evaluate the batch in chunks of about chunkCells board cells, so that
	// the working set (mostly the im2col matrix) stays in the L2 cache.
	hw := n.shape.Height * n.shape.Width
	step := max(1, chunkCells/hw)
	for i := 0; i < count; i += step {
		k := min(step, count-i)
		n.w.forward(s, n.shape, obs[i*size:(i+k)*size], k, logits[i*na:(i+k)*na], values[i:i+k])
	}
	n.w.pool.Put(s)
	return nil
}
