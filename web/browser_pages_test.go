package web

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/zerokit/zerokit/agent/spec"
	"github.com/zerokit/zerokit/gamefile/gamefiletest"
)

// watchErrors records the page's JavaScript exceptions and console errors
// for the life of the browser; check reports them.
func watchErrors(b *browser) (check func(t *testing.T)) {
	var mu sync.Mutex
	var errs []string
	chromedp.ListenTarget(b.ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *cdpruntime.EventExceptionThrown:
			errs = append(errs, "exception: "+e.ExceptionDetails.Error())
		case *cdpruntime.EventConsoleAPICalled:
			if e.Type == cdpruntime.APITypeError || e.Type == cdpruntime.APITypeAssert {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				errs = append(errs, "console."+string(e.Type)+": "+strings.Join(args, " "))
			}
		}
	})
	return func(t *testing.T) {
		mu.Lock()
		defer mu.Unlock()
		if len(errs) > 0 {
			t.Errorf("JavaScript errors:\n%s", strings.Join(errs, "\n"))
		}
	}
}

// TestBrowserPages walks every page as a person found it: each game's
// board and status lines, a reload in the middle of a game, a long
// replay to its end, and the dashboard of a stopped run, of a run without
// metrics yet and of a run's self-play game; no page may throw or log a
// JavaScript error.
func TestBrowserPages(t *testing.T) {
	exe := chromium(t)
	dir := t.TempDir()
	stopped, fresh := filepath.Join(dir, "stopped"), filepath.Join(dir, "fresh")
	// Iterations of 30 s of which every other finished no game: the raw
	// games_per_s saws between 0 and 0.2.
	var lines []string
	start := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	total := 0
	for i := 0; i < 12; i++ {
		games := 6 * ((i + 1) % 2)
		total += games
		lines = append(lines, fmt.Sprintf(`{"kind":"iteration","step":%d,"time":%q,"elapsed_s":%d,"games":%d,"games_total":%d,"games_per_s":%g,"policy_loss":%g}`,
			100*(i+1), start.Add(time.Duration(30*i)*time.Second).Format(time.RFC3339), 30*(i+1), games, total, float64(games)/30, 3-0.1*float64(i)))
	}
	writeRun(t, stopped, lines)
	// Its last line two hours ago.
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(filepath.Join(stopped, "metrics.jsonl"), old, old); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(fresh, 0o755); err != nil {
		t.Fatal(err)
	}
	ts := newTestServerFor(t, Config{Agents: spec.Default(), DefaultAgent: "random", MoveTime: 100 * time.Millisecond,
		Networks: testNetworks, DefaultNetwork: "default", Runs: []string{stopped, fresh}})
	b := newBrowser(t, exe, ts, t.TempDir())
	check := watchErrors(b)
	b.run("opening the page", chromedp.Navigate(ts+"/#play"))
	b.wait("the page to start", `document.body.dataset.ready === "1" && play.game !== null`)

	t.Run("EveryGame", func(t *testing.T) { b.t = t; everyGame(b) })
	t.Run("Reload", func(t *testing.T) { b.t = t; reloadKeepsGame(b) })
	t.Run("ReplayEnd", func(t *testing.T) { b.t = t; replayEnd(b, t) })
	t.Run("Dashboard", func(t *testing.T) { b.t = t; dashboardStates(b) })
	check(t)
}

// newTestServerFor is newTestServer's URL.
func newTestServerFor(t *testing.T, cfg Config) string { return newTestServer(t, cfg).URL }

