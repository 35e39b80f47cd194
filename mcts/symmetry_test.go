package mcts

import (
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
)

// lineNet is a network over a 1x3 board with two planes and four actions
// (three cells and a pass) that is not symmetric: value = cell 0 of plane
// 0, logit of cell a = (a+1) x cell a of plane 0, logit of the pass = the
// sum of plane 1. It counts its calls and observations.
type lineNet struct{ calls, seen int }

func (l *lineNet) Forward(obs []float32, n int, logits, values []float32) error {
	l.calls++
	l.seen += n
	for i := 0; i < n; i++ {
		o := obs[i*6 : (i+1)*6]
		values[i] = o[0]
		for a := 0; a < 3; a++ {
			logits[i*4+a] = float32(a+1) * o[a]
		}
		logits[i*4+3] = o[3] + o[4] + o[5]
	}
	return nil
}

var (
	lineShape   = env.Shape{Planes: 2, Height: 1, Width: 3}
	lineReverse = env.Symmetry{Name: "reverse", Cells: []int{2, 1, 0}, Actions: []int{2, 1, 0, 3}}
)

func TestSymmetryAverage(t *testing.T) {
	net := &lineNet{}
	avg, err := NewSymmetryAverage(net, lineShape, 4, []env.Symmetry{env.Identity(3, 4), lineReverse})
	if err != nil {
		t.Fatal(err)
	}
	obs := []float32{
		1, 2, 3, 0.5, 0, 0,
		-1, 0, 4, 0, 1, 2,
	}
	logits, values := make([]float32, 8), make([]float32, 2)
	if err := avg.Forward(obs, 2, logits, values); err != nil {
		t.Fatal(err)
	}
	// Reversed, cell a's value moves to cell 2-a, where the network
	// weighs it by 3-a: the mean weight is 2. The value is the mean of the
	// two end cells; the pass's logit is the same in both orientations.
	want := []float32{
		2, 4, 6, 0.5,
		-2, 0, 8, 3,
	}
	for i, w := range want {
		if logits[i] != w {
			t.Fatalf("logits %v, want %v", logits, want)
		}
	}
	if values[0] != 2 || values[1] != 1.5 {
		t.Fatalf("values %v, want [2 1.5]", values)
	}
	if net.calls != 1 || net.seen != 4 {
		t.Fatalf("the network was called %d times with %d observations, want once with 4", net.calls, net.seen)
	}
	if obs[0] != 1 || obs[2] != 3 {
		t.Fatal("Forward modified its input")
	}

	// With the identity alone it is the network itself.
	one, err := NewSymmetryAverage(&lineNet{}, lineShape, 4, []env.Symmetry{env.Identity(3, 4)})
	if err != nil {
		t.Fatal(err)
	}
	direct := make([]float32, 8)
	(&lineNet{}).Forward(obs, 2, direct, make([]float32, 2))
	if err := one.Forward(obs, 2, logits, values); err != nil {
		t.Fatal(err)
	}
	for i := range direct {
		if logits[i] != direct[i] {
			t.Fatalf("identity only: logits %v, want %v", logits, direct)
		}
	}
}

func TestNewSymmetryAverageErrors(t *testing.T) {
	tests := []struct {
		name string
		net  Network
		syms []env.Symmetry
		want string
	}{
		{"nil network", nil, []env.Symmetry{lineReverse}, "nil network"},
		{"none", &lineNet{}, nil, "no symmetries"},
		{"short", &lineNet{}, []env.Symmetry{{Name: "short", Cells: []int{0, 1}, Actions: []int{0, 1, 2, 3}}}, `"short" is not a permutation`},
		{"repeated action", &lineNet{}, []env.Symmetry{{Name: "rep", Cells: []int{0, 1, 2}, Actions: []int{0, 0, 2, 3}}}, `"rep" is not a permutation`},
		{"out of range", &lineNet{}, []env.Symmetry{{Name: "far", Cells: []int{0, 1, 3}, Actions: []int{0, 1, 2, 3}}}, `"far" is not a permutation`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewSymmetryAverage(tc.net, lineShape, 4, tc.syms)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}
