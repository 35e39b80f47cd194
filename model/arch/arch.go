// Package arch describes the networks of package model/torch without computing
// anything: the architecture (Config), what a network maps (Shape), and the
// names, shapes and order of its tensors (Layout). It is pure Go, so that
// code which only reads or checks checkpoints, or evaluates networks in pure
// Go (package model/gonet), need not link libtorch. Package model/torch re-exports
// its types (torch.Config, torch.Shape).
package arch

import (
	"errors"
	"fmt"
)

// Policy head kinds.
const (
	// PolicyDense flattens the policy features and maps them with a fully
	// connected layer to any number of actions. Its size depends on the
	// board size.
	PolicyDense = "dense"
	// PolicySpatial is fully convolutional: PolicyPlanes logits per cell
	// from a 1x1 convolution, followed by Actions - PolicyPlanes*Height*Width
	// extra logits (for example "pass") from globally pooled policy
	// features. One set of weights serves every board size.
	PolicySpatial = "spatial"
)

// BNEpsilon is the variance epsilon of every batch norm layer (PyTorch's
// default): y = (x - mean) / sqrt(var + BNEpsilon) * weight + bias.
const BNEpsilon = 1e-5

// Config is a network architecture, plus the runtime Threads setting. The
// zero value of each field selects the default given in DefaultConfig.
type Config struct {
	// Blocks is the number of residual blocks (each two 3x3 convolutions).
	Blocks int `yaml:"blocks" json:"blocks"`
	// Channels is the width of the residual tower.
	Channels int `yaml:"channels" json:"channels"`
	// PolicyHead is PolicyDense or PolicySpatial.
	PolicyHead string `yaml:"policy_head" json:"policy_head"`
	// PolicyChannels is the width of the policy head's 1x1 convolution.
	PolicyChannels int `yaml:"policy_channels" json:"policy_channels"`
	// PolicyPlanes is the number of logits per cell of a spatial policy
	// head; action a < PolicyPlanes*Height*Width is plane a/(Height*Width),
	// cell a%(Height*Width), like observations (plane-major).
	PolicyPlanes int `yaml:"policy_planes" json:"policy_planes"`
	// ValueChannels is the width of the value head's 1x1 convolution.
	ValueChannels int `yaml:"value_channels" json:"value_channels"`
	// ValueHidden is the width of the value head's hidden layer.
	ValueHidden int `yaml:"value_hidden" json:"value_hidden"`
	// ValueMaxPool adds global max pooling to the value head's global
	// average pooling.
	ValueMaxPool bool `yaml:"value_max_pool" json:"value_max_pool"`
	// OwnershipHead adds a head that predicts, for every cell, who holds
	// it at the end of the game (+1 the player to move, -1 the opponent):
	// an auxiliary training target (KataGo's ownership) that only training
	// computes; play uses the policy and value alone.
	OwnershipHead bool `yaml:"ownership_head" json:"ownership_head,omitempty"`
	// Threads is the number of threads libtorch uses inside one op; every
	// call applies it to the OS thread it runs on. 0 leaves libtorch's
	// setting (1 on the project's VM). Use 1 when anything else needs the
	// CPU (search on the other core, other processes): an op's OpenMP
	// threads wait for each other, and one descheduled thread stalls them
	// all (measured: a batch-1 forward from 2.5 ms to 5-12 ms on a busy
	// 2-core machine). Not part of the architecture: checkpoints do not
	// compare it.
	Threads int `yaml:"threads" json:"-"`
	// NoPadSingle turns off evaluating a batch of one position as a batch
	// of two, which avoids libtorch 1.13's slow convolution path at batch 1.
	// Runtime only.
	NoPadSingle bool `yaml:"no_pad_single" json:"-"`
	// Device is where a libtorch network keeps its tensors and runs: a
	// device name for ParseDevice ("" is "auto"). Runtime only, set from
	// a run's top-level device setting or a command's -device flag; the
	// pure-Go backend ignores it.
	Device string `yaml:"-" json:"-"`
	// Precision is the arithmetic of a libtorch network's forward passes:
	// PrecisionFloat32 ("" too) or PrecisionBFloat16 (mixed precision:
	// convolutions and matrix products in bfloat16 under libtorch's
	// autocast, weights, optimizer state, batch norm and losses in
	// float32). Runtime only, set from a run's top-level precision
	// setting; checkpoints hold float32 weights either way, and the pure-Go
	// backend ignores it.
	Precision string `yaml:"-" json:"-"`
}

