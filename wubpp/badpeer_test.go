package wubpp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// rawPeer is a hand-driven client.
type rawPeer struct {
	t    *testing.T
	conn net.Conn
	br   *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawPeer {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawPeer{t: t, conn: c, br: bufio.NewReader(c)}
}

func (p *rawPeer) send(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.conn, s); err != nil {
		p.t.Fatalf("sending %q: %v", s, err)
	}
}

// recv reads one line. The deadline only keeps a broken test from
// hanging; no test depends on it.
func (p *rawPeer) recv() (string, error) {
	p.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	s, err := p.br.ReadString('\n')
	return strings.TrimSuffix(s, "\n"), err
}

// expect reads lines until one starts with prefix.
func (p *rawPeer) expect(prefix string) string {
	p.t.Helper()
	for {
		s, err := p.recv()
		if err != nil {
			p.t.Fatalf("waiting for %q: %v", prefix, err)
		}
		if strings.HasPrefix(s, prefix) {
			return s
		}
		if strings.HasPrefix(s, "ERRO") || strings.HasPrefix(s, "OVER") {
			p.t.Fatalf("got %q, waiting for %q", s, prefix)
		}
	}
}

// expectEnd reads the game's last message, which must start with prefix,
// then the end of the connection.
func (p *rawPeer) expectEnd(prefix string) {
	p.t.Helper()
	s := p.expect(prefix)
	if rest, err := p.recv(); !errors.Is(err, io.EOF) {
		p.t.Errorf("after %q: read %q, %v; want the end of the connection", s, rest, err)
	}
}

// expectClosed reads the end of the connection, which must come before
// any message: before a game the server sends nothing but OKAY and GAME.
func (p *rawPeer) expectClosed() {
	p.t.Helper()
	if s, err := p.recv(); s != "" || !errors.Is(err, io.EOF) {
		p.t.Errorf("read %q, %v; want the end of the connection, without a message", s, err)
	}
}

// logLines collects a server's log.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

