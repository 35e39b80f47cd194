package arena

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"testing"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/arena/elo"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/tictactoe"
	"github.com/zerokit/zerokit/env/wyb"
)

func wybGame() env.Game { return wyb.New(wyb.Options{TurnLimit: wyb.DefaultTurnLimit}) }

// mustFactory returns a function that unwraps a factory constructor's
// results, failing t on error.
func mustFactory(t testing.TB) func(agent.Factory, error) agent.Factory {
	return func(f agent.Factory, err error) agent.Factory {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
}

func TestBaselineStrengthWYB(t *testing.T) {
	g := wybGame()
	must := mustFactory(t)
	greedy := must(agent.GreedyFactory(g))
	ab2 := must(agent.AlphaBetaFactory(g, agent.AlphaBetaConfig{Depth: 2}))
	tests := []struct {
		name    string
		a, b    agent.Factory
		games   int
		minWins int
	}{
		{"greedy vs random", greedy, agent.RandomFactory(), 20, 18},
		{"alphabeta-d2 vs random", ab2, agent.RandomFactory(), 10, 10},
		{"alphabeta-d2 vs greedy", ab2, greedy, 10, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Play(context.Background(), Config{Game: g, Games: tt.games, Workers: 2, Seed: 42}, tt.a, tt.b)
			if err != nil {
				t.Fatal(err)
			}
			if w := res.Wins[0] + res.Wins[1]; w < tt.minWins {
				t.Errorf("%d wins in %d games, want at least %d", w, tt.games, tt.minWins)
			}
		})
	}
}

func TestGauntletTicTacToe(t *testing.T) {
	g := tictactoe.New()
	must := mustFactory(t)
	entrants := []Entrant{
		{Name: "random", Factory: agent.RandomFactory()},
		{Factory: must(agent.AlphaBetaFactory(g, agent.AlphaBetaConfig{Depth: 9}))},
		{Name: "greedy", Factory: must(agent.GreedyFactory(g))},
	}
	var seen int
	res, err := Gauntlet(context.Background(), GauntletConfig{
		Match:   Config{Game: g, Games: 20, Workers: 2, Seed: 1},
		Fit:     elo.FitConfig{PriorDraws: 1},
		OnMatch: func(Result) { seen++ },
	}, entrants)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Matches) != 3 || seen != 3 {
		t.Fatalf("%d matches, %d callbacks, want 3", len(res.Matches), seen)
	}
	if res.Matches[0].A != "random" || res.Matches[0].B != "alphabeta-d9" {
		t.Errorf("first match %s vs %s", res.Matches[0].A, res.Matches[0].B)
	}
	if res.Matches[0].Records != nil {
		t.Error("records kept without KeepActions")
	}
	r := map[string]elo.Rating{}
	for _, x := range res.Ratings.Ratings {
		r[x.Name] = x
	}
	if res.Ratings.Anchor != "random" || r["random"].Elo != 0 {
		t.Errorf("anchor %q at %v", res.Ratings.Anchor, r["random"].Elo)
	}
	// Perfect play never loses at tic-tac-toe.
	if ab := r["alphabeta-d9"]; ab.Losses != 0 || ab.Elo <= r["greedy"].Elo || ab.Elo <= 100 {
		t.Errorf("alphabeta %+v, greedy %+v", ab, r["greedy"])
	}
	if _, err := json.Marshal(res); err != nil {
		t.Errorf("JSON: %v", err)
	}
	// Errors: duplicate names, too few entrants.
	if _, err := Gauntlet(context.Background(), GauntletConfig{Match: Config{Game: g, Games: 2}}, entrants[:1]); err == nil {
		t.Error("one entrant: no error")
	}
	dup := []Entrant{{Name: "x", Factory: agent.RandomFactory()}, {Name: "x", Factory: agent.RandomFactory()}}
	if _, err := Gauntlet(context.Background(), GauntletConfig{Match: Config{Game: g, Games: 2}}, dup); err == nil {
		t.Error("duplicate names: no error")
	}
}