// Precisions of Config.Precision.
const (
	PrecisionFloat32  = "fp32"
	PrecisionBFloat16 = "bf16"
)

// CheckPrecision reports whether p is a precision of Config.Precision ("" is
// PrecisionFloat32), with an error that names the choices.
func CheckPrecision(p string) error {
	if p != "" && p != PrecisionFloat32 && p != PrecisionBFloat16 {
		return fmt.Errorf("precision %q: want %q or %q", p, PrecisionFloat32, PrecisionBFloat16)
	}
	return nil
}

// BFloat16 reports whether c asks for mixed precision in bfloat16.
func (c Config) BFloat16() bool { return c.Precision == PrecisionBFloat16 }

// DefaultConfig is a tower that suits two CPU cores on an 8x8 board: 6
// blocks of 64 channels.
func DefaultConfig() Config {
	return Config{
		Blocks:         6,
		Channels:       64,
		PolicyHead:     PolicyDense,
		PolicyChannels: 8,
		PolicyPlanes:   1,
		ValueChannels:  32,
		ValueHidden:    64,
	}
}

// SmallConfig is a faster tower for quick self-play: 4 blocks of 48
// channels.
func SmallConfig() Config {
	c := DefaultConfig()
	c.Blocks, c.Channels, c.ValueChannels = 4, 48, 24
	return c
}

// WithDefaults returns c with every zero field set from DefaultConfig.
func (c Config) WithDefaults() Config {
	d := DefaultConfig()
	if c.Blocks == 0 {
		c.Blocks = d.Blocks
	}
	if c.Channels == 0 {
		c.Channels = d.Channels
	}
	if c.PolicyHead == "" {
		c.PolicyHead = d.PolicyHead
	}
	if c.PolicyChannels == 0 {
		c.PolicyChannels = d.PolicyChannels
	}
	if c.PolicyPlanes == 0 {
		c.PolicyPlanes = d.PolicyPlanes
	}
	if c.ValueChannels == 0 {
		c.ValueChannels = d.ValueChannels
	}
	if c.ValueHidden == 0 {
		c.ValueHidden = d.ValueHidden
	}
	return c
}

// Limits on sizes, to reject typos before anything tries to allocate.
const (
	maxBlocks   = 64
	maxChannels = 1024
	maxPlanes   = 1024
	maxSide     = 64
	maxActions  = 1 << 20
	maxThreads  = 256
	maxHidden   = 1 << 16
)

func checkRange(field string, v, lo, hi int) error {
	if v < lo || v > hi {
		return fmt.Errorf("model config: %s must be in [%d, %d], got %d", field, lo, hi, v)
	}
	return nil
}

// Validate checks every field (after defaults are applied by the caller).
func (c Config) Validate() error {
	errs := []error{
		checkRange("blocks", c.Blocks, 0, maxBlocks),
		checkRange("channels", c.Channels, 1, maxChannels),
		checkRange("policy_channels", c.PolicyChannels, 1, maxChannels),
		checkRange("policy_planes", c.PolicyPlanes, 1, maxPlanes),
		checkRange("value_channels", c.ValueChannels, 1, maxChannels),
		checkRange("value_hidden", c.ValueHidden, 1, maxHidden),
		checkRange("threads", c.Threads, 0, maxThreads),
	}
	if _, err := ParseDevice(c.Device); err != nil {
		errs = append(errs, fmt.Errorf("model config: %w", err))
	}
	if err := CheckPrecision(c.Precision); err != nil {
		errs = append(errs, fmt.Errorf("model config: %w", err))
	}
	if c.PolicyHead != PolicyDense && c.PolicyHead != PolicySpatial {
		errs = append(errs, fmt.Errorf("model config: policy_head must be %q or %q, got %q", PolicyDense, PolicySpatial, c.PolicyHead))
	}
	if c.PolicyHead == PolicyDense && c.PolicyPlanes != 1 {
		errs = append(errs, fmt.Errorf("model config: policy_planes is for the %q policy head only (got %d with %q)", PolicySpatial, c.PolicyPlanes, c.PolicyHead))
	}
	return errors.Join(errs...)
}

