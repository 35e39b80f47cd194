package solver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkKeeping finds the value and the value-keeping moves of 8
// positions of each number of discs, reached by random play without
// fours (one table for the 8, as the perfect player keeps one for a
// game), the work of the perfect player's first step. It reports the positions' mean and largest node counts and the
// CPU time per position besides the wall time: on a shared machine the
// CPU time is the measure.
func BenchmarkKeeping(b *testing.B) {
	g := geometry(b, 7, 6)
	for _, discs := range []int{30, 24, 20, 16, 14, 12, 10} {
		rng := rand.New(rand.NewPCG(uint64(discs), 46))
		var ps []Position
		for len(ps) < 8 {
			p, _ := randomPosition(g, rng, discs)
			if p.moves == discs && !p.CanWinNext() {
				ps = append(ps, p)
			}
		}
		b.Run(fmt.Sprintf("discs=%d", discs), func(b *testing.B) {
			var nodes, most int64
			s, err := New(g, 0)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				for _, p := range ps {
					n0 := s.Nodes()
					if _, _, err := s.Keeping(context.Background(), p); err != nil {
						b.Fatal(err)
					}
					nodes += s.Nodes() - n0
					most = max(most, s.Nodes()-n0)
				}
			}
			n := float64(b.N * len(ps))
			b.ReportMetric(float64(nodes)/n, "nodes/pos")
			b.ReportMetric(float64(most), "maxnodes")
			b.ReportMetric((cpuTime()-cpu0).Seconds()/n, "cpu-s/pos")
		})
	}
}
