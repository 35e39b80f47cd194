package torch

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// wybShape is Watch Your Back!'s observation and action space (11 planes of
// 8x8, 577 actions); package model/torch does not import the game.
var wybShape = Shape{Planes: 15, Height: 8, Width: 8, Actions: 577}

var benchArchs = []struct {
	name string
	cfg  Config
}{
	{"default", DefaultConfig()},
	{"small", SmallConfig()},
}

func benchNet(b *testing.B, cfg Config, threads int) *Net {
	b.Helper()
	cfg.Threads = threads
	n, err := New(cfg, wybShape, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(n.Close)
	return n
}

// reportTimes reports throughput over the whole run and, because this
// machine is shared, the minimum and median time per call in ms (the
// minimum is the cost without interference from other processes).
func reportTimes(b *testing.B, times []time.Duration, perCall int, unit string) {
	b.ReportMetric(float64(perCall*len(times))/b.Elapsed().Seconds(), unit)
	b.ReportMetric(slices.Min(times).Seconds()*1e3, "min-ms")
	b.ReportMetric(medianOf(times).Seconds()*1e3, "med-ms")
}

// BenchmarkForward measures Forward (Go slices in, Go slices out) on WYB
// shapes: positions/s for each architecture, intra-op thread count and
// batch size.
//
//	go test ./model/ -run '^$' -bench Forward -benchtime 1s
func BenchmarkForward(b *testing.B) {
	for _, arch := range benchArchs {
		for _, threads := range []int{1, 2} {
			n := benchNet(b, arch.cfg, threads)
			for _, batch := range []int{1, 8, 32, 64, 256} {
				b.Run(fmt.Sprintf("%s/threads=%d/batch=%d", arch.name, threads, batch), func(b *testing.B) {
					obs := randomObs(rand.New(rand.NewPCG(1, 2)), wybShape, batch)
					logits := make([]float32, batch*wybShape.Actions)
					values := make([]float32, batch)
					times := make([]time.Duration, 0, b.N)
					b.ResetTimer()
					for range b.N {
						t0 := time.Now()
						if err := n.Forward(obs, batch, logits, values); err != nil {
							b.Fatal(err)
						}
						times = append(times, time.Since(t0))
					}
					reportTimes(b, times, batch, "pos/s")
				})
			}
		}
	}
}

// BenchmarkTrainStep measures training steps (forward, backward, AdamW) at
// batch 256: samples/s.
//
//	go test ./model/ -run '^$' -bench TrainStep -benchtime 10x
func BenchmarkTrainStep(b *testing.B) {
	for _, arch := range benchArchs {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/threads=%d/batch=256", arch.name, threads), func(b *testing.B) {
				n := benchNet(b, arch.cfg, threads)
				tr, err := NewTrainer(n, DefaultTrainConfig())
				if err != nil {
					b.Fatal(err)
				}
				defer tr.Close()
				batch := fixedBatch(rand.New(rand.NewPCG(1, 2)), wybShape, 256)
				if _, err := tr.Step(batch); err != nil {
					b.Fatal(err)
				}
				times := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for range b.N {
					t0 := time.Now()
					if _, err := tr.Step(batch); err != nil {
						b.Fatal(err)
					}
					times = append(times, time.Since(t0))
				}
				reportTimes(b, times, 256, "samples/s")
			})
		}
	}
}

// BenchmarkPadSingle compares a batch of one evaluated as is and padded to
// two (the default), alternating call by call so that load from other
// processes hits both alike; it reports the minimum and median ms per call.
//
//	go test ./model/ -run '^$' -bench PadSingle -benchtime 300x
func BenchmarkPadSingle(b *testing.B) {
	for _, arch := range benchArchs {
		for _, threads := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/threads=%d", arch.name, threads), func(b *testing.B) {
				padded := benchNet(b, arch.cfg, threads)
				cfg := arch.cfg
				cfg.NoPadSingle = true
				plain := benchNet(b, cfg, threads)
				obs := randomObs(rand.New(rand.NewPCG(1, 2)), wybShape, 1)
				logits := make([]float32, wybShape.Actions)
				values := make([]float32, 1)
				var pt, qt []time.Duration
				for range b.N {
					t0 := time.Now()
					if err := padded.Forward(obs, 1, logits, values); err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					if err := plain.Forward(obs, 1, logits, values); err != nil {
						b.Fatal(err)
					}
					pt = append(pt, t1.Sub(t0))
					qt = append(qt, time.Since(t1))
				}
				b.ReportMetric(slices.Min(pt).Seconds()*1e3, "padded-min-ms")
				b.ReportMetric(slices.Min(qt).Seconds()*1e3, "unpadded-min-ms")
				b.ReportMetric(medianOf(pt).Seconds()*1e3, "padded-med-ms")
				b.ReportMetric(medianOf(qt).Seconds()*1e3, "unpadded-med-ms")
			})
		}
	}
}

func medianOf(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
