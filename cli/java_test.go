package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/arena/refbench"
	"github.com/zerokit/zerokit/javaadapter"
)

// javaSetup is what the Java referee tests share: the play-only zerokit,
// the shipped Squatter agent exported with a test's search and its jar,
// and the class path of the course's classes, the jar and the test's
// random player (javaadapter/testdata).
type javaSetup struct {
	bin, agent, course, tests, classPath string
}

// newJavaSetup builds it, or skips the test without the course's package
// beside the repository or without a JDK.
func newJavaSetup(t *testing.T) javaSetup {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping games in the Java referee")
	}
	course := filepath.Join("..", "..", "shared", "referee-squatter")
	if _, err := javaadapter.CoursePackage(course); err != nil {
		t.Skipf("the 2015 Squatter referee is not beside the repository: %v", err)
	}
	for _, tool := range []string{"java", "javac"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found on PATH (scripts/test-deps.sh installs default-jdk-headless)", tool)
		}
	}
	var s javaSetup
	var err error
	if s.course, err = filepath.Abs(course); err != nil {
		t.Fatal(err)
	}
	s.bin = buildNonetZerokit(t)
	s.agent = filepath.Join(t.TempDir(), "agent")
	out, err := exec.Command(s.bin, "export", "-checkpoint", filepath.Join("..", "agents", "squatter6"), "-out", s.agent,
		"-sims", "24", "-move-time", "0", "-game-time", "0", "-java-referee", s.course).CombinedOutput()
	if err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	build := t.TempDir()
	coursePath, _, err := javaadapter.Build(context.Background(), "", s.course, build)
	if err != nil {
		t.Fatal(err)
	}
	s.tests = filepath.Join(build, "tests")
	src, err := filepath.Abs(filepath.Join("..", "javaadapter", "testdata", "zktest", "RandomPlayer.java"))
	if err != nil {
		t.Fatal(err)
	}
	if err := javaadapter.Compile(context.Background(), "", coursePath, s.tests, []string{src}); err != nil {
		t.Fatal(err)
	}
	s.classPath = strings.Join([]string{coursePath, filepath.Join(s.agent, javaadapter.JarName), s.tests}, string(os.PathListSeparator))
	return s
}

// referee runs "java aiproj.squatter.Referee n white black" with the
// system properties props and returns its exit status, stdout and stderr.
func (s javaSetup) referee(t *testing.T, n int, white, black string, props ...string) (int, string, string) {
	t.Helper()
	args := append([]string{"-cp", s.classPath}, props...)
	args = append(args, "aiproj.squatter.Referee", fmt.Sprint(n), white, black)
	cmd := exec.Command("java", args...)
	cmd.Dir = t.TempDir()
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("java: %v", err)
	}
	return code, stdout.String(), stderr.String()
}

var claimRE = regexp.MustCompile(`(?m)^Player (one \(White\)|two \(Black\)) indicate winner as: (-?\d+)$`)

// finalBoards returns the two boards the referee prints at the end (P2's,
// then P1's) and the two claims (White's, Black's).
func finalBoards(t *testing.T, out string) (boards [2]string, claims [2]string) {
	t.Helper()
	_, tail, ok := strings.Cut(out, "P2 Board is :\n")
	p2, rest, ok2 := strings.Cut(tail, "P1 Board is :\n")
	if !ok || !ok2 {
		t.Fatalf("no final boards in the referee's output:\n%s", out)
	}
	p1, _, _ := strings.Cut(rest, "Player one")
	m := claimRE.FindAllStringSubmatch(out, -1)
	if len(m) != 2 {
		t.Fatalf("no claims in the referee's output:\n%s", out)
	}
	return [2]string{p2, p1}, [2]string{m[0][2], m[1][2]}
}

