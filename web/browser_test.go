package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/agent/spec"
	shipped "github.com/zerokit/zerokit/agents"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/gamefile/gamefiletest"
	"github.com/zerokit/zerokit/mcts"
)

// The browser tests drive the page in Debian's chromium (installed by
// scripts/test-deps.sh), headless. ZEROKIT_WEB_SCREENSHOTS names a directory
// for the screenshots of each view taken at the end (docs/web keeps the
// committed ones); without it they go to a temporary directory.

// chromium finds the browser, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed (scripts/test-deps.sh installs it: apt-get install chromium): skipping the browser tests")
	return ""
}

// shipped returns an agent registry with the baselines and the shipped
// agents ("default"), and the evaluator of the shipped networks, in pure
// Go.
func shippedAgents(t *testing.T) (*spec.Registry, Networks) {
	pool := neural.NewPool(neural.Options{Backend: neural.BackendGo})
	t.Cleanup(func() { pool.Close() })
	cache := t.TempDir()
	dir := func(game env.Game) (string, error) {
		name, err := shipped.For(game.Name())
		if err != nil {
			return "", err
		}
		return shipped.Dir(name, cache)
	}
	reg := spec.Default()
	if err := reg.Register("default", pool.DefaultKind(dir)); err != nil {
		t.Fatal(err)
	}
	return reg, func(game env.Game, text string) (mcts.Evaluator, error) {
		if text != "default" {
			return nil, fmt.Errorf("no network %q", text)
		}
		d, err := dir(game)
		if err != nil {
			return nil, err
		}
		n, err := pool.Load(d, game)
		if err != nil {
			return nil, err
		}
		return n.Evaluator(1, false)
	}
}

type browser struct {
	t    *testing.T
	ctx  context.Context
	url  string
	shot string
}

// newBrowser starts headless chromium (the executable exe) for a test,
// for the site at url; screenshots go to shots.
func newBrowser(t *testing.T, exe, url, shots string) *browser {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.WindowSize(1100, 860), chromedp.Flag("disable-dev-shm-usage", true))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// Start the browser on ctx itself: a browser started under a context
	// with a timeout would end with it.
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	return &browser{t: t, ctx: ctx, url: url, shot: shots}
}

func (b *browser) run(what string, actions ...chromedp.Action) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		b.screenshot("failed")
		b.t.Fatalf("%s: %v", what, err)
	}
}

// eval evaluates a JavaScript expression into out.
func (b *browser) eval(expr string, out any) {
	b.t.Helper()
	b.run("evaluating "+expr, chromedp.Evaluate(expr, out))
}

// wait waits until a JavaScript expression is true.
func (b *browser) wait(what, expr string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	var ok bool
	err := chromedp.Run(ctx, chromedp.Poll(expr, &ok, chromedp.WithPollingInterval(10*time.Millisecond)))
	// A navigation destroys the page's JavaScript context under a poll
	// that began before it: poll again in the new one.
	for err != nil && strings.Contains(err.Error(), "Cannot find context") && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
		err = chromedp.Run(ctx, chromedp.Poll(expr, &ok, chromedp.WithPollingInterval(10*time.Millisecond)))
	}
	if err != nil {
		b.screenshot("failed")
		var msg string
		chromedp.Run(b.ctx, chromedp.Evaluate(`document.querySelector("main").innerText.slice(0, 2000)`, &msg))
		b.t.Fatalf("waiting for %s (%s): %v; the page says:\n%s", what, expr, err, msg)
	}
}

func (b *browser) screenshot(name string) {
	var buf []byte
	if err := chromedp.Run(b.ctx, chromedp.FullScreenshot(&buf, 100)); err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(b.shot, name+".png")
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
	}
}

// click clicks a board cell.
func (b *browser) clickCell(board string, cell int) {
	b.t.Helper()
	b.run(fmt.Sprintf("clicking cell %d", cell), chromedp.Click(fmt.Sprintf(`#%s [data-cell="%d"]`, board, cell), chromedp.ByQuery))
}

