package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent/neural"
)

// runCmd runs a subcommand in-process and returns its stdout and stderr.
func runCmd(t *testing.T, f func(context.Context, []string, io.Reader, io.Writer, io.Writer) error, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := f(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestEvalBaselines(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "eval.json")
	out, stderr, err := runCmd(t, runEval, "-game", "tictactoe", "-a", "alphabeta:depth=9", "-b", "random",
		"-games", "6", "-parallel", "2", "-opening", "0", "-json", jsonPath)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr)
	}
	for _, want := range []string{"alphabeta-d9 vs random: tictactoe, 6 games", "first (player 0)", "second (player 1)", "total", "95% CI"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, "eval: 6/6 games") {
		t.Errorf("no progress on stderr: %q", stderr)
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		SpecA string `json:"spec_a"`
		Total struct {
			Games, Wins, Losses int
			Score               *float64
		} `json:"total"`
		AFirst struct{ Games int } `json:"a_first"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	// Perfect play never loses at tic-tac-toe.
	if rep.SpecA != "alphabeta:depth=9" || rep.Total.Games != 6 || rep.AFirst.Games != 3 || rep.Total.Losses != 0 || rep.Total.Score == nil || *rep.Total.Score < 0.5 {
		t.Errorf("JSON report %+v\n%s", rep, b)
	}
}

// -a-colour first plays A first in every game.
func TestEvalFixedColour(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "eval.json")
	_, stderr, err := runCmd(t, runEval, "-game", "tictactoe", "-a", "alphabeta:depth=9", "-b", "random",
		"-games", "5", "-a-colour", "first", "-opening", "1", "-q", "-json", jsonPath)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr)
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Total   struct{ Games, Losses int } `json:"total"`
		AFirst  struct{ Games int }         `json:"a_first"`
		ASecond struct{ Games int }         `json:"a_second"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	if rep.Total.Games != 5 || rep.AFirst.Games != 5 || rep.ASecond.Games != 0 || rep.Total.Losses != 0 {
		t.Errorf("-a-colour first: %+v\n%s", rep, b)
	}
}

func TestEvalErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-a", "random"}, "-a and -b are required"},
		{[]string{"-a", "random", "-b", "chess"}, `unknown kind "chess"`},
		{[]string{"-a", "random", "-b", "greedy", "-game", "go"}, "-game"},
		{[]string{"-a", "random", "-b", "greedy", "-games", "0"}, "-games 0"},
		{[]string{"-a", "random", "-b", "greedy", "-parallel", "0"}, "-parallel 0"},
		{[]string{"-a", "random", "-b", "greedy", "extra"}, "unexpected arguments"},
		{[]string{"-a", "random", "-b", "greedy", "-a-colour", "white"}, `-a-colour: arena: colours "white"`},
	}
	for _, tc := range tests {
		_, _, err := runCmd(t, runEval, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("eval %q: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
}

// TestEvalInterrupted stops a long match (as Ctrl-C does) once some games
// are done: eval reports the finished prefix as a shorter match and says so.
func TestEvalInterrupted(t *testing.T) {
	jsonPath := filepath.Join(t.TempDir(), "eval.json")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	stderr := &cancelAfter{cancel: cancel, lines: 10} // -v: one line per game
	err := runEval(ctx, []string{"-game", "tictactoe", "-a", "mcts:sims=200", "-b", "random",
		"-games", "2000", "-v", "-json", jsonPath}, strings.NewReader(""), &out, stderr)
	if err != nil {
		t.Fatalf("interrupted eval: %v", err)
	}
	if !strings.Contains(out.String(), "interrupted: the result covers games 0-9 ") || !strings.Contains(out.String(), "of the 2000 requested") {
		t.Errorf("output does not say the match was interrupted:\n%s", out.String())
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Requested   int  `json:"games_requested"`
		Interrupted bool `json:"interrupted"`
		Total       struct{ Games int }
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Interrupted || rep.Requested != 2000 || rep.Total.Games != 10 {
		t.Errorf("JSON report %+v", rep)
	}
}

// cancelAfter is a writer that cancels after lines writes.
type cancelAfter struct {
	cancel func()
	lines  int
	bytes.Buffer
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	if c.lines--; c.lines == 0 {
		c.cancel()
	}
	return c.Buffer.Write(p)
}

// recordedGame is the part of an eval -json game record the -record
// tests check.
type recordedGame struct {
	Winner    int  `json:"winner"`
	Truncated bool `json:"truncated"`
	Length    int  `json:"length"`
}

// evalRecorded runs eval with args plus -record and -json into a temporary
// directory and returns the match's game records (from the JSON) and the
// -record file.
func evalRecorded(t *testing.T, args ...string) ([]recordedGame, []byte) {
	t.Helper()
	dir := t.TempDir()
	recPath, jsonPath := filepath.Join(dir, "games.jsonl"), filepath.Join(dir, "eval.json")
	if _, stderr, err := runCmd(t, runEval, append(args, "-record", recPath, "-json", jsonPath)...); err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr)
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Result struct {
			Records []recordedGame `json:"records"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	games, err := os.ReadFile(recPath)
	if err != nil {
		t.Fatal(err)
	}
	return rep.Result.Records, games
}

// TestEvalRecord writes a match's games with -record and replays them with
// zerokit replay: every game replays without an illegal action and ends
// with the winner the match recorded.
func TestEvalRecord(t *testing.T) {
	records, games := evalRecorded(t, "-game", "wyb-nolimit", "-a", "greedy", "-b", "random",
		"-games", "4", "-parallel", "2", "-max-moves", "300")
	if n := strings.Count(string(games), "\n"); n != 4 || len(records) != 4 {
		t.Fatalf("%d recorded games and %d records, want 4 of each", n, len(records))
	}
	var out bytes.Buffer
	if err := runReplay(context.Background(), nil, bytes.NewReader(games), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	var winners []string
	for _, ln := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(ln, "invalid action") {
			t.Errorf("replay: %s", ln)
		}
		if strings.HasPrefix(ln, "winner: ") {
			winners = append(winners, ln)
		}
	}
	if len(winners) != 4 {
		t.Fatalf("replay printed %d winners, want 4:\n%s", len(winners), out.String())
	}
	for i, r := range records {
		want := map[int]string{0: "winner: W!", 1: "winner: B!", -1: "winner: draw!"}[r.Winner]
		if r.Truncated {
			want = "winner: None!" // the referee has no move limit
		}
		if winners[i] != want {
			t.Errorf("game %d (%d actions): replay says %q, the match recorded %q", i, r.Length, winners[i], want)
		}
	}
}

// TestEvalRecordOtherGame checks -record for a game without a referee
// form: each line is a JSON array of the game's action strings, as long as
// the game.
func TestEvalRecordOtherGame(t *testing.T) {
	records, games := evalRecorded(t, "-game", "tictactoe", "-a", "random", "-b", "random", "-games", "4")
	lines := strings.Split(strings.TrimSuffix(string(games), "\n"), "\n")
	if len(lines) != 4 || len(records) != 4 {
		t.Fatalf("%d recorded games and %d records, want 4 of each:\n%s", len(lines), len(records), games)
	}
	for i, ln := range lines {
		var actions []string
		if err := json.Unmarshal([]byte(ln), &actions); err != nil {
			t.Fatalf("game %d: %v: %s", i, err, ln)
		}
		if len(actions) != records[i].Length || actions[0] == "" {
			t.Errorf("game %d: %d actions %q, the match recorded %d", i, len(actions), actions, records[i].Length)
		}
	}
}

// copyAgent copies the shipped agent name (agents/NAME) into a temporary
// directory.
func copyAgent(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("..", "agents", name)
	dst := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func TestEvalAddTo(t *testing.T) {
	wyb, squatter := copyAgent(t, "wyb"), copyAgent(t, "squatter6")
	count := func(dir string) int {
		t.Helper()
		m, err := neural.ReadManifest(dir)
		if err != nil {
			t.Fatal(err)
		}
		return len(m.Provenance.Evaluations)
	}
	before := count(wyb)
	bad := []struct {
		name string
		args []string
		want string
	}{
		{"not a network", []string{"-a", "greedy", "-add-to", wyb}, "not a trained network"},
		{"other weights", []string{"-a", "net:path=" + wyb + ",sims=4", "-add-to", squatter}, "not those that play"},
		{"not an agent", []string{"-a", "net:path=" + wyb + ",sims=4", "-add-to", t.TempDir()}, "agent.json is missing"},
	}
	for _, tc := range bad {
		args := append([]string{"-b", "random", "-games", "2", "-q"}, tc.args...)
		if _, _, err := runCmd(t, runEval, args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if n := count(wyb); n != before {
		t.Fatalf("rejected -add-to changed the table: %d evaluations, had %d", n, before)
	}
	out, stderr, err := runCmd(t, runEval, "-a", "net:path="+wyb+",sims=4", "-b", "random", "-games", "2", "-q", "-add-to", wyb)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr)
	}
	m, err := neural.ReadManifest(wyb)
	if err != nil {
		t.Fatal(err)
	}
	evals := m.Provenance.Evaluations
	if len(evals) != before+1 {
		t.Fatalf("%d evaluations after -add-to, want %d\n%s", len(evals), before+1, out)
	}
	e := evals[len(evals)-1]
	first, second := *e.AsFirst, *e.AsSecond
	if e.Opponent != "random" || e.Wins+e.Draws+e.Losses != 2 || first.Wins+first.Draws+first.Losses != 1 ||
		second.Wins+second.Draws+second.Losses != 1 || e.Wins != first.Wins+second.Wins ||
		!strings.HasPrefix(e.Search, "sims4") || !strings.Contains(e.Command, "zerokit eval -a net:path=") || e.Time.IsZero() {
		t.Errorf("added evaluation %+v", e)
	}
}
