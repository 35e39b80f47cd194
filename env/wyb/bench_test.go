package wyb

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkRandomPlayout plays uniformly random games to the end with the
// default turn limit, listing the legal actions and applying one at every
// turn. It reports games/s and actions/s (legal generation + apply).
func BenchmarkRandomPlayout(b *testing.B) {
	g := New(Options{TurnLimit: DefaultTurnLimit})
	rng := rand.New(rand.NewPCG(1, 2))
	legal := make([]int, 0, 256)
	actions := 0
	b.ReportAllocs()
	for b.Loop() {
		s := *g.NewState()
		for !s.IsTerminal() {
			legal = s.LegalActions(legal)
			s.apply(legal[rng.IntN(len(legal))])
			actions++
		}
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/sec, "games/s")
	b.ReportMetric(float64(actions)/sec, "actions/s")
	b.ReportMetric(float64(actions)/float64(b.N), "actions/game")
}

// BenchmarkRandomPlayoutNth is BenchmarkRandomPlayout choosing the random
// action with NumLegal and NthLegal instead of listing all legal actions:
// the way a random rollout player should do it.
func BenchmarkRandomPlayoutNth(b *testing.B) {
	g := New(Options{TurnLimit: DefaultTurnLimit})
	rng := rand.New(rand.NewPCG(1, 2))
	actions := 0
	for b.Loop() {
		s := *g.NewState()
		for !s.IsTerminal() {
			s.apply(s.NthLegal(rng.IntN(s.NumLegal())))
			actions++
		}
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/sec, "games/s")
	b.ReportMetric(float64(actions)/sec, "actions/s")
}

// BenchmarkRandomPlayoutChecked is BenchmarkRandomPlayout through the
// checked public API (ApplyAction validates each action).
func BenchmarkRandomPlayoutChecked(b *testing.B) {
	g := New(Options{TurnLimit: DefaultTurnLimit})
	rng := rand.New(rand.NewPCG(1, 2))
	legal := make([]int, 0, 256)
	actions := 0
	for b.Loop() {
		s := *g.NewState()
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
}

// positions samples states from random games (both phases, both shrinks).
func positions(n int) []State {
	g := New(Options{TurnLimit: DefaultTurnLimit})
	rng := rand.New(rand.NewPCG(5, 6))
	var out []State
	var legal []int
	for len(out) < n {
		s := *g.NewState()
		for !s.IsTerminal() && len(out) < n {
			out = append(out, s)
			legal = s.LegalActions(legal)
			s.apply(legal[rng.IntN(len(legal))])
		}
	}
	return out
}

// BenchmarkLegalActions lists the legal actions of sampled positions.
func BenchmarkLegalActions(b *testing.B) {
	ps := positions(4096)
	legal := make([]int, 0, 256)
	i, n := 0, 0
	for b.Loop() {
		legal = ps[i&4095].LegalActions(legal)
		n += len(legal)
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "actions/s")
}

// BenchmarkApplyAction applies a legal action (checked) to a copy of
// sampled positions.
func BenchmarkApplyAction(b *testing.B) {
	ps := positions(4096)
	acts := make([]int, len(ps))
	rng := rand.New(rand.NewPCG(8, 9))
	for i := range ps {
		l := ps[i].LegalActions(nil)
		acts[i] = l[rng.IntN(len(l))]
	}
	i := 0
	for b.Loop() {
		s := ps[i&4095]
		if err := s.ApplyAction(acts[i&4095]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
