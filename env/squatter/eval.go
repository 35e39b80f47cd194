package squatter

import (
	"github.com/zerokit/zerokit/env"
)

// Material is the greedy player's evaluation (env.Heuristics): the
// function Material.
func (g *Game) Material() env.Heuristic { return env.HeuristicFunc(Material) }

// ShrinkMaterial is Material: the board does not shrink.
func (g *Game) ShrinkMaterial() env.Heuristic { return g.Material() }

// Evaluation is the alpha-beta player's evaluation: the function
// Evaluation.
func (g *Game) Evaluation() env.Heuristic { return env.HeuristicFunc(Evaluation) }

// Influence is the weight of each free cell a player dominates in
// Evaluation.
const Influence = 0.25

// Material is the Squatter score balance for player: own score
// (captured cells that were free or held enemy pieces) minus the
// opponent's. It panics if s is not a *State.
func Material(s env.State, player int) float64 {
	q := s.(*State)
	return float64(q.Score(player) - q.Score(1-player))
}

// Evaluation scores s for player: Material plus potential
// territory, Influence per free cell that has more of the player's
// live pieces than the opponent's among its eight neighbours, minus the same
// for the opponent. Free cells surrounded by one side's live pieces are the
// ones that side can most easily enclose. It panics if s is not a
// *State.
func Evaluation(s env.State, player int) float64 {
	q := s.(*State)
	n := q.N()
	dominated := 0
	for y := range n {
		for x := range n {
			if !q.Cell(x, y).Free() {
				continue
			}
			balance := 0
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if dx == 0 && dy == 0 {
						continue
					}
					c := q.Cell(x+dx, y+dy)
					if !c.Live() {
						continue
					}
					if c.Piece == player {
						balance++
					} else {
						balance--
					}
				}
			}
			switch {
			case balance > 0:
				dominated++
			case balance < 0:
				dominated--
			}
		}
	}
	return Material(s, player) + Influence*float64(dominated)
}
