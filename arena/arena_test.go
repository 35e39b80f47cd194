package arena

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/tictactoe"
)

// firstLegal plays the lowest legal action and records the players it moved
// for.
type firstLegal struct {
	played map[int]bool
}

func (f *firstLegal) Name() string { return "first-legal" }

func (f *firstLegal) Act(_ context.Context, s env.State) (int, error) {
	if f.played != nil {
		f.played[s.CurrentPlayer()] = true
	}
	return s.LegalActions(nil)[0], nil
}

func firstLegalFactory() agent.Factory {
	return func(uint64) (agent.Agent, error) { return &firstLegal{}, nil }
}

// scripted is an agent that misbehaves in a configured way.
type scripted struct {
	action int
	err    error
	modify bool
}

func (s scripted) Name() string { return "scripted" }

func (s scripted) Act(_ context.Context, st env.State) (int, error) {
	if s.modify {
		if err := st.ApplyAction(st.LegalActions(nil)[0]); err != nil {
			return 0, err
		}
		return st.LegalActions(nil)[0], nil
	}
	return s.action, s.err
}

func TestPlayColoursAndCounts(t *testing.T) {
	// Lowest-legal against itself: X takes 0, 2, 4, 6 and wins on the 2-4-6
	// diagonal at move 7, so the first player always wins.
	for _, workers := range []int{1, 3} {
		res, err := Play(context.Background(), Config{Game: tictactoe.New(), Games: 10, Workers: workers, Seed: 1, KeepActions: true},
			firstLegalFactory(), firstLegalFactory())
		if err != nil {
			t.Fatal(err)
		}
		if res.Wins != [2]int{5, 0} || res.Losses != [2]int{0, 5} || res.Draws != [2]int{} {
			t.Errorf("workers %d: wins %v draws %v losses %v, want [5 0] [0 0] [0 5]", workers, res.Wins, res.Draws, res.Losses)
		}
		if res.Games() != 10 || res.Moves != 70 || res.MovesA+res.MovesB != 70 {
			t.Errorf("games %d moves %d (%d+%d)", res.Games(), res.Moves, res.MovesA, res.MovesB)
		}
		e := res.Estimate()
		if e.Score != 0.5 || e.Elo != 0 {
			t.Errorf("score %v Elo %v, want 0.5 and 0", e.Score, e.Elo)
		}
		if a := res.EstimateAs(0); a.Score != 1 || !math.IsInf(a.Elo, 1) {
			t.Errorf("as first: score %v Elo %v, want 1 and +Inf", a.Score, a.Elo)
		}
		for i, r := range res.Records {
			if r.Index != i || r.AColour != i%2 || r.Winner != 0 || r.Length != 7 || len(r.Actions) != 7 {
				t.Errorf("record %d: %+v", i, r)
			}
			if want := 1 - float64(i%2); r.ScoreA != want {
				t.Errorf("record %d: ScoreA %v, want %v", i, r.ScoreA, want)
			}
			if r.MovesA != 4-i%2 {
				t.Errorf("record %d: A made %d moves", i, r.MovesA)
			}
		}
	}
}

// slowOnce plays the lowest legal action and sleeps for pause on its
// second move only.
type slowOnce struct {
	pause time.Duration
	moves int
}

func (s *slowOnce) Name() string { return "slow-once" }

func (s *slowOnce) Act(_ context.Context, st env.State) (int, error) {
	s.moves++
	if s.moves == 2 {
		time.Sleep(s.pause)
	}
	return st.LegalActions(nil)[0], nil
}

func TestPlayLongestMove(t *testing.T) {
	const pause = 100 * time.Millisecond
	slow := func(uint64) (agent.Agent, error) { return &slowOnce{pause: pause}, nil }
	res, err := Play(context.Background(), Config{Game: tictactoe.New(), Games: 2, Seed: 1}, slow, firstLegalFactory())
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res.Records {
		if r.MaxThinkA < pause || r.MaxThinkA > r.ThinkA {
			t.Errorf("game %d: A's longest move %v, want at least %v and at most its total %v", i, r.MaxThinkA, pause, r.ThinkA)
		}
		if r.MaxThinkB > r.ThinkB {
			t.Errorf("game %d: B's longest move %v exceeds its total %v", i, r.MaxThinkB, r.ThinkB)
		}
	}
	if want := max(res.Records[0].MaxThinkA, res.Records[1].MaxThinkA); res.MaxThinkA != want {
		t.Errorf("match's longest A move %v, want the games' longest %v", res.MaxThinkA, want)
	}
	if res.MaxThinkB >= pause {
		t.Errorf("B never paused, yet its longest move took %v", res.MaxThinkB)
	}
}

