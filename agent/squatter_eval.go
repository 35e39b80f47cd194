package agent

import (
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/squatter"
)

// SquatterInfluence is the weight of each free cell a player dominates in
// SquatterEvaluation.
const SquatterInfluence = 0.25

// SquatterMaterial is the Squatter score balance for player: own score
// (captured cells that were free or held enemy pieces) minus the
// opponent's. It panics if s is not a *squatter.State.
func SquatterMaterial(s env.State, player int) float64 {
	q := s.(*squatter.State)
	return float64(q.Score(player) - q.Score(1-player))
}

// SquatterEvaluation scores s for player: SquatterMaterial plus potential
// territory, SquatterInfluence per free cell that has more of the player's
// live pieces than the opponent's among its eight neighbours, minus the same
// for the opponent. Free cells surrounded by one side's live pieces are the
// ones that side can most easily enclose. It panics if s is not a
// *squatter.State.
func SquatterEvaluation(s env.State, player int) float64 {
	q := s.(*squatter.State)
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
	return SquatterMaterial(s, player) + SquatterInfluence*float64(dominated)
}
