package protocol

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/env/wyb"
)

// client is the referee's end of one session.
type client struct {
	t   *testing.T
	w   io.WriteCloser
	r   *bufio.Reader
	err chan error
}

func startSession(t *testing.T, seed uint64) *client {
	t.Helper()
	newAgent := func(player int) (agent.Agent, error) { return agent.NewRandom(seed + uint64(player)), nil }
	return startGameSession(t, Config{Game: wyb.New(wyb.Options{}), Codec: wyb.Codec{}}, newAgent)
}

// startGameSession serves cfg's game to the agents of newAgent.
func startGameSession(t *testing.T, cfg Config, newAgent NewAgentFunc) *client {
	t.Helper()
	reqR, reqW := io.Pipe()
	respR, respW := io.Pipe()
	c := &client{t: t, w: reqW, r: bufio.NewReader(respR), err: make(chan error, 1)}
	go func() {
		err := Serve(context.Background(), reqR, respW, newAgent, cfg)
		respW.Close()
		c.err <- err
	}()
	return c
}

func (c *client) call(req string) string {
	c.t.Helper()
	if _, err := io.WriteString(c.w, req+"\n"); err != nil {
		c.t.Fatalf("sending %q: %v", req, err)
	}
	line, err := c.r.ReadString('\n')
	if err != nil {
		c.t.Fatalf("reading response to %q: %v", req, err)
	}
	return strings.TrimSuffix(line, "\n")
}

func (c *client) close() {
	c.t.Helper()
	if got := c.call("quit"); got != "bye" {
		c.t.Errorf("quit = %q", got)
	}
	c.w.Close()
	if err := <-c.err; err != nil {
		c.t.Errorf("Serve: %v", err)
	}
}

// TestWYBRefereeGames plays random agents against each other through two
// sessions, as the referee would, checking every action against an
// independent replica with the referee's validation.
func TestWYBRefereeGames(t *testing.T) {
	const maxTurns = 400
	for seed := uint64(1); seed <= 4; seed++ {
		white, black := startSession(t, seed*10), startSession(t, seed*10)
		if white.call("init white") != "ok" || black.call("init black") != "ok" {
			t.Fatal("init failed")
		}
		ref := wyb.New(wyb.Options{}).NewState()
		player, opponent := white, black
		n := 0
		for ; !ref.IsTerminal() && n < maxTurns; n++ {
			act := player.call(fmt.Sprintf("action %d", ref.Turn()))
			a, err := ref.RefereeAction([]byte(act))
			if err != nil {
				t.Fatalf("seed %d turn %d: agent answered %q: %v", seed, n, act, err)
			}
			if err := ref.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
			if got := opponent.call("update " + act); got != "ok" {
				t.Fatalf("seed %d: update %s = %q", seed, act, got)
			}
			player, opponent = opponent, player
		}
		if ref.IsTerminal() {
			// Both replicas agree the game is over.
			for _, c := range []*client{white, black} {
				if got := c.call("action 0"); !strings.HasPrefix(got, "error the game is over") {
					t.Errorf("seed %d: action after the end = %q", seed, got)
				}
			}
		}
		t.Logf("seed %d: %d actions, outcome %s", seed, n, ref.RefereeWinner())
		white.close()
		black.close()
	}
}

func TestWYBCodecErrors(t *testing.T) {
	cfg := Config{Game: wyb.New(wyb.Options{}), Codec: wyb.Codec{}}
	newRandom := func(int) (agent.Agent, error) { return agent.NewRandom(1), nil }
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"pass in placing", "init black\nupdate null\n", []string{"ok", "error bad action \"null\": cannot forfeit in the placing phase*"}},
		{"outside zone", "init black\nupdate [3, 7]\n", []string{"ok", "error bad action*"}},
		{"move in placing", "init black\nupdate [[3, 4], [3, 5]]\n", []string{"ok", "error bad action*"}},
		{"malformed json", "init black\nupdate [3, \n", []string{"ok", "error bad action*"}},
		{"float coordinate", "init black\nupdate [3.0, 4]\n", []string{"ok", "error bad action*"}},
		{"good place", "init black\nupdate [3, 4]\naction 1\n", []string{"ok", "ok", "[*"}},
		{"occupied", "init black\nupdate [3, 4]\nupdate [3, 4]\n", []string{"ok", "ok", "error it is my turn*"}},
		{"colour", "init White\n", []string{"error colour \"White\" is not white or black"}},
		{"turn counter", "init white\naction 1\n", []string{"ok", "error turn counter mismatch*"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			match(t, run(t, tc.input, newRandom, cfg), tc.want)
		})
	}
}

