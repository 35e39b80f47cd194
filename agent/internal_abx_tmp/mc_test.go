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
	"github.com/zerokit/zerokit/env/tictactoe"
)

func TestMC(t *testing.T) {
	g := wyb.New(wyb.Options{TurnLimit: wyb.DefaultTurnLimit})
	gr, _ := agent.GreedyFactory(g)
	m100, _ := agent.PureMCTSFactory(100, 1)
	tt, _ := agent.PureMCTSFactory(200, 1)
	ab, _ := agent.AlphaBetaFactory(tictactoe.New(), agent.AlphaBetaConfig{Depth: 9})
	res, err := arena.Play(context.Background(), arena.Config{Game: tictactoe.New(), Games: 20, Workers: 2, Seed: 1}, tt, ab)
	if err != nil {
		t.Fatal(err)
	}
	res.WriteText(os.Stdout)
	for _, m := range []struct{ a, b agent.Factory }{{m100, agent.RandomFactory()}, {m100, gr}} {
		start := time.Now()
		res, err := arena.Play(context.Background(), arena.Config{Game: g, Games: 10, Workers: 2, Seed: 1, OpeningMoves: 2}, m.a, m.b)
		if err != nil {
			t.Fatal(err)
		}
		res.WriteText(os.Stdout)
		fmt.Println(time.Since(start))
	}
}
