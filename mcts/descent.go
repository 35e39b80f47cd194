package mcts

// One round of a search: preparing the root, descending to leaves with
// virtual loss (PUCT or Gumbel selection), and taking a round back.

import (
	"context"
	"fmt"
	"math"

	"github.com/zerokit/zerokit/env"
)

// prepareRoot sets up the per-search root data: noisy priors for PUCT, the
// Gumbel noise, logits and halving schedule for Gumbel.
func (s *Search) prepareRoot(full bool, sims int) {
	root := &s.t.nodes[0]
	n := int(root.nchild)
	children := s.t.nodes[root.first : root.first+root.nchild]
	switch s.cfg.Mode {
	case ModePUCT:
		s.rootPrior = grow(s.rootPrior, n)
		for i := range children {
			s.rootPrior[i] = children[i].prior
		}
		if full && s.cfg.DirichletEpsilon > 0 && n > 1 {
			alpha := s.cfg.DirichletAlpha
			if s.cfg.DirichletTotalAlpha > 0 {
				alpha = s.cfg.DirichletTotalAlpha / float64(n)
			}
			s.noise = grow(s.noise, n)
			dirichlet(s.rng, alpha, s.noise)
			eps := s.cfg.DirichletEpsilon
			for i := range s.rootPrior {
				s.rootPrior[i] = float32((1-eps)*float64(s.rootPrior[i]) + eps*s.noise[i])
			}
		}
	case ModeGumbel:
		s.gumbel = grow(s.gumbel, n)
		s.rootLogits = grow(s.rootLogits, n)
		s.runVisits = grow(s.runVisits, n)
		scale := s.cfg.Gumbel.Scale
		if !full {
			scale = 0
		}
		for i := range children {
			s.rootLogits[i] = logit(children[i].prior)
			s.gumbel[i] = 0
			if scale > 0 {
				s.gumbel[i] = scale * sampleGumbel(s.rng)
			}
			s.runVisits[i] = 0
		}
		m := min(s.cfg.Gumbel.MaxConsideredActions, n)
		if s.seqKey != [2]int{m, sims} || s.sequence == nil {
			s.sequence = consideredVisitSequence(m, sims)
			s.seqKey = [2]int{m, sims}
		}
	}
}

// round selects up to LeavesInFlight leaves, evaluates them concurrently,
// and backs them up. It returns the number of completed simulations.
func (s *Search) round(ctx context.Context, done, sims int) (int, error) {
	s.leaves = s.leaves[:0]
	s.collisions = s.collisions[:0]
	completed := 0
	limit := s.cfg.LeavesInFlight
gather:
	for len(s.leaves) < limit && done+completed+len(s.leaves) < sims && len(s.collisions) < limit {
		if completed+len(s.leaves) > 0 && s.full() {
			// The tree's budget: stop before a descent could pass it.
			break
		}
		leaf, rootChild, fresh, err := s.selectLeaf(done + completed + len(s.leaves))
		if err != nil {
			return 0, err
		}
		nd := &s.t.nodes[leaf]
		switch {
		case nd.status == stTerminal || nd.status == stRepeated || nd.status == stSolved || nd.proven:
			v := nd.value
			switch {
			case nd.proven:
				v = nd.proof
			case nd.status == stRepeated:
				v = 0 // a draw
			}
			s.countRootVisit(rootChild)
			s.t.backup(leaf, float64(v))
			completed++
		case fresh:
			s.countRootVisit(rootChild)
			s.t.addVirtual(leaf, 1)
			s.addLeaf(leaf)
			s.leaves[len(s.leaves)-1].rootChild = rootChild
		default:
			// A leaf already in flight: keep virtual loss on the path so
			// that the next descent avoids it, and undo it afterwards.
			s.t.addVirtual(leaf, 1)
			s.collisions = append(s.collisions, leaf)
			s.stats.Collisions++
			if s.cfg.Mode == ModeGumbel && leaf == rootChild {
				// The Gumbel schedule ignores virtual loss at the root,
				// so retrying would pick the same root child again.
				break gather
			}
		}
	}
	if len(s.leaves) == 0 {
		return completed, nil
	}
	if err := s.evaluateLeaves(ctx); err != nil {
		if pastDeadline(ctx) {
			s.abandonRound()
			return completed, errDeadline
		}
		return 0, err
	}
	for _, c := range s.collisions {
		s.t.addVirtual(c, -1)
	}
	for i := range s.leaves {
		s.t.addVirtual(s.leaves[i].node, -1)
	}
	for i := range s.leaves {
		if err := s.expand(&s.leaves[i]); err != nil {
			return 0, err
		}
	}
	return completed + len(s.leaves), nil
}

