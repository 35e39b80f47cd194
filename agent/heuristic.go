package agent

import (
	"github.com/zerokit/zerokit/env"
)

// Heuristic scores a non-terminal state from the point of view of player
// (env.Heuristic: games implement their heuristics without importing this
// package).
type Heuristic = env.Heuristic

// HeuristicFunc adapts a function to the Heuristic interface.
type HeuristicFunc = env.HeuristicFunc

// Zero is the heuristic that scores every state 0: with it, search only
// distinguishes wins, losses and draws.
var Zero Heuristic = HeuristicFunc(func(env.State, int) float64 { return 0 })

// Tactical is implemented by heuristics that can tell quiet positions from
// tactical ones, for quiescence search (AlphaBetaConfig.Quiescence).
type Tactical interface {
	Heuristic
	// HasTactical reports whether the player to move in s may have a
	// tactical action; false lets the search skip listing the actions.
	HasTactical(s env.State) bool
	// IsTactical reports whether the action leading from s to child was
	// tactical (for example, a capture).
	IsTactical(s, child env.State) bool
}
