package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/agent/spec"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/gamefile"
	"github.com/zerokit/zerokit/gamefile/gamefiletest"
	"github.com/zerokit/zerokit/mcts"
)

// uniform is a network stand-in: uniform priors and a value of 0.
type uniform struct{}

func (uniform) Evaluate(_ context.Context, _ env.State, legal []int, priors []float32) (float32, error) {
	for i := range legal {
		priors[i] = 1 / float32(len(legal))
	}
	return 0, nil
}

func testNetworks(_ env.Game, spec string) (mcts.Evaluator, error) {
	if spec != "default" {
		return nil, fmt.Errorf("no network %q", spec)
	}
	return uniform{}, nil
}

func newTestServer(t *testing.T, cfg Config) *httptest.Server {
	t.Helper()
	if cfg.Agents == nil {
		cfg.Agents = spec.Default()
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts
}

func do(t *testing.T, ts *httptest.Server, method, path, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, b
}

func newGameID(t *testing.T, ts *httptest.Server, body string) Game {
	t.Helper()
	code, b := do(t, ts, "POST", "/api/play", body)
	if code != http.StatusOK {
		t.Fatalf("new game %s: %d %s", body, code, b)
	}
	var g Game
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// Bad requests get a 4xx status and a JSON error that names the problem;
// the server keeps serving.
func TestAPIBadInput(t *testing.T) {
	run := t.TempDir()
	writeRun(t, run, []string{`{"step":1,"policy_loss":2}`})
	ts := newTestServer(t, Config{Networks: testNetworks, DefaultNetwork: "default", Runs: []string{run}})
	g := newGameID(t, ts, `{"game":"wyb-nolimit","agent":"random"}`)
	play := "/api/play/" + g.ID
	wybGame := gamefiletest.RefereeLine(t, mustRandom(t, "wyb-nolimit", 3, 40))
	tests := []struct {
		name, method, path, body string
		status                   int
		want                     string
	}{
		{"unknown agent spec", "POST", "/api/play", `{"game":"wyb","agent":"bogus:depth=2"}`, 400, `unknown kind "bogus"`},
		{"bad agent key", "POST", "/api/play", `{"game":"wyb","agent":"alphabeta:colour=3"}`, 400, `no key "colour"`},
		{"malformed spec", "POST", "/api/play", `{"game":"wyb","agent":"Random!"}`, 400, "not a lower-case word"},
		{"unknown game", "POST", "/api/play", `{"game":"chess"}`, 400, `unknown game`},
		{"no game", "POST", "/api/play", `{"agent":"random"}`, 400, "no game given"},
		{"bad squatter size", "POST", "/api/play", `{"game":"squatter3"}`, 400, "game.size"},
		{"bad colour", "POST", "/api/play", `{"game":"wyb","colour":"green"}`, 400, `colour "green"`},
		{"negative move time", "POST", "/api/play", `{"game":"wyb","agent":"random","move_time_ms":-5}`, 400, "move time"},
		{"huge move time", "POST", "/api/play", `{"game":"wyb","agent":"random","move_time_ms":99999999}`, 400, "at most"},
		{"illegal opening", "POST", "/api/play", `{"game":"wyb","agent":"random","actions":[63]}`, 400, "action 0"},
		{"malformed JSON", "POST", "/api/play", `{"game":`, 400, "malformed request"},
		{"unknown field", "POST", "/api/play", `{"game":"wyb","player":"me"}`, 400, `unknown field "player"`},
		{"empty body", "POST", "/api/play", ``, 400, "empty request body"},
		{"no such game", "GET", "/api/play/nosuch", ``, 404, `no game "nosuch"`},
		{"move in the other zone", "POST", play + "/move", `{"move":"3,7"}`, 409, "illegal move"},
		{"move out of range", "POST", play + "/move", `{"action":100000}`, 409, "illegal move"},
		{"negative move", "POST", play + "/move", `{"action":-1}`, 409, "illegal move"},
		{"corner", "POST", play + "/move", `{"action":0}`, 409, "illegal move"},
		{"move notation", "POST", play + "/move", `{"move":"e4"}`, 409, "illegal move"},
		{"both kinds of move", "POST", play + "/move", `{"action":1,"move":"1,0"}`, 400, "not both"},
		{"no move", "POST", play + "/move", `{}`, 400, "no move given"},
		{"nothing to undo", "POST", play + "/undo", ``, 409, "nothing to undo"},
		{"malformed game file", "POST", "/api/replay", "hello, world\n", 400, "not a game"},
		{"empty game file", "POST", "/api/replay", "", 400, "empty"},
		{"malformed JSON game", "POST", "/api/replay", `{"actions": [[1,2],`, 400, "malformed JSON"},
		{"record without actions", "POST", "/api/replay", `{"white":"a"}`, 400, `without "actions"`},
		{"truncated shard", "POST", "/api/replay", "ZKSHARD\x01\x05abc", 400, "shard"},
		{"damaged pending game", "POST", "/api/replay", "ZKGAME\x00\x01garbage", 400, ""},
		{"wrong game for the file", "POST", "/api/replay?game=chess", wybGame, 400, "unknown game"},
		{"transcript of another game", "POST", "/api/replay?game=squatter6", gamefiletest.Transcript(t, mustRandom(t, "wyb-nolimit", 4, 30)), 400, "no game found"},
		{"replay unknown game", "POST", "/api/replay/actions", `{"game":"go","actions":[]}`, 400, "unknown game"},
		{"replay wrong game", "POST", "/api/replay/actions", `{"game":"squatter6","actions":[35,36]}`, 400, "outside the game's 36 actions"},
		{"replay illegal action", "POST", "/api/replay/actions", `{"game":"squatter6","actions":[3,3]}`, 400, "action 1"},
		{"analyse unknown network", "POST", "/api/analyse", `{"game":"wyb","actions":[],"network":"net:path=/nowhere"}`, 400, `network "net:path=/nowhere"`},
		{"analyse wrong game", "POST", "/api/analyse", `{"game":"tictactoe","actions":[9]}`, 400, "outside the game's 9 actions"},
		{"no such run", "GET", "/api/runs/3/metrics", ``, 404, `no run "3"`},
		{"run not a number", "GET", "/api/runs/x/games", ``, 404, `no run "x"`},
		{"bad offset", "GET", "/api/runs/0/metrics?offset=-4", ``, 400, "offset"},
		{"bad limit", "GET", "/api/runs/0/games?limit=0", ``, 400, "limit"},
		{"path traversal", "GET", "/api/runs/0/game?ref=../../../etc/passwd", ``, 400, "game reference"},
		{"missing shard game", "GET", "/api/runs/0/game?ref=shard-000001.zk%2399", ``, 404, "the shard has 3 games"},
		{"unknown endpoint", "GET", "/api/nothing", ``, 404, "no API endpoint"},
		{"wrong method", "DELETE", play, ``, 404, "no API endpoint"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, b := do(t, ts, tc.method, tc.path, tc.body)
			var e struct{ Error string }
			if err := json.Unmarshal(b, &e); err != nil {
				t.Fatalf("%d, body %q is not a JSON error: %v", code, b, err)
			}
			if code != tc.status || e.Error == "" || !strings.Contains(e.Error, tc.want) {
				t.Errorf("%s %s: %d %q, want %d and an error containing %q", tc.method, tc.path, code, e.Error, tc.status, tc.want)
			}
		})
	}
	// Nothing above changed the game.
	code, b := do(t, ts, "GET", play, "")
	var after Game
	if err := json.Unmarshal(b, &after); code != 200 || err != nil || len(after.Actions) != 0 {
		t.Errorf("the game after refused moves: %d %s", code, b)
	}
}

func mustRandom(t *testing.T, name string, seed uint64, n int) []int {
	a, _ := gamefiletest.RandomGame(t, name, seed, n)
	return a
}

// A whole game against random through the API: the person's moves, the
// agent's replies, undo and the end.
func TestAPIPlayWholeGame(t *testing.T) {
	ts := newTestServer(t, Config{Networks: testNetworks, DefaultNetwork: "default", DefaultAgent: "random"})
	g := newGameID(t, ts, `{"game":"squatter7","colour":"second","move_time_ms":500}`)
	undone := false
	for i := 0; !g.Position.Terminal; i++ {
		if i > 200 {
			t.Fatal("the game does not end")
		}
		if g.Thinking || g.Position.ToMove != g.Human {
			time.Sleep(5 * time.Millisecond)
			_, b := do(t, ts, "GET", "/api/play/"+g.ID, "")
			g = Game{}
			if err := json.Unmarshal(b, &g); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if len(g.Actions) > 0 && g.Analysis == nil && !undone {
			t.Errorf("move %d: no network analysis of the agent's position: %+v", len(g.Actions), g.Analysis)
		}
		if len(g.Actions) == 5 && !undone {
			if !g.CanUndo {
				t.Fatal("cannot undo after 5 actions")
			}
			code, b := do(t, ts, "POST", "/api/play/"+g.ID+"/undo", "")
			var u Game
			if err := json.Unmarshal(b, &u); code != 200 || err != nil || len(u.Actions) != 3 {
				t.Fatalf("undo: %d %s", code, b)
			}
			g, undone = u, true
			continue
		}
		m := g.Position.Legal[len(g.Position.Legal)/2]
		code, b := do(t, ts, "POST", "/api/play/"+g.ID+"/move", fmt.Sprintf(`{"action":%d}`, m.Action))
		if code != 200 {
			t.Fatalf("move %s: %d %s", m.Text, code, b)
		}
		g = Game{}
		if err := json.Unmarshal(b, &g); err != nil {
			t.Fatal(err)
		}
	}
	if g.Position.Result == "" || len(g.Position.Legal) != 0 || !undone {
		t.Errorf("ended after %d actions, result %q, undone %v", len(g.Actions), g.Position.Result, undone)
	}
	if code, _ := do(t, ts, "POST", "/api/play/"+g.ID+"/resign", ""); code != http.StatusConflict {
		t.Errorf("resigning a finished game: %d, want 409", code)
	}
}

// While a searching agent thinks, the game shows its search so far.
func TestThinkingShowsSearch(t *testing.T) {
	ts := newTestServer(t, Config{})
	g := newGameID(t, ts, `{"game":"squatter6","agent":"mcts:sims=10000000","colour":"second","move_time_ms":1500}`)
	for deadline := time.Now().Add(10 * time.Second); ; {
		if !g.Thinking {
			t.Fatalf("the agent moved (%d actions) and no poll saw its search in progress", len(g.Actions))
		}
		if a := g.Analysis; a != nil && a.Source == "search" && a.Simulations > 0 && len(a.Top) == 36 && a.Top[0].Visits > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no progress while thinking")
		}
		time.Sleep(20 * time.Millisecond)
		_, b := do(t, ts, "GET", "/api/play/"+g.ID, "")
		g = Game{}
		if err := json.Unmarshal(b, &g); err != nil {
			t.Fatal(err)
		}
	}
}

func TestResign(t *testing.T) {
	ts := newTestServer(t, Config{})
	g := newGameID(t, ts, `{"game":"wyb","agent":"random"}`)
	code, b := do(t, ts, "POST", "/api/play/"+g.ID+"/resign", "")
	var r Game
	if err := json.Unmarshal(b, &r); code != 200 || err != nil || !r.Resigned || len(r.Position.Legal) != 0 || !strings.Contains(r.Position.Result, "resigned") {
		t.Fatalf("resign: %d %s", code, b)
	}
	if code, _ := do(t, ts, "POST", "/api/play/"+g.ID+"/move", `{"move":"3,3"}`); code != http.StatusConflict {
		t.Errorf("a move after resigning: %d, want 409", code)
	}
}

// The shrinking board, the corners and the captures are in the replay's
// positions.
func TestReplayShowsShrinkAndCaptures(t *testing.T) {
	long, _ := gamefiletest.RandomGame(t, "wyb-nolimit", 11, 400)
	if len(long) < 24+129 {
		t.Skipf("the random game ended after %d actions, before the first shrink", len(long))
	}
	rep, err := NewReplay(gamefile.Game{Game: "wyb-nolimit", Actions: long})
	if err != nil {
		t.Fatal(err)
	}
	first, shrunk := rep.Positions[0].Board, rep.Positions[24+128].Board
	if first[0] != 'X' || first[9] != '.' {
		t.Errorf("initial board %q: want a corner at (0,0) and (1,1) empty", first)
	}
	if shrunk[0] != ' ' || shrunk[9] != 'X' {
		t.Errorf("board after moving turn 128 %q: want (0,0) removed and a corner at (1,1)", shrunk)
	}
	captures := 0
	for _, p := range rep.Positions {
		captures += len(p.Captured)
	}
	if captures == 0 {
		t.Error("no capture in a random game of", len(long), "actions")
	}
}

// The metrics endpoint hands out complete lines only, from an offset.
func TestMetricsIncremental(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "metrics.jsonl")
	if err := os.WriteFile(path, []byte("{\"step\":1}\nnot json\n{\"step\":2}\n{\"step\":3"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := readMetrics(path, 0)
	if err != nil || len(m.Records) != 2 || m.Skipped != 1 {
		t.Fatalf("first read: %+v, %v", m, err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("}\n{\"step\":4}\n")
	f.Close()
	m2, err := readMetrics(path, m.Offset)
	if err != nil || len(m2.Records) != 2 || string(m2.Records[0]) != `{"step":3}` {
		t.Fatalf("second read: %+v, %v", m2, err)
	}
	if m3, err := readMetrics(path, 1<<20); err != nil || len(m3.Records) != 4 {
		t.Errorf("an offset past the end (a new file) reads from the start: %+v, %v", m3, err)
	}
	if m4, err := readMetrics(filepath.Join(dir, "none"), 0); err != nil || !m4.Missing {
		t.Errorf("missing file: %+v, %v", m4, err)
	}
}
