package mcts

// Evaluating the leaves of a round and expanding them into the tree.

import (
	"context"
	"fmt"
	"math"
	"sync"
)

// evaluateLeaves runs the evaluator on every queued leaf, concurrently when
// there are several, and returns the first error.
func (s *Search) evaluateLeaves(ctx context.Context) error {
	s.stats.Rounds++
	s.stats.Evaluations += len(s.leaves)
	if len(s.leaves) == 1 {
		s.evaluateLeaf(ctx, 0)
	} else {
		var wg sync.WaitGroup
		for i := 1; i < len(s.leaves); i++ {
			wg.Go(func() { s.evaluateLeaf(ctx, i) })
		}
		s.evaluateLeaf(ctx, 0)
		wg.Wait()
	}
	for i := range s.leaves {
		if err := s.leaves[i].err; err != nil {
			return fmt.Errorf("mcts: evaluate: %w", err)
		}
	}
	return nil
}

// evaluateLeaf evaluates leaf i. Concurrent calls touch distinct slots and
// only read the tree, which does not change until they all return.
func (s *Search) evaluateLeaf(ctx context.Context, i int) {
	l := &s.leaves[i]
	l.value, l.err = s.eval.Evaluate(ctx, s.t.nodes[l.node].state, l.legal, l.priors)
}

// expand creates the children of an evaluated leaf and backs up its value.
func (s *Search) expand(l *leafSlot) error {
	v := l.value
	if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		return fmt.Errorf("mcts: evaluator returned value %v", v)
	}
	v = min(max(v, -1), 1)
	if len(l.legal) == 0 {
		return fmt.Errorf("mcts: non-terminal state without legal actions:\n%s", s.t.nodes[l.node].state)
	}
	var sum float32
	for i, p := range l.priors[:len(l.legal)] {
		if !(p >= 0) || math.IsInf(float64(p), 0) {
			return fmt.Errorf("mcts: evaluator returned prior %v for action %d", p, l.legal[i])
		}
		sum += p
	}
	if !(sum > 0) {
		return fmt.Errorf("mcts: evaluator priors sum to %v", sum)
	}
	if t := s.cfg.PolicyTemperature; t > 0 && t != 1 {
		// Normalise first, so that the powers of tiny priors stay
		// representable.
		e, norm := 1/t, 1/sum
		sum = 0
		for i, p := range l.priors[:len(l.legal)] {
			q := float32(math.Pow(float64(p*norm), e))
			l.priors[i] = q
			sum += q
		}
		if !(sum > 0) || math.IsInf(float64(sum), 0) {
			return fmt.Errorf("mcts: priors at policy temperature %v sum to %v", t, sum)
		}
	}
	inv := 1 / sum
	s.t.growArena(len(l.legal))
	s.t.maxChildren = max(s.t.maxChildren, len(l.legal))
	first := int32(len(s.t.nodes))
	for i, a := range l.legal {
		s.t.nodes = append(s.t.nodes, node{
			parent: l.node,
			action: int32(a),
			prior:  l.priors[i] * inv,
		})
	}
	nd := &s.t.nodes[l.node]
	nd.first = first
	nd.nchild = int32(len(l.legal))
	nd.player = int8(nd.state.CurrentPlayer())
	nd.value = v
	nd.status = stExpanded
	v0 := sign(nd.player) * float64(v)
	if s.cfg.Solver {
		if err := s.lookAhead(l.node); err != nil {
			return err
		}
		if nd = &s.t.nodes[l.node]; nd.proven {
			v0 = float64(nd.proof)
		}
	}
	s.t.backup(l.node, v0)
	return nil
}