// TestJavaReferee plays games in the course's unmodified Java referee
// (shared/referee-squatter, beside the repository): the exported agent's
// player against the tests' random Java player and against a second
// zerokit agent, illegal moves, and refbench's matches. The set-up
// (building zerokit, exporting the agent, compiling with javac) is shared.
func TestJavaReferee(t *testing.T) {
	s := newJavaSetup(t)
	t.Run("games", func(t *testing.T) { testJavaRefereeGames(t, s) })
	t.Run("illegal", func(t *testing.T) { testJavaRefereeRejectsIllegalMoves(t, s) })
	t.Run("zerokit-vs-zerokit", func(t *testing.T) { testJavaRefereeZerokitVsZerokit(t, s) })
	t.Run("refbench", func(t *testing.T) { testRefbenchJavaReferee(t, s) })
	t.Run("address", func(t *testing.T) { testJavaRefereeAddress(t, s) })
	t.Run("budget", func(t *testing.T) { testJavaRefereeBudget(t, s) })
	t.Run("usage-log", func(t *testing.T) { testJavaRefereeUsageLog(t, s) })
}

// testJavaRefereeAddress connects the opponent to a running "zerokit
// serve -listen" instead of starting a process, and checks that a server
// of another board size is refused.
func testJavaRefereeAddress(t *testing.T, s javaSetup) {
	srv := exec.Command(s.bin, "serve", "-game", "squatter6", "-agent", "random", "-listen", "127.0.0.1:0")
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		srv.Process.Kill()
		srv.Wait()
	}()
	line, err := bufio.NewReader(stderr).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "zerokit serve: listening on ")
	if err != nil || !ok {
		t.Fatalf("serve -listen said %q (%v)", line, err)
	}
	code, out, errText := s.referee(t, 6, javaadapter.PlayerClass, javaadapter.OpponentClass, "-Dzerokit_opponent.address="+addr)
	if code != 0 {
		t.Fatalf("referee exit status %d\n%s\n%s", code, out, errText)
	}
	boards, claims := finalBoards(t, out)
	if boards[0] != boards[1] || claims[0] != claims[1] || !strings.Contains("123", claims[0]) {
		t.Errorf("boards %q and %q, claims %v: want one board and one winner", boards[0], boards[1], claims)
	}
	if !strings.Contains(errText, "zerokit_opponent black:") || !strings.Contains(errText, "remote server: Java side only") {
		t.Errorf("stderr lacks the remote opponent's usage summary:\n%s", errText)
	}
	code, out, errText = s.referee(t, 7, javaadapter.PlayerClass, javaadapter.OpponentClass, "-Dzerokit_opponent.address="+addr)
	if code != 0 || !strings.Contains(out, "Player two (Black) indicate winner as: -1") ||
		!strings.Contains(errText, "the zerokit server plays a board of 6 rows, the referee 7") {
		t.Errorf("a 7x7 referee with a 6x6 server: exit status %d\n%s\n%s", code, out, errText)
	}
}

// testJavaRefereeGames plays whole games in the course's unmodified
// referee between the exported agent (zerokit.ZerokitPlayer) and the
// tests' random player, which keeps the rules on its own: both colours,
// N = 6, 7 and 9. Each side validates the other's moves (a rejection ends
// the referee with status 1), and at the end the two players' boards and
// claims must agree and the board must be full.
func testJavaRefereeGames(t *testing.T, s javaSetup) {
	for _, n := range []int{6, 7, 9} {
		for _, agentWhite := range []bool{true, false} {
			white, black := javaadapter.PlayerClass, "zktest.RandomPlayer"
			if !agentWhite {
				white, black = black, white
			}
			t.Run(fmt.Sprintf("N=%d/%s-vs-%s", n, white, black), func(t *testing.T) {
				usage := filepath.Join(t.TempDir(), "usage.json")
				code, out, errText := s.referee(t, n, white, black, "-Dzktest.seed="+fmt.Sprint(n), "-Dzerokit_player.usage_log="+usage)
				if code != 0 {
					t.Fatalf("referee exit status %d\n%s\n%s", code, out, errText)
				}
				boards, claims := finalBoards(t, out)
				if boards[0] != boards[1] {
					t.Errorf("the players' final boards differ:\n%s\nand\n%s", boards[0], boards[1])
				}
				if claims[0] != claims[1] || !strings.Contains("123", claims[0]) {
					t.Errorf("claims White %s, Black %s: want the same winner 1, 2 or 3", claims[0], claims[1])
				}
				rows := strings.Split(strings.TrimSpace(boards[1]), "\n")
				if len(rows) != n || len(strings.Fields(rows[0])) != n || strings.Contains(boards[1], "+") {
					t.Errorf("final board: want %d full rows of %d cells:\n%s", n, n, boards[1])
				}
				var u refbench.Usage
				if b, err := os.ReadFile(usage); err != nil || json.Unmarshal(b, &u) != nil || u.CPU <= 0 || u.PeakMB <= 1 {
					t.Errorf("usage log %s (%v): want the agent's CPU and memory", b, err)
				}
			})
		}
	}
}

