package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zerokit/zerokit/wubpp"
)

// waitAddress waits until a server's stderr announces "listening on
// ADDR" and returns ADDR. (A startup that never comes fails the test after
// a generous while; nothing is timed.)
func waitAddress(t *testing.T, stderr *lockedBuffer) string {
	t.Helper()
	re := regexp.MustCompile(`listening on (\S+)`)
	for deadline := time.Now().Add(30 * time.Second); ; {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no address announced: %q", stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// netServer is a "zerokit net-server" running in the test process.
type netServer struct {
	addr, host, port string
	cancel           context.CancelFunc
	done             chan error
	stdout, stderr   lockedBuffer
}

func startNetServer(t *testing.T, args ...string) *netServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &netServer{cancel: cancel, done: make(chan error, 1)}
	go func() {
		s.done <- runNetServer(ctx, append([]string{"-listen", "127.0.0.1:0"}, args...), nil, &s.stdout, &s.stderr)
	}()
	t.Cleanup(func() { s.stop(t) })
	s.addr = waitAddress(t, &s.stderr)
	s.host, s.port, _ = strings.Cut(s.addr, ":")
	return s
}

// stop shuts the server down (once) and returns what it printed on stdout.
func (s *netServer) stop(t *testing.T) string {
	t.Helper()
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
		if err := <-s.done; err != nil {
			t.Errorf("net-server: %v\n%s", err, s.stderr.String())
		}
	}
	return s.stdout.String()
}

// netPlay runs "zerokit net-play" against s with args in the background;
// wait returns its output.
func netPlay(t *testing.T, host, port string, args ...string) (wait func() string) {
	var out, errb strings.Builder
	done := make(chan error, 1)
	go func() {
		done <- runNetPlay(context.Background(), append([]string{"-host", host, "-port", port, "-game-time", "20s"}, args...), nil, &out, &errb)
	}()
	return func() string {
		t.Helper()
		if err := <-done; err != nil {
			t.Fatalf("net-play %q: %v\n%s", args, err, errb.String())
		}
		return out.String()
	}
}

// games stops the server, whose directory is dir, and returns the n
// games it logged and the winner line of each game's replay.
func (s *netServer) games(t *testing.T, dir string, n int) ([]wubpp.Record, []string) {
	t.Helper()
	s.stop(t)
	recs := readRecords(t, dir)
	if len(recs) != n {
		t.Fatalf("%d games logged, want %d", len(recs), n)
	}
	return recs, replayWinners(t, dir)
}

// readRecords reads a net-server's games.jsonl.
func readRecords(t *testing.T, dir string) []wubpp.Record {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "games.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []wubpp.Record
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r wubpp.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("games.jsonl line %q: %v", l, err)
		}
		recs = append(recs, r)
	}
	return recs
}

// replayWinners replays games.jsonl with "zerokit replay" and returns the
// winner line of each game.
func replayWinners(t *testing.T, dir string) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "games.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out strings.Builder
	if err := runReplay(context.Background(), nil, f, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	return regexp.MustCompile(`(?m)^winner: .*$`).FindAllString(out.String(), -1)
}

// refereeWinner is replay's winner line for a record's winner.
var refereeWinner = map[string]string{wubpp.White: "winner: W!", wubpp.Black: "winner: B!", wubpp.Draw: "winner: draw!"}