func TestPlayAgentSeesOwnColour(t *testing.T) {
	var mismatches atomic.Int32
	var built atomic.Int32
	factory := func(colourOf func(uint64) int) agent.Factory {
		return func(seed uint64) (agent.Agent, error) {
			built.Add(1)
			return &checker{want: colourOf(seed), bad: &mismatches}, nil
		}
	}
	const games = 6
	seedsA := map[uint64]int{}
	for i := range games {
		a, _ := GameSeeds(9, i)
		seedsA[a] = i % 2
	}
	colourA := func(seed uint64) int {
		if c, ok := seedsA[seed]; ok {
			return c
		}
		return -1
	}
	res, err := Play(context.Background(), Config{Game: tictactoe.New(), Games: games, Seed: 9}, factory(colourA), agent.RandomFactory())
	if err != nil {
		t.Fatal(err)
	}
	if n := mismatches.Load(); n != 0 {
		t.Errorf("agent A asked to move for the wrong player %d times", n)
	}
	if res.Games() != games || built.Load() != games+1 {
		t.Errorf("%d games, %d agents built", res.Games(), built.Load())
	}
}

// checker fails (counts) if asked to move for a player other than want.
type checker struct {
	want int
	bad  *atomic.Int32
}

func (c *checker) Name() string { return "checker" }

func (c *checker) Act(_ context.Context, s env.State) (int, error) {
	if c.want >= 0 && s.CurrentPlayer() != c.want {
		c.bad.Add(1)
	}
	return s.LegalActions(nil)[0], nil
}

