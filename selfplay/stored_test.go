package selfplay

import (
	"context"
	"testing"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/env/tictactoe"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/selfplay/gamestore"
)

func TestRunStored(t *testing.T) {
	game := tictactoe.New()
	opts := Options{Search: testSearch(mcts.ModePUCT), Seed: 5}
	for _, tc := range []struct {
		name        string
		cancel      bool
		wantGames   int
		interrupted bool
	}{
		{"complete", false, 6, false},
		{"cancelled", true, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			store, _, err := gamestore.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			g, err := NewGenerator(game, Config{ParallelGames: 2}, opts)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				cancel()
			}
			seen := 0
			st, stored, err := g.RunStored(ctx, mcts.UniformEvaluator{}, 0, Stop{Games: 6}, store, func(int64, *data.Record) error {
				seen++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if stored.Interrupted != tc.interrupted || stored.Games != tc.wantGames || st.Games != tc.wantGames || seen != tc.wantGames {
				t.Fatalf("stats %d games, stored %+v, %d handed on; want %d games, interrupted %v", st.Games, stored, seen, tc.wantGames, tc.interrupted)
			}
			if tc.wantGames == 0 {
				return
			}
			shards, err := data.ListShards(dir)
			if err != nil || len(shards) != 1 {
				t.Fatalf("shards %v, %v; want one", shards, err)
			}
		})
	}
}
