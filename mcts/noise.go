package mcts

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// dirichlet fills dst with a sample from the symmetric Dirichlet
// distribution of concentration alpha, as normalised Gamma(alpha, 1) draws
// from gonum with rng as the source. If every draw underflows to zero
// (possible for tiny alpha), all the mass goes to one uniformly chosen
// coordinate, which is the distribution's limit as alpha -> 0.
func dirichlet(rng *rand.Rand, alpha float64, dst []float64) {
	g := distuv.Gamma{Alpha: alpha, Beta: 1, Src: rng}
	sum := 0.0
	for i := range dst {
		dst[i] = g.Rand()
		sum += dst[i]
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		for i := range dst {
			dst[i] = 0
		}
		dst[rng.IntN(len(dst))] = 1
		return
	}
	for i := range dst {
		dst[i] /= sum
	}
}
