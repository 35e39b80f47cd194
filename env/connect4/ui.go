package connect4

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zerokit/zerokit/env"
)

// Material is 0 everywhere (env.Heuristics): discs are never taken.
func (g *Game) Material() env.Heuristic {
	return env.HeuristicFunc(func(env.State, int) float64 { return 0 })
}

// ShrinkMaterial is Material: the board does not shrink.
func (g *Game) ShrinkMaterial() env.Heuristic { return g.Material() }

// Evaluation scores the lines of four cells still open to each player: the
// square of the player's discs in each, the player's minus the
// opponent's, so at most 4 * 4 * 4 * MaxSide * MaxSide, far inside a
// search's win score.
func (g *Game) Evaluation() env.Heuristic {
	return env.HeuristicFunc(func(st env.State, player int) float64 {
		s := st.(*State)
		var score [2]int
		for _, d := range [4][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}} {
			for r := 0; r < g.rows; r++ {
				for c := 0; c < g.cols; c++ {
					if ec, er := c+3*d[0], r+3*d[1]; ec >= g.cols || er < 0 || er >= g.rows {
						continue
					}
					var n [3]int
					for i := 0; i < 4; i++ {
						n[s.board[(r+i*d[1])*g.cols+c+i*d[0]]]++
					}
					switch {
					case n[2] == 0:
						score[0] += n[1] * n[1]
					case n[1] == 0:
						score[1] += n[2] * n[2]
					}
				}
			}
		}
		return float64(score[player] - score[1-player])
	})
}

// Title names the game (env.TextUI).
func (g *Game) Title() string {
	return fmt.Sprintf("Connect Four on %d columns x %d rows.", g.cols, g.rows)
}

// Player maps "x" (or "first", "") and "o" (or "second") to a player.
func (g *Game) Player(colour string) (int, error) {
	switch colour {
	case "", "x", "first":
		return 0, nil
	case "o", "second":
		return 1, nil
	}
	return 0, errors.New("want x or o")
}

// Colour names a player with its board symbol.
func (g *Game) Colour(player int) string { return string("XO"[player]) }

// Board draws s with the column numbers below.
func (g *Game) Board(s env.State) string {
	var b strings.Builder
	for _, row := range strings.Split(strings.TrimSuffix(s.String(), "\n"), "\n") {
		b.WriteString(" " + strings.Join(strings.Split(row, ""), " ") + "\n")
	}
	for c := 0; c < g.cols; c++ {
		fmt.Fprintf(&b, " %d", c)
	}
	b.WriteString("\n")
	return b.String()
}

// Status is empty: the board says it all.
func (g *Game) Status(env.State, func(int) string) string { return "" }

// ParseMove reads a column's number and checks it has room.
func (g *Game) ParseMove(s env.State, line string) (int, error) {
	a, err := s.ParseAction(line)
	if err != nil {
		return 0, err
	}
	if !s.IsLegal(a) {
		return 0, fmt.Errorf("column %d is full", a)
	}
	return a, nil
}

// FormatMove writes a column's number.
func (g *Game) FormatMove(s env.State, a int) string { return s.ActionString(a) }

// MustPass is false: there is no pass.
func (g *Game) MustPass(env.State) bool { return false }

// Outcome is empty: the result says it all.
func (g *Game) Outcome(env.State) string { return "" }