func TestPlayReproducible(t *testing.T) {
	play := func(seed uint64, workers int) Result {
		t.Helper()
		res, err := Play(context.Background(), Config{Game: tictactoe.New(), Games: 12, Workers: workers, Seed: seed, KeepActions: true},
			agent.RandomFactory(), agent.RandomFactory())
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	actions := func(r Result) [][]int {
		var out [][]int
		for _, g := range r.Records {
			out = append(out, g.Actions)
		}
		return out
	}
	a, b, c := play(5, 1), play(5, 2), play(6, 2)
	if !reflect.DeepEqual(actions(a), actions(b)) || a.Wins != b.Wins || a.Draws != b.Draws {
		t.Error("same seed, different worker counts: different games")
	}
	if reflect.DeepEqual(actions(a), actions(c)) {
		t.Error("different seeds played identical games")
	}
}

func TestPlayTruncates(t *testing.T) {
	res, err := Play(context.Background(), Config{Game: tictactoe.New(), Games: 4, MaxMoves: 3}, firstLegalFactory(), firstLegalFactory())
	if err != nil {
		t.Fatal(err)
	}
	if res.Truncated != 4 || res.Draws != [2]int{2, 2} || res.Moves != 12 {
		t.Errorf("truncated %d draws %v moves %d", res.Truncated, res.Draws, res.Moves)
	}
}

func TestPlayErrors(t *testing.T) {
	ttt := tictactoe.New()
	fixed := func(a agent.Agent) agent.Factory {
		return func(uint64) (agent.Agent, error) { return a, nil }
	}
	boom := errors.New("boom")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		cfg  Config
		a    agent.Factory
		want string
	}{
		{"no game", context.Background(), Config{Games: 1}, firstLegalFactory(), "no game"},
		{"no games", context.Background(), Config{Game: ttt}, firstLegalFactory(), "must be positive"},
		{"negative max", context.Background(), Config{Game: ttt, Games: 1, MaxMoves: -1}, firstLegalFactory(), "MaxMoves"},
		{"nil factory", context.Background(), Config{Game: ttt, Games: 1}, nil, "nil agent factory"},
		{"factory error", context.Background(), Config{Game: ttt, Games: 1}, func(uint64) (agent.Agent, error) { return nil, boom }, "boom"},
		// Both games fail: either may be the one reported, each naming the move.
		{"illegal", context.Background(), Config{Game: ttt, Games: 2, Workers: 2}, fixed(scripted{action: 42}), "scripted played invalid(42)"},
		{"agent error", context.Background(), Config{Game: ttt, Games: 3}, fixed(scripted{err: boom}), "boom"},
		{"modifies state", context.Background(), Config{Game: ttt, Games: 1}, fixed(scripted{modify: true}), "modified the state"},
		{"cancelled", cancelled, Config{Game: ttt, Games: 3}, firstLegalFactory(), "canceled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Play(tt.ctx, tt.cfg, tt.a, firstLegalFactory())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestWriteText(t *testing.T) {
	r := Result{A: "ab", B: "random", Game: "tictactoe", Wins: [2]int{10, 8}, Draws: [2]int{0, 2}, Moves: 140, MovesA: 70, MovesB: 70,
		ThinkA: 7 * time.Second, MaxThinkA: 1500 * time.Millisecond, ThinkB: 70 * time.Millisecond, MaxThinkB: 2 * time.Millisecond}
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"ab vs random: tictactoe, 20 games", "first (player 0)", "+inf", "0.950", "mean length 7.0",
		"time per move (mean, max): ab 100ms, 1.5s; random 1ms, 2ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestFormatElo(t *testing.T) {
	tests := []struct {
		d    float64
		want string
	}{{math.Inf(1), "+inf"}, {math.Inf(-1), "-inf"}, {math.NaN(), "n/a"}, {12.4, "+12"}, {-250.6, "-251"}, {0, "+0"}, {-0.4, "+0"}, {math.Copysign(0, -1), "+0"}}
	for _, tt := range tests {
		if got := FormatElo(tt.d); got != tt.want {
			t.Errorf("FormatElo(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}

func TestGameSeedsDistinct(t *testing.T) {
	seen := map[uint64]bool{}
	for i := range 1000 {
		a, b := GameSeeds(3, i)
		if seen[a] || seen[b] || a == b {
			t.Fatalf("seed collision at game %d", i)
		}
		seen[a], seen[b] = true, true
	}
}

func TestPlayInterrupted(t *testing.T) {
	for _, tt := range []struct {
		name        string
		workers     int
		cancelAfter int // games finished when the context is cancelled
	}{
		{"one worker, odd", 1, 5},
		{"one worker, even", 1, 4},
		{"three workers", 3, 7},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			finished := 0
			cfg := Config{Game: tictactoe.New(), Games: 40, Workers: tt.workers, Seed: 3,
				OnGame: func(GameRecord) {
					if finished++; finished == tt.cancelAfter {
						cancel()
					}
				}}
			res, err := Play(ctx, cfg, agent.RandomFactory(), agent.RandomFactory())
			var intr *Interrupted
			if !errors.As(err, &intr) || !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want an *Interrupted wrapping context.Canceled", err)
			}
			if intr.Requested != 40 || intr.Played != res.Games() || res.Games()%2 != 0 || res.Games() > finished {
				t.Fatalf("played %d (result %d games) of %d, %d finished", intr.Played, res.Games(), intr.Requested, finished)
			}
			if tt.workers == 1 && res.Games() != tt.cancelAfter-tt.cancelAfter%2 {
				t.Fatalf("one worker: %d games in the result, want %d", res.Games(), tt.cancelAfter-tt.cancelAfter%2)
			}
			for i, rec := range res.Records {
				if rec.Index != i {
					t.Fatalf("record %d is game %d: the result is not a prefix", i, rec.Index)
				}
			}
			var first int
			for _, c := range [2]int{0, 1} {
				first += res.Wins[c] + res.Draws[c] + res.Losses[c]
				if c == 0 && 2*first != res.Games() {
					t.Fatalf("A played first in %d of %d games", first, res.Games())
				}
			}
		})
	}
}

// unsure plays like firstLegal and counts every second move of its own as
// a fallback and every third as inexact.
type unsure struct {
	firstLegal
	moves int
}

func (u *unsure) Act(ctx context.Context, s env.State) (int, error) {
	u.moves++
	return u.firstLegal.Act(ctx, s)
}
func (u *unsure) Fallbacks() int { return u.moves / 2 }
func (u *unsure) Inexact() int   { return u.moves / 3 }

// A match counts each agent's fallbacks and inexact moves
// (agent.FallbackCounter, agent.InexactCounter) and reports them.
func TestPlayCountsFallbacksAndInexact(t *testing.T) {
	f := func(uint64) (agent.Agent, error) { return &unsure{}, nil }
	res, err := Play(context.Background(), Config{Game: tictactoe.New(), Games: 2, Seed: 1}, f, firstLegalFactory())
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res.Records {
		if r.FallbacksA != r.MovesA/2 || r.InexactA != r.MovesA/3 || r.FallbacksB != 0 || r.InexactB != 0 {
			t.Errorf("game %d: %d moves, %d fallbacks, %d inexact; B %d and %d", i, r.MovesA, r.FallbacksA, r.InexactA, r.FallbacksB, r.InexactB)
		}
	}
	if res.InexactA != res.Records[0].InexactA+res.Records[1].InexactA || res.InexactA == 0 {
		t.Errorf("match: %d inexact", res.InexactA)
	}
	var buf bytes.Buffer
	if err := res.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("inexact (moves known to keep the result, not the exact value, the deadline having passed): first-legal %d of %d, first-legal 0 of %d", res.InexactA, res.MovesA, res.MovesB)
	if !strings.Contains(buf.String(), want) || !strings.Contains(buf.String(), "fallbacks (") {
		t.Errorf("report lacks %q:\n%s", want, buf.String())
	}
}

// AColour fixes A's colour in every game; with it each game draws its own
// opening, and an interrupted match keeps an odd number of games.
func TestPlayFixedColour(t *testing.T) {
	for _, tc := range []struct {
		colours Colours
		player  int
	}{
		{AFirst, 0},
		{ASecond, 1},
	} {
		t.Run(tc.colours.String(), func(t *testing.T) {
			res, err := Play(context.Background(), Config{Game: tictactoe.New(), Games: 6, Workers: 2, Seed: 1, AColour: tc.colours, OpeningMoves: 1, KeepActions: true},
				firstLegalFactory(), firstLegalFactory())
			if err != nil {
				t.Fatal(err)
			}
			p, q := tc.player, 1-tc.player
			if res.Wins[p]+res.Draws[p]+res.Losses[p] != 6 || res.Wins[q]+res.Draws[q]+res.Losses[q] != 0 {
				t.Errorf("wins %v draws %v losses %v: want all 6 games with A as player %d", res.Wins, res.Draws, res.Losses, p)
			}
			openings := map[int]bool{}
			for i, r := range res.Records {
				if r.AColour != tc.player {
					t.Errorf("game %d: A played %d, want %d", i, r.AColour, tc.player)
				}
				openings[r.Actions[0]] = true
			}
			if len(openings) < 3 {
				t.Errorf("6 games with a fixed colour opened with only %d different actions: %v", len(openings), openings)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	finished := 0
	cfg := Config{Game: tictactoe.New(), Games: 20, Workers: 1, Seed: 3, AColour: AFirst,
		OnGame: func(GameRecord) {
			if finished++; finished == 3 {
				cancel()
			}
		}}
	res, err := Play(ctx, cfg, agent.RandomFactory(), agent.RandomFactory())
	var intr *Interrupted
	if !errors.As(err, &intr) || res.Games() != 3 || intr.Played != 3 {
		t.Fatalf("interrupted after 3 games with a fixed colour: %d games, err %v", res.Games(), err)
	}
	if _, err := Play(context.Background(), Config{Game: tictactoe.New(), Games: 2, AColour: Colours(7)}, firstLegalFactory(), firstLegalFactory()); err == nil {
		t.Fatal("an unknown AColour was accepted")
	}
}

func TestParseColours(t *testing.T) {
	for _, c := range []Colours{Alternate, AFirst, ASecond} {
		got, err := ParseColours(c.String())
		if err != nil || got != c {
			t.Errorf("ParseColours(%q) = %v, %v", c.String(), got, err)
		}
	}
	if _, err := ParseColours("white"); err == nil || !strings.Contains(err.Error(), "white") {
		t.Errorf("ParseColours(white): %v, want an error naming it", err)
	}
}
