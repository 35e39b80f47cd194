package squatter

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkRandomPlayout plays uniformly random games to the end through the
// env.State interface and reports games/s and actions/s.
func BenchmarkRandomPlayout(b *testing.B) {
	for _, n := range []int{6, 8, 12} {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			g := mustGame(b, n)
			rng := rand.New(rand.NewPCG(1, 2))
			legal := make([]int, 0, n*n)
			actions := 0
			b.ReportAllocs()
			for b.Loop() {
				s := g.NewInitialState()
				for !s.IsTerminal() {
					legal = s.LegalActions(legal)
					if err := s.ApplyAction(legal[rng.IntN(len(legal))]); err != nil {
						b.Fatal(err)
					}
					actions++
				}
			}
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(b.N)/sec, "games/s")
			b.ReportMetric(float64(actions)/sec, "actions/s")
		})
	}
}

// BenchmarkObservation measures encoding one mid-game position.
func BenchmarkObservation(b *testing.B) {
	g := mustGame(b, 6)
	s := g.NewState()
	rng := rand.New(rand.NewPCG(3, 4))
	var legal []int
	for range 18 {
		legal = s.LegalActions(legal)
		if err := s.ApplyAction(legal[rng.IntN(len(legal))]); err != nil {
			b.Fatal(err)
		}
	}
	obs := make([]float32, g.ObservationShape().Size())
	for b.Loop() {
		s.Observation(obs)
	}
}