// SameArchitecture reports the first architecture field where c and o
// differ, as "field value, expected other value", or "" when they describe
// the same network. The runtime fields (Threads, NoPadSingle, Device,
// Precision) are ignored.
func (c Config) SameArchitecture(o Config) string {
	switch {
	case c.Blocks != o.Blocks:
		return fmt.Sprintf("blocks %d, expected %d", c.Blocks, o.Blocks)
	case c.Channels != o.Channels:
		return fmt.Sprintf("channels %d, expected %d", c.Channels, o.Channels)
	case c.PolicyHead != o.PolicyHead:
		return fmt.Sprintf("policy_head %q, expected %q", c.PolicyHead, o.PolicyHead)
	case c.PolicyChannels != o.PolicyChannels:
		return fmt.Sprintf("policy_channels %d, expected %d", c.PolicyChannels, o.PolicyChannels)
	case c.PolicyPlanes != o.PolicyPlanes:
		return fmt.Sprintf("policy_planes %d, expected %d", c.PolicyPlanes, o.PolicyPlanes)
	case c.ValueChannels != o.ValueChannels:
		return fmt.Sprintf("value_channels %d, expected %d", c.ValueChannels, o.ValueChannels)
	case c.ValueHidden != o.ValueHidden:
		return fmt.Sprintf("value_hidden %d, expected %d", c.ValueHidden, o.ValueHidden)
	case c.ValueMaxPool != o.ValueMaxPool:
		return fmt.Sprintf("value_max_pool %v, expected %v", c.ValueMaxPool, o.ValueMaxPool)
	case c.OwnershipHead != o.OwnershipHead:
		return fmt.Sprintf("ownership_head %v, expected %v", c.OwnershipHead, o.OwnershipHead)
	}
	return ""
}

// Shape is what a network maps: observations of Planes x Height x Width
// float32 values (plane-major) to Actions policy logits and a value.
type Shape struct {
	Planes  int `yaml:"planes" json:"planes"`
	Height  int `yaml:"height" json:"height"`
	Width   int `yaml:"width" json:"width"`
	Actions int `yaml:"actions" json:"actions"`
}

// Size is the number of float32 values in one observation.
func (s Shape) Size() int { return s.Planes * s.Height * s.Width }

// String formats the shape as PxHxW->A.
func (s Shape) String() string {
	return fmt.Sprintf("%dx%dx%d->%d", s.Planes, s.Height, s.Width, s.Actions)
}

// Validate checks the shape on its own and against the policy head of c.
func (s Shape) Validate(c Config) error {
	errs := []error{
		checkRange("planes", s.Planes, 1, maxPlanes),
		checkRange("height", s.Height, 1, maxSide),
		checkRange("width", s.Width, 1, maxSide),
		checkRange("actions", s.Actions, 1, maxActions),
	}
	for i, e := range errs {
		if e != nil {
			errs[i] = fmt.Errorf("model shape: %s", e.Error()[len("model config: "):])
		}
	}
	if c.PolicyHead == PolicySpatial && s.Actions < c.PolicyPlanes*s.Height*s.Width {
		errs = append(errs, fmt.Errorf("model shape: %d actions is fewer than the spatial policy head's %d planes x %dx%d cells",
			s.Actions, c.PolicyPlanes, s.Height, s.Width))
	}
	return errors.Join(errs...)
}

// ExtraActions is the number of non-spatial logits of a spatial policy
// head (0 for a dense head).
func (s Shape) ExtraActions(c Config) int {
	if c.PolicyHead != PolicySpatial {
		return 0
	}
	return s.Actions - c.PolicyPlanes*s.Height*s.Width
}