// everyGame starts each game the page offers and checks its board and
// status lines: Squatter's give the score and territory (they read
// "undefined").
func everyGame(b *browser) {
	for _, tc := range []struct{ game, size, want string }{
		{"wyb-nolimit", "", "Placing phase"},
		{"wyb", "", "Placing phase"},
		{"squatter", "6", "territory"},
		{"squatter", "7", "territory"},
		{"tictactoe", "", ""},
		{"connect4", "", ""},
	} {
		name := tc.game + tc.size
		acts := []chromedp.Action{chromedp.SetValue("#play-game", tc.game, chromedp.ByID),
			chromedp.Evaluate(`document.getElementById("play-game").dispatchEvent(new Event("change"))`, nil)}
		if tc.size != "" {
			acts = append(acts, chromedp.SetValue("#play-size", tc.size, chromedp.ByID))
		}
		acts = append(acts, chromedp.SetValue("#play-colour", "first", chromedp.ByID), chromedp.SetValue("#play-agent", "random", chromedp.ByID),
			chromedp.Click("#play-new", chromedp.ByID))
		b.run("starting "+name, acts...)
		b.wait(name, fmt.Sprintf(`play.game && play.game.game.startsWith(%q) && play.game.actions.length === 0`, name))
		// One move, and the reply.
		b.run("a move", chromedp.Evaluate(`play.send({ action: play.game.position.legal[0].action })`, nil))
		b.wait("the reply", `play.game.actions.length === 2 && !play.game.thinking`)
		var status string
		b.eval(`document.getElementById("play-status").textContent`, &status)
		if strings.Contains(status, "undefined") || !strings.Contains(status, tc.want) {
			b.t.Errorf("%s: status %q, want no \"undefined\" and %q", name, status, tc.want)
		}
		if tc.game == "squatter" && !strings.Contains(status, "score") {
			b.t.Errorf("%s: status %q gives no score", name, status)
		}
	}
}

// reloadKeepsGame reloads the page in the middle of a game: the game is
// still there; and once the server no longer holds it (a restart), it is
// started again from its moves.
func reloadKeepsGame(b *browser) {
	startGame(b, "wyb-nolimit", "first", "random")
	for i := 0; i < 3; i++ {
		b.run("a move", chromedp.Evaluate(`play.send({ action: play.game.position.legal[0].action })`, nil))
		b.wait("the reply", fmt.Sprintf(`play.game.actions.length === %d && !play.game.thinking`, 2*i+2))
	}
	var before Game
	b.eval(`play.game`, &before)
	b.run("reloading", chromedp.Reload())
	b.wait("the page after the reload", `document.body.dataset.ready === "1" && play.game !== null`)
	var after Game
	b.eval(`play.game`, &after)
	if after.ID != before.ID || fmt.Sprint(after.Actions) != fmt.Sprint(before.Actions) || after.Game != "wyb-nolimit" {
		b.t.Fatalf("after a reload: game %s %s %v, want %s %v", after.ID, after.Game, after.Actions, before.ID, before.Actions)
	}
	// The server forgot it: the page plays its moves again.
	b.run("forgetting the id", chromedp.Evaluate(`(() => { const s = JSON.parse(localStorage.getItem("zerokit.play")); s.id = "gone"; localStorage.setItem("zerokit.play", JSON.stringify(s)); })()`, nil))
	b.run("reloading", chromedp.Reload())
	b.wait("the page after the reload", `document.body.dataset.ready === "1" && play.game !== null`)
	b.eval(`play.game`, &after)
	if after.ID == before.ID || fmt.Sprint(after.Actions) != fmt.Sprint(before.Actions) || after.Human != before.Human {
		b.t.Errorf("restored from its moves: game %s %v (you %d), want %v (you %d)", after.ID, after.Actions, after.Human, before.Actions, before.Human)
	}
	var msg string
	b.eval(`document.getElementById("play-message").textContent`, &msg)
	if !strings.Contains(msg, "restored") {
		b.t.Errorf("message %q", msg)
	}
}

// inView is true when the list's current move is inside its scrolled box.
const inView = `(() => { const ol = document.getElementById(%q), li = ol.querySelector("li.current"); if (!li) return false;
  const o = ol.getBoundingClientRect(), r = li.getBoundingClientRect(); return r.top >= o.top - 1 && r.bottom <= o.bottom + 1; })()`