// testJavaRefereeRejectsIllegalMoves has the random player make one
// illegal move of each kind against the agent (as White and, once, as
// Black): the agent's player returns -1, the referee says so and exits 1.
func testJavaRefereeRejectsIllegalMoves(t *testing.T, s javaSetup) {
	for _, tc := range []struct {
		mode       string
		agentWhite bool
		reason     string
	}{
		{"occupied", false, "is occupied by a black piece"},
		{"captured", false, "captured territory"},
		{"offboard", false, "(row 9, col 0) is off the 9x9 board"},
		{"wrongp", false, "P is 2, but white (P = 1) is to move"},
		{"offboard", true, "(row 9, col 0) is off the 9x9 board"},
	} {
		t.Run(fmt.Sprintf("%s/agent-white=%v", tc.mode, tc.agentWhite), func(t *testing.T) {
			white, black, rejected := "zktest.RandomPlayer", javaadapter.PlayerClass, "Exception: Player 2 rejected the move of player 1."
			if tc.agentWhite {
				white, black, rejected = black, white, "Exception: Player 1 rejected the move of player 2."
			}
			// The agent plays at random: quick, and captures come soon.
			code, out, errText := s.referee(t, 9, white, black, "-Dzktest.illegal="+tc.mode, "-Dzerokit_player.agent=random")
			if code != 1 || !strings.Contains(out, rejected) {
				t.Fatalf("referee exit status %d, want 1 and %q:\n%s\n%s", code, rejected, out, errText)
			}
			if !strings.Contains(errText, "rejects the opponent's move") || !strings.Contains(errText, tc.reason) {
				t.Errorf("stderr does not give the reason %q:\n%s", tc.reason, errText)
			}
		})
	}
}

// testJavaRefereeZerokitVsZerokit seats two zerokit agents in one referee:
// the exported agent and zerokit.ZerokitOpponent configured by system
// properties, and an opponent that cannot start.
func testJavaRefereeZerokitVsZerokit(t *testing.T, s javaSetup) {
	code, out, errText := s.referee(t, 7, javaadapter.OpponentClass, javaadapter.PlayerClass,
		"-Dzerokit_opponent.agent=alphabeta:depth=2", "-Dzerokit_opponent.binary="+s.bin)
	if code != 0 {
		t.Fatalf("referee exit status %d\n%s\n%s", code, out, errText)
	}
	boards, claims := finalBoards(t, out)
	if boards[0] != boards[1] || claims[0] != claims[1] || !strings.Contains("123", claims[0]) || strings.Contains(boards[0], "+") {
		t.Errorf("boards %q and %q, claims %v: want one full board and one winner", boards[0], boards[1], claims)
	}
	if !strings.Contains(errText, "zerokit_opponent white:") || !strings.Contains(errText, "zerokit_player black:") {
		t.Errorf("stderr lacks the two players' usage summaries:\n%s", errText)
	}

	// An agent that cannot start claims -1 (INVALID), which ends the game
	// at once, and says why on stderr.
	code, out, errText = s.referee(t, 6, javaadapter.PlayerClass, javaadapter.OpponentClass,
		"-Dzerokit_opponent.agent=nosuchkind", "-Dzerokit_opponent.binary="+s.bin)
	if code != 0 || !strings.Contains(out, "Player two (Black) indicate winner as: -1") || !strings.Contains(out, "Total Number of Moves Played in the Game: 0") {
		t.Errorf("referee with a broken opponent: exit status %d\n%s", code, out)
	}
	if !strings.Contains(errText, "zerokit_opponent black: cannot start") || !strings.Contains(errText, "nosuchkind") {
		t.Errorf("stderr does not say why the opponent cannot start:\n%s", errText)
	}
}

