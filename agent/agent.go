// Package agent provides game-playing agents for evaluation: a uniformly
// random player, a one-ply greedy player, an alpha-beta searcher with
// hand-written evaluations, and a pure Monte Carlo tree search player.
//
// Agents are not safe for concurrent use; code that plays several games at
// once (package arena) builds one agent per game from a Factory, with an
// explicit seed, so every game is reproducible.
package agent

import (
	"context"
	"errors"

	"github.com/zerokit/zerokit/env"
)

// Agent chooses actions.
type Agent interface {
	// Name identifies the agent and its settings in reports, e.g.
	// "alphabeta-d3".
	Name() string
	// Act returns a legal action for the player to move in s. It must not
	// modify s (agents that search Clone it). It returns an error when s is
	// terminal or ctx is cancelled before an action is chosen. A deadline
	// of ctx that passes (even before the call) is not an error: it asks
	// for the best action found so far, and every agent of this module
	// has one (see Cancelled).
	Act(ctx context.Context, s env.State) (action int, err error)
}

// FallbackCounter is implemented by agents that may answer a move without
// having searched it, when the deadline passed before their search
// produced anything (mcts.Result.Fallback): Fallbacks counts those moves
// since the agent was built. Match runners report the count.
type FallbackCounter interface {
	Fallbacks() int
}

// InexactCounter is implemented by agents that know the exact value of
// what they play when they have time to find it (the perfect player):
// Inexact counts the moves since the agent was built that it played
// knowing less, only that they keep the position's result. Match runners
// report the count.
type InexactCounter interface {
	Inexact() int
}

// TreeFullCounter is implemented by agents whose search tree has a size or
// memory budget (mcts.Config.MaxNodes, mcts.Config.TreeMB): TreeFulls
// counts the searches it stopped (mcts.Result.TreeFull) since the agent
// was built. Match runners report the count.
type TreeFullCounter interface {
	TreeFulls() int
}

// Cancelled returns ctx's error if ctx was cancelled, and nil while it is
// live or when only its deadline has passed: under a time limit an agent
// must still answer, and only cancellation means nobody wants the answer.
func Cancelled(ctx context.Context) error {
	if err := ctx.Err(); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

// Factory builds a fresh agent seeded with seed. An agent keeps per-game
// state (a random stream, a transposition table), so each game gets its own.
type Factory func(seed uint64) (Agent, error)

// ErrTerminal is returned by Act when the state has no legal actions.
var ErrTerminal = errors.New("agent: state is terminal, no action to choose")

// Second PCG seed words of each kind of agent, so that agents of different
// kinds given the same seed still draw from distinct streams.
const (
	randomStream    = 0x52414e444f4d2121 // "RANDOM!!"
	greedyStream    = 0x4752454544592121 // "GREEDY!!"
	alphaBetaStream = 0x414c504841424554 // "ALPHABET"
)