// TestNetPlayOnNetServer plays zerokit net-play clients on a zerokit
// net-server: two clients for two games each, then, after a restart of
// the server on the same directory, a game against the house agent; the
// games log, the results table and what the clients printed must agree.
func TestNetPlayOnNetServer(t *testing.T) {
	dir := t.TempDir()
	srv := startNetServer(t, "-dir", dir, "-house", "greedy", "-house-key", "bot", "-v")
	a := netPlay(t, srv.host, srv.port, "-name", "ann", "-agent", "greedy", "-games", "2")
	b := netPlay(t, srv.host, srv.port, "-name", "bob", "-agent", "random:seed=3", "-games", "2", "-fallback", "")
	outA, outB := a(), b()
	re := regexp.MustCompile(`(?m)^game (\d): (\w+) \(white\) vs (\w+) \(black\): (won|lost|draw) \(OVER (white|black|draw)\)$`)
	gamesA, gamesB := re.FindAllStringSubmatch(outA, -1), re.FindAllStringSubmatch(outB, -1)
	if len(gamesA) != 2 || len(gamesB) != 2 {
		t.Fatalf("net-play output:\n%s\n%s", outA, outB)
	}
	for i := range gamesA {
		if gamesA[i][5] != gamesB[i][5] || gamesA[i][2] != gamesB[i][2] || (gamesA[i][4] == "won") != (gamesB[i][4] == "lost") {
			t.Errorf("clients disagree on game %d: %q vs %q", i+1, gamesA[i][0], gamesB[i][0])
		}
	}
	if !strings.Contains(outA, "ann: ") || !strings.Contains(outB, "bob: ") {
		t.Errorf("no summary line:\n%s\n%s", outA, outB)
	}
	table := srv.stop(t)
	if !strings.Contains(table, "ann") || !strings.Contains(table, "bob") {
		t.Errorf("results table:\n%s", table)
	}

	// Restart: the table and the game numbers go on.
	srv = startNetServer(t, "-dir", dir, "-house", "greedy", "-house-key", "bot", "-house-name", "bot")
	c := netPlay(t, srv.host, srv.port, "-name", "cat", "-key", "bot")
	outC := c()
	if !strings.Contains(outC, "bot (") {
		t.Errorf("no game against the house agent:\n%s", outC)
	}
	recs, winners := srv.games(t, dir, 3)
	for i, r := range recs {
		if r.ID != uint64(i+1) || r.Winner == "" || r.Reason != "" || len(r.Actions) == 0 {
			t.Errorf("record %d: %+v", i, r)
		}
		if i < 2 && (r.White != gamesA[i][2] || r.Winner != gamesA[i][5]) {
			t.Errorf("record %d: %s vs %s won by %s; ann printed %q", i, r.White, r.Black, r.Winner, gamesA[i][0])
		}
		if i >= len(winners) || winners[i] != refereeWinner[r.Winner] {
			t.Errorf("replay of game %d: %q, recorded winner %s", i+1, winners, r.Winner)
		}
	}
	games := map[string]int{}
	for _, s := range readTable(t, dir).Players {
		games[s.Name] = s.Games()
	}
	if games["ann"] != 2 || games["bob"] != 2 || games["cat"] != 1 || games["bot"] != 1 {
		t.Errorf("results table games %v", games)
	}
}

// resultsFile is the JSON form of a net-server's results.json.
type resultsFile struct {
	Games   int              `json:"games"`
	Players []wubpp.Standing `json:"players"`
}

// readTable reads a net-server's results.json.
func readTable(t *testing.T, dir string) resultsFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f resultsFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("results.json: %v", err)
	}
	return f
}

