package arch

import "fmt"

// Role says how a tensor is trained.
type Role int

const (
	// RoleWeight is trained, with weight decay (convolution and linear
	// weights).
	RoleWeight Role = iota
	// RoleOther is trained, without weight decay (biases, batch norm
	// weights and biases).
	RoleOther
	// RoleBuffer is not trained (batch norm running statistics).
	RoleBuffer
)

// Init is how a fresh network initialises a tensor.
type Init int

const (
	// InitHe draws from N(0, 2/FanIn): layers followed by ReLU.
	InitHe Init = iota
	// InitUniform draws from U(-1/sqrt(FanIn), 1/sqrt(FanIn)): output
	// layers.
	InitUniform
	// InitZero fills with zeros.
	InitZero
	// InitOne fills with ones.
	InitOne
)

// Tensor describes one parameter or buffer of a network.
type Tensor struct {
	// Name is the tensor's name in checkpoints, e.g. "blocks.0.conv1.weight".
	Name string
	// Shape is the tensor's shape, e.g. (out, in, kh, kw) for a convolution
	// weight and (out, in) for a linear one.
	Shape []int64
	// Role says how the tensor is trained.
	Role Role
	// Init and FanIn say how a fresh network initialises it.
	Init  Init
	FanIn int
}

// NumElements is the number of values of the tensor.
func (t *Tensor) NumElements() int {
	n := 1
	for _, d := range t.Shape {
		n *= int(d)
	}
	return n
}

// BatchNorm holds the positions in Layout.Tensors of a batch norm layer's
// four tensors.
type BatchNorm struct{ Weight, Bias, RunningMean, RunningVar int }

// Block holds the positions of a residual block's tensors: conv1, bn1,
// ReLU, conv2, bn2, plus the block's input, ReLU. Convolutions are 3x3,
// padded to keep the board size, without bias.
type Block struct {
	Conv1 int
	BN1   BatchNorm
	Conv2 int
	BN2   BatchNorm
}

// Layout is the list of a network's tensors in their fixed order (the
// order of checkpoints and of the optimizer), with the position in Tensors
// of each layer's tensors; a position is -1 when the network has no such
// layer. It is the one description of the network's parameters that
// package model/torch (libtorch) and package model/gonet (pure Go) share.
//
// The network it describes, for observations x of (N, Planes, H, W):
//
//	t = relu(bn(conv3x3(x, Stem), StemBN))
//	for each block b: t = relu(bn(conv3x3(relu(bn(conv3x3(t, b.Conv1), b.BN1)), b.Conv2), b.BN2) + t)
//	p = relu(bn(conv1x1(t, PolicyConv), PolicyBN))
//	dense head:   logits = linear(flatten(p), PolicyFC, PolicyFCBias)
//	spatial head: logits = flatten(conv1x1(p, PolicyCell) + PolicyCellBias)
//	              followed, with extra actions, by linear(mean_HW(p), PolicyExtra, PolicyExtraBias)
//	v = relu(bn(conv1x1(t, ValueConv), ValueBN))
//	pooled = mean_HW(v), or [mean_HW(v), max_HW(v)] with ValueMaxPool
//	value = tanh(linear(relu(linear(pooled, ValueFC1, ValueFC1Bias)), ValueFC2, ValueFC2Bias))
//	with OwnershipHead: ownership = tanh(conv1x1(t, Ownership) + OwnershipBias), (N, 1, H, W)
//
// Convolutions have no bias (batch norm follows) except PolicyCell; a
// linear layer's weight is (out, in). Batch norm uses BNEpsilon.
type Layout struct {
	// Tensors lists every tensor in order.
	Tensors []Tensor

	// Stem and StemBN are the first 3x3 convolution and its batch norm.
	Stem   int
	StemBN BatchNorm
	// Blocks are the residual blocks.
	Blocks []Block
	// PolicyConv and PolicyBN are the policy head's 1x1 convolution and
	// batch norm.
	PolicyConv int
	PolicyBN   BatchNorm
	// PolicyFC and PolicyFCBias are the dense head's linear layer.
	PolicyFC, PolicyFCBias int
	// PolicyCell and PolicyCellBias are the spatial head's 1x1 convolution
	// (PolicyPlanes outputs) and its bias.
	PolicyCell, PolicyCellBias int
	// PolicyExtra and PolicyExtraBias are the spatial head's linear layer
	// for its extra (non-spatial) actions.
	PolicyExtra, PolicyExtraBias int
	// ValueConv and ValueBN are the value head's 1x1 convolution and batch
	// norm.
	ValueConv int
	ValueBN   BatchNorm
	// ValueFC1 and ValueFC1Bias are the value head's hidden layer, ValueFC2
	// and ValueFC2Bias its output layer.
	ValueFC1, ValueFC1Bias int
	ValueFC2, ValueFC2Bias int
	// Ownership and OwnershipBias are the ownership head's 1x1 convolution
	// (one output) and its bias, the last tensors of the layout.
	Ownership, OwnershipBias int
}

