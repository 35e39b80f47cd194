package arch

import (
	"slices"
	"strings"
	"testing"
)

func TestLayout(t *testing.T) {
	cfg := Config{Blocks: 2, Channels: 8, PolicyChannels: 2, ValueChannels: 3, ValueHidden: 5}.WithDefaults()
	l := NewLayout(cfg, Shape{Planes: 4, Height: 3, Width: 5, Actions: 11})
	var names []string
	for _, x := range l.Tensors {
		names = append(names, x.Name)
	}
	want := "stem.conv.weight stem.bn.weight stem.bn.bias stem.bn.running_mean stem.bn.running_var " +
		"blocks.0.conv1.weight blocks.0.bn1.weight blocks.0.bn1.bias blocks.0.bn1.running_mean blocks.0.bn1.running_var " +
		"blocks.0.conv2.weight blocks.0.bn2.weight blocks.0.bn2.bias blocks.0.bn2.running_mean blocks.0.bn2.running_var " +
		"blocks.1.conv1.weight blocks.1.bn1.weight blocks.1.bn1.bias blocks.1.bn1.running_mean blocks.1.bn1.running_var " +
		"blocks.1.conv2.weight blocks.1.bn2.weight blocks.1.bn2.bias blocks.1.bn2.running_mean blocks.1.bn2.running_var " +
		"policy.conv.weight policy.bn.weight policy.bn.bias policy.bn.running_mean policy.bn.running_var " +
		"policy.fc.weight policy.fc.bias " +
		"value.conv.weight value.bn.weight value.bn.bias value.bn.running_mean value.bn.running_var " +
		"value.fc1.weight value.fc1.bias value.fc2.weight value.fc2.bias"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("tensors\n%s\nwant\n%s", got, want)
	}
	checks := []struct {
		i     int
		shape []int64
	}{
		{l.Stem, []int64{8, 4, 3, 3}},
		{l.Blocks[1].Conv2, []int64{8, 8, 3, 3}},
		{l.Blocks[1].BN2.RunningVar, []int64{8}},
		{l.PolicyConv, []int64{2, 8, 1, 1}},
		{l.PolicyFC, []int64{11, 30}},
		{l.ValueFC1, []int64{5, 3}},
		{l.ValueFC2Bias, []int64{1}},
	}
	for _, c := range checks {
		if !slices.Equal(l.Tensors[c.i].Shape, c.shape) {
			t.Errorf("%s: shape %v, want %v", l.Tensors[c.i].Name, l.Tensors[c.i].Shape, c.shape)
		}
	}
	if l.PolicyCell != -1 || l.PolicyExtra != -1 {
		t.Errorf("dense head has spatial tensors at %d, %d", l.PolicyCell, l.PolicyExtra)
	}
	if r := l.Tensors[l.StemBN.RunningMean].Role; r != RoleBuffer {
		t.Errorf("running mean role %v", r)
	}
	if n := l.Tensors[l.PolicyFC].NumElements(); n != 330 {
		t.Errorf("policy.fc.weight has %d values", n)
	}

	cfg.PolicyHead, cfg.PolicyPlanes, cfg.ValueMaxPool = PolicySpatial, 2, true
	l = NewLayout(cfg, Shape{Planes: 4, Height: 3, Width: 5, Actions: 33})
	if l.PolicyFC != -1 || !slices.Equal(l.Tensors[l.PolicyCell].Shape, []int64{2, 2, 1, 1}) ||
		!slices.Equal(l.Tensors[l.PolicyExtra].Shape, []int64{3, 2}) || !slices.Equal(l.Tensors[l.ValueFC1].Shape, []int64{5, 6}) {
		t.Errorf("spatial layout: fc %d, cell %v, extra %v, value.fc1 %v", l.PolicyFC, l.Tensors[l.PolicyCell].Shape,
			l.Tensors[l.PolicyExtra].Shape, l.Tensors[l.ValueFC1].Shape)
	}
	l = NewLayout(cfg, Shape{Planes: 4, Height: 3, Width: 5, Actions: 30})
	if l.PolicyExtra != -1 || l.PolicyExtraBias != -1 {
		t.Errorf("spatial head without extra actions has policy.extra")
	}
	if l.Ownership != -1 || l.OwnershipBias != -1 {
		t.Errorf("network without an ownership head has its tensors at %d, %d", l.Ownership, l.OwnershipBias)
	}

	// The ownership head's two tensors come last, leaving the others'
	// order (and so older checkpoints and optimizer layouts) unchanged.
	cfg.OwnershipHead = true
	owned := NewLayout(cfg, Shape{Planes: 4, Height: 3, Width: 5, Actions: 30})
	if n := len(owned.Tensors); n != len(l.Tensors)+2 || owned.Ownership != n-2 || owned.OwnershipBias != n-1 {
		t.Fatalf("ownership head at %d and %d of %d tensors (%d without it)", owned.Ownership, owned.OwnershipBias, n, len(l.Tensors))
	}
	for i := range l.Tensors {
		if owned.Tensors[i].Name != l.Tensors[i].Name {
			t.Fatalf("tensor %d is %s with the ownership head, %s without", i, owned.Tensors[i].Name, l.Tensors[i].Name)
		}
	}
	w, b := owned.Tensors[owned.Ownership], owned.Tensors[owned.OwnershipBias]
	if w.Name != "ownership.conv.weight" || !slices.Equal(w.Shape, []int64{1, 8, 1, 1}) || w.Role != RoleWeight ||
		b.Name != "ownership.conv.bias" || !slices.Equal(b.Shape, []int64{1}) || b.Role != RoleOther {
		t.Errorf("ownership head tensors %+v and %+v", w, b)
	}
}

func TestSameArchitecture(t *testing.T) {
	a := DefaultConfig()
	b := a
	b.Threads, b.NoPadSingle = 3, true
	if d := a.SameArchitecture(b); d != "" {
		t.Errorf("runtime fields count: %s", d)
	}
	b.ValueMaxPool = true
	if d := a.SameArchitecture(b); d != "value_max_pool false, expected true" {
		t.Errorf("got %q", d)
	}
	b = a
	b.OwnershipHead = true
	if d := a.SameArchitecture(b); d != "ownership_head false, expected true" {
		t.Errorf("got %q", d)
	}
}
