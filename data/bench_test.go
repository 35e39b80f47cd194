package data

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// benchGame is an 8×8 board (64 actions, 3×8×8 observation), five in a row:
// about the size of the real games' boards, with games of up to 64 moves.
func benchGame() *mnkGame { return newMNK(8, 5) }

func benchRecords(b *testing.B, n int) ([]*Record, int) {
	g := benchGame()
	rng := rand.New(rand.NewPCG(40, 0))
	recs := make([]*Record, n)
	moves := 0
	for i := range recs {
		recs[i] = playRandom(b, g, rng, 0.75)
		moves += len(recs[i].Moves)
	}
	return recs, moves
}

func BenchmarkEncodeRecord(b *testing.B) {
	recs, moves := benchRecords(b, 64)
	var buf []byte
	size := 0
	for _, r := range recs {
		p, err := AppendRecord(nil, r)
		if err != nil {
			b.Fatal(err)
		}
		size += len(appendFrame(nil, p))
		buf = append(buf, p...)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	if _, err := zw.Write(buf); err != nil {
		b.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		var err error
		buf, err = AppendRecord(buf[:0], recs[i%len(recs)])
		if err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(size)/float64(moves), "B/pos")
	b.ReportMetric(float64(z.Len())/float64(moves), "gzipB/pos")
}

func BenchmarkDecodeRecord(b *testing.B) {
	recs, _ := benchRecords(b, 64)
	payloads := make([][]byte, len(recs))
	for i, r := range recs {
		p, err := AppendRecord(nil, r)
		if err != nil {
			b.Fatal(err)
		}
		payloads[i] = p
	}
	i := 0
	for b.Loop() {
		if _, err := DecodeRecord(payloads[i%len(payloads)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkBufferAdd adds games to a buffer and reports the heap it holds
// per stored position.
func BenchmarkBufferAdd(b *testing.B) {
	for _, every := range []int{1, 4, 16} {
		b.Run(fmt.Sprint("snapshot_every=", every), func(b *testing.B) {
			recs, _ := benchRecords(b, 256)
			buf := testBuffer(b, benchGame(), func(c *BufferConfig) { c.SnapshotEvery = every })
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			before := ms.HeapAlloc
			i := 0
			for b.Loop() {
				if err := buf.Add(recs[i%len(recs)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.StopTimer()
			runtime.GC()
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(int64(ms.HeapAlloc)-int64(before))/float64(buf.Len()), "heapB/pos")
			b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "games/s")
			runtime.KeepAlive(buf)
		})
	}
}

func BenchmarkSample256(b *testing.B) {
	const n = 256
	for _, every := range []int{1, 4, 16} {
		b.Run(fmt.Sprint("snapshot_every=", every), func(b *testing.B) {
			g := benchGame()
			recs, _ := benchRecords(b, 512)
			buf := testBuffer(b, g, func(c *BufferConfig) { c.SnapshotEvery = every })
			for _, r := range recs {
				if err := buf.Add(r); err != nil {
					b.Fatal(err)
				}
			}
			out := newBatch(g, n, true)
			iters := 0
			for b.Loop() {
				if err := buf.Sample(n, out); err != nil {
					b.Fatal(err)
				}
				iters++
			}
			b.ReportMetric(float64(n*iters)/b.Elapsed().Seconds(), "pos/s")
		})
	}
}
