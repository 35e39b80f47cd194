// Package mcts implements Monte Carlo tree search (PUCT and Gumbel root
// search) over any env.Game, driven by an Evaluator.
package mcts

import (
	"context"

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
// implemented by model.Net. Forward evaluates n observations stored
// contiguously in obs (n * ObservationShape().Size() values) and writes n *
// NumActions() policy logits and n values in [-1, 1], each from the point of
// view of the player to move in that observation.
type Network interface {
	Forward(obs []float32, n int, logits, values []float32) error
}
