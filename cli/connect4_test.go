package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
)

// A game added in a package of its own (Connect Four, which
// env/games/all imports) plays through zerokit's commands by name, with
// nothing in zerokit naming it: the help lists it, eval
// plays the baseline agents on it (the alpha-beta player with the game's
// evaluation beats random moves), and a person plays it with play.
func TestAddedGame(t *testing.T) {
	if _, help, _ := runCmd(t, runEval, "-h"); !strings.Contains(help, "Connect Four: connect4 (7 columns x 6 rows)") {
		t.Errorf("eval's help does not list Connect Four:\n%s", help)
	}

	for _, tc := range []struct {
		game, a, b string
		minScore   float64
	}{
		{"connect4", "alphabeta:depth=4", "random", 0.8},
		{"connect4-6x5", "mcts:sims=200", "random", 0.8},
	} {
		jsonPath := filepath.Join(t.TempDir(), "eval.json")
		_, stderr, err := runCmd(t, runEval, "-game", tc.game, "-a", tc.a, "-b", tc.b, "-games", "10", "-parallel", "2", "-q", "-json", jsonPath)
		if err != nil {
			t.Fatalf("eval -game %s: %v\n%s", tc.game, err, stderr)
		}
		b, err := os.ReadFile(jsonPath)
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Result struct {
				Game    string `json:"game"`
				Records []struct {
					ScoreA float64 `json:"score_a"`
					Length int     `json:"length"`
				} `json:"records"`
			} `json:"result"`
		}
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatal(err)
		}
		score := 0.0
		for _, r := range rep.Result.Records {
			score += r.ScoreA / float64(len(rep.Result.Records))
			if r.Length < 7 {
				t.Errorf("%s: a game of %d moves", tc.game, r.Length)
			}
		}
		t.Logf("%s vs %s on %s: score %.2f over %d games", tc.a, tc.b, tc.game, score, len(rep.Result.Records))
		if rep.Result.Game != tc.game || len(rep.Result.Records) != 10 || score < tc.minScore {
			t.Errorf("%s vs %s on %s: game %q, %d games, score %.2f; want %s, 10 games, >= %.2f",
				tc.a, tc.b, tc.game, rep.Result.Game, len(rep.Result.Records), score, tc.game, tc.minScore)
		}
	}

	// A person (random moves, typed as columns) against the random agent:
	// the replica of the game and play's output end alike.
	game, err := games.ByName("connect4")
	if err != nil {
		t.Fatal(err)
	}
	ui := game.(env.TextUI)
	bot, person := playAgents(t, game)
	s := game.NewInitialState()
	in := "9\n" + scriptGame(t, bot, person, s, 0, func(_ int, s env.State, a int, mine bool) string {
		if !mine {
			return ""
		}
		return ui.FormatMove(s, a) + "\n"
	})
	var out, errb strings.Builder
	args := []string{"-game", "connect4", "-agent", "random:seed=5", "-move-time", "1s"}
	if err := runPlay(context.Background(), args, strings.NewReader(in), &out, &errb); err != nil {
		t.Fatalf("play: %v\n%s", err, errb.String())
	}
	o := out.String()
	for _, want := range []string{"Connect Four on 7 columns x 6 rows.", "want a column 0..6", "random played", ui.Board(s), "Game over: " + result(s, 0) + "\n"} {
		if !strings.Contains(o, want) {
			t.Errorf("play's output lacks %q:\n%s", want, o)
		}
	}
}

// serve plays Connect Four in its line protocol: a move is a column's
// number, the colours x and o, the turn counter the discs played.
func TestServeConnect4(t *testing.T) {
	in := "init x\nupdate 3\nerror-line\ninit o\nupdate 3\naction 1\nupdate 3\naction 3\nupdate 4\naction 5\nupdate 3\naction 7\nupdate 9\nquit\n"
	var out, errb strings.Builder
	err := runServe(context.Background(), []string{"-game", "connect4", "-agent", "perfect:time=5s"}, strings.NewReader(in), &out, &errb)
	if err != nil {
		t.Fatalf("serve: %v\n%s", err, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 14 {
		t.Fatalf("%d responses:\n%s", len(lines), out.String())
	}
	// The first update is out of turn (the agent plays x, who moves
	// first), then a line that is no request; as o the agent answers
	// columns, and a column off the board is an error.
	if !strings.HasPrefix(lines[1], "error") || !strings.HasPrefix(lines[2], "error") || lines[4] != "ok" {
		t.Errorf("responses:\n%s", out.String())
	}
	for _, i := range []int{5, 7, 9} {
		if _, err := strconv.Atoi(lines[i]); err != nil {
			t.Errorf("response %d %q is not a column", i, lines[i])
		}
	}
	if !strings.HasPrefix(lines[12], "error") || lines[13] != "bye" {
		t.Errorf("last response %q", lines[13])
	}
}
