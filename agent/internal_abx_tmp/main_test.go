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

func abq(g *wyb.Game, depth, q int, w agent.WYBWeights, name string) agent.Factory {
	return func(seed uint64) (agent.Agent, error) {
		return agent.NewAlphaBeta(g, agent.WYBTactical{Weights: w}, agent.AlphaBetaConfig{Depth: depth, Seed: seed, Name: name, Quiescence: q})
	}
}

func TestQuick(t *testing.T) {
	g := wyb.New(wyb.Options{TurnLimit: wyb.DefaultTurnLimit})
	base := agent.DefaultWYBWeights
	nc := base
	nc.Capture, nc.ExtraCapture = 0, 0
	nt := nc
	nt.Threatened = 0.1
	ns := nc
	ns.ShrinkHorizon = 40
	nm := nc
	nm.Mobility = 0.03
	for _, m := range []struct{ a, b agent.Factory }{
		{abq(g, 4, 4, nc, "q4nc"), abq(g, 3, 4, nc, "q3nc")},
		{abq(g, 3, 4, nt, "q3nt"), abq(g, 3, 4, nc, "q3nc")},
		{abq(g, 3, 4, ns, "q3ns"), abq(g, 3, 4, nc, "q3nc")},
		{abq(g, 3, 4, nm, "q3nm"), abq(g, 3, 4, nc, "q3nc")},
		{abq(g, 2, 4, nc, "q2nc"), abq(g, 2, 0, base, "base2")},
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
