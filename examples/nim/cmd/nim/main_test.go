package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestOwnModule builds this module's program (zerokit for Nim, a game
// written outside zerokit's module) and runs zerokit's commands on Nim
// through it: help lists Nim and only Nim, train trains a network for a
// few steps from nim-tiny.yaml, eval plays the trained network against
// random, serve (with -game left to its default, the program's one game)
// answers moves in Nim's "H:K" form over the line protocol,
// export writes an agent that serve plays, play plays a typed game, and
// web offers Nim alone and starts a game of it against the trained network.
func TestOwnModule(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the build and the training run")
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		if goBin, err = exec.LookPath("go"); err != nil {
			t.Skip("go command not found: cannot build the example")
		}
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "nim")
	if out, err := exec.Command(goBin, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Stdin = strings.NewReader(stdin)
		cmd.Env = append(os.Environ(), "GOMAXPROCS=2")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("nim %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		return stdout.String()
	}

	// The program's games are those its imports register: Nim, not the
	// games of zerokit's own command.
	help, err := exec.Command(bin, "help").CombinedOutput()
	if err != nil {
		t.Fatalf("nim help: %v\n%s", err, help)
	}
	if games := regexp.MustCompile(`(?m)^games \(-game\): (.*)$`).FindSubmatch(help); games == nil || !strings.HasPrefix(string(games[1]), "Nim: nim") || strings.Contains(string(games[1]), ";") {
		t.Errorf("nim help: want the one game Nim, got:\n%s", help)
	}

	runDir := filepath.Join(dir, "run")
	run("", "train", "-config", filepath.Join("..", "..", "nim-tiny.yaml"), "-run", runDir, "-max-steps", "4", "-quiet")
	if _, err := os.Stat(filepath.Join(runDir, "metrics.jsonl")); err != nil {
		t.Errorf("train wrote no metrics: %v", err)
	}

	out := run("", "eval", "-game", "nim", "-a", "net:path="+runDir+",sims=8", "-b", "random", "-games", "4", "-q")
	if !strings.Contains(out, "score") {
		t.Errorf("eval: no score in\n%s", out)
	}

	move := regexp.MustCompile(`(?m)^[1-4]:[1-7]$`)
	out = run("init first\naction 0\ninit second\nupdate 4:7\naction 1\nquit\n", "serve", "-agent", "net:path="+runDir+",sims=8")
	if got := move.FindAllString(out, -1); len(got) != 2 {
		t.Errorf("serve: want two moves H:K, got:\n%s", out)
	}

	agentDir := filepath.Join(dir, "agent")
	run("", "export", "-checkpoint", runDir, "-out", agentDir, "-sims", "8")
	out = run("init second\nupdate 1:1\naction 1\nquit\n", "serve", "-game", "nim", "-agent", "net:path="+agentDir)
	if got := move.FindAllString(out, -1); len(got) != 1 {
		t.Errorf("serve of the exported agent: want a move H:K, got:\n%s", out)
	}

	// A whole game typed in the terminal against alpha-beta, which knows
	// Nim's theory (the nim-sum, zero at the start) and so wins as the
	// second player: the person takes one stone from the first heap that
	// has one (the moves of empty heaps are refused and the next is read).
	var typed strings.Builder
	for range 16 {
		typed.WriteString("1:1\n2:1\n3:1\n4:1\n")
	}
	out = run(typed.String(), "play", "-game", "nim", "-agent", "alphabeta:depth=2")
	if !strings.Contains(out, "Game over: you lose.") {
		t.Errorf("play: no result in\n%s", out)
	}

	checkWeb(t, bin, runDir)
}

// checkWeb starts "nim web" on a free port and checks that the page is
// offered Nim alone and that a game of Nim starts against the run's
// network.
func checkWeb(t *testing.T, bin, runDir string) {
	t.Helper()
	cmd := exec.Command(bin, "web", "-listen", "127.0.0.1:0", "-agent", "net:path="+runDir+",sims=8", "-network", "net:path="+runDir, "-run", runDir)
	cmd.Env = append(os.Environ(), "GOMAXPROCS=2")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	addr := regexp.MustCompile(`http://[^/ ]+/`).FindString(line)
	if err != nil || addr == "" {
		t.Fatalf("nim web: no address in %q (%v); stderr:\n%s", line, err, stderr.String())
	}
	resp, err := http.Get(addr + "api/info")
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		Games []struct{ Name string } `json:"games"`
	}
	err = json.NewDecoder(resp.Body).Decode(&info)
	resp.Body.Close()
	if err != nil || len(info.Games) != 1 || info.Games[0].Name != "nim" {
		t.Errorf("web /api/info: games %+v (%v), want nim alone", info.Games, err)
	}
	resp, err = http.Post(addr+"api/play", "application/json", strings.NewReader(`{"game": "nim", "colour": "second"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"game":"nim"`) {
		t.Errorf("web: new game of nim: %s %s", resp.Status, body)
	}
}
