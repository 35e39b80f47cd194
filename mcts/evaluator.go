// Package mcts implements Monte Carlo tree search (PUCT and Gumbel root
// search) over any env.Game, driven by an Evaluator.
//
// Search runs one search at a time for one game and keeps its tree between
// moves (Run, then Advance with the move played). Its Config selects AlphaZero
// PUCT search (Dirichlet root noise, temperature schedule, visit-count
// policy targets) or Gumbel root search (Gumbel-top-k, sequential halving,
// completed-Q policy targets, as mctx), playout cap randomization, virtual
// loss with several leaves in flight, and first-play urgency.
//
// Evaluators: Batcher serves a Network to many concurrent searches with
// batched Forward calls; Cache memoises any Evaluator by position hash;
// UniformEvaluator and RolloutEvaluator are network-free baselines.
//
// Values are from the point of view of the player to move; the tree stores
// them from player 0's and negates for player 1, so two-player zero-sum
// backup is right whatever the order of turns (passes are ordinary actions).
// Terminal positions are scored by their true returns; a position that
// repeats one on its path from the root (games whose states implement
// env.RepetitionKeyer) is scored as a draw and not searched deeper.
package mcts

import (
	"context"
	"fmt"
	"math"

	"github.com/zerokit/zerokit/env"
)

// Evaluator estimates a non-terminal state for search: it writes prior
// probabilities for the given legal actions into priors (same order, summing
// to 1) and returns the value of the state in [-1, 1] for the player to move.
// Implementations must be safe for concurrent use.
type Evaluator interface {
	Evaluate(ctx context.Context, s env.State, legal []int, priors []float32) (value float32, err error)
}

// Network is a batched policy/value function over encoded observations, as
// implemented by torch.Net. Forward evaluates n observations stored
// contiguously in obs (n * ObservationShape().Size() values) and writes n *
// NumActions() policy logits and n values in [-1, 1], each from the point of
// view of the player to move in that observation.
type Network interface {
	Forward(obs []float32, n int, logits, values []float32) error
}

// MaskedSoftmax turns policy logits over the full action space into prior
// probabilities over the legal actions: priors[i] = exp(logits[legal[i]]) /
// sum_j exp(logits[legal[j]]). Logits of illegal actions are ignored
// whatever their value. It returns an error if an action is out of range,
// priors is shorter than legal, or a legal logit is NaN or infinite.
func MaskedSoftmax(logits []float32, legal []int, priors []float32) error {
	if err := gatherLegal(logits, legal, priors); err != nil {
		return err
	}
	return softmaxLegal(legal, priors)
}

// gatherLegal is MaskedSoftmax's first half: it copies the logits of the
// legal actions into priors (the Batcher's worker does this part, and the
// caller the rest, in parallel with the other callers).
func gatherLegal(logits []float32, legal []int, priors []float32) error {
	if len(priors) < len(legal) {
		return fmt.Errorf("mcts: masked softmax: %d priors for %d legal actions", len(priors), len(legal))
	}
	for i, a := range legal {
		if a < 0 || a >= len(logits) {
			return fmt.Errorf("mcts: masked softmax: action %d outside [0, %d)", a, len(logits))
		}
		priors[i] = logits[a]
	}
	return nil
}

// softmaxLegal is MaskedSoftmax's second half: it turns the legal actions'
// logits, gathered into priors, into probabilities in place.
func softmaxLegal(legal []int, priors []float32) error {
	if len(legal) == 0 {
		return nil
	}
	p := priors[:len(legal)]
	maxLogit := float32(math.Inf(-1))
	for i, l := range p {
		if math.IsNaN(float64(l)) || math.IsInf(float64(l), 0) {
			return fmt.Errorf("mcts: masked softmax: logit of action %d is %v", legal[i], l)
		}
		maxLogit = max(maxLogit, l)
	}
	var sum float32
	for i, l := range p {
		e := float32(math.Exp(float64(l - maxLogit)))
		p[i] = e
		sum += e
	}
	inv := 1 / sum // sum >= 1: the maximum contributes exp(0)
	for i := range p {
		p[i] *= inv
	}
	return nil
}
