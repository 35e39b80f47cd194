package agent

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/zerokit/zerokit/env"
)

// Greedy looks one ply ahead: it plays the action after which its heuristic
// (normally material, see Material) is largest, preferring an immediate win
// and avoiding an immediate loss, and breaks ties uniformly at random.
type Greedy struct {
	name  string
	h     Heuristic
	rng   *rand.Rand
	legal []int
}

// NewGreedy returns a greedy player using h, breaking ties with a stream
// seeded by seed.
func NewGreedy(h Heuristic, seed uint64) *Greedy {
	return &Greedy{name: "greedy", h: h, rng: rand.New(rand.NewPCG(seed, greedyStream))}
}

// GreedyFactory builds greedy players that use game's material heuristic.
func GreedyFactory(game env.Game) (Factory, error) {
	h, err := Material(game)
	if err != nil {
		return nil, err
	}
	return func(seed uint64) (Agent, error) { return NewGreedy(h, seed), nil }, nil
}

// Name returns "greedy".
func (g *Greedy) Name() string { return g.name }

// Act returns the legal action with the best one-ply score.
func (g *Greedy) Act(ctx context.Context, s env.State) (int, error) {
	if err := Cancelled(ctx); err != nil {
		return 0, err
	}
	me := s.CurrentPlayer()
	g.legal = s.LegalActions(g.legal)
	if len(g.legal) == 0 {
		return 0, ErrTerminal
	}
	best, bestScore, ties := -1, math.Inf(-1), 0
	for _, a := range g.legal {
		child := s.Clone()
		if err := child.ApplyAction(a); err != nil {
			return 0, fmt.Errorf("greedy: legal action %s rejected: %w", s.ActionString(a), err)
		}
		var score float64
		if child.IsTerminal() {
			score = float64(child.Returns()[me]) * WinScore
		} else {
			score = g.h.Evaluate(child, me)
		}
		switch {
		case score > bestScore:
			best, bestScore, ties = a, score, 1
		case score == bestScore:
			// Reservoir sampling: each tied action is kept with equal
			// probability.
			ties++
			if g.rng.IntN(ties) == 0 {
				best = a
			}
		}
	}
	return best, nil
}
