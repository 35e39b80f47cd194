//go:build !nonet

package neural

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/wyb"
	"github.com/zerokit/zerokit/model/torch"
)

// BenchmarkAct measures one move of an untrained default-size network on
// Watch Your Back! positions (random games, 0 to 60 actions in), without
// tree reuse: ns/op is the move time at each budget and number of leaves
// in flight.
//
//	go test ./agent/neural/ -run '^$' -bench Act -benchtime 20x
func BenchmarkAct(b *testing.B) {
	game := wyb.New(wyb.Options{TurnLimit: wyb.DefaultTurnLimit})
	path := filepath.Join(b.TempDir(), "default.ckpt")
	writeCheckpoint(b, path, game, torch.DefaultConfig(), torch.Metadata{})
	n, err := Load(path, game, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	positions := randomPositions(b, game, 16)
	for _, sims := range []int{32, 64} {
		for _, leaves := range []int{1, 4, 8} {
			b.Run(fmt.Sprintf("sims=%d/leaves=%d", sims, leaves), func(b *testing.B) {
				s := DefaultSettings()
				s.Simulations, s.LeavesInFlight, s.ReuseTree = sims, leaves, false
				a, err := n.NewAgent(s, 1)
				if err != nil {
					b.Fatal(err)
				}
				b.ResetTimer()
				for i := range b.N {
					if _, err := a.Act(context.Background(), positions[i%len(positions)]); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// randomPositions plays random games and keeps n positions spread over
// their first 60 actions.
func randomPositions(b *testing.B, game env.Game, n int) []env.State {
	rng := rand.New(rand.NewPCG(1, 2))
	var out []env.State
	var legal []int
	for len(out) < n {
		s := game.NewInitialState()
		stop := rng.IntN(60)
		for i := 0; i < stop && !s.IsTerminal(); i++ {
			legal = s.LegalActions(legal)
			if err := s.ApplyAction(legal[rng.IntN(len(legal))]); err != nil {
				b.Fatal(err)
			}
		}
		if !s.IsTerminal() {
			out = append(out, s)
		}
	}
	return out
}
