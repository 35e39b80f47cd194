package mcts

import (
	"errors"
	"fmt"

	"github.com/zerokit/zerokit/env"
)

// SymmetryAverage is a Network that evaluates every observation under each
// of several board symmetries and averages the results (test-time
// augmentation, as KataGo and Leela Zero do with the eight symmetries of
// Go): the value is the mean of the values, and each action's logit is the
// mean of the logits the network gave that action's image. Averaging
// logits makes the priors the normalised geometric mean of the per-symmetry
// priors.
//
// Errors the network makes in one orientation and not in another partly
// cancel; the price is one network evaluation per symmetry. A Network
// trained without a symmetry in its augmentation still usually treats the
// board nearly alike in both orientations, and then gains from it the
// most: each orientation's errors are its own.
//
// A SymmetryAverage holds scratch buffers: like the Network it wraps, it
// is for one goroutine at a time (one batcher worker).
type SymmetryAverage struct {
	net     Network
	shape   env.Shape
	actions int
	syms    []env.Symmetry

	obs, logits, values []float32
}

// NewSymmetryAverage wraps net, which evaluates observations of shape and
// policies over actions, to average over syms. syms should include the
// identity; each must map every cell and action (a permutation of the
// cells and of the actions).
func NewSymmetryAverage(net Network, shape env.Shape, actions int, syms []env.Symmetry) (*SymmetryAverage, error) {
	if net == nil {
		return nil, errors.New("mcts: symmetry average: nil network")
	}
	if len(syms) == 0 {
		return nil, errors.New("mcts: symmetry average: no symmetries")
	}
	for _, s := range syms {
		if !isPermutation(s.Cells, shape.Cells()) || !isPermutation(s.Actions, actions) {
			return nil, fmt.Errorf("mcts: symmetry average: symmetry %q is not a permutation of %d cells and %d actions", s.Name, shape.Cells(), actions)
		}
	}
	return &SymmetryAverage{net: net, shape: shape, actions: actions, syms: syms}, nil
}

func isPermutation(p []int, n int) bool {
	if len(p) != n {
		return false
	}
	seen := make([]bool, n)
	for _, v := range p {
		if v < 0 || v >= n || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}

// Forward implements Network: one call to the wrapped network with
// n x len(syms) observations.
func (a *SymmetryAverage) Forward(obs []float32, n int, logits, values []float32) error {
	size, k := a.shape.Size(), len(a.syms)
	if len(obs) < n*size || len(logits) < n*a.actions || len(values) < n {
		return fmt.Errorf("mcts: symmetry average: buffers too short for %d observations", n)
	}
	m := n * k
	a.obs = grow(a.obs, m*size)
	a.logits = grow(a.logits, m*a.actions)
	a.values = grow(a.values, m)
	for i := 0; i < n; i++ {
		src := obs[i*size : (i+1)*size]
		for j, s := range a.syms {
			r := i*k + j
			s.TransformObservation(a.shape, src, a.obs[r*size:(r+1)*size])
		}
	}
	if err := a.net.Forward(a.obs[:m*size], m, a.logits[:m*a.actions], a.values[:m]); err != nil {
		return err
	}
	inv := 1 / float32(k)
	for i := 0; i < n; i++ {
		out := logits[i*a.actions : (i+1)*a.actions]
		clear(out)
		var v float32
		for j, s := range a.syms {
			r := i*k + j
			l := a.logits[r*a.actions : (r+1)*a.actions]
			for act, img := range s.Actions {
				out[act] += l[img]
			}
			v += a.values[r]
		}
		for act := range out {
			out[act] *= inv
		}
		values[i] = v * inv
	}
	return nil
}