// replayEnd steps a long game to its end: the move list follows the
// current move, and the final position shows the result, not a win
// probability of 0% and an empty table.
func replayEnd(b *browser, t *testing.T) {
	long, _ := gamefiletest.RandomGame(t, "wyb-nolimit", 11, 400)
	path := filepath.Join(t.TempDir(), "games.jsonl")
	if err := os.WriteFile(path, []byte(gamefiletest.RefereeLine(t, long)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n := len(long)
	b.run("opening the replay view", chromedp.Navigate(b.url+"/#replay"))
	b.wait("the page to start", `document.body.dataset.ready === "1"`)
	b.run("uploading", chromedp.SetUploadFiles("#replay-file", []string{path}, chromedp.ByID))
	b.wait("the game and its analysis", fmt.Sprintf(`document.getElementById("replay-at").textContent === "0 / %d" && replay.analysis !== null`, n))
	b.run("the end", chromedp.Click("#replay-board", chromedp.ByID), chromedp.KeyEvent(kb.End))
	b.wait("the end", fmt.Sprintf(`replay.at === %d`, n))
	var overflow bool
	b.eval(`document.getElementById("replay-moves").scrollHeight > document.getElementById("replay-moves").clientHeight`, &overflow)
	if !overflow {
		t.Fatal("the move list does not overflow: the test shows nothing")
	}
	b.wait("the last move in view", fmt.Sprintf(inView, "replay-moves"))
	var panel string
	b.eval(`document.getElementById("replay-analysis").textContent`, &panel)
	if !strings.Contains(panel, "Game over") || strings.Contains(panel, "win probability") {
		t.Errorf("the final position's panel: %q", panel)
	}
	b.run("home", chromedp.KeyEvent(kb.Home), chromedp.KeyEvent(kb.PageDown))
	b.wait("move 10 in view", fmt.Sprintf(`replay.at === 10 && `+inView, "replay-moves"))
	var net string
	b.eval(`document.getElementById("replay-net").textContent`, &net)
	if !strings.Contains(net, "default network") {
		t.Errorf("which network: %q", net)
	}
}

// dashboardStates shows a stopped run and one without metrics: the games
// rate is smoothed (no iteration reads 0), the stage lines say which run
// stopped and which waits; its self-play game is analysed by the default
// network, saying the run's could not be loaded.
func dashboardStates(b *browser) {
	b.run("opening the dashboard", chromedp.Navigate(b.url+"/#dashboard"))
	b.wait("the games chart", `document.querySelector('.chart[data-title^="Speed: games per second"] svg') !== null`)
	var title string
	b.eval(`document.querySelector('.chart[data-title^="Speed: games per second"]').dataset.title`, &title)
	if !strings.Contains(title, "mean over 60 s") {
		b.t.Errorf("games chart %q: want the smoothed rate", title)
	}
	var rates []float64
	b.eval(`rateSeries(dash.runs[0].records, "games_per_s").points.map((p) => p[1])`, &rates)
	for i, r := range rates {
		if r <= 0.05 || r > 0.2 {
			b.t.Errorf("smoothed games/s %v: point %d is %g, want about 0.1", rates, i, r)
			break
		}
	}
	b.wait("the runs' states", `document.getElementById("dash-stage").textContent.includes("stopped: no new metrics for 2.0 h") && document.getElementById("dash-stage").textContent.includes("fresh: 0 metrics lines, step -; no metrics.jsonl yet")`)
	b.wait("the self-play games", `document.querySelectorAll("#dash-games a").length > 0`)
	b.run("opening a self-play game", chromedp.Click("#dash-games li:last-child a", chromedp.ByQuery))
	b.wait("its analysis", `location.hash.startsWith("#replay") && replay.rep && replay.analysis !== null && document.getElementById("replay-net").textContent.includes("not run stopped's latest network, which could not be loaded")`)
}
