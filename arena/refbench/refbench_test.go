package refbench

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/zerokit/zerokit/env/wyb"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseReferee(t *testing.T) {
	board := func(progress string) string { return "X - - - - - - X\n" + progress + "\n" }
	boards := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString(board(fmt.Sprintf("%d turns into the placing phase", i)))
		}
		return b.String()
	}
	tests := []struct {
		name, out, err string
		winner         string
		actions        int
		reason         string
	}{
		{"white wins", boards(3) + board("game over!") + "winner: W!\n", "", "W", 3, "game over"},
		{"draw", boards(1) + board("game over!") + "winner: draw!\n", "", "draw", 1, "game over"},
		{"invalid action", boards(5) + "invalid action (B): no piece at (3, 4)\nwinner: W!\n", "", "W", 4, "invalid action (B): no piece at (3, 4)"},
		{"referee limit, white to move", boards(3) + "resource limit exceeded during action(): Player exceeded available time\n", "", "B", 2, "resource limit exceeded during action(): Player exceeded available time (W)"},
		{"referee limit, black to move", boards(2) + "resource limit exceeded during action(): x\n", "", "W", 1, "resource limit exceeded during action(): x (B)"},
		{"black's module raised", boards(4), "Traceback:\n  File \"/tmp/g/zkagent/zerokit_player.py\", line 5\nzkagent.zerokit_player.ZerokitResourceError: zerokit agent (black) used 70 s of CPU\n", "W", 3, "Black's player failed: zkagent.zerokit_player.ZerokitResourceError: zerokit agent (black) used 70 s of CPU"},
		{"white's module raised", boards(1), "Traceback:\n  File \"/tmp/g/mine.py\", line 9\nValueError: oops\n", "B", 0, "White's player failed: ValueError: oops"},
		{"referee failed", "", "python3: can't open file\n", "", 0, "the referee failed: python3: can't open file"},
		{"usage summaries after the traceback", boards(41), "Traceback:\n  File \"/g/zkagent/zerokit_player.py\", line 5\nzkagent.zerokit_player.ZerokitResourceError: zerokit agent (black) used 60.00 s of CPU\nzerokit_player white (zkopponent): 45.10 s CPU (limit 60 s), 3542 calls\n", "W", 40, "Black's player failed: zkagent.zerokit_player.ZerokitResourceError: zerokit agent (black) used 60.00 s of CPU"},
		{"a player fails to start", boards(1), "Traceback:\n  File \"/tmp/g/mine.py\", line 9\nZerokitDied: closed the session while answering 'init white'\n", "B", 0, "White's player failed: ZerokitDied: closed the session while answering 'init white'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			white, black := "mine", "zkagent"
			w, n, r := parseReferee(tc.out, tc.err, white, black)
			if w != tc.winner || n != tc.actions || r != tc.reason {
				t.Errorf("parseReferee = %q, %d, %q; want %q, %d, %q", w, n, r, tc.winner, tc.actions, tc.reason)
			}
		})
	}
}

func TestOutcome(t *testing.T) {
	for _, tc := range []struct {
		winner  string
		actions int
		reason  string
		colour  string
		timeout bool
		want    Outcome
	}{
		{"W", 100, "game over", "white", false, Win},
		{"W", 100, "game over", "black", false, Loss},
		{"B", 100, "game over", "black", false, Win},
		{"draw", 300, "game over", "white", false, Draw},
		{"", 5, "the referee failed: x", "white", false, Failed},
		{"B", 0, "White's player failed: ZerokitDied", "black", false, Failed},
		{"B", 40, "White's player failed: ZerokitResourceError", "white", false, Loss},
		{"", 900, "", "white", true, Unfinished},
	} {
		if got := outcome(tc.winner, tc.actions, tc.reason, tc.colour, tc.timeout); got != tc.want {
			t.Errorf("outcome(%q, %d, %q, %s, %v) = %s, want %s", tc.winner, tc.actions, tc.reason, tc.colour, tc.timeout, got, tc.want)
		}
	}
}

func TestGameSpec(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		index int
		want  string
	}{
		{"random", 0, "random:seed=1"},
		{"alphabeta:depth=3", 4, "alphabeta:depth=3,seed=5"},
		{"alphabeta:seed=9,depth=2", 4, "alphabeta:seed=9,depth=2"},
		{"bad spec:", 1, "bad spec:"},
	} {
		if got := GameSpec(tc.spec, tc.index); got != tc.want {
			t.Errorf("GameSpec(%q, %d) = %q, want %q", tc.spec, tc.index, got, tc.want)
		}
	}
}