// TestNetServerRestartFromLog: after a crash (kill -9) the games log is
// the truth. A server restarted on a log whose ids have gaps (games that
// were in progress) numbers its games after the largest id, and rebuilds
// results.json from the log, whatever the crash left in it.
func TestNetServerRestartFromLog(t *testing.T) {
	dir := t.TempDir()
	log := `{"id":1,"white":"ann","black":"bob","winner":"white","actions":[]}
{"id":4,"white":"bob","black":"ann","winner":"draw","actions":[]}
{"id":2,"white":"cat","black":"ann","winner":"","reason":"server shutting down, game abandoned","actions":[]}
`
	// The table of an earlier moment: it missed game 4.
	stale := `{"games":1,"players":[{"name":"ann","wins":1,"draws":0,"losses":0,"elo":1516},{"name":"bob","wins":0,"draws":0,"losses":1,"elo":1484}]}`
	if err := os.WriteFile(filepath.Join(dir, "games.jsonl"), []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := startNetServer(t, "-dir", dir, "-house", "greedy", "-house-name", "bot")
	if !strings.Contains(srv.stderr.String(), "games so far: 3, the last numbered 4") {
		t.Errorf("startup line: %q", srv.stderr.String())
	}
	if tab := readTable(t, dir); tab.Games != 2 {
		t.Errorf("results.json after the start: %+v; want the log's 2 counted games", tab)
	}
	netPlay(t, srv.host, srv.port, "-name", "dan", "-agent", "random")()
	srv.stop(t)
	recs := readRecords(t, dir)
	var ids []uint64
	for _, r := range recs {
		ids = append(ids, r.ID)
	}
	if !slices.Equal(ids, []uint64{1, 4, 2, 5}) {
		t.Fatalf("game ids %v, want [1 4 2 5]: the new game after the largest", ids)
	}
	tab := readTable(t, dir)
	want := map[string]int{"ann": 2, "bob": 2, "dan": 1, "bot": 1}
	for _, p := range tab.Players {
		if want[p.Name] != p.Games() {
			t.Errorf("%s: %d games, want %d", p.Name, p.Games(), want[p.Name])
		}
		delete(want, p.Name)
	}
	if tab.Games != 3 || len(want) != 0 {
		t.Errorf("results.json %+v: want 3 games, also of %v", tab, want)
	}
}

func TestNetCommandsBadFlags(t *testing.T) {
	cases := []struct {
		server bool // net-server, else net-play
		args   []string
	}{
		{true, []string{"-game-time", "0s"}},
		{true, []string{"-max-line", "10"}},
		{true, []string{"-house", "nosuchagent"}},
		{true, []string{"-house", "greedy", "-house-name", "two words"}},
		{true, []string{"extra"}},
		{false, []string{"-name", "two words"}},
		{false, []string{"-name", ""}},
		{false, []string{"-key", strings.Repeat("k", wubpp.MaxWord+1)}},
		{false, []string{"-games", "0"}},
		{false, []string{"-port", "70000"}},
		{false, []string{"-agent", "nosuchagent"}},
		{false, []string{"-game-time", "-1s"}},
	}
	for _, c := range cases {
		run, args := runNetPlay, c.args
		if c.server {
			// Every server here fails before listening.
			run, args = runNetServer, append([]string{"-dir", t.TempDir()}, c.args...)
		}
		if err := run(context.Background(), args, nil, io.Discard, io.Discard); err == nil {
			t.Errorf("%q accepted", c.args)
		}
	}
}

// pythonReferee returns python3 and the course's referee directory
// (../shared/referee from the repository root), or skips the test.
func pythonReferee(t *testing.T) (py, dir string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping the tests with the course's Python client")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found on PATH: skipping the tests with the course's Python client")
	}
	dir, err = filepath.Abs(filepath.Join("..", "..", "shared", "referee"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "netreferee.py")); err != nil {
		t.Skipf("the course's programs are not in %s (../shared/referee from the repository root): %v", dir, err)
	}
	return py, dir
}

// startPython starts cmd and returns a scanner of its stdout and what it
// writes on stderr.
func startPython(t *testing.T, cmd *exec.Cmd) (*bufio.Scanner, *strings.Builder) {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return bufio.NewScanner(stdout), stderr
}

// netreferee starts the course's netreferee.py playing module as name
// (with key, if not empty) on addr, from the adapter's directory pyadapter/,
// and waits until it waits for an opponent. wait returns its output.
func netreferee(t *testing.T, py, refDir, bin, addr, module, name, key string) (wait func() string) {
	t.Helper()
	return startNetreferee(t, py, refDir, bin, addr, module, name, key, false)
}

