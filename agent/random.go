package agent

import (
	"context"
	"math/rand/v2"

	"github.com/zerokit/zerokit/env"
)

// Random plays a uniformly random legal action.
type Random struct {
	rng   *rand.Rand
	legal []int
}

// NewRandom returns a random player drawing from a stream seeded by seed.
func NewRandom(seed uint64) *Random {
	return &Random{rng: rand.New(rand.NewPCG(seed, randomStream))}
}

// RandomFactory builds Random players.
func RandomFactory() Factory {
	return func(seed uint64) (Agent, error) { return NewRandom(seed), nil }
}

// Name returns "random".
func (r *Random) Name() string { return "random" }

// Act returns a uniformly random legal action.
func (r *Random) Act(ctx context.Context, s env.State) (int, error) {
	if err := Cancelled(ctx); err != nil {
		return 0, err
	}
	r.legal = s.LegalActions(r.legal)
	if len(r.legal) == 0 {
		return 0, ErrTerminal
	}
	return r.legal[r.rng.IntN(len(r.legal))], nil
}