// has reports whether a line starts with prefix.
func (l *logLines) has(prefix string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.lines {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// Step kinds of a bad peer's script: send text as is, or read up to a
// line starting with text.
const (
	say  = "say"
	wait = "wait"
	hang = "hang up"
)

type step struct{ kind, text string }

// inGame is a script that answers GAME and INIT, then goes on with steps.
func inGame(steps ...step) []step {
	return append([]step{{wait, "GAME"}, {say, "OKAY\n"}, {wait, "INIT white"}, {say, "OKAY\n"}}, steps...)
}

// testConfig has short limits, so that the timeout cases end quickly,
// yet long enough for the well-behaved client on a loaded machine.
var testConfig = ServerConfig{GameTime: 5 * time.Second, ReplyTimeout: 3 * time.Second, WaitTimeout: 3 * time.Second, MaxLine: 100}

// TestBadPeers plays a scripted client against the server, alone
// (pre-game cases: opponent false) or as white against a well-behaved
// random client, and checks the ERRO both get, or, before a game, that
// the server closes the connection without a message (the course's
// client cannot read ERRO there) and logs why. All cases share one
// server, in parallel, each with its own key: one client's misbehaviour
// must not disturb the other games. At the end no goroutine is left.
func TestBadPeers(t *testing.T) {
	cases := []struct {
		name     string
		opponent bool // a random client joins as black after PLAY
		script   []step
		// the ERRO the bad peer (and its opponent) gets; before a game,
		// the reason the server logs
		want string
	}{
		{name: "garbage instead of PLAY", script: []step{{say, "HELO world\n"}}, want: "unknown message head"},
		{name: "OKAY instead of PLAY", script: []step{{say, "OKAY\n"}}, want: "expected PLAY, got OKAY"},
		{name: "PLAY without a name", script: []step{{say, "PLAY\n"}}, want: "PLAY needs 1 part"},
		{name: "half a line, then nothing", script: []step{{say, "PLA"}}, want: "no PLAY within 3s"},
		{name: "a line too long", script: []step{{say, strings.Repeat("x", 200)}}, want: "line too long"},
		{name: "binary junk", script: []step{{say, "\x00\xff\xfe\n"}}, want: "message is not valid UTF-8"},
		{name: "message while waiting for an opponent", script: []step{{say, "PLAY w KEY\n"}, {wait, "OKAY"}, {say, "OKAY\n"}},
			want: "w: unexpected message while waiting"},
		{name: "no opponent comes", script: []step{{say, "PLAY lonely alone\n"}, {wait, "OKAY"}},
			want: "lonely: no opponent within 3s"},
		{name: "disconnect while waiting", script: []step{{say, "PLAY gone KEY2\n"}, {wait, "OKAY"}, {hang, ""}}},
		{name: "ACTN instead of OKAY to GAME", opponent: true, script: []step{{wait, "GAME"}, {say, "ACTN place 1 1\n"}},
			want: "ERRO white expected OKAY, got ACTN"},
		{name: "no OKAY to INIT", opponent: true, script: []step{{wait, "GAME"}, {say, "OKAY\n"}, {wait, "INIT white"}},
			want: "ERRO white no OKAY within 3s"},
		{name: "illegal place", opponent: true, script: inGame(step{wait, "TURN 0"}, step{say, "ACTN place 3 7\n"}),
			want: "ERRO white invalid action: place (3, 7) is outside White's starting zone"},
		{name: "place off the board", opponent: true, script: inGame(step{wait, "TURN 0"}, step{say, "ACTN place 9 -1\n"}),
			want: "ERRO white invalid action: place"},
		{name: "move in the placing phase", opponent: true, script: inGame(step{wait, "TURN 0"}, step{say, "ACTN move 1 1 1 2\n"}),
			want: "ERRO white invalid action: invalid place action representation"},
		{name: "pass in the placing phase", opponent: true, script: inGame(step{wait, "TURN 0"}, step{say, "ACTN pass\n"}),
			want: "ERRO white invalid action: cannot forfeit in the placing phase"},
		{name: "malformed action", opponent: true, script: inGame(step{wait, "TURN 0"}, step{say, "ACTN fly 1 2\n"}),
			want: "ERRO white invalid action: ACTN: unknown action type"},
		{name: "OKAY instead of ACTN", opponent: true, script: inGame(step{wait, "TURN 0"}, step{say, "OKAY\n"}),
			want: "ERRO white expected ACTN, got OKAY"},
		{name: "garbage instead of ACTN", opponent: true, script: inGame(step{wait, "TURN 0"}, step{say, "lorem ipsum\n"}),
			want: "ERRO white invalid action: unknown message head"},
		{name: "action out of turn", opponent: true, script: inGame(step{wait, "TURN 0"}, step{say, "ACTN place 3 3\n"}, step{say, "ACTN place 4 4\n"}),
			want: "ERRO white unexpected message \"ACTN place 4 4\""},
		{name: "half an action, then nothing", opponent: true, script: inGame(step{wait, "TURN 0"}, step{say, "ACTN pla"}),
			want: "ERRO white ran out of time (5s per game)"},
		{name: "no answer to TURN", opponent: true, script: inGame(step{wait, "TURN 0"}),
			want: "ERRO white ran out of time"},
		{name: "line too long in the game", opponent: true, script: inGame(step{wait, "TURN 0"}, step{say, strings.Repeat("ACTN ", 30) + "\n"}),
			want: "ERRO white sent a line too long"},
		{name: "disconnect mid-game", opponent: true, script: inGame(step{wait, "TURN 0"}, step{say, "ACTN place 3 3\n"}, step{wait, "UPD8"}, step{hang, ""}),
			want: "ERRO white disconnected"},
		{name: "no OKAY to UPD8, then a hang-up", opponent: true, script: inGame(step{wait, "TURN 0"}, step{say, "ACTN place 3 3\n"}, step{wait, "UPD8"}, step{say, "OKA"}, step{hang, ""}),
			want: "ERRO white disconnected"},
	}
	cfg := testConfig
	var log logLines
	cfg.Logf = log.logf
	addr, records := startServer(t, cfg)
	base, fds := runtime.NumGoroutine(), openFiles()
	t.Run("cases", func(t *testing.T) {
		for i, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				key := fmt.Sprintf("k%d", i)
				p := dialRaw(t, addr)
				var wg sync.WaitGroup
				var res Result
				var err error
				if c.opponent {
					p.send("PLAY bad " + key + "\n")
					p.expect("OKAY")
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					wg.Add(1)
					go func() {
						defer wg.Done()
						res, err = join(ctx, t, addr, "good", key, 1)
					}()
				}
				hungUp := false
				for _, s := range c.script {
					switch s.kind {
					case say:
						p.send(s.text)
					case wait:
						p.expect(s.text)
					case hang:
						p.conn.Close()
						hungUp = true
					}
				}
				switch {
				case !c.opponent && !hungUp:
					p.expectClosed()
					if prefix := p.conn.LocalAddr().String() + ": dropped: " + c.want; !log.has(prefix) {
						t.Errorf("no log line %q", prefix)
					}
				case !hungUp:
					p.expectEnd(c.want)
				}
				wg.Wait()
				if !c.opponent {
					return
				}
				if err != nil {
					t.Fatalf("the good client failed: %v", err)
				}
				if got := "ERRO " + res.Loser + " " + res.Reason; !strings.HasPrefix(got, c.want) {
					t.Errorf("the good client got %q, want %q", got, c.want)
				}
				if res.Outcome() != "won" {
					t.Errorf("the good client %s", res.Outcome())
				}
			})
		}
	})
	// The server still plays normal games.
	playPair(t, addr, "after")
	recs := records()
	games := 1
	for _, c := range cases {
		if c.opponent {
			games++
		}
	}
	if len(recs) != games {
		t.Errorf("%d games recorded, want %d", len(recs), games)
	}
	for _, r := range recs {
		if r.Key != "after" && (r.Winner != Black || r.Reason == "") {
			t.Errorf("game %d: winner %q, reason %q; want black, a reason", r.ID, r.Winner, r.Reason)
		}
	}
	// Every dropped client's goroutines and sockets are gone, while the
	// server runs on.
	waitFor(t, "goroutines", base, func() int { return runtime.NumGoroutine() })
	if fds > 0 {
		waitFor(t, "open files", fds, openFiles)
	}
}

