package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/javaadapter"
)

// runJava runs "java -cp CP PROPS aiproj.squatter.Referee n WHITE BLACK"
// with env added, in dir, and returns its exit status and its stderr.
func (s javaSetup) runJava(t *testing.T, dir string, env []string, n int, white, black string, props ...string) (int, string) {
	t.Helper()
	args := append([]string{"-cp", s.classPath}, props...)
	args = append(args, "aiproj.squatter.Referee", fmt.Sprint(n), white, black)
	cmd := exec.Command("java", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stderr.String()
	} else if err != nil {
		t.Fatalf("java: %v", err)
	}
	return 0, stderr.String()
}

// testJavaRefereeBudget checks the player's time settings: game_time and
// cpu_limit "course" resolve for the referee's N, a -game-time in args
// beside game_time is an error, and args set to "" by a property or a
// variable clear the file's. A wrapper binary records the serve command
// line.
func testJavaRefereeBudget(t *testing.T, s javaSetup) {
	dir := t.TempDir()
	argv := filepath.Join(dir, "argv")
	wrap := filepath.Join(dir, "wrap.sh")
	if err := os.WriteFile(wrap, []byte(fmt.Sprintf("#!/bin/sh\necho \"$*\" >> %s\nexec %s \"$@\"\n", argv, s.bin)), 0o755); err != nil {
		t.Fatal(err)
	}
	// A config file as an older export wrote it: the budget in args.
	config := filepath.Join(dir, "old.properties")
	if err := os.WriteFile(config, []byte("agent=random\nargs=-game-time 55s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	usage := filepath.Join(dir, "usage.json")
	base := []string{"-D" + javaadapter.PlayerConfig + ".binary=" + wrap, "-D" + javaadapter.PlayerConfig + ".usage_log=" + usage}
	gameTime := regexp.MustCompile(`-game-time \S+`)
	for _, tc := range []struct {
		name  string
		n     int
		env   []string
		props []string
		// want is the serve command's -game-time flags, or the message
		// of a player that cannot start.
		want, fails string
		cpuLimit    float64
	}{
		{name: "course 7x7", n: 7, props: []string{"-Dzerokit_player.game_time=course", "-Dzerokit_player.cpu_limit=course"},
			want: "-game-time 8.0s", cpuLimit: 10},
		{name: "course 6x6", n: 6, props: []string{"-Dzerokit_player.game_time=course", "-Dzerokit_player.cpu_limit=course"},
			want: "-game-time 6.0s", cpuLimit: 7.5},
		{name: "args alone", n: 6, props: []string{"-Dzerokit_player.config=" + config}, want: "-game-time 55s"},
		{name: "conflict", n: 6, props: []string{"-Dzerokit_player.config=" + config, "-Dzerokit_player.game_time=5"},
			fails: `cannot start: system property zerokit_player.game_time and "-game-time" in config file ` + config + ` key args both set the agent's time budget per game`},
		{name: "empty variable clears args", n: 6, env: []string{"ZEROKIT_PLAYER_ARGS="},
			props: []string{"-Dzerokit_player.config=" + config, "-Dzerokit_player.game_time=5"}, want: "-game-time 5.0s"},
		{name: "empty property clears args", n: 6,
			props: []string{"-Dzerokit_player.config=" + config, "-Dzerokit_player.args=", "-Dzerokit_player.game_time=5"}, want: "-game-time 5.0s"},
		{name: "bad game_time", n: 6, props: []string{"-Dzerokit_player.game_time=courses"},
			fails: `want a number >= 0 or "course", got "courses"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(argv)
			os.Remove(usage)
			props := append(append([]string{}, base...), tc.props...)
			code, stderr := s.runJava(t, dir, tc.env, tc.n, javaadapter.PlayerClass, "zktest.RandomPlayer", props...)
			if tc.fails != "" {
				if !strings.Contains(stderr, tc.fails) {
					t.Errorf("exit %d, stderr lacks %q:\n%s", code, tc.fails, stderr)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
			b, err := os.ReadFile(argv)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(gameTime.FindAllString(string(b), -1), ", "); got != tc.want {
				t.Errorf("serve's -game-time flags %q, want %q (command %s)", got, tc.want, b)
			}
			var u struct {
				CPULimit float64 `json:"cpu_limit"`
			}
			if b, err := os.ReadFile(usage); err != nil || json.Unmarshal(b, &u) != nil || u.CPULimit != tc.cpuLimit {
				t.Errorf("usage log %s (%v): want cpu_limit %g", b, err, tc.cpuLimit)
			}
		})
	}
}

// testJavaRefereeUsageLog plays two games with one usage log: it keeps a
// line per game, and serve's stderr beside it reports each game's fallback
// moves, which the lines repeat.
func testJavaRefereeUsageLog(t *testing.T, s javaSetup) {
	dir := t.TempDir()
	usage := filepath.Join(dir, "usage-{colour}.json")
	for _, white := range []bool{true, false} {
		w, b := javaadapter.PlayerClass, "zktest.RandomPlayer"
		if !white {
			w, b = b, w
		}
		if code, stderr := s.runJava(t, dir, nil, 6, w, b, "-D"+javaadapter.PlayerConfig+".usage_log="+usage); code != 0 {
			t.Fatalf("exit %d:\n%s", code, stderr)
		} else if !regexp.MustCompile(`zerokit_player (white|black): .* s CPU .*, \d+ of \d+ own moves by the fallback`).MatchString(stderr) {
			t.Errorf("the player's summary on stderr names no fallback count:\n%s", stderr)
		}
	}
	for _, colour := range []string{"white", "black"} {
		path := strings.ReplaceAll(usage, "{colour}", colour)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != 1 {
			t.Fatalf("%s holds %d lines, want one (one game as %s):\n%s", path, len(lines), colour, b)
		}
		var u struct {
			Colour        string `json:"colour"`
			Moves         *int   `json:"moves"`
			FallbackMoves *int   `json:"fallback_moves"`
		}
		if err := json.Unmarshal([]byte(lines[0]), &u); err != nil || u.Colour != colour || u.Moves == nil || *u.Moves < 15 || u.FallbackMoves == nil || *u.FallbackMoves != 0 {
			t.Errorf("%s: %s (%v): want %s's line with its moves and 0 fallback moves", path, lines[0], err, colour)
		}
	}
	// A second game as White adds a line; the first stays.
	if code, stderr := s.runJava(t, dir, nil, 6, javaadapter.PlayerClass, "zktest.RandomPlayer", "-D"+javaadapter.PlayerConfig+".usage_log="+usage); code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	path := strings.ReplaceAll(usage, "{colour}", "white")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var first, second struct {
		Started string `json:"started"`
		PID     int    `json:"pid"`
	}
	if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &first) != nil || json.Unmarshal([]byte(lines[1]), &second) != nil ||
		first.PID == second.PID || first.Started >= second.Started {
		t.Errorf("%s after two games as White:\n%s\nwant two lines of two games, in order", path, b)
	}
	errLog, err := os.ReadFile(path + ".stderr")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(errLog), "== zerokit_player white: "); n != 2 {
		t.Errorf("%s.stderr has %d game headers, want 2:\n%s", path, n, errLog)
	}
	if n := len(regexp.MustCompile(`own moves \(0 by the fallback[,)]`).FindAll(errLog, -1)); n != 2 {
		t.Errorf("%s.stderr has %d game reports, want 2:\n%s", path, n, errLog)
	}
}