// NewLayout lays out the tensors of the network cfg for shape. cfg and
// shape should be valid (Config.Validate, Shape.Validate).
func NewLayout(cfg Config, shape Shape) *Layout {
	l := &Layout{
		PolicyFC: -1, PolicyFCBias: -1, PolicyCell: -1, PolicyCellBias: -1,
		PolicyExtra: -1, PolicyExtraBias: -1, Ownership: -1, OwnershipBias: -1,
	}
	c := cfg.Channels
	l.Stem = l.conv("stem.conv", shape.Planes, c, 3)
	l.StemBN = l.bn("stem.bn", c)
	for i := 0; i < cfg.Blocks; i++ {
		p := fmt.Sprintf("blocks.%d.", i)
		var b Block
		b.Conv1 = l.conv(p+"conv1", c, c, 3)
		b.BN1 = l.bn(p+"bn1", c)
		b.Conv2 = l.conv(p+"conv2", c, c, 3)
		b.BN2 = l.bn(p+"bn2", c)
		l.Blocks = append(l.Blocks, b)
	}
	pc := cfg.PolicyChannels
	l.PolicyConv = l.conv("policy.conv", c, pc, 1)
	l.PolicyBN = l.bn("policy.bn", pc)
	switch cfg.PolicyHead {
	case PolicyDense:
		l.PolicyFC, l.PolicyFCBias = l.linear("policy.fc", pc*shape.Height*shape.Width, shape.Actions, InitUniform)
	case PolicySpatial:
		l.PolicyCell = l.add("policy.cell.weight", RoleWeight, InitUniform, pc, int64(cfg.PolicyPlanes), int64(pc), 1, 1)
		l.PolicyCellBias = l.add("policy.cell.bias", RoleOther, InitZero, 0, int64(cfg.PolicyPlanes))
		if x := shape.ExtraActions(cfg); x > 0 {
			l.PolicyExtra, l.PolicyExtraBias = l.linear("policy.extra", pc, x, InitUniform)
		}
	}
	vc := cfg.ValueChannels
	l.ValueConv = l.conv("value.conv", c, vc, 1)
	l.ValueBN = l.bn("value.bn", vc)
	pooled := vc
	if cfg.ValueMaxPool {
		pooled *= 2
	}
	l.ValueFC1, l.ValueFC1Bias = l.linear("value.fc1", pooled, cfg.ValueHidden, InitHe)
	l.ValueFC2, l.ValueFC2Bias = l.linear("value.fc2", cfg.ValueHidden, 1, InitUniform)
	if cfg.OwnershipHead {
		l.Ownership = l.add("ownership.conv.weight", RoleWeight, InitUniform, c, 1, int64(c), 1, 1)
		l.OwnershipBias = l.add("ownership.conv.bias", RoleOther, InitZero, 0, 1)
	}
	return l
}

func (l *Layout) add(name string, r Role, ik Init, fanIn int, shape ...int64) int {
	l.Tensors = append(l.Tensors, Tensor{Name: name, Shape: shape, Role: r, Init: ik, FanIn: fanIn})
	return len(l.Tensors) - 1
}

func (l *Layout) conv(name string, in, out, k int) int {
	return l.add(name+".weight", RoleWeight, InitHe, in*k*k, int64(out), int64(in), int64(k), int64(k))
}

func (l *Layout) bn(name string, c int) BatchNorm {
	return BatchNorm{
		Weight:      l.add(name+".weight", RoleOther, InitOne, 0, int64(c)),
		Bias:        l.add(name+".bias", RoleOther, InitZero, 0, int64(c)),
		RunningMean: l.add(name+".running_mean", RoleBuffer, InitZero, 0, int64(c)),
		RunningVar:  l.add(name+".running_var", RoleBuffer, InitOne, 0, int64(c)),
	}
}

func (l *Layout) linear(name string, in, out int, ik Init) (w, b int) {
	w = l.add(name+".weight", RoleWeight, ik, in, int64(out), int64(in))
	b = l.add(name+".bias", RoleOther, InitZero, 0, int64(out))
	return w, b
}
