package abx

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/arena"
	"github.com/zerokit/zerokit/env/wyb"
)

func abw(g *wyb.Game, depth int, w agent.WYBWeights, name string) agent.Factory {
	return func(seed uint64) (agent.Agent, error) {
		return agent.NewAlphaBeta(g, agent.HeuristicFunc(w.Evaluate), agent.AlphaBetaConfig{Depth: depth, Seed: seed, Name: name})
	}
}

func TestQuick(t *testing.T) {
	g := wyb.New(wyb.Options{TurnLimit: wyb.DefaultTurnLimit})
	base := agent.DefaultWYBWeights
	v := base
	v.ShrinkHorizon = 40
	v.Mobility = 0.03
	for _, m := range []struct{ a, b agent.Factory }{
		{abw(g, 3, v, "v3"), abw(g, 3, base, "base3")},
		{abw(g, 4, base, "base4"), abw(g, 3, base, "base3")},
		{abw(g, 4, v, "v4"), abw(g, 3, v, "v3")},
	} {
		start := time.Now()
		res, err := arena.Play(context.Background(), arena.Config{Game: g, Games: 40, Workers: 2, Seed: 1, OpeningMoves: 4}, m.a, m.b)
		if err != nil {
			t.Fatal(err)
		}
		res.WriteText(os.Stdout)
		fmt.Println(time.Since(start))
	}
}
