package mcts

import (
	"math"
	"math/rand/v2"
)

// Gumbel root search, following Danihelka et al., "Policy improvement by
// planning with Gumbel" (ICLR 2022) and mctx's gumbel_muzero_policy:
//
//   - At the root, Gumbel noise g(a) is added to the prior logits. The
//     considered actions are the top m of g + logits (Gumbel-top-k, sampling
//     m actions without replacement from the prior).
//   - Sequential halving spreads the budget: the simulation schedule
//     (consideredVisitSequence) visits the m actions equally, then keeps
//     the better half by g + logits + sigma(q), and so on. At simulation k
//     the root visits, among the actions whose visit count in this search
//     equals sequence[k], the one maximising g + logits + sigma(q).
//   - The move is the action with the most visits that maximises g + logits
//     + sigma(q); the policy target is softmax(logits + sigma(completed Q)).
//   - sigma(q) = (CVisit + max_b N(b)) * CScale * q, where q are the
//     completed Q-values (visited children: their mean value; unvisited:
//     the mixed value approximation of the node's value) rescaled to [0, 1]
//     by their minimum and maximum over the node's children.
//   - Below the root, nodes select by mctx's deterministic rule
//     argmax pi'(a) - N(a) / (1 + sum_b N(b)) with pi' the improved policy
//     (or by PUCT, see Config.Gumbel.Interior).
//
// With several leaves in flight, in-flight visits count as visits of the
// root schedule, so it advances exactly as in sequential search; the root's
// scores use only completed visits (virtual loss would penalise whichever
// considered action happens to be in flight, which is noise, not
// information), while interior nodes count virtual loss to spread the
// leaves in flight. Only the Q-values the root choices see are older.

// gumbelScratch holds buffers for the Gumbel computations.
type gumbelScratch struct {
	sigma []float64
	probs []float64
}

// tinyPrior floors priors before taking logarithms.
const tinyPrior = 1e-30

func logit(p float32) float64 { return math.Log(max(float64(p), tinyPrior)) }

// sampleGumbel draws from the standard Gumbel distribution.
func sampleGumbel(rng *rand.Rand) float64 {
	u := rng.Float64()
	for u == 0 {
		u = rng.Float64()
	}
	return -math.Log(-math.Log(u))
}

// consideredVisitSequence is mctx's get_sequence_of_considered_visits: for
// each of n simulations, the visit count (within the search) that the root
// action chosen by that simulation has before it, for sequential halving
// over m considered actions.
func consideredVisitSequence(m, n int) []int32 {
	seq := make([]int32, 0, n+m)
	if m <= 1 {
		for i := 0; i < n; i++ {
			seq = append(seq, int32(i))
		}
		return seq
	}
	log2max := int(math.Ceil(math.Log2(float64(m))))
	visits := make([]int32, m)
	considered := m
	for len(seq) < n {
		extra := max(1, n/(log2max*considered))
		for range extra {
			seq = append(seq, visits[:considered]...)
			for i := range considered {
				visits[i]++
			}
		}
		considered = max(2, considered/2)
	}
	return seq[:n]
}

