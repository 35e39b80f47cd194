package gonet

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/zerokit/zerokit/model/arch"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// gemmGonum is gemm on gonum's float32 BLAS, for comparison.
func gemmGonum(m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, bias []float32, flags int) {
	gemmStart(m, n, c, ldc, bias, flags)
	blas32.Gemm(blas.NoTrans, blas.NoTrans, 1,
		blas32.General{Rows: m, Cols: k, Stride: lda, Data: a},
		blas32.General{Rows: k, Cols: n, Stride: ldb, Data: b}, 1,
		blas32.General{Rows: m, Cols: n, Stride: ldc, Data: c})
	gemmFinish(m, n, c, ldc, flags)
}

// BenchmarkForward measures Forward on Watch Your Back! shapes (15x8x8
// observations, 577 actions): positions/s per batch size. "wyb" is the
// default training network (configs/wyb.yaml: 3 blocks of 32 channels,
// dense head), run with the kernel in use ("auto": assembly if the CPU has
// AVX2 and FMA), the plain Go one and gonum's blas32; "default" (6x64) and
// "small" (4x48) are torch.DefaultConfig and torch.SmallConfig, as in
// model's BenchmarkForward.
//
//	go test ./model/gonet -run '^$' -bench Forward -cpu 1 -benchtime 1s
func BenchmarkForward(b *testing.B) {
	small := arch.SmallConfig()
	archs := []struct {
		name    string
		cfg     arch.Config
		kernels []string
	}{
		{"wyb", wybConfig, []string{"auto", "go", "gonum"}},
		{"default", arch.DefaultConfig(), []string{"auto"}},
		{"small", small, []string{"auto"}},
	}
	kernels := map[string]gemmFunc{"auto": gemmKernel, "go": gemmGo, "gonum": gemmGonum}
	for _, a := range archs {
		n, err := FromCheckpoint(randomCheckpoint(a.cfg, wybShape, 1))
		if err != nil {
			b.Fatal(err)
		}
		for _, kern := range a.kernels {
			for _, batch := range []int{1, 8, 32, 64} {
				b.Run(fmt.Sprintf("%s/kernel=%s/batch=%d", a.name, kern, batch), func(b *testing.B) {
					saved := gemmKernel
					gemmKernel = kernels[kern]
					defer func() { gemmKernel = saved }()
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
					reportTimes(b, times, batch)
				})
			}
		}
	}
}

// reportTimes reports positions/s over the whole run and, because the
// machine may be shared, the minimum and median time per call in µs (the
// minimum is the cost without interference from other processes).
func reportTimes(b *testing.B, times []time.Duration, batch int) {
	b.ReportMetric(float64(batch*len(times))/b.Elapsed().Seconds(), "pos/s")
	sorted := slices.Clone(times)
	slices.Sort(sorted)
	b.ReportMetric(float64(sorted[0].Nanoseconds())/1e3, "min-µs")
	b.ReportMetric(float64(sorted[len(sorted)/2].Nanoseconds())/1e3, "med-µs")
}
