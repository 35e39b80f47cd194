package cli

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zerokit/zerokit/env/wyb"
)

// lockedBuffer is a strings.Builder safe for concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	sb strings.Builder
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sb.String()
}

func TestServeStdio(t *testing.T) {
	var out, errb strings.Builder
	in := "init white\naction 0\nupdate [3, 7]\naction 2\nbogus\nquit\n"
	err := runServe(context.Background(), []string{"-agent", "greedy", "-move-time", "1s", "-game-time", "10s", "-v"}, strings.NewReader(in), &out, &errb)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 6 || lines[0] != "ok" || lines[2] != "ok" || !strings.HasPrefix(lines[4], "error unknown command") || lines[5] != "bye" {
		t.Fatalf("responses %q", lines)
	}
	s := wyb.New(wyb.Options{}).NewState()
	for _, act := range []string{lines[1], "[3, 7]", lines[3]} {
		a, err := s.RefereeAction([]byte(act))
		if err != nil {
			t.Fatalf("action %s: %v", act, err)
		}
		_ = s.ApplyAction(a)
	}
	if !regexp.MustCompile(`stdin: greedy as white unfinished after 3 actions: 2 own moves \(0 by the fallback, 0 searches stopped by the tree.s budget\), .* peak RSS \d+ kB, peak virtual \d+ kB`).MatchString(errb.String()) {
		t.Errorf("-v report %q", errb.String())
	}
}

func TestServeBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-agent", "nope"}, {"-game", "chess"}, {"-move-time", "-1s"}, {"-game-time", "-2s"}, {"-horizon", "-1"}, {"x"},
		{"-listen", "256.0.0.1:99999"}, {"-fallback", "nope"},
	} {
		var out, errb strings.Builder
		if err := runServe(context.Background(), args, strings.NewReader(""), &out, &errb); err == nil {
			t.Errorf("serve %q succeeded", args)
		}
	}
}

// TestServeTCP plays a game between two connections to one server (each
// session's agent plays one side), then cancels the server, which must
// close the connections still open and return nil.
func TestServeTCP(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var errb lockedBuffer
	done := make(chan error, 1)
	go func() {
		done <- runServe(ctx, []string{"-listen", "127.0.0.1:0", "-agent", "random:seed=4", "-v"}, strings.NewReader(""), &lockedBuffer{}, &errb)
	}()
	addr := waitAddress(t, &errb)
	dial := func() (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		return c, bufio.NewReader(c)
	}
	call := func(c net.Conn, r *bufio.Reader, req string) string {
		t.Helper()
		if _, err := fmt.Fprintln(c, req); err != nil {
			t.Fatal(err)
		}
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: %v", req, err)
		}
		return strings.TrimSuffix(line, "\n")
	}
	wc, wr := dial()
	bc, br := dial()
	defer wc.Close()
	defer bc.Close()
	if call(wc, wr, "init white") != "ok" || call(bc, br, "init black") != "ok" {
		t.Fatal("init failed")
	}
	ref := wyb.New(wyb.Options{}).NewState()
	conns := [2]net.Conn{wc, bc}
	readers := [2]*bufio.Reader{wr, br}
	for n := 0; !ref.IsTerminal() && n < 1000; n++ {
		p := ref.CurrentPlayer()
		act := call(conns[p], readers[p], fmt.Sprintf("action %d", ref.Turn()))
		a, err := ref.RefereeAction([]byte(act))
		if err != nil {
			t.Fatalf("turn %d: %q: %v", n, act, err)
		}
		_ = ref.ApplyAction(a)
		if got := call(conns[1-p], readers[1-p], "update "+act); got != "ok" {
			t.Fatalf("update %s: %q", act, got)
		}
	}
	if call(wc, wr, "quit") != "bye" {
		t.Error("quit")
	}
	// The black session is still open when the server shuts down.
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve after cancel: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not shut down")
	}
	if _, err := br.ReadString('\n'); err == nil {
		t.Error("open connection still readable after shutdown")
	}
	if ref.IsTerminal() && strings.Count(errb.String(), "random as") != 2 {
		t.Errorf("want two game reports, got %q", errb.String())
	}
}
