package wubpp

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkServerGames measures the games per second the server sustains
// when every game is played by two random clients (Join with the random
// agent, in the same process, over loopback TCP): 4 games per core at
// once, each pair with its own key.
func BenchmarkServerGames(b *testing.B) {
	addr, records := startServer(b, ServerConfig{})
	var pairs atomic.Uint64
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		key := fmt.Sprintf("p%d", pairs.Add(1))
		seed := uint64(0)
		for pb.Next() {
			seed += 2
			var wg sync.WaitGroup
			var errs [2]error
			for i := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = join(context.Background(), b, addr, fmt.Sprint("c", i), key, seed+uint64(i))
				}()
			}
			wg.Wait()
			if errs[0] != nil || errs[1] != nil {
				b.Errorf("game failed: %v, %v", errs[0], errs[1])
				return
			}
		}
	})
	b.StopTimer()
	recs := records()
	actions := 0
	for _, r := range recs {
		actions += len(r.Actions)
	}
	b.ReportMetric(float64(len(recs))/b.Elapsed().Seconds(), "games/s")
	if len(recs) > 0 {
		b.ReportMetric(float64(actions)/float64(len(recs)), "actions/game")
	}
}

// openGames is the number of games BenchmarkServerOpenGame holds open at
// once.
const openGames = 200

// BenchmarkServerOpenGame measures the Go memory (heap and goroutine
// stacks in use, after a collection) that one open game costs the
// server: openGames games are started by raw clients, which answer GAME
// and INIT and then leave white thinking on TURN 0. The figure includes
// the clients' two connections (small: no buffers) but not the kernel's
// socket buffers.
func BenchmarkServerOpenGame(b *testing.B) {
	addr, _ := startServer(b, ServerConfig{})
	var perGame float64
	for i := 0; i < b.N; i++ {
		before := memInUse()
		conns := make([]net.Conn, 0, 2*openGames)
		for g := range openGames {
			white, black, err := openGame(addr, fmt.Sprintf("i%dg%d", i, g))
			if err != nil {
				b.Fatal(err)
			}
			conns = append(conns, white, black)
		}
		perGame = float64(memInUse()-before) / openGames
		b.StopTimer()
		for _, c := range conns {
			c.Close()
		}
		b.StartTimer()
	}
	b.ReportMetric(perGame, "bytes/game")
}

// memInUse is the heap and stack memory in use after a collection.
func memInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse + m.StackInuse)
}

// openGame starts a game with key and returns once white got TURN 0.
func openGame(addr, key string) (white, black net.Conn, err error) {
	if white, err = net.Dial("tcp", addr); err != nil {
		return nil, nil, err
	}
	if _, err = fmt.Fprintf(white, "PLAY w %s\n", key); err == nil {
		err = readUntil(white, "OKAY")
	}
	if err == nil {
		black, err = net.Dial("tcp", addr)
	}
	if err == nil {
		_, err = fmt.Fprintf(black, "PLAY b %s\n", key)
	}
	for _, step := range []string{"GAME", "INIT"} {
		for _, c := range []net.Conn{white, black} {
			if err == nil {
				err = readUntil(c, step)
			}
			if err == nil {
				_, err = fmt.Fprint(c, "OKAY\n")
			}
		}
	}
	if err == nil {
		err = readUntil(white, "TURN 0")
	}
	return white, black, err
}

// readUntil reads c until what arrives.
func readUntil(c net.Conn, what string) error {
	var buf [64]byte
	var seen []byte
	for !bytes.Contains(seen, []byte(what)) {
		n, err := c.Read(buf[:])
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", what, err)
		}
		seen = append(seen, buf[:n]...)
	}
	return nil
}
