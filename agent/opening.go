package agent

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/zerokit/zerokit/env"
)

// openingStream is the second PCG seed word of the random openings.
const openingStream = 0x4f50454e494e4721 // "OPENING!"

// WithOpening wraps f so that each agent it builds plays its first n
// actions uniformly at random (seeded by the agent's seed) and the rest as
// the wrapped agent would: noise that makes matches between deterministic
// players more than one game. Agents built with the same seed play the
// same opening from the same positions. n = 0 returns f.
func WithOpening(f Factory, n int) (Factory, error) {
	switch {
	case f == nil:
		return nil, fmt.Errorf("agent: opening: nil factory")
	case n < 0:
		return nil, fmt.Errorf("agent: opening of %d actions, want 0 or more", n)
	case n == 0:
		return f, nil
	}
	return func(seed uint64) (Agent, error) {
		inner, err := f(seed)
		if err != nil {
			return nil, err
		}
		return &opening{inner: inner, left: n, n: n, rng: rand.New(rand.NewPCG(seed, openingStream))}, nil
	}, nil
}

// opening is an Agent whose first actions are random.
type opening struct {
	inner Agent
	left  int // random actions still to play
	n     int
	rng   *rand.Rand
	legal []int
}

// Name is the wrapped agent's with the opening, e.g.
// "alphabeta-d3+opening2".
func (o *opening) Name() string { return fmt.Sprintf("%s+opening%d", o.inner.Name(), o.n) }

// Act plays a random legal action while the opening lasts, then asks the
// wrapped agent.
func (o *opening) Act(ctx context.Context, s env.State) (int, error) {
	if o.left == 0 {
		return o.inner.Act(ctx, s)
	}
	if err := Cancelled(ctx); err != nil {
		return 0, err
	}
	o.legal = s.LegalActions(o.legal)
	if len(o.legal) == 0 {
		return 0, ErrTerminal
	}
	o.left--
	return o.legal[o.rng.IntN(len(o.legal))], nil
}

// Fallbacks forwards the wrapped agent's count (FallbackCounter), 0 when it
// keeps none.
func (o *opening) Fallbacks() int {
	if fc, ok := o.inner.(FallbackCounter); ok {
		return fc.Fallbacks()
	}
	return 0
}

// Inexact forwards the wrapped agent's count (InexactCounter), 0 when it
// keeps none.
func (o *opening) Inexact() int {
	if ic, ok := o.inner.(InexactCounter); ok {
		return ic.Inexact()
	}
	return 0
}