// TestWYBMovingPhaseTurns checks that the turn counter restarts at 0 in the
// moving phase, as the referee's does.
func TestWYBMovingPhaseTurns(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("init black\n")
	s := wyb.New(wyb.Options{}).NewState()
	// White places on row 0 and 1, Black answers through the agent; build
	// the script from a replica driven by a fixed pair of random agents.
	w, b := agent.NewRandom(7), agent.NewRandom(8)
	var want []string
	want = append(want, "ok")
	for s.MoveNumber() < wyb.PlacingTurns+2 && !s.IsTerminal() {
		if s.CurrentPlayer() == wyb.WhitePlayer {
			a, _ := w.Act(context.Background(), s)
			fmt.Fprintf(&sb, "update %s\n", wyb.RefereeAction(a))
			want = append(want, "ok")
			_ = s.ApplyAction(a)
		} else {
			a, _ := b.Act(context.Background(), s)
			fmt.Fprintf(&sb, "action %d\n", s.Turn())
			want = append(want, wyb.RefereeAction(a))
			_ = s.ApplyAction(a)
		}
	}
	if s.Phase() != wyb.Moving || s.Turn() != 2 {
		t.Fatalf("script ends in phase %v turn %d", s.Phase(), s.Turn())
	}
	// The server's agent is random with the same seed as b, so it plays
	// the same actions.
	newB := func(int) (agent.Agent, error) { return agent.NewRandom(8), nil }
	match(t, run(t, sb.String(), newB, Config{Game: wyb.New(wyb.Options{}), Codec: wyb.Codec{}}), want)
}

// FuzzServeWYB feeds arbitrary sessions to a Watch Your Back! server: every
// line gets one response and nothing panics inside the codec or engine.
func FuzzServeWYB(f *testing.F) {
	f.Add("init black\nupdate [3, 4]\naction 1\nupdate [[3, 4], [3, 5]]\n")
	f.Add("init white\naction 0\nupdate null\nupdate [1e400, 2]\nupdate [-99999999999999999999, 3]\n")
	f.Add("init black\nupdate [[1, 2], [true, false]]\nupdate {\"a\": 1}\n")
	cfg := Config{Game: wyb.New(wyb.Options{}), Codec: wyb.Codec{}, MaxLine: 256}
	newRandom := func(int) (agent.Agent, error) { return agent.NewRandom(1), nil }
	f.Fuzz(func(t *testing.T, input string) {
		var out strings.Builder
		if err := Serve(t.Context(), strings.NewReader(input), &out, newRandom, cfg); err != nil {
			t.Fatal(err)
		}
		for _, r := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(r, "error internal failure") {
				t.Fatalf("input %q: %s", input, r)
			}
		}
	})
}

// BenchmarkServeWYBGame measures the server's own cost per request: one
// scripted game of random agents, the server playing Black, without pipes
// or processes.
func BenchmarkServeWYBGame(b *testing.B) {
	game := wyb.New(wyb.Options{})
	s := game.NewState()
	w, bl := agent.NewRandom(1), agent.NewRandom(2)
	var sb strings.Builder
	sb.WriteString("init black\n")
	requests := 1
	for !s.IsTerminal() && s.MoveNumber() < 400 {
		if s.CurrentPlayer() == wyb.WhitePlayer {
			a, _ := w.Act(context.Background(), s)
			fmt.Fprintf(&sb, "update %s\n", wyb.RefereeAction(a))
			_ = s.ApplyAction(a)
		} else {
			a, _ := bl.Act(context.Background(), s)
			fmt.Fprintf(&sb, "action %d\n", s.Turn())
			_ = s.ApplyAction(a)
		}
		requests++
	}
	script := sb.String()
	cfg := Config{Game: game, Codec: wyb.Codec{}}
	newAgent := func(int) (agent.Agent, error) { return agent.NewRandom(2), nil }
	for b.Loop() {
		if err := Serve(context.Background(), strings.NewReader(script), io.Discard, newAgent, cfg); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*requests), "ns/request")
}

// TestLockedRequest: "locked" answers no during a game that can still
// change, yes in a locked position (a full 4x4 board after the second
// shrink), and an error without a game.
func TestLockedRequest(t *testing.T) {
	c := startSession(t, 1)
	if got := c.call("locked"); !strings.HasPrefix(got, "error no game") {
		t.Fatalf("locked before init: %q", got)
	}
	if got := c.call("init white"); got != "ok" {
		t.Fatalf("init: %q", got)
	}
	if got := c.call("locked"); got != "no" {
		t.Fatalf("locked at the start: %q", got)
	}

	gone := strings.Repeat(" ", 15)
	full := strings.Join([]string{gone, gone, "    X O O X", "    O O O @", "    O O @ @", "    X @ @ X", gone, gone}, "\n")
	st, err := wyb.NewPosition(wyb.Options{}, full, wyb.Moving, wyb.SecondShrink+10)
	if err != nil {
		t.Fatal(err)
	}
	s := &session{state: st}
	if got, _, err := s.locked(); err != nil || got != "yes" {
		t.Fatalf("locked on a full 4x4 board: %q, %v", got, err)
	}
}
