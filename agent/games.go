package agent

import (
	"fmt"

	"github.com/zerokit/zerokit/env"
)

// heuristics is game's hand-written evaluations (env.Heuristics), or an
// error naming what is missing.
func heuristics(game env.Game, what string) (env.Heuristics, error) {
	h, ok := game.(env.Heuristics)
	if !ok {
		return nil, fmt.Errorf("agent: no %s heuristic for game %q", what, game.Name())
	}
	return h, nil
}

// Material returns game's material heuristic (env.Heuristics.Material),
// used by the greedy player: own material minus the opponent's.
func Material(game env.Game) (Heuristic, error) {
	h, err := heuristics(game, "material")
	if err != nil {
		return nil, err
	}
	return h.Material(), nil
}

// ShrinkMaterial returns game's material heuristic with the danger of a
// shrinking board (env.Heuristics.ShrinkMaterial): Material for games whose
// board does not shrink.
func ShrinkMaterial(game env.Game) (Heuristic, error) {
	h, err := heuristics(game, "material")
	if err != nil {
		return nil, err
	}
	return h.ShrinkMaterial(), nil
}

// Evaluation returns game's hand-written evaluation
// (env.Heuristics.Evaluation), used by the alpha-beta player; one that
// implements Tactical makes the search add a quiescence search.
func Evaluation(game env.Game) (Heuristic, error) {
	h, err := heuristics(game, "evaluation")
	if err != nil {
		return nil, err
	}
	return h.Evaluation(), nil
}

// FinalMaterial returns game's material heuristic with pieces on the board
// its last shrink leaves worth more (env.FinalHeuristic): Material for
// games whose board does not shrink.
func FinalMaterial(game env.Game) (Heuristic, error) {
	if h, ok := game.(env.FinalHeuristic); ok {
		return h.FinalMaterial(), nil
	}
	return Material(game)
}

// TableMaterial returns game's material heuristic with the final board
// and the solved endgame's value of the pieces if its last shrink came now
// (env.FinalHeuristic): Material for games whose board does not shrink.
func TableMaterial(game env.Game) (Heuristic, error) {
	if h, ok := game.(env.FinalHeuristic); ok {
		return h.TableMaterial(), nil
	}
	return Material(game)
}
