// Package torch is the policy/value network: an AlphaZero/KataGo-style
// residual tower on libtorch (through a patched gotch, see scripts/setup.sh),
// with batched inference (it implements mcts.Network), training steps, and
// checkpoints.
//
// The package knows tensor shapes only, never games: a network maps
// observations of Shape{Planes, Height, Width} to Shape.Actions policy
// logits and one value in [-1, 1].
//
// libtorch keeps grad mode and error state per OS thread; every exported
// method locks its goroutine to one OS thread while it calls libtorch, and
// serialises use of a Net with a mutex, so callers need not care. Code that
// calls gotch directly (ForwardT) must itself run on a locked thread. Each
// OS thread that runs libtorch ops gets its own malloc arena (and OpenMP
// team with Threads > 1): a few MB per thread, which stops growing once the
// Go runtime has made its threads.
//
// The inference path (Forward) and training run on raw libtorch handles
// through gotch's C layer rather than gotch's ts package: no Go allocation
// per call, every intermediate freed as soon as it is dead, and about one
// microsecond of Go-side cost per op.
//
// What needs no libtorch lives in pure-Go subpackages that this package
// uses: model/arch (Config, Shape and the tensor layout), model/ckpt (the
// checkpoint file format) and model/gonet (a pure-Go forward pass over a
// checkpoint, for processes that must stay small).
package torch

import "github.com/zerokit/zerokit/model/arch"

// Policy head kinds (see package model/arch).
const (
	// PolicyDense flattens the policy features and maps them with a fully
	// connected layer to any number of actions. Its size depends on the
	// board size.
	PolicyDense = arch.PolicyDense
	// PolicySpatial is fully convolutional: PolicyPlanes logits per cell
	// from a 1x1 convolution, followed by Actions - PolicyPlanes*Height*Width
	// extra logits (for example "pass") from globally pooled policy
	// features. One set of weights serves every board size.
	PolicySpatial = arch.PolicySpatial
)

// Precisions of Config.Precision (see package model/arch).
const (
	// PrecisionFloat32 runs every op in float32 (the default).
	PrecisionFloat32 = arch.PrecisionFloat32
	// PrecisionBFloat16 runs convolutions and matrix products in bfloat16
	// under libtorch's autocast (mixed precision).
	PrecisionBFloat16 = arch.PrecisionBFloat16
)

// Config is a network architecture, plus the runtime Threads setting. The
// zero value of each field selects the default given in DefaultConfig. It
// is defined in the pure-Go package model/arch.
type Config = arch.Config

// Shape is what a network maps: observations of Planes x Height x Width
// float32 values (plane-major) to Actions policy logits and a value. It is
// defined in the pure-Go package model/arch.
type Shape = arch.Shape

// DefaultConfig is a tower that suits two CPU cores on an 8x8 board: 6
// blocks of 64 channels.
func DefaultConfig() Config { return arch.DefaultConfig() }

// SmallConfig is a faster tower for quick self-play: 4 blocks of 48
// channels.
func SmallConfig() Config { return arch.SmallConfig() }