func (s *Search) countRootVisit(rootChild int32) {
	if s.cfg.Mode == ModeGumbel && rootChild >= 0 {
		s.runVisits[rootChild-s.t.nodes[0].first]++
	}
}

// abandonRound takes back the leaves and collisions of a round whose
// evaluations did not complete: their virtual visits are removed and the
// leaves become unvisited again, so the tree is as if the round's pending
// simulations had never started.
func (s *Search) abandonRound() {
	for _, c := range s.collisions {
		s.t.addVirtual(c, -1)
	}
	for i := range s.leaves {
		l := &s.leaves[i]
		s.t.addVirtual(l.node, -1)
		nd := &s.t.nodes[l.node]
		nd.status = stUnvisited
		s.t.detach(l.node)
		if s.cfg.Mode == ModeGumbel && l.rootChild >= 0 {
			s.runVisits[l.rootChild-s.t.nodes[0].first]--
		}
	}
	s.leaves = s.leaves[:0]
	s.collisions = s.collisions[:0]
}

// selectLeaf descends from the root to a node that is terminal, pending
// (a collision with a leaf in flight) or unvisited; it creates the position
// of an unvisited node and marks it pending (fresh) unless it is terminal.
// sim is the index of this simulation within the search (for the Gumbel
// schedule). It also returns the root child on the path.
func (s *Search) selectLeaf(sim int) (leaf, rootChild int32, fresh bool, err error) {
	idx := int32(0)
	rootChild = -1
	for {
		nd := &s.t.nodes[idx]
		switch {
		case nd.status == stTerminal || nd.status == stRepeated || nd.status == stSolved || nd.status == stPending || nd.proven:
			return idx, rootChild, false, nil
		case nd.status == stUnvisited:
			st := s.t.nodes[nd.parent].state.Clone()
			if err := st.ApplyAction(int(nd.action)); err != nil {
				return 0, 0, false, fmt.Errorf("mcts: applying legal action %d: %w", nd.action, err)
			}
			s.t.attach(idx, st)
			if st.IsTerminal() {
				nd.setTerminal(st, s.cfg.Solver)
				if s.cfg.Solver {
					s.prove(nd.parent)
				}
				return idx, rootChild, false, nil
			}
			if s.solved(idx, st) {
				if s.cfg.Solver {
					s.prove(nd.parent)
				}
				return idx, rootChild, false, nil
			}
			if s.repeats(nd.parent, st) {
				nd.status = stRepeated
				return idx, rootChild, false, nil
			}
			nd.status = stPending
			return idx, rootChild, true, nil
		}
		var next int32
		switch {
		case idx == 0 && s.cfg.Mode == ModeGumbel:
			next = s.selectGumbelRoot(sim)
		case s.cfg.Mode == ModeGumbel && s.cfg.Gumbel.Interior == InteriorImprovedPolicy:
			next = s.selectImproved(idx)
		default:
			next = s.selectPUCT(idx)
		}
		if idx == 0 {
			rootChild = next
		}
		idx = next
	}
}