func TestBrowser(t *testing.T) {
	exe := chromium(t)
	run, other := filepath.Join(t.TempDir(), "wyb-a"), filepath.Join(t.TempDir(), "wyb-b")
	metrics := []string{
		`{"kind":"iteration","step":100,"policy_loss":3.1,"value_loss":0.9,"total_loss":4.0,"policy_entropy":2.9,"games_per_s":1.5,"positions_per_s":120,"sims_per_s":9000,"samples_per_s":800,"stage":"warm-up"}`,
		`{"kind":"iteration","step":200,"policy_loss":2.7,"value_loss":0.8,"total_loss":3.5,"policy_entropy":2.6,"games_per_s":1.6,"positions_per_s":125,"sims_per_s":9100,"samples_per_s":810,"stage":"warm-up"}`,
		`{"kind":"eval","step":200,"eval_random_score":0.9,"eval_random_score_lo":0.8,"eval_random_score_hi":0.95,"eval_random_elo":380}`,
	}
	writeRun(t, run, metrics)
	writeRun(t, other, []string{`{"kind":"iteration","step":100,"policy_loss":3.3,"value_loss":0.95,"total_loss":4.25}`, `{"kind":"iteration","step":300,"policy_loss":2.9,"value_loss":0.85,"total_loss":3.75}`})
	reg, networks := shippedAgents(t)
	ts := httptest.NewServer(mustServer(t, Config{Agents: reg, DefaultAgent: "random", MoveTime: 200 * time.Millisecond,
		Networks: networks, DefaultNetwork: "default", Runs: []string{run, other}}))
	defer ts.Close()

	shots := os.Getenv("ZEROKIT_WEB_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	b := newBrowser(t, exe, ts.URL, shots)
	check := watchErrors(b)
	b.run("opening the page", chromedp.Navigate(ts.URL+"/#play"))
	b.wait("the page to start", `document.body.dataset.ready === "1" && play.game !== null`)

	t.Run("PlayWholeGame", func(t *testing.T) { b.t = t; playWholeGame(b) })
	t.Run("IllegalClick", func(t *testing.T) { b.t = t; illegalClick(b) })
	t.Run("SquatterN", func(t *testing.T) { b.t = t; squatterN(b) })
	t.Run("Replay", func(t *testing.T) { b.t = t; replaySteps(b, t) })
	t.Run("Dashboard", func(t *testing.T) { b.t = t; dashboard(b, filepath.Join(run, "metrics.jsonl")) })
	check(t)
}

func mustServer(t *testing.T, cfg Config) *Server {
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// startGame chooses a game, colour and opponent in the form and starts
// it.
func startGame(b *browser, game, colour, agent string) {
	b.run("starting "+game,
		chromedp.SetValue("#play-game", game, chromedp.ByID),
		chromedp.SetValue("#play-colour", colour, chromedp.ByID),
		chromedp.SetValue("#play-agent", agent, chromedp.ByID),
		chromedp.Click("#play-new", chromedp.ByID))
	b.wait("the new game", fmt.Sprintf(`play.game && play.game.game === %q && play.game.actions.length <= 1`, game))
}

// playWholeGame plays Watch Your Back! (ending after moving turn 256)
// against random to the end, by clicking: a piece, then its destination.
func playWholeGame(b *browser) {
	startGame(b, "wyb", "first", "random")
	checkedEmpty := false
	for moves := 0; ; moves++ {
		if moves > 400 {
			b.t.Fatal("the game does not end")
		}
		b.wait("the person's turn or the end", `["your-turn", "over"].includes(document.querySelector("#play-board svg").dataset.state)`)
		var g Game
		b.eval(`play.game`, &g)
		if g.Position.Terminal {
			break
		}
		legal := g.Position.Legal
		m := legal[(moves*7)%len(legal)]
		if m.From < 0 {
			b.run("passing", chromedp.Click("#play-pass", chromedp.ByID))
		} else {
			if m.From != m.To && !checkedEmpty {
				// In the moving phase an empty square is no piece to move.
				empty := strings.IndexByte(g.Position.Board, '.')
				b.clickCell("play-board", empty)
				b.wait("the refusal", `document.getElementById("play-message").textContent.includes("no piece of yours")`)
				checkedEmpty = true
			}
			b.clickCell("play-board", m.From)
			if m.From != m.To {
				// The click selected the piece and marked its targets.
				b.clickCell("play-board", m.To)
			}
		}
		b.wait("the move", fmt.Sprintf(`play.game.actions.length > %d || play.game.position.terminal`, len(g.Actions)))
	}
	var g Game
	b.eval(`play.game`, &g)
	var status string
	b.eval(`document.getElementById("play-status").textContent`, &status)
	if !strings.Contains(status, "Game over") || len(g.Actions) < 24 {
		b.t.Errorf("after %d actions the status is %q", len(g.Actions), status)
	}
	if !checkedEmpty {
		b.t.Error("the game never reached the moving phase")
	}
	b.t.Logf("played a whole game of %d actions: %s", len(g.Actions), g.Position.Result)
}

// illegalClick clicks squares the rules forbid: a corner and the other
// side's zone while placing; the page says why and nothing changes.
func illegalClick(b *browser) {
	startGame(b, "wyb-nolimit", "first", "random")
	for _, cell := range []int{0, 7*8 + 3} {
		b.run("clearing the message", chromedp.Evaluate(`document.getElementById("play-message").textContent = ""`, nil))
		b.clickCell("play-board", cell)
		b.wait("the refusal", `document.getElementById("play-message").textContent.includes("illegal")`)
		var n int
		b.eval(`play.game.actions.length`, &n)
		if n != 0 {
			b.t.Errorf("clicking cell %d played a move", cell)
		}
	}
	var msg string
	b.eval(`document.getElementById("play-message").textContent`, &msg)
	b.t.Logf("the refusal: %s", msg)
	// A legal placement by keyboard: the cursor is where the last click
	// was, (3, 7); five steps up and one left is (2, 2).
	b.run("focusing the board", chromedp.Focus("#play-board", chromedp.ByID))
	b.run("moving the cursor", chromedp.KeyEvent(kb.ArrowUp), chromedp.KeyEvent(kb.ArrowUp), chromedp.KeyEvent(kb.ArrowUp),
		chromedp.KeyEvent(kb.ArrowUp), chromedp.KeyEvent(kb.ArrowUp), chromedp.KeyEvent(kb.ArrowLeft), chromedp.KeyEvent(kb.Enter))
	b.wait("the keyboard move and the reply", `play.game.actions.length === 2 && play.game.moves[0] === "2,2"`)
	// Against the shipped agent, which shows its search once it has moved.
	startGame(b, "wyb-nolimit", "first", "default")
	for i := 0; i < 3; i++ {
		var cell int
		b.eval(`(() => { const l = play.game.position.legal; return l[Math.floor(l.length / 2)].to; })()`, &cell)
		b.clickCell("play-board", cell)
		b.wait("the shipped agent's reply", fmt.Sprintf(`play.game.actions.length === %d && !play.game.thinking && play.game.analysis && play.game.analysis.source === "search"`, 2*i+2))
	}
	b.screenshot("play")
}

// squatterN plays a few moves of Squatter on a 7x7 board.
func squatterN(b *browser) {
	b.run("choosing Squatter 7x7",
		chromedp.SetValue("#play-game", "squatter", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("play-game").dispatchEvent(new Event("change"))`, nil),
		chromedp.SetValue("#play-size", "7", chromedp.ByID),
		chromedp.SetValue("#play-agent", "random", chromedp.ByID),
		chromedp.Click("#play-new", chromedp.ByID))
	b.wait("the 7x7 board", `play.game.game === "squatter7" && document.querySelectorAll("#play-board [data-cell]").length === 49`)
	for i := 0; i < 3; i++ {
		var cell int
		b.eval(`play.game.position.legal[0].to`, &cell)
		b.clickCell("play-board", cell)
		b.wait("the reply", fmt.Sprintf(`play.game.actions.length === %d && !play.game.thinking`, 2*i+2))
	}
}

// replaySteps loads a net-server games.jsonl and steps through its game.
func replaySteps(b *browser, t *testing.T) {
	long, _ := gamefiletest.RandomGame(t, "wyb-nolimit", 11, 400)
	path := filepath.Join(t.TempDir(), "games.jsonl")
	if err := os.WriteFile(path, []byte(gamefiletest.RefereeLine(t, long[:30])+"\n"+gamefiletest.RefereeLine(t, long)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b.run("opening the replay view", chromedp.Navigate(b.url+"/#replay"))
	b.wait("the page to start", `document.body.dataset.ready === "1"`)
	b.run("uploading", chromedp.SetUploadFiles("#replay-file", []string{path}, chromedp.ByID))
	b.wait("the first game", `document.getElementById("replay-at").textContent === "0 / 30"`)
	b.run("choosing the second game", chromedp.SetValue("#replay-list", "1", chromedp.ByID),
		chromedp.Evaluate(`document.getElementById("replay-list").dispatchEvent(new Event("change"))`, nil))
	n := len(long)
	b.wait("the second game", fmt.Sprintf(`document.getElementById("replay-at").textContent === "0 / %d"`, n))
	b.wait("the analysis", `replay.analysis !== null && document.querySelector("#replay-graph .value-line") !== null`)
	b.run("stepping with the keyboard", chromedp.Click("#replay-board", chromedp.ByID),
		chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight))
	b.wait("position 3", fmt.Sprintf(`document.getElementById("replay-at").textContent === "3 / %d"`, n))
	b.wait("the heat map", `document.querySelectorAll("#replay-board .heat").length > 0`)
	b.run("stepping back with the mouse", chromedp.Click("#replay-prev", chromedp.ByID))
	b.wait("position 2", fmt.Sprintf(`document.getElementById("replay-at").textContent === "2 / %d"`, n))
	b.run("jumping to the end", chromedp.KeyEvent(kb.End))
	b.wait("the end", fmt.Sprintf(`document.getElementById("replay-at").textContent === "%d / %d" && document.getElementById("replay-status").textContent.includes("Game over")`, n, n))
	// Ten moves at a time, then one, to a position after the first
	// shrink (moving turn 128, action 24+128).
	if n < 155 {
		t.Fatalf("the game has %d actions, too few to shrink", n)
	}
	b.run("home", chromedp.KeyEvent(kb.Home))
	for i := 0; i < 15; i++ {
		b.run("page down", chromedp.KeyEvent(kb.PageDown))
	}
	b.run("right", chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight), chromedp.KeyEvent(kb.ArrowRight))
	b.wait("position 154", `replay.at === 154 && document.querySelector("#replay-board svg").dataset.moveNumber === "154"`)
	var board string
	b.eval(`replay.rep.positions[154].board`, &board)
	if board[0] != ' ' || board[9] != 'X' {
		t.Errorf("position 154 (after the first shrink): board %q", board)
	}
	// A click in the middle of the value graph jumps to the middle of the
	// game; the turning-point button to where the value moved most.
	var r struct{ X, Y float64 }
	b.eval(`(() => { const g = document.querySelector("#replay-graph svg"); g.scrollIntoView({block: "center"}); const r = g.getBoundingClientRect(); return {x: r.left + 30/480*r.width + (r.width - 36/480*r.width) / 2, y: r.top + r.height / 2}; })()`, &r)
	b.run("clicking the graph", chromedp.MouseClickXY(r.X, r.Y))
	b.wait("the middle of the game", fmt.Sprintf(`Math.abs(replay.at - %d) <= 2`, n/2))
	b.run("jumping to the turning point", chromedp.Click("#replay-turn", chromedp.ByID))
	b.wait("the turning point", `replay.at === replay.turningPoint() && replay.at > 0`)
	b.run("back to 154", chromedp.Evaluate(`replay.go(154)`, nil))
	var link string
	b.run("sharing", chromedp.Click("#replay-share", chromedp.ByID))
	b.eval(`replay.link()`, &link)
	if !strings.Contains(link, "#replay?game=wyb-nolimit&a=") {
		t.Errorf("share link %q", link)
	}
	b.screenshot("replay")
	// The link opens the same game at the same position.
	b.run("opening the link", chromedp.Navigate("about:blank"), chromedp.Navigate(link))
	b.wait("the shared game", fmt.Sprintf(`document.body.dataset.ready === "1" && replay.rep && replay.rep.actions.length === %d && replay.at === 154`, n))
}

// dashboard checks the charts show the run's metrics and follow new lines,
// and that a self-play game opens in the replay view.
func dashboard(b *browser, metrics string) {
	b.run("opening the dashboard", chromedp.Navigate(b.url+"/#dashboard"))
	// Two runs on one chart: 3 losses x (2 + 2) points.
	b.wait("the losses chart", `(() => { const c = document.querySelector('.chart[data-title="Losses"] svg'); return c && c.dataset.points === "12" && c.parentNode.textContent.includes("wyb-b: total_loss"); })()`)
	b.wait("the evaluation chart", `document.querySelector('.chart[data-title^="Evaluation score"] svg').dataset.points === "1"`)
	b.wait("the stage", `document.getElementById("dash-stage").textContent.includes("warm-up")`)
	f, err := os.OpenFile(metrics, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.t.Fatal(err)
	}
	for i := 3; i <= 6; i++ {
		fmt.Fprintf(f, `{"kind":"iteration","step":%d,"policy_loss":%g,"value_loss":%g,"total_loss":%g,"policy_entropy":%g,"games_per_s":1.7,"positions_per_s":130,"sims_per_s":9300,"samples_per_s":820,"stage":"main"}`+"\n",
			100*i, 3.1-0.3*float64(i), 0.9-0.05*float64(i), 4-0.35*float64(i), 2.9-0.2*float64(i))
	}
	fmt.Fprintf(f, `{"kind":"eval","step":600,"eval_random_score":0.97,"eval_random_score_lo":0.92,"eval_random_score_hi":0.99,"eval_random_elo":600}`+"\n")
	f.Close()
	b.wait("the new lines", `document.querySelector('.chart[data-title="Losses"] svg').dataset.points === "24" && document.getElementById("dash-stage").textContent.includes("main")`)
	b.wait("the self-play games", `document.querySelectorAll("#dash-games a").length === 8`)
	b.screenshot("dashboard")
	b.run("opening a self-play game", chromedp.Click("#dash-games li:last-child a", chromedp.ByQuery))
	b.wait("the self-play game", `location.hash.startsWith("#replay") && replay.rep && replay.rep.label.startsWith("self-play game") && document.querySelector("#replay-graph .recorded-line") !== null`)
}

// TestBrowserStatic builds the static site (scripts/web-static.sh: zerokit
// compiled to WebAssembly) and plays the shipped agent in it, served by a
// plain file server. Building for js/wasm takes a minute or two on two
// cores, so it runs only with ZEROKIT_WEB_WASM=1.
func TestBrowserStatic(t *testing.T) {
	exe := chromium(t)
	if os.Getenv("ZEROKIT_WEB_WASM") != "1" {
		t.Skip("set ZEROKIT_WEB_WASM=1 to build and test the WebAssembly site")
	}
	site := t.TempDir()
	if out, err := exec.Command("../scripts/web-static.sh", site).CombinedOutput(); err != nil {
		t.Fatalf("web-static.sh: %v\n%s", err, out)
	}
	ts := httptest.NewServer(http.FileServer(http.Dir(site)))
	defer ts.Close()
	b := newBrowser(t, exe, ts.URL, t.TempDir())
	b.run("opening the site", chromedp.Navigate(ts.URL+"/#play"))
	b.wait("the shipped agent's game", `document.body.dataset.ready === "1" && play.game !== null && play.game.agent.startsWith("wyb-")`)
	for i := 0; i < 2; i++ {
		var cell int
		b.eval(`(() => { const l = play.game.position.legal; return l[Math.floor(l.length / 2)].to; })()`, &cell)
		b.clickCell("play-board", cell)
		b.wait("the reply", fmt.Sprintf(`play.game.actions.length === %d && !play.game.thinking && play.game.analysis && play.game.analysis.source === "search"`, 2*i+2))
	}
	var sims int
	b.eval(`play.game.analysis.simulations`, &sims)
	t.Logf("the shipped agent searched %d simulations in its 2 s move, in WebAssembly", sims)
	actions, _ := gamefiletest.RandomGame(t, "wyb-nolimit", 3, 40)
	parts := make([]string, len(actions))
	for i, a := range actions {
		parts[i] = fmt.Sprint(a)
	}
	b.run("opening a shared game", chromedp.Navigate(ts.URL+"/#replay?game=wyb-nolimit&a="+strings.Join(parts, ".")+"&at=10"))
	b.wait("its analysis", `replay.rep && replay.at === 10 && replay.analysis !== null && document.querySelectorAll("#replay-board .heat").length > 0`)
}