// startNetreferee is netreferee, run as the script (python3
// DIR/netreferee.py, with pyadapter/ on PYTHONPATH) or, with asModule, as
// docs/wubpp.md says to run it without copies: python3 -m netreferee
// with the referee's directory on PYTHONPATH.
func startNetreferee(t *testing.T, py, refDir, bin, addr, module, name, key string, asModule bool) (wait func() string) {
	t.Helper()
	host, port, _ := strings.Cut(addr, ":")
	pyDir, err := filepath.Abs(filepath.Join("..", "pyadapter"))
	if err != nil {
		t.Fatal(err)
	}
	args, path := []string{filepath.Join(refDir, "netreferee.py"), module, name}, pyDir
	if asModule {
		args, path = []string{"-m", "netreferee", module, name}, refDir
	}
	if key != "" {
		args = append(args, key)
	}
	cmd := exec.Command(py, append(args, "--host", host, "--port", port)...)
	cmd.Dir = pyDir
	cmd.Env = append(os.Environ(), "PYTHONPATH="+path, "PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1",
		"ZEROKIT_BIN="+bin, "ZEROKIT_AGENT=greedy", "RANDOM_PLAYER_SEED=5")
	sc, stderr := startPython(t, cmd)
	var out strings.Builder
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "waiting for an opponent") {
			break
		}
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
		}
	}()
	return func() string {
		t.Helper()
		wg.Wait()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("netreferee.py %s: %v\n%s\n%s", module, err, out.String(), stderr.String())
		}
		return out.String()
	}
}

// TestNetServerWithNetreferee runs the course's unmodified netreferee.py
// against a zerokit net-server: the adapter's random_player.py against a
// zerokit agent through zerokit_player.py, whole games, once in each
// colour (the first client to arrive plays white).
func TestNetServerWithNetreferee(t *testing.T) {
	py, refDir := pythonReferee(t)
	bin := buildNonetZerokit(t)
	dir := t.TempDir()
	srv := startNetServer(t, "-dir", dir, "-game-time", "30s")
	winRE := regexp.MustCompile(`(?m)^game over!\n(\w+) wins!$`)
	var winners []string
	for i, order := range [][2]string{{"random_player", "zerokit_player"}, {"zerokit_player", "random_player"}} {
		key := []string{"", "final"}[i] // netreferee.py sends "PLAY name " without a key
		first := netreferee(t, py, refDir, bin, srv.addr, order[0], strings.TrimSuffix(order[0], "_player"), key)
		second := netreferee(t, py, refDir, bin, srv.addr, order[1], strings.TrimSuffix(order[1], "_player"), key)
		out1, out2 := first(), second()
		m1, m2 := winRE.FindStringSubmatch(out1), winRE.FindStringSubmatch(out2)
		if m1 == nil || m2 == nil || m1[1] != m2[1] {
			t.Fatalf("game %d: the clients' endings differ or are missing:\n%s\n---\n%s", i+1, out1, out2)
		}
		if !strings.Contains(out1, "white player: "+strings.TrimSuffix(order[0], "_player")) {
			t.Errorf("game %d: %s did not play white:\n%s", i+1, order[0], out1)
		}
		winners = append(winners, m1[1])
	}
	recs, replayed := srv.games(t, dir, 2)
	for i, r := range recs {
		if r.White != []string{"random", "zerokit"}[i] || r.Key != []string{"", "final"}[i] || r.Winner != winners[i] || r.Reason != "" {
			t.Errorf("game %d: record %+v, netreferee says %s wins", i+1, r, winners[i])
		}
		if replayed[i] != refereeWinner[r.Winner] {
			t.Errorf("game %d: replay %q, recorded winner %s", i+1, replayed[i], r.Winner)
		}
	}
}