// repeats reports whether st, the position of a new child of parent,
// repeats a position on the path from the root to parent (the root
// included), by env.RepetitionKeyer. Such a line returns to where it was
// without progress: the search scores the child as a draw (value 0, not a
// proof: the game's rules may go on) instead of searching it on, which
// also keeps it from following a cycle ever deeper, one node per
// simulation, when the network's values do not tell the cycle's positions
// apart. Games whose states do not implement the interface never repeat.
func (s *Search) repeats(parent int32, st env.State) bool {
	r, ok := st.(env.RepetitionKeyer)
	if !ok {
		return false
	}
	key, ok := r.RepetitionKey()
	if !ok {
		return false
	}
	for a := parent; a >= 0; a = s.t.nodes[a].parent {
		ar, ok := s.t.nodes[a].state.(env.RepetitionKeyer)
		if !ok {
			return false
		}
		k, ok := ar.RepetitionKey()
		switch {
		case !ok:
			// Earlier positions cannot be keyed either.
			return false
		case k == key:
			return true
		}
	}
	return false
}

// selectPUCT picks the child of an expanded node maximising
// Q + c * P * sqrt(N) / (1 + n), counting in-flight visits as losses.
//
// It makes one pass over the children: all unvisited children share the
// first-play-urgency value, so the best of them is the one with the highest
// prior, and the FPU (which depends on the prior mass of visited children)
// is only needed once at the end. Ties go to the lower index.
func (s *Search) selectPUCT(idx int32) int32 {
	nd := &s.t.nodes[idx]
	cfg := &s.cfg
	sg := sign(nd.player)
	nParent := float64(nd.visits + nd.vl)
	c := cfg.CPUCT
	if cfg.CPUCTBase > 0 {
		c += math.Log((1 + nParent + cfg.CPUCTBase) / cfg.CPUCTBase)
	}
	cs := c * math.Sqrt(nParent)
	children := s.t.nodes[nd.first : nd.first+nd.nchild]
	isRoot := idx == 0
	noisy := isRoot && cfg.Mode == ModePUCT
	vloss := cfg.VirtualLoss
	bestV, bestVScore := -1, math.Inf(-1) // best visited child
	bestU, bestUPrior := -1, -1.0         // highest-prior unvisited child
	visitedPrior := 0.0
	for i := range children {
		ch := &children[i]
		p := float64(ch.prior)
		if noisy {
			p = float64(s.rootPrior[i])
		}
		n := ch.visits + ch.vl
		if ch.proven {
			// Config.Solver: the value is known, whatever the visits. A
			// proven loss is never selected: this node is not proven, so
			// some child is not a proven loss.
			visitedPrior += p
			q := sg * float64(ch.proof)
			if q <= -1 {
				continue
			}
			score := q + cs*p/(1+float64(n))
			if score > bestVScore {
				bestV, bestVScore = i, score
			}
			continue
		}
		if n == 0 {
			if p > bestUPrior {
				bestU, bestUPrior = i, p
			}
			continue
		}
		visitedPrior += p
		fn := float64(n)
		score := (sg*ch.w0-float64(ch.vl)*vloss)/fn + cs*p/(1+fn)
		if score > bestVScore {
			bestV, bestVScore = i, score
		}
	}
	if bestU >= 0 {
		var fpu float64
		if cfg.FPUMode == FPUAbsolute {
			fpu = cfg.FPUValue
		} else {
			red := cfg.FPUReduction
			if isRoot {
				red = cfg.RootFPUReduction
			}
			fpu = sg*nd.w0/float64(max(nd.visits, 1)) - red*math.Sqrt(visitedPrior)
		}
		score := fpu + cs*bestUPrior
		if bestV < 0 || score > bestVScore || (score == bestVScore && bestU < bestV) {
			bestV = bestU
		}
	}
	return nd.first + int32(bestV)
}

// addLeaf queues node for evaluation, filling its legal actions.
func (s *Search) addLeaf(n int32) {
	if len(s.leaves) < cap(s.leaves) {
		s.leaves = s.leaves[:len(s.leaves)+1]
	} else {
		s.leaves = append(s.leaves, leafSlot{})
	}
	l := &s.leaves[len(s.leaves)-1]
	l.node = n
	l.rootChild = -1
	l.legal = s.t.nodes[n].state.LegalActions(l.legal)
	l.priors = grow(l.priors, len(l.legal))
	l.value, l.err = 0, nil
}