// openFiles counts the process's open file descriptors (0 where
// /proc/self/fd is missing).
func openFiles() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	return len(ents)
}

// waitFor waits until count() falls to at most want; connections being
// closed in the background (after OVER, ERRO) may take a moment. It
// fails after a generous while.
func waitFor(t *testing.T, what string, want int, count func() int) {
	t.Helper()
	var n int
	for range 300 {
		if n = count(); n <= want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("%s: %d, want at most %d (a leak)", what, n, want)
}

// TestMaxClients turns away clients beyond the limit, and takes them
// again once connections closed, in a game or not.
func TestMaxClients(t *testing.T) {
	cfg := testConfig
	cfg.MaxClients = 2
	addr, _ := startServer(t, cfg)
	a, b := dialRaw(t, addr), dialRaw(t, addr)
	a.send("PLAY a\n")
	a.expect("OKAY")
	b.send("PLAY b\n")
	b.expect("OKAY")
	full := dialRaw(t, addr)
	full.expectClosed()
	// a and b are in a game; when it ends their places free up.
	a.expect("GAME")
	a.conn.Close()
	b.expectEnd("ERRO white disconnected")
	b.conn.Close()
	for try := 0; ; try++ {
		c := dialRaw(t, addr)
		c.send("PLAY c\n")
		s, err := c.recv()
		if s == "OKAY" {
			break
		}
		if try == 500 {
			t.Fatalf("still turned away: %q, %v", s, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