// testRefbenchJavaReferee runs "zerokit refbench -game squatter6" against
// a spec and a Java class, and checks the record and the agent's table.
func testRefbenchJavaReferee(t *testing.T, s javaSetup) {
	work := t.TempDir()
	jsonPath := filepath.Join(work, "games.json")
	cmd := exec.Command(s.bin, "refbench", "-game", "squatter6", "-java-referee", s.course, "-agent", s.agent,
		"-vs", "random", "-vs", "class:zktest.RandomPlayer", "-cp", s.tests, "-games", "2", "-parallel", "1",
		"-json", jsonPath, "-add-to", s.agent)
	cmd.Dir = work
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("refbench: %v\n%s", err, out)
	}
	matches := readMatchesFile(t, jsonPath)
	if len(matches) != 2 || matches[0].Opponent != "random" || matches[1].Opponent != "class zktest.RandomPlayer" {
		t.Fatalf("matches %+v: want one against random and one against the class\n%s", matches, out)
	}
	for _, m := range matches {
		if len(m.Games) != 2 || m.Games[0].AgentColour != "white" || m.Games[1].AgentColour != "black" {
			t.Fatalf("match against %s: games %+v, want 2 with colours alternated", m.Opponent, m.Games)
		}
		for _, g := range m.Games {
			if g.Outcome == refbench.Failed || g.Outcome == refbench.Unfinished || g.Actions < 20 || g.AgentCPU <= 0 || g.AgentPeakMB <= 1 {
				t.Errorf("game %+v: want a finished game with the agent's CPU and memory", g)
			}
		}
		if !strings.Contains(m.Agent, "squatter 6x6") {
			t.Errorf("match's agent %q does not name the board", m.Agent)
		}
	}
	// The shipped agent's directory as it is: no jar (refbench compiles
	// its sources) and no binary named (refbench's is given to it).
	shipped, err := filepath.Abs(filepath.Join("..", "agents", "squatter6"))
	if err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(s.bin, "refbench", "-game", "squatter7", "-java-referee", s.course, "-agent", shipped,
		"-vs", "random", "-games", "1", "-json", filepath.Join(work, "shipped.json"))
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "ZEROKIT_BIN=", "ZEROKIT_PLAYER_BINARY=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("refbench with the shipped agent's directory: %v\n%s", err, out)
	}
	if m := readMatchesFile(t, filepath.Join(work, "shipped.json")); len(m) != 1 || len(m[0].Games) != 1 ||
		m[0].Games[0].Outcome == refbench.Failed || m[0].Games[0].Actions < 25 {
		t.Errorf("the shipped agent's game: %+v, want a finished game", m)
	}
	mf, err := neural.ReadManifest(s.agent)
	if err != nil {
		t.Fatal(err)
	}
	evals := mf.Provenance.Evaluations
	last := evals[len(evals)-1]
	if last.Opponent != "class zktest.RandomPlayer (Java referee, 6x6)" || last.Wins+last.Draws+last.Losses != 2 ||
		!strings.Contains(last.Search, "in the Java referee on 6x6") {
		t.Errorf("last evaluation in the agent's manifest: %+v, want the class's match", last)
	}
}