// TestMeasureWYB plays the baseline matches on Watch Your Back! and prints
// their tables and a joint rating fit. It is a measurement, not a test:
// run it with
//
//	ZEROKIT_MEASURE=1 go test ./arena -run TestMeasureWYB -v -timeout 60m
//
// ZEROKIT_MEASURE_GAMES sets the games per match (default 200).
func TestMeasureWYB(t *testing.T) {
	if os.Getenv("ZEROKIT_MEASURE") == "" {
		t.Skip("set ZEROKIT_MEASURE=1 to run the baseline measurement")
	}
	games := 200
	if v := os.Getenv("ZEROKIT_MEASURE_GAMES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("ZEROKIT_MEASURE_GAMES=%q: want a positive integer", v)
		}
		games = n
	}
	g := wybGame()
	must := mustFactory(t)
	greedy := must(agent.GreedyFactory(g))
	ab2 := must(agent.AlphaBetaFactory(g, agent.AlphaBetaConfig{Depth: 2}))
	ab3 := must(agent.AlphaBetaFactory(g, agent.AlphaBetaConfig{Depth: 3}))
	mc := must(agent.PureMCTSFactory(100, 1))
	matches := []struct {
		a, b    agent.Factory
		opening int
	}{
		{greedy, agent.RandomFactory(), 0},
		{ab2, agent.RandomFactory(), 0},
		{ab2, greedy, 0},
		{ab3, agent.RandomFactory(), 0},
		{ab3, greedy, 0},
		{ab3, ab2, 4},
		{mc, agent.RandomFactory(), 0},
		{mc, greedy, 0},
	}
	var pairings []elo.Pairing
	for k, m := range matches {
		res, err := Play(context.Background(), Config{Game: g, Games: games, Workers: 2, Seed: uint64(100 + k), OpeningMoves: m.opening}, m.a, m.b)
		if err != nil {
			t.Fatal(err)
		}
		if err := res.WriteText(os.Stdout); err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString("\n")
		pairings = append(pairings, res.Pairing())
	}
	tab, err := elo.Fit(pairings, elo.FitConfig{PriorDraws: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := tab.WriteText(os.Stdout); err != nil {
		t.Fatal(err)
	}
}

func TestGauntletInterrupted(t *testing.T) {
	g := tictactoe.New()
	must := mustFactory(t)
	entrants := []Entrant{
		{Name: "random", Factory: agent.RandomFactory()},
		{Name: "greedy", Factory: must(agent.GreedyFactory(g))},
		{Name: "random2", Factory: agent.RandomFactory()},
	}
	for _, tt := range []struct {
		name           string
		cancelAt       int // games finished when the context is cancelled
		matches        int
		partial, games int // games of the cut pairing, of the last match
	}{
		{"in the second pairing", 26, 2, 6, 6},
		{"between pairings", 20, 1, 0, 20},
		{"in the first pairing", 3, 1, 2, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			finished := 0
			res, err := Gauntlet(ctx, GauntletConfig{
				Match: Config{Game: g, Games: 20, Workers: 1, Seed: 1, OnGame: func(GameRecord) {
					if finished++; finished == tt.cancelAt {
						cancel()
					}
				}},
				Fit: elo.FitConfig{PriorDraws: 1},
			}, entrants)
			var intr *GauntletInterrupted
			if !errors.As(err, &intr) || !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want a *GauntletInterrupted wrapping context.Canceled", err)
			}
			if intr.Pairings != 3 || intr.Complete != tt.matches-min(tt.partial, 1) || intr.Partial != tt.partial || len(res.Matches) != tt.matches {
				t.Fatalf("%+v with %d matches, want %d matches and %d games of the cut pairing", intr, len(res.Matches), tt.matches, tt.partial)
			}
			if last := res.Matches[len(res.Matches)-1]; last.Games() != tt.games {
				t.Errorf("last match %s vs %s has %d games, want %d", last.A, last.B, last.Games(), tt.games)
			}
			if intr.FitErr != nil || len(res.Ratings.Ratings) == 0 || res.Ratings.Anchor != "random" {
				t.Errorf("ratings %+v (fit error %v)", res.Ratings, intr.FitErr)
			}
		})
	}
}
