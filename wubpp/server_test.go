package wubpp

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/agent/protocol"
	"github.com/zerokit/zerokit/env/wyb"
)

// startServer serves cfg on a free local port until the test ends.
func startServer(t testing.TB, cfg ServerConfig) (addr string, records func() []Record) {
	t.Helper()
	var mu sync.Mutex
	var recs []Record
	user := cfg.OnGame
	cfg.OnGame = func(r Record) {
		mu.Lock()
		recs = append(recs, r)
		mu.Unlock()
		if user != nil {
			user(r)
		}
	}
	srv, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String(), func() []Record {
		mu.Lock()
		defer mu.Unlock()
		return append([]Record(nil), recs...)
	}
}

// randomSession is a session playing the random agent with seed.
func randomSession(t testing.TB, seed uint64) *protocol.Session {
	t.Helper()
	s, err := protocol.NewSession(func(int) (agent.Agent, error) { return agent.NewRandom(seed), nil },
		protocol.Config{Game: wyb.New(wyb.Options{TurnLimit: 0}), Codec: wyb.Codec{}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// join plays one game as name on addr.
func join(ctx context.Context, t testing.TB, addr, name, key string, seed uint64) (Result, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return Result{}, err
	}
	defer conn.Close()
	return Join(ctx, conn, Player{Name: name, Key: key, Session: randomSession(t, seed)})
}

// playPair plays a game between two random clients with key and checks
// that they and the server's record agree on its end.
func playPair(t *testing.T, addr, key string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	results := make([]Result, 2)
	errs := make([]error, 2)
	for i, name := range []string{"alice", "bob"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = join(ctx, t, addr, name, key, uint64(i))
		}()
	}
	wg.Wait()
	for i := range errs {
		if errs[i] != nil {
			t.Fatalf("client %d: %v", i, errs[i])
		}
	}
	a, b := results[0], results[1]
	if a.Winner == "" || a.Winner != b.Winner || a.Colour == b.Colour || a.White != b.White || a.Actions != b.Actions {
		t.Fatalf("clients disagree: %+v vs %+v", a, b)
	}
}

func TestTwoClientsPlayAGame(t *testing.T) {
	addr, records := startServer(t, ServerConfig{})
	playPair(t, addr, "")
	recs := records()
	if len(recs) != 1 || recs[0].Winner == "" || recs[0].Reason != "" || recs[0].White == recs[0].Black {
		t.Fatalf("records %+v", recs)
	}
}