// TestNetPlayOnPythonServer plays two zerokit net-play clients on a tiny
// server written with the course's wubpp.py (pyadapter/wubpp_fixture_server.py).
func TestNetPlayOnPythonServer(t *testing.T) {
	py, refDir := pythonReferee(t)
	fixture, err := filepath.Abs(filepath.Join("..", "pyadapter", "wubpp_fixture_server.py"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, fixture, refDir)
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	sc, stderr := startPython(t, cmd)
	defer cmd.Process.Kill()
	if !sc.Scan() {
		t.Fatalf("fixture server said nothing: %s", stderr.String())
	}
	port, ok := strings.CutPrefix(sc.Text(), "listening on ")
	if !ok {
		t.Fatalf("fixture server: %q", sc.Text())
	}
	a := netPlay(t, "127.0.0.1", port, "-name", "ann", "-agent", "greedy")
	b := netPlay(t, "127.0.0.1", port, "-name", "bob")
	outA, outB := a(), b()
	var rest []byte
	for sc.Scan() {
		rest = append(rest, sc.Text()+"\n"...)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("fixture server: %v\n%s%s", err, rest, stderr.String())
	}
	m := regexp.MustCompile(`winner: (\w+)`).FindSubmatch(rest)
	if m == nil {
		t.Fatalf("fixture server printed %q", rest)
	}
	for _, out := range []string{outA, outB} {
		if !strings.Contains(out, "(OVER "+string(m[1])+")") {
			t.Errorf("the fixture server says %s won; net-play printed %q", m[1], out)
		}
	}
}

// TestNetrefereeWithoutAGame: the course's unmodified netreferee.py ends
// cleanly, without a traceback, however the server ends things before or
// at the start of a game. Before GAME the server only closes the
// connection (the client reads nothing else there without crashing), and
// a game that ends before a player's INIT sends it INIT before the ERRO.
func TestNetrefereeWithoutAGame(t *testing.T) {
	py, refDir := pythonReferee(t)
	bin := buildNonetZerokit(t)
	const lost = "connection lost---try again"
	dir := t.TempDir()
	srv := startNetServer(t, "-dir", dir, "-max-clients", "1", "-wait-timeout", "1s", "-v")

	// Turned away: the only place is taken.
	taken, err := net.Dial("tcp", srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(taken, "PLAY first\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := bufio.NewReader(taken).ReadString('\n'); err != nil { // OKAY
		t.Fatal(err)
	}
	out := netreferee(t, py, refDir, bin, srv.addr, "random_player", "away", "")()
	if !strings.Contains(out, lost) || strings.Contains(out, "game request submitted") {
		t.Errorf("turned away: netreferee.py printed\n%s", out)
	}
	taken.Close()

	// No opponent within -wait-timeout.
	for try := 0; ; try++ { // (the place frees up once the server saw the hang-up)
		out = netreferee(t, py, refDir, bin, srv.addr, "random_player", "lonely", "")()
		if strings.Contains(out, "waiting for an opponent") || try == 50 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.HasSuffix(out, "press ^C to stop waiting\n"+lost+"\n") {
		t.Errorf("wait timed out: netreferee.py printed\n%s", out)
	}
	srv.stop(t)

	// The opponent hangs up after GAME: netreferee.py gets INIT, then the
	// ERRO, and shows it.
	srv = startNetServer(t, "-dir", dir, "-v")
	white := netreferee(t, py, refDir, bin, srv.addr, "random_player", "stays", "")
	black, err := net.Dial("tcp", srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(black)
	io.WriteString(black, "PLAY leaves\n")
	for _, want := range []string{"OKAY", "GAME stays leaves"} {
		if s, err := br.ReadString('\n'); err != nil || strings.TrimSpace(s) != want {
			t.Fatalf("raw client: %q, %v; want %q", s, err, want)
		}
	}
	black.Close()
	out = white()
	if !strings.Contains(out, "opponent found! beginning game") || !strings.HasSuffix(out, "game over!\nblack loses:\ndisconnected\n") {
		t.Errorf("opponent left before INIT: netreferee.py printed\n%s", out)
	}

	// The server shuts down while a client waits (this client run as
	// docs/wubpp.md says, without copies: python3 -m netreferee).
	waiting := startNetreferee(t, py, refDir, bin, srv.addr, "random_player", "patient", "", true)
	srv.stop(t)
	if out := waiting(); !strings.HasSuffix(out, "press ^C to stop waiting\n"+lost+"\n") {
		t.Errorf("server stopped: netreferee.py printed\n%s", out)
	}
	recs := readRecords(t, dir)
	if len(recs) != 1 || recs[0].Winner != wubpp.White || recs[0].Reason != "disconnected" {
		t.Errorf("records %+v: want white's win by the disconnection", recs)
	}
}