func TestSummarise(t *testing.T) {
	games := []Game{
		{AgentColour: "white", Outcome: Win, AgentCPU: 10, AgentPeakMB: 40},
		{AgentColour: "black", Outcome: Loss, AgentCPU: 20, AgentPeakMB: 50},
		{AgentColour: "white", Outcome: Draw, AgentCPU: 30, AgentPeakMB: 45},
		{AgentColour: "black", Outcome: Unfinished, AgentCPU: 40, AgentPeakMB: 30},
		{AgentColour: "white", Outcome: Failed},
	}
	o := Options{AgentID: "sha", TimeLimit: 60, SpaceLimit: 100}
	m := o.summarise("x", append(games, Game{})) // the last slot not played
	if len(m.Games) != len(games) || m.Agent != "sha" || m.TimeLimit != 60 || m.SpaceLimit != 100 {
		t.Errorf("match of %d games, agent %q, limits %g %g; want %d played games of sha, 60 100", len(m.Games), m.Agent, m.TimeLimit, m.SpaceLimit, len(games))
	}
	if e := m.All; e.Wins != 1 || e.Draws != 1 || e.Losses != 1 || e.Score != 0.5 {
		t.Errorf("all %+v, want 1-1-1, score 0.5", e)
	}
	if w, b := m.AsWhite, m.AsBlack; w.Wins != 1 || w.Draws != 1 || b.Losses != 1 || b.Wins != 0 {
		t.Errorf("as white %+v, as black %+v", w, b)
	}
	if m.Unfinished != 1 || m.Failed != 1 || m.MaxCPU != 40 || m.MeanCPU != 20 || m.MaxPeakMB != 50 {
		t.Errorf("match %+v", m)
	}
	// The unfinished game counts as a draw there, the failed one not.
	if u := m.UnfinishedAsDraws; u.Wins != 1 || u.Draws != 2 || u.Losses != 1 || u.Score != 0.5 || u.Low <= m.All.Low {
		t.Errorf("unfinished as draws %+v, want 1-2-1, score 0.5, a narrower interval than %+v", u, m.All)
	}
	var out strings.Builder
	if err := WriteText(&out, []Match{m}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "| x | 1-1-1 | 0.500") || !strings.Contains(out.String(), "| 1 / 1 | 0.500 [") {
		t.Errorf("table:\n%s", out.String())
	}
}

func TestOptionsCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want string
	}{
		{"no referee", Options{Agent: "a", Games: 1, Opponents: []Opponent{{Spec: "random"}}}, "no referee"},
		{"no agent", Options{Referee: "r", Games: 1, Opponents: []Opponent{{Spec: "random"}}}, "no agent"},
		{"no opponents", Options{Referee: "r", Agent: "a", Games: 1}, "no opponents"},
		{"no games", Options{Referee: "r", Agent: "a", Opponents: []Opponent{{Spec: "random"}}}, "0 games"},
		{"missing referee", Options{Referee: "/nonexistent/referee.py", Agent: "a", Games: 1, Opponents: []Opponent{{Spec: "random"}}}, "not a file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.opts.check()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("check() = %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestResumeGames(t *testing.T) {
	games := []Game{{Opponent: "random", Index: 0, Outcome: Win}, {Opponent: "random", Index: 1, Outcome: Loss}}
	prev := []Match{{Opponent: "random", Agent: "sha-a", TimeLimit: 60, SpaceLimit: 100, Games: games}}
	for _, tc := range []struct {
		name string
		opts Options
		want string // "" for no error
	}{
		{"same agent and limits", Options{AgentID: "sha-a"}, ""},
		{"another agent", Options{AgentID: "sha-b"}, `agent "sha-a", not "sha-b"`},
		{"another time limit", Options{AgentID: "sha-a", TimeLimit: 30}, "-t 60 -s 100, not -t 30 -s 100"},
		{"another space limit", Options{AgentID: "sha-a", SpaceLimit: 200}, "-t 60 -s 100, not -t 60 -s 200"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResumeGames(prev, tc.opts)
			if tc.want == "" {
				if err != nil || len(got) != 2 {
					t.Fatalf("ResumeGames = %d games, %v; want 2 games", len(got), err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ResumeGames error %v, want one with %q", err, tc.want)
			}
		})
	}
}

func TestPlaceDone(t *testing.T) {
	opts := Options{Games: 2, Opponents: []Opponent{{Spec: "random"}, {Spec: "greedy", ServeArgs: []string{"-game-time", "55s"}}}}
	for _, tc := range []struct {
		name string
		done []Game
		want string // "" for no error
	}{
		{"both matches", []Game{{Opponent: "random", Index: 1, AgentColour: "black", Outcome: Win}, {Opponent: "greedy (-game-time 55s)", Index: 0, AgentColour: "white", Outcome: Draw}}, ""},
		{"unknown opponent", []Game{{Opponent: "greedy", Index: 0, Outcome: Win}}, `against "greedy": not an opponent`},
		{"index past the games", []Game{{Opponent: "random", Index: 2, Outcome: Win}}, "outside this run's 2 games"},
		{"negative index", []Game{{Opponent: "random", Index: -1, Outcome: Win}}, "outside this run's 2 games"},
		{"no outcome", []Game{{Opponent: "random", Index: 0}}, `outcome ""`},
		{"twice", []Game{{Opponent: "random", Index: 0, AgentColour: "white", Outcome: Win}, {Opponent: "random", Index: 0, AgentColour: "white", Outcome: Loss}}, "given twice"},
		{"other colour", []Game{{Opponent: "random", Index: 0, AgentColour: "black", Outcome: Win}}, "the agent played black, this run gives it white"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			results := [][]Game{make([]Game, 2), make([]Game, 2)}
			o := opts
			o.Done = tc.done
			err := o.placeDone(results)
			if tc.want == "" {
				if err != nil || results[0][1].Outcome != Win || results[1][0].Outcome != Draw || results[0][0].Outcome != "" {
					t.Fatalf("placeDone: %v, results %+v", err, results)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("placeDone error %v, want one with %q", err, tc.want)
			}
		})
	}
}

// TestRunResumes checks that Run plays only the games that Done lacks, and
// reports every game so far to OnProgress after each one. The referee is a
// script that fails at once, so each new game ends as Failed.
func TestRunResumes(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found on PATH")
	}
	dir := t.TempDir()
	referee := filepath.Join(dir, "referee.py")
	if err := os.WriteFile(referee, []byte("import sys\nsys.exit(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	agentDir := filepath.Join(dir, "agent")
	if err := os.MkdirAll(agentDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agentDir, "__init__.py"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	earlier := Game{Opponent: "random", Index: 1, AgentColour: "black", Outcome: Win, Reason: "game over", Actions: 218}
	// Game 2's directory as a run stopped during it left it (kept games).
	games := filepath.Join(dir, "games")
	if err := os.MkdirAll(filepath.Join(games, "opp0-game002", "zkagent"), 0o755); err != nil {
		t.Fatal(err)
	}
	var progress [][]Match
	matches, err := Run(context.Background(), Options{
		Referee: referee, Agent: agentDir, Binary: "zerokit", Opponents: []Opponent{{Spec: "random"}},
		Games: 3, AgentID: "sha", Done: []Game{earlier}, Dir: games,
		OnProgress: func(m []Match) error { progress = append(progress, m); return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(progress) != 2 || len(progress[0][0].Games) != 2 || len(progress[1][0].Games) != 3 {
		t.Fatalf("OnProgress saw %d reports (%+v); want 2, of 2 then 3 games", len(progress), progress)
	}
	m := matches[0]
	if len(m.Games) != 3 || m.Games[1] != earlier || m.Games[0].Outcome != Failed || m.Games[2].Outcome != Failed {
		t.Fatalf("games %+v; want game 1 the earlier win, 0 and 2 played (and failed)", m.Games)
	}
	if m.All.Wins != 1 || m.Failed != 2 || m.Agent != "sha" || m.TimeLimit != 60 {
		t.Errorf("match %+v", m)
	}
	// A failing OnProgress (a full disk, say) stops the run with its error.
	_, err = Run(context.Background(), Options{
		Referee: referee, Agent: agentDir, Binary: "zerokit", Opponents: []Opponent{{Spec: "random"}}, Games: 2,
		OnProgress: func([]Match) error { return fmt.Errorf("disk full") },
	})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("Run with a failing OnProgress: %v, want its error", err)
	}
}

// shrunkBoard is a referee diagram of the 4x4 board left after the second
// shrink with pieces at the given squares ("x,y" to symbol).
func shrunkBoard(pieces map[[2]int]byte) string {
	var rows []string
	for y := range 8 {
		var cells []string
		for x := range 8 {
			c := byte(' ')
			switch {
			case x < 2 || x > 5 || y < 2 || y > 5:
			case (x == 2 || x == 5) && (y == 2 || y == 5):
				c = 'X'
			default:
				c = '-'
				if p, ok := pieces[[2]int{x, y}]; ok {
					c = p
				}
			}
			cells = append(cells, string(c))
		}
		rows = append(rows, strings.Join(cells, " "))
	}
	return strings.Join(rows, "\n")
}

func TestAfterSecondShrink(t *testing.T) {
	table := wyb.NewEndgame()
	earlier := "X - - - - - - X\n- - - - - - - -\n- - - - - - - -\n- - - - - - - -\n- - - - - - - -\n- - - - - - - -\n- - - - - - - -\nX - - - - - - X\n191 turns into the moving phase\n"
	tests := []struct {
		name   string
		out    string
		value  float32
		ok     bool
		errors bool
	}{
		{"game over earlier", earlier + "game over!\nwinner: W!\n", 0, false, false},
		// White to move takes (3,3) between (2,3) and (4,3): Black is left
		// with one piece and loses.
		{"white wins at once", earlier + shrunkBoard(map[[2]int]byte{{2, 3}: 'O', {4, 4}: 'O', {3, 3}: '@', {5, 4}: '@'}) +
			"\n192 turns into the moving phase\n", 1, true, false},
		// The full board of the locked games: nobody can move.
		{"locked draw", earlier + shrunkBoard(map[[2]int]byte{{3, 2}: 'O', {4, 2}: 'O', {2, 3}: '@', {3, 3}: 'O', {4, 3}: 'O', {5, 3}: 'O',
			{2, 4}: '@', {3, 4}: '@', {4, 4}: 'O', {5, 4}: 'O', {3, 5}: '@', {4, 5}: '@'}) +
			"\n192 turns into the moving phase\n", 0, true, false},
		{"already over", earlier + shrunkBoard(map[[2]int]byte{{3, 2}: 'O', {4, 2}: 'O', {3, 5}: '@'}) +
			"\n192 turns into the moving phase\n", 0, false, false},
		{"not shrunk", earlier + earlier[:strings.Index(earlier, "191")] + "192 turns into the moving phase\n", 0, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, ok, err := afterSecondShrink(tc.out, table)
			if (err != nil) != tc.errors || ok != tc.ok || v != tc.value {
				t.Errorf("afterSecondShrink = %v, %v, %v; want %v, %v, error %v", v, ok, err, tc.value, tc.ok, tc.errors)
			}
		})
	}
}

func TestTurnWatch(t *testing.T) {
	stops := 0
	w := &turnWatch{marker: []byte("\n1000 turns into the moving phase"), stop: func() { stops++ }}
	// The marker split across writes, after a near miss.
	for _, p := range []string{"x\n100 turns into the moving phase\n", "- - X\n10", "00 turns into the mov", "ing phase\n", "more\n1000 turns into the moving phase"} {
		if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if !w.seen() || stops != 1 {
		t.Errorf("seen %v, stop called %d times; want true, once", w.seen(), stops)
	}
	w2 := &turnWatch{marker: []byte("\n1000 turns into the moving phase"), stop: func() { stops++ }}
	w2.Write([]byte("\n999 turns into the moving phase\n10000 turns"))
	if w2.seen() {
		t.Error("the watch fired without its marker")
	}
}

func TestGameShrinkVerdicts(t *testing.T) {
	tests := []struct {
		g                    Game
		atShrink, undeserved bool
	}{
		{Game{Outcome: Loss, Actions: 24 + 192}, true, false},
		{Game{Outcome: Loss, Actions: 24 + 193}, true, false},
		{Game{Outcome: Loss, Actions: 24 + 128}, true, false},
		{Game{Outcome: Loss, Actions: 24 + 200}, false, false},
		{Game{Outcome: Loss, Actions: 24 + 150}, false, false},
		{Game{Outcome: Win, Actions: 24 + 193}, false, false},
		{Game{Outcome: Win, Actions: 24 + 250, AfterSecondShrink: "draw"}, false, true},
		{Game{Outcome: Win, Actions: 24 + 250, AfterSecondShrink: "loss"}, false, true},
		{Game{Outcome: Win, Actions: 24 + 250, AfterSecondShrink: "win"}, false, false},
		{Game{Outcome: Draw, Actions: 24 + 250, AfterSecondShrink: "draw"}, false, false},
	}
	for _, tc := range tests {
		if got := tc.g.LostAtShrink(); got != tc.atShrink {
			t.Errorf("%+v: LostAtShrink = %v", tc.g, got)
		}
		if got := tc.g.WonUndeserved(); got != tc.undeserved {
			t.Errorf("%+v: WonUndeserved = %v", tc.g, got)
		}
	}
	o := Options{}
	m := o.summarise("x", []Game{tests[0].g, tests[6].g, tests[7].g, {Outcome: Unfinished, Actions: 24 + 1000}})
	if m.LostAtShrink != 1 || m.WinsFromDrawn != 2 || m.MaxMovingTurns != 1000 || m.Unfinished != 1 {
		t.Errorf("summarise: %+v", m)
	}
}

func TestAgentColour(t *testing.T) {
	for _, tc := range []struct {
		colour string
		want   [2]string
	}{
		{"", [2]string{"white", "black"}},
		{"both", [2]string{"white", "black"}},
		{"black", [2]string{"black", "black"}},
		{"white", [2]string{"white", "white"}},
	} {
		o := Options{Colour: tc.colour}
		if got := [2]string{o.AgentColour(0), o.AgentColour(1)}; got != tc.want {
			t.Errorf("colour %q: games 0 and 1 %v, want %v", tc.colour, got, tc.want)
		}
	}
	o := Options{Colour: "red", Referee: "r", Agent: "a", Binary: "b", Opponents: []Opponent{{Spec: "random"}}, Games: 1}
	if err := o.check(); err == nil || !strings.Contains(err.Error(), `"red"`) {
		t.Errorf("check with colour red: %v", err)
	}
	// Earlier games of the other colour do not belong to a run of one.
	o = Options{Colour: "black", Opponents: []Opponent{{Spec: "random"}}, Games: 2,
		Done: []Game{{Opponent: "random", Index: 0, AgentColour: "white", Outcome: Win}}}
	if err := o.placeDone([][]Game{make([]Game, 2)}); err == nil {
		t.Error("placeDone took a White game into a Black run")
	}
}

func TestLinkAgent(t *testing.T) {
	dir := t.TempDir()
	agent := filepath.Join(dir, "agent")
	if err := os.MkdirAll(agent, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"__init__.py": "", "weights.ckpt": "w",
		"zerokit_player.json": `{"agent": "default", "binary": "bin/zerokit", "args": ["-game-time", "55s"]}`} {
		if err := os.WriteFile(filepath.Join(agent, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(dir, "game", "zkagent")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := linkAgent(agent, dst, "", 60, 100, nil); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "weights.ckpt")); err != nil || string(b) != "w" {
		t.Errorf("weights through the link: %q, %v", b, err)
	}
	b, err := os.ReadFile(filepath.Join(dst, "zerokit_player.json"))
	if err != nil {
		t.Fatal(err)
	}
	var conf map[string]any
	if err := json.Unmarshal(b, &conf); err != nil {
		t.Fatal(err)
	}
	if conf["cpu_limit"] != 60.0 || conf["memory_limit"] != 100.0 || conf["binary"] != filepath.Join(agent, "bin/zerokit") || conf["agent"] != "default" {
		t.Errorf("the game's adapter configuration: %s", b)
	}
	// A spec given replaces the configuration's.
	dst2 := filepath.Join(dir, "game2", "zkagent")
	if err := os.MkdirAll(filepath.Dir(dst2), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := linkAgent(agent, dst2, "net:path="+agent, 60, 100, nil); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dst2, "zerokit_player.json")); err != nil || json.Unmarshal(b, &conf) != nil ||
		conf["agent"] != "net:path="+agent || conf["cpu_limit"] != 60.0 {
		t.Errorf("the game's adapter configuration with a spec given: %s, %v", b, err)
	}
	if got := withoutLimits([]string{"A=1", "ZEROKIT_CPU_LIMIT=5", "ZEROKIT_MEMORY_LIMIT=7", "ZEROKIT_BIN=x"}); !slices.Equal(got, []string{"A=1", "ZEROKIT_BIN=x"}) {
		t.Errorf("withoutLimits = %v", got)
	}
}
