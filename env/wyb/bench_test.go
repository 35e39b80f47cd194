package wyb

import (
	"math/rand/v2"
	"testing"
	"time"
)

// The playout benchmarks play uniformly random games to the end with the
// default turn limit, as env/wyb/testdata/bench_referee.py does with the
// official referee. They report games/s and actions/s (legal generation +
// apply) by wall-clock time and, where the platform reports it, by the
// process's CPU time (games/cpu-s, actions/cpu-s): on a shared machine the
// CPU-time figures do not grow when other processes take the cores.

// playoutMeter counts the actions of a playout benchmark and reports its
// metrics.
type playoutMeter struct {
	actions int
	cpu0    time.Duration
	cpuOK   bool
}

func startPlayouts() *playoutMeter {
	m := &playoutMeter{}
	m.cpu0, m.cpuOK = processCPU()
	return m
}

func (m *playoutMeter) report(b *testing.B) {
	cpu1, ok := processCPU()
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(b.N)/sec, "games/s")
	b.ReportMetric(float64(m.actions)/sec, "actions/s")
	b.ReportMetric(float64(m.actions)/float64(b.N), "actions/game")
	if cpu := (cpu1 - m.cpu0).Seconds(); m.cpuOK && ok && cpu > 0 {
		b.ReportMetric(float64(b.N)/cpu, "games/cpu-s")
		b.ReportMetric(float64(m.actions)/cpu, "actions/cpu-s")
	}
}

// BenchmarkRandomPlayout lists the legal actions and applies a random one
// at every turn.
func BenchmarkRandomPlayout(b *testing.B) {
	g := New(Options{TurnLimit: DefaultTurnLimit})
	rng := rand.New(rand.NewPCG(1, 2))
	legal := make([]int, 0, 256)
	b.ReportAllocs()
	m := startPlayouts()
	for b.Loop() {
		s := *g.NewState()
		for !s.IsTerminal() {
			legal = s.LegalActions(legal)
			s.apply(legal[rng.IntN(len(legal))])
			m.actions++
		}
	}
	m.report(b)
}

// BenchmarkRandomPlayoutNth chooses the random action with NumLegal and
// NthLegal instead of listing all legal actions.
func BenchmarkRandomPlayoutNth(b *testing.B) {
	g := New(Options{TurnLimit: DefaultTurnLimit})
	rng := rand.New(rand.NewPCG(1, 2))
	m := startPlayouts()
	for b.Loop() {
		s := *g.NewState()
		for !s.IsTerminal() {
			s.apply(s.NthLegal(rng.IntN(s.NumLegal())))
			m.actions++
		}
	}
	m.report(b)
}

// BenchmarkRandomPlayoutFast is the fastest random playout: PlayRandom
// with one random word per action (RandomLegal + apply, nothing listed).
func BenchmarkRandomPlayoutFast(b *testing.B) {
	g := New(Options{TurnLimit: DefaultTurnLimit})
	rng := rand.NewPCG(1, 2)
	m := startPlayouts()
	for b.Loop() {
		s := *g.NewState()
		for !s.IsTerminal() {
			s.PlayRandom(rng.Uint64())
			m.actions++
		}
	}
	m.report(b)
}

// BenchmarkRandomPlayoutChecked is BenchmarkRandomPlayout through the
// checked public API (ApplyAction validates each action).
func BenchmarkRandomPlayoutChecked(b *testing.B) {
	g := New(Options{TurnLimit: DefaultTurnLimit})
	rng := rand.New(rand.NewPCG(1, 2))
	legal := make([]int, 0, 256)
	m := startPlayouts()
	for b.Loop() {
		s := *g.NewState()
		for !s.IsTerminal() {
			legal = s.LegalActions(legal)
			if err := s.ApplyAction(legal[rng.IntN(len(legal))]); err != nil {
				b.Fatal(err)
			}
			m.actions++
		}
	}
	m.report(b)
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
