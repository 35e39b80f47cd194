package abx

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/wyb"
)

// winIn reports whether the player to move can force a win within n plies.
func winIn(s env.State, n int) bool {
	if n <= 0 {
		return false
	}
	me := s.CurrentPlayer()
	for _, a := range s.LegalActions(nil) {
		c := s.Clone()
		c.ApplyAction(a)
		if c.IsTerminal() {
			if c.Returns()[me] > 0 {
				return true
			}
			continue
		}
		if n >= 3 && loseAll(c, n-1, me) {
			return true
		}
	}
	return false
}

// loseAll: opponent to move in c; every reply lets me win within n-1.
func loseAll(c env.State, n int, me int) bool {
	for _, b := range c.LegalActions(nil) {
		d := c.Clone()
		d.ApplyAction(b)
		if d.IsTerminal() {
			if d.Returns()[me] > 0 {
				continue
			}
			return false
		}
		if !winIn(d, n-1) {
			return false
		}
	}
	return true
}

func TestFind(t *testing.T) {
	g := wyb.New(wyb.Options{TurnLimit: wyb.DefaultTurnLimit})
	h, _ := agent.Evaluation(g)
	rng := rand.New(rand.NewPCG(5, 5))
	found := 0
	for try := 0; try < 200000 && found < 3; try++ {
		var sb strings.Builder
		board := make([]byte, 64)
		for i := range board {
			board[i] = '-'
		}
		for _, c := range []int{0, 7, 56, 63} {
			board[c] = 'X'
		}
		place := func(ch byte, n int) {
			for n > 0 {
				i := rng.IntN(64)
				if board[i] == '-' {
					board[i] = ch
					n--
				}
			}
		}
		place('O', 3)
		place('@', 2)
		for y := 0; y < 8; y++ {
			for x := 0; x < 8; x++ {
				if x > 0 {
					sb.WriteByte(' ')
				}
				sb.WriteByte(board[y*8+x])
			}
			sb.WriteByte('\n')
		}
		s, err := wyb.NewPosition(wyb.Options{TurnLimit: wyb.DefaultTurnLimit}, sb.String(), wyb.Moving, 10)
		if err != nil || s.IsTerminal() {
			continue
		}
		if winIn(s, 1) || !winIn(s, 3) {
			continue
		}
		ab, _ := agent.NewAlphaBeta(g, h, agent.AlphaBetaConfig{Depth: 5})
		res, _ := ab.Search(context.Background(), s)
		fmt.Printf("%s\nab: %s score %v depth %d\n\n", sb.String(), s.ActionString(res.Action), res.Score, res.Depth)
		found++
	}
}