// sigmaQ writes sigma(completed Q) for the children of node idx into dst,
// from the point of view of the player to move at idx, and returns dst.
// With virtual, visits in flight count as visits and as losses of
// VirtualLoss each; otherwise only completed visits count.
func (s *Search) sigmaQ(idx int32, dst []float64, virtual bool) []float64 {
	nd := &s.t.nodes[idx]
	children := s.t.nodes[nd.first : nd.first+nd.nchild]
	dst = grow(dst, len(children))
	sg := sign(nd.player)
	var sumN, maxN int32
	var sumP, sumPQ float64
	for i := range children {
		ch := &children[i]
		n, vl := ch.visits, int32(0)
		if virtual {
			vl = ch.vl
			n += vl
		}
		if n > 0 || ch.proven {
			q := sg * float64(ch.proof) // Config.Solver: known, whatever the visits
			if !ch.proven {
				q = (sg*ch.w0 - float64(vl)*s.cfg.VirtualLoss) / float64(n)
			}
			dst[i] = q
			if n > 0 {
				p := max(float64(ch.prior), tinyPrior)
				sumP += p
				sumPQ += p * q
			}
		}
		sumN += n
		maxN = max(maxN, n)
	}
	// Mixed value: the network value of the node combined with the
	// prior-weighted mean Q of the visited children.
	mixed := float64(nd.value)
	if sumN > 0 {
		mixed = (mixed + float64(sumN)*sumPQ/sumP) / float64(sumN+1)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range children {
		n := children[i].visits
		if virtual {
			n += children[i].vl
		}
		if n == 0 && !children[i].proven {
			dst[i] = mixed
		}
		lo = min(lo, dst[i])
		hi = max(hi, dst[i])
	}
	scale := (s.cfg.Gumbel.CVisit + float64(maxN)) * s.cfg.Gumbel.CScale / max(hi-lo, 1e-8)
	for i := range dst {
		dst[i] = (dst[i] - lo) * scale
	}
	return dst
}

// improvedPolicy writes softmax(logits + sigma) for the children of idx
// into dst, given sigma from sigmaQ, and returns it. With logits = log
// prior this is prior * exp(sigma) normalised, which needs no logarithms.
func (s *Search) improvedPolicy(idx int32, sigma, dst []float64) []float64 {
	nd := &s.t.nodes[idx]
	children := s.t.nodes[nd.first : nd.first+nd.nchild]
	dst = grow(dst, len(children))
	m := math.Inf(-1)
	for i := range children {
		m = max(m, sigma[i])
	}
	sum := 0.0
	for i := range children {
		dst[i] = max(float64(children[i].prior), tinyPrior) * math.Exp(sigma[i]-m)
		sum += dst[i]
	}
	for i := range dst {
		dst[i] /= sum
	}
	return dst
}

// selectImproved is mctx's gumbel_muzero_interior_action_selection.
func (s *Search) selectImproved(idx int32) int32 {
	sc := &s.scratch
	sc.sigma = s.sigmaQ(idx, sc.sigma, true)
	sc.probs = s.improvedPolicy(idx, sc.sigma, sc.probs)
	nd := &s.t.nodes[idx]
	children := s.t.nodes[nd.first : nd.first+nd.nchild]
	var sumN int32
	for i := range children {
		sumN += children[i].visits + children[i].vl
	}
	best, bestScore := 0, math.Inf(-1)
	for i := range children {
		score := sc.probs[i] - float64(children[i].visits+children[i].vl)/float64(1+sumN)
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	return nd.first + int32(best)
}

// gumbelScore is mctx's score_considered for one action: g + logits +
// sigma, floored at -1e9.
func (s *Search) gumbelScore(i int) float64 {
	return max(-1e9, s.gumbel[i]+s.rootLogits[i]+s.scratch.sigma[i])
}

// selectGumbelRoot is mctx's gumbel_muzero_root_action_selection for the
// sim-th simulation of the search.
func (s *Search) selectGumbelRoot(sim int) int32 {
	s.scratch.sigma = s.sigmaQ(0, s.scratch.sigma, false)
	considered := s.sequence[min(sim, len(s.sequence)-1)]
	best, bestScore := -1, math.Inf(-1)
	for i := range s.runVisits {
		if s.runVisits[i] != considered {
			continue
		}
		if sc := s.gumbelScore(i); sc > bestScore {
			best, bestScore = i, sc
		}
	}
	if best < 0 {
		// Unreachable when the schedule is followed; stay robust anyway.
		for i := range s.runVisits {
			if sc := s.gumbelScore(i); sc > bestScore {
				best, bestScore = i, sc
			}
		}
	}
	return s.t.nodes[0].first + int32(best)
}

// gumbelResult writes the improved policy into policy and returns the index
// of the chosen root child: among the most visited (in this search), the
// one maximising g + logits + sigma.
func (s *Search) gumbelResult(policy []float32) int {
	sc := &s.scratch
	sc.sigma = s.sigmaQ(0, sc.sigma, false)
	sc.probs = s.improvedPolicy(0, sc.sigma, sc.probs)
	for i := range policy {
		policy[i] = float32(sc.probs[i])
	}
	var most int32
	for _, v := range s.runVisits {
		most = max(most, v)
	}
	best, bestScore := 0, math.Inf(-1)
	for i, v := range s.runVisits {
		if v != most {
			continue
		}
		if score := s.gumbelScore(i); score > bestScore {
			best, bestScore = i, score
		}
	}
	return best
}
