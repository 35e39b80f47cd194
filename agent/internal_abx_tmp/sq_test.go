package abx

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/arena"
	"github.com/zerokit/zerokit/env/squatter"
)

func TestSq(t *testing.T) {
	g, _ := squatter.New(6)
	gr, _ := agent.GreedyFactory(g)
	ab2, _ := agent.AlphaBetaFactory(g, agent.AlphaBetaConfig{Depth: 2})
	ab3, _ := agent.AlphaBetaFactory(g, agent.AlphaBetaConfig{Depth: 3})
	for _, m := range []struct{ a, b agent.Factory }{{gr, agent.RandomFactory()}, {ab2, agent.RandomFactory()}, {ab2, gr}, {ab3, gr}, {ab3, ab2}} {
		start := time.Now()
		res, err := arena.Play(context.Background(), arena.Config{Game: g, Games: 20, Workers: 2, Seed: 1, OpeningMoves: 2}, m.a, m.b)
		if err != nil {
			t.Fatal(err)
		}
		res.WriteText(os.Stdout)
		fmt.Println(time.Since(start))
	}
}
