package mcts

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/zerokit/zerokit/env"
)

// UniformEvaluator gives every legal action the same prior and every state
// the value 0. With it, PUCT search is plain MCTS guided only by terminal
// results; it is the evaluator of tests and of search benchmarks.
type UniformEvaluator struct{}

// Evaluate implements Evaluator.
func (UniformEvaluator) Evaluate(_ context.Context, _ env.State, legal []int, priors []float32) (float32, error) {
	if len(priors) < len(legal) {
		return 0, fmt.Errorf("mcts: uniform evaluator: %d priors for %d legal actions", len(priors), len(legal))
	}
	p := 1 / float32(len(legal))
	for i := range legal {
		priors[i] = p
	}
	return 0, nil
}

// RolloutEvaluator values a state by playing uniformly random games from it
// to the end and averaging the results for the player to move; priors are
// uniform. Together with PUCT search it is the "pure MCTS" baseline.
//
// Its random numbers are drawn from a PCG generator seeded with (Seed,
// state hash), so a state's value does not depend on the order in which
// concurrent searches evaluate states, and runs are reproducible.
type RolloutEvaluator struct {
	// Rollouts is the number of random games per evaluation (at least 1).
	Rollouts int
	// Seed selects the random games.
	Seed uint64
	// MaxSteps, when positive, ends a rollout after that many actions and
	// scores it as a draw; it guards games whose rules allow very long play.
	MaxSteps int
}

// NewRolloutEvaluator returns a RolloutEvaluator playing rollouts random
// games per evaluation.
func NewRolloutEvaluator(rollouts int, seed uint64) (*RolloutEvaluator, error) {
	if rollouts < 1 {
		return nil, fmt.Errorf("mcts: rollout evaluator: rollouts = %d, want at least 1", rollouts)
	}
	return &RolloutEvaluator{Rollouts: rollouts, Seed: seed}, nil
}

// Evaluate implements Evaluator.
func (r *RolloutEvaluator) Evaluate(ctx context.Context, s env.State, legal []int, priors []float32) (float32, error) {
	if _, err := (UniformEvaluator{}).Evaluate(ctx, s, legal, priors); err != nil {
		return 0, err
	}
	n := max(r.Rollouts, 1)
	player := s.CurrentPlayer()
	if player < 0 {
		return 0, fmt.Errorf("mcts: rollout evaluator: %w", ErrTerminal)
	}
	rng := rand.New(rand.NewPCG(r.Seed, s.Hash()))
	buf := make([]int, 0, len(legal))
	var total float32
	for i := 0; i < n; i++ {
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("mcts: rollout evaluator: %w", err)
		}
		g := s.Clone()
		for steps := 0; !g.IsTerminal() && (r.MaxSteps <= 0 || steps < r.MaxSteps); steps++ {
			buf = g.LegalActions(buf)
			if len(buf) == 0 {
				return 0, fmt.Errorf("mcts: rollout evaluator: non-terminal state without legal actions:\n%s", g)
			}
			if err := g.ApplyAction(buf[rng.IntN(len(buf))]); err != nil {
				return 0, fmt.Errorf("mcts: rollout evaluator: %w", err)
			}
		}
		if g.IsTerminal() {
			total += g.Returns()[player]
		}
	}
	return total / float32(n), nil
}
