package agent

import (
	"fmt"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/squatter"
	"github.com/zerokit/zerokit/env/tictactoe"
	"github.com/zerokit/zerokit/env/wyb"
)

// Material returns game's material heuristic, used by the greedy player:
// own material minus the opponent's. Watch Your Back!: pieces on the board
// plus pieces still to place (WYBMaterial). Squatter: captured territory.
// Tic-tac-toe has no material (Zero).
func Material(game env.Game) (Heuristic, error) {
	switch game.NewInitialState().(type) {
	case *wyb.State:
		return HeuristicFunc(WYBMaterial), nil
	case *squatter.State:
		return HeuristicFunc(SquatterMaterial), nil
	case *tictactoe.State:
		return Zero, nil
	}
	return nil, fmt.Errorf("agent: no material heuristic for game %q", game.Name())
}

// ShrinkMaterial returns game's material heuristic with the shrink danger
// of its hand-written evaluation: for Watch Your Back!, WYBMaterial minus
// up to DefaultWYBWeights.Shrink per piece the next shrink eliminates,
// rising over the last DefaultWYBWeights.ShrinkHorizon turns before it
// (WYBWeights.Evaluate with every other weight 0). Games whose board does
// not shrink get Material.
func ShrinkMaterial(game env.Game) (Heuristic, error) {
	if _, ok := game.NewInitialState().(*wyb.State); ok {
		return WYBWeights{Shrink: DefaultWYBWeights.Shrink, ShrinkHorizon: DefaultWYBWeights.ShrinkHorizon}, nil
	}
	return Material(game)
}

// Evaluation returns game's hand-written evaluation, used by the alpha-beta
// player: WYBTactical with DefaultWYBWeights for Watch Your Back! (so the
// search adds a quiescence search over captures), SquatterEvaluation for
// Squatter, and Zero for tic-tac-toe (searched to the end, it needs none).
func Evaluation(game env.Game) (Heuristic, error) {
	switch game.NewInitialState().(type) {
	case *wyb.State:
		return WYBTactical{Weights: DefaultWYBWeights}, nil
	case *squatter.State:
		return HeuristicFunc(SquatterEvaluation), nil
	case *tictactoe.State:
		return Zero, nil
	}
	return nil, fmt.Errorf("agent: no evaluation heuristic for game %q", game.Name())
}
