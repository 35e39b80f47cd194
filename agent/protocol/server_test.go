package protocol

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/env"
)

func raceConfig() Config { return Config{Game: race{}, Codec: raceCodec{}} }

func newFirst(int) (agent.Agent, error) { return firstLegal(), nil }

// run serves input and returns the response lines.
func run(t *testing.T, input string, newAgent NewAgentFunc, cfg Config) []string {
	t.Helper()
	var out strings.Builder
	if err := Serve(context.Background(), strings.NewReader(input), &out, newAgent, cfg); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	s := strings.TrimSuffix(out.String(), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// match compares responses with expectations; an expectation ending in "*"
// is a prefix.
func match(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d responses %q, want %d %q", len(got), got, len(want), want)
	}
	for i := range want {
		if p, ok := strings.CutSuffix(want[i], "*"); ok {
			if !strings.HasPrefix(got[i], p) {
				t.Errorf("response %d = %q, want prefix %q", i, got[i], p)
			}
		} else if got[i] != want[i] {
			t.Errorf("response %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestServe(t *testing.T) {
	panicky := func(int) (agent.Agent, error) {
		return scripted{"panicky", func(context.Context, env.State) (int, error) { panic("boom") }}, nil
	}
	illegal := func(int) (agent.Agent, error) {
		return scripted{"cheat", func(context.Context, env.State) (int, error) { return 5, nil }}, nil
	}
	failing := func(int) (agent.Agent, error) {
		return scripted{"failing", func(context.Context, env.State) (int, error) { return 0, errors.New("no idea") }}, nil
	}
	noAgent := func(int) (agent.Agent, error) { return nil, errors.New("weights missing") }
	tests := []struct {
		name     string
		newAgent NewAgentFunc
		input    string
		want     []string
	}{
		{"full game as white", newFirst,
			"init white\naction 0\nupdate 2\naction 2\nupdate 2\naction 4\nquit\n",
			[]string{"ok", "1", "ok", "1", "ok", "1", "bye"}},
		{"full game as black", newFirst,
			"init black\nupdate 1\naction 1\nupdate 1\naction 3\nupdate 2\naction 5\naction 6\n",
			[]string{"ok", "ok", "1", "ok", "1", "ok", "1", "error the game is over*"}},
		{"quit ends session", newFirst, "init white\nquit\naction 0\n", []string{"ok", "bye"}},
		{"eof ends session", newFirst, "init white\naction 0", []string{"ok", "1"}},
		{"crlf and blanks tolerated", newFirst, "  init white \r\naction 0\r\n", []string{"ok", "1"}},
		{"re-init starts over", newFirst, "init white\naction 0\ninit white\naction 0\n", []string{"ok", "1", "ok", "1"}},
		{"before init", newFirst, "action 0\nupdate 1\n", []string{"error no game in progress*", "error no game in progress*"}},
		{"bad colour", newFirst, "init red\n", []string{"error colour \"red\" is not white or black"}},
		{"init without colour", newFirst, "init\n", []string{"error init needs a colour*"}},
		{"init two args", newFirst, "init white black\n", []string{"error init takes one argument*"}},
		{"empty line", newFirst, "\n", []string{"error empty request*"}},
		{"unknown command", newFirst, "hello\n", []string{"error unknown command \"hello\"*"}},
		{"upper case", newFirst, "INIT white\n", []string{"error unknown command \"INIT\"*"}},
		{"turns not a number", newFirst, "init white\naction x\naction -1\naction 1.5\naction\n",
			[]string{"ok", "error turn counter \"x\"*", "error turn counter \"-1\"*", "error turn counter \"1.5\"*", "error action needs*"}},
		{"huge turns", newFirst, "init white\naction 99999999999999999999\n", []string{"ok", "error turn counter*"}},
		{"turn mismatch", newFirst, "init white\naction 3\naction 0\n", []string{"ok", "error turn counter mismatch: referee says 3, my replica is at turn 0*", "1"}},
		{"not my turn", newFirst, "init black\naction 0\n", []string{"ok", "error not my turn: white to move*"}},
		{"update on my turn", newFirst, "init white\nupdate 1\n", []string{"ok", "error it is my turn*"}},
		{"update unparsable", newFirst, "init black\nupdate 3\nupdate\nupdate 1\n",
			[]string{"ok", "error bad action \"3\"*", "error update needs*", "ok"}},
		{"quit with argument", newFirst, "quit now\nquit\n", []string{"error quit takes no argument*", "bye"}},
		{"invalid utf-8", newFirst, "init \xff\n", []string{"error request is not valid UTF-8"}},
		{"agent illegal action", illegal, "init white\naction 0\n", []string{"ok", "error agent cheat chose an illegal action (5)"}},
		{"agent error", failing, "init white\naction 0\n", []string{"ok", "error agent failing failed to choose an action: no idea"}},
		{"agent panic keeps session", panicky, "init white\naction 0\naction 0\ninit black\nquit\n",
			[]string{"ok", "error internal failure handling action*", "error no game in progress*", "ok", "bye"}},
		{"agent construction fails", noAgent, "init white\naction 0\n", []string{"error cannot create agent: weights missing", "error no game in progress*"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			match(t, run(t, tc.input, tc.newAgent, raceConfig()), tc.want)
		})
	}
}

func TestServeLongLine(t *testing.T) {
	cfg := raceConfig()
	cfg.MaxLine = 16
	input := "init white\n" + strings.Repeat("x", 100) + "\naction 0\n" + strings.Repeat("y", 17) + "\n" + strings.Repeat("z", 16) + "\n" + strings.Repeat("w", 40)
	match(t, run(t, input, newFirst, cfg), []string{"ok", "error request line longer than 16 bytes", "1",
		"error request line longer than 16 bytes", "error unknown command*", "error request line longer than 16 bytes"})
}

func TestServeStats(t *testing.T) {
	var got []GameStats
	cfg := raceConfig()
	cfg.OnGameEnd = func(s GameStats) { got = append(got, s) }
	run(t, "init white\naction 0\nupdate 2\ninit black\nupdate 1\naction 1\nupdate 1\naction 3\nupdate 2\naction 5\n", newFirst, cfg)
	if len(got) != 2 {
		t.Fatalf("got %d game reports, want 2: %+v", len(got), got)
	}
	if g := got[0]; g.Terminal || g.Moves != 1 || g.Actions != 2 || g.Colour != "white" || g.Agent != "first" {
		t.Errorf("abandoned game stats = %+v", g)
	}
	if g := got[1]; !g.Terminal || g.Moves != 3 || g.Actions != 6 || g.Returns != [2]float32{-1, 1} || g.Colour != "black" {
		t.Errorf("finished game stats = %+v", g)
	}
}

func TestServeMoveDeadline(t *testing.T) {
	var seen []time.Duration
	newWaiter := func(int) (agent.Agent, error) { return waiter(&seen), nil }
	cfg := raceConfig()
	cfg.Budget = Budget{MoveTime: 20 * time.Millisecond}
	match(t, run(t, "init white\naction 0\nupdate 1\naction 2\n", newWaiter, cfg), []string{"ok", "2", "ok", "2"})
	if len(seen) != 2 {
		t.Fatalf("agent called %d times, want 2", len(seen))
	}
	for _, d := range seen {
		if d <= 0 || d > 20*time.Millisecond {
			t.Errorf("deadline %v from now, want in (0, 20ms]", d)
		}
	}
}

// TestServeTimeWeight: a state's env.TimeWeighter weight scales its
// move's allotment (AllotWeighted).
func TestServeTimeWeight(t *testing.T) {
	var seen []time.Duration
	newWaiter := func(int) (agent.Agent, error) { return waiter(&seen), nil }
	cfg := Config{Game: heavyRace{}, Codec: raceCodec{}, Budget: Budget{GameTime: time.Second, Horizon: 100}}
	// The first move (total 0) is ordinary; the second (total 4) weighs 3.
	match(t, run(t, "init white\naction 0\nupdate 1\naction 2\n", newWaiter, cfg), []string{"ok", "2", "ok", "2"})
	if len(seen) != 2 {
		t.Fatalf("agent called %d times, want 2", len(seen))
	}
	if seen[1] < 2*seen[0] {
		t.Errorf("deadlines %v then %v: the weighted move got less than twice the first's time", seen[0], seen[1])
	}
}

// TestServeUnweighted: with Budget.Unweighted the move weights are not
// asked: TestServeTimeWeight's weighted move gets about the first's time.
func TestServeUnweighted(t *testing.T) {
	var seen []time.Duration
	newWaiter := func(int) (agent.Agent, error) { return waiter(&seen), nil }
	cfg := Config{Game: heavyRace{}, Codec: raceCodec{}, Budget: Budget{GameTime: time.Second, Horizon: 100, Unweighted: true}}
	match(t, run(t, "init white\naction 0\nupdate 1\naction 2\n", newWaiter, cfg), []string{"ok", "2", "ok", "2"})
	if len(seen) != 2 {
		t.Fatalf("agent called %d times, want 2", len(seen))
	}
	// Unweighted, both get the same share (950ms/50, then what is left
	// over 49); weighted, the second would get 3 times that.
	if seen[1] >= seen[0]*3/2 {
		t.Errorf("deadlines %v then %v: the unweighted second move got 1.5 times the first's time or more", seen[0], seen[1])
	}
}

// TestServeTimeWeightToGo: a state's TimeWeightToGo replaces the game's
// length bound: 20 weights to go give the first move a twentieth of the
// budget, where the bound (7 actions: at least MinMovesToGo moves) gives it
// an eighth.
func TestServeTimeWeightToGo(t *testing.T) {
	for _, tc := range []struct {
		toGo     float64
		min, max time.Duration
	}{
		{0, 100 * time.Millisecond, 119 * time.Millisecond}, // 950ms/8
		{20, 35 * time.Millisecond, 48 * time.Millisecond},  // 950ms/20
	} {
		var seen []time.Duration
		newWaiter := func(int) (agent.Agent, error) { return waiter(&seen), nil }
		cfg := Config{Game: heavyRace{toGo: tc.toGo}, Codec: raceCodec{}, Budget: Budget{GameTime: time.Second}}
		match(t, run(t, "init white\naction 0\n", newWaiter, cfg), []string{"ok", "2"})
		if len(seen) != 1 || seen[0] < tc.min || seen[0] > tc.max {
			t.Errorf("weight to go %v: deadlines %v, want one in [%v, %v]", tc.toGo, seen, tc.min, tc.max)
		}
	}
}

func TestServeCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	defer pw.Close()
	out := make(chan error, 1)
	var buf strings.Builder
	go func() { out <- Serve(ctx, pr, &buf, newFirst, raceConfig()) }()
	if _, err := io.WriteString(pw, "init white\n"); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-out:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Serve after cancel = %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
}

func TestServeWriteError(t *testing.T) {
	err := Serve(context.Background(), strings.NewReader("init white\n"), failWriter{}, newFirst, raceConfig())
	if err == nil || !strings.Contains(err.Error(), "writing response") {
		t.Errorf("Serve with failing writer = %v, want a write error", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestServeBadConfig(t *testing.T) {
	if err := Serve(context.Background(), strings.NewReader(""), io.Discard, newFirst, Config{}); err == nil {
		t.Error("Serve with empty config succeeded")
	}
	cfg := raceConfig()
	cfg.Budget.MoveTime = -1
	if err := Serve(context.Background(), strings.NewReader(""), io.Discard, newFirst, cfg); err == nil {
		t.Error("Serve with negative move time succeeded")
	}
}

func TestServeFallback(t *testing.T) {
	var seen []time.Duration
	slow := func(int) (agent.Agent, error) {
		return scripted{"slow", func(ctx context.Context, s env.State) (int, error) {
			if _, err := waiter(&seen).Act(ctx, s); err != nil {
				return 0, err
			}
			return 0, fmt.Errorf("search: %w", ctx.Err())
		}}, nil
	}
	var stats []GameStats
	cfg := raceConfig()
	cfg.Budget = Budget{MoveTime: 5 * time.Millisecond}
	cfg.NewFallback = newFirst
	cfg.OnGameEnd = func(g GameStats) { stats = append(stats, g) }
	match(t, run(t, "init white\naction 0\nupdate 2\naction 2\n", slow, cfg), []string{"ok", "1", "ok", "1"})
	if len(stats) != 1 || stats[0].Fallbacks != 2 || stats[0].Moves != 2 {
		t.Errorf("stats %+v, want 2 fallback moves", stats)
	}
	// Once the game budget is spent (here from the start), the fallback
	// answers without the agent being asked.
	seen, stats = nil, nil
	spent := raceConfig()
	spent.Budget = Budget{GameTime: time.Nanosecond}
	spent.NewFallback = newFirst
	spent.OnGameEnd = cfg.OnGameEnd
	waiting := func(int) (agent.Agent, error) { return waiter(&seen), nil }
	match(t, run(t, "init white\naction 0\nupdate 2\naction 2\n", waiting, spent), []string{"ok", "1", "ok", "1"})
	if len(seen) != 0 || len(stats) != 1 || stats[0].Fallbacks != 2 || stats[0].Moves != 2 {
		t.Errorf("budget spent: agent asked %d times, stats %+v; want the fallback's 2 moves only", len(seen), stats)
	}
	// Without a fallback the timeout is an error.
	cfg.NewFallback = nil
	match(t, run(t, "init white\naction 0\n", slow, cfg), []string{"ok", "error agent slow failed to choose an action: search: context deadline exceeded"})
	// A failing fallback constructor fails init.
	cfg.NewFallback = func(int) (agent.Agent, error) { return nil, errors.New("no heuristic") }
	match(t, run(t, "init white\n", slow, cfg), []string{"error cannot create agent: fallback: no heuristic"})
}
