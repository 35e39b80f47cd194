package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/arena/refbench"
)

// TestPythonAdapter builds zerokit and runs the Python adapter's tests
// (pyadapter/test_*.py: the referee adapter against a real zerokit serve, the
// referee test double) with python3 -m unittest.
func TestPythonAdapter(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the Python adapter tests (they build zerokit and play full games)")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found on PATH: skipping the Python adapter tests")
	}
	bin := buildNonetZerokit(t)
	dir, err := filepath.Abs(filepath.Join("..", "pyadapter"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-m", "unittest", "discover", "-s", dir, "-t", dir, "-p", "test_*.py")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ZEROKIT_BIN="+bin, "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python3 -m unittest: %v\n%s", err, out)
	}
	t.Logf("python3 -m unittest:\n%s", out)
}

// TestRefbenchInReferee plays a whole game of the shipped agent against a
// random player inside the course's own referee (../shared/referee, beside
// the repository), through "zerokit refbench", and checks the agent's CPU
// time and peak memory as its adapter measured them against the course's
// limits (60 s, 100 MB).
func TestRefbenchInReferee(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping a refereed game")
	}
	referee := filepath.Join("..", "..", "shared", "referee", "referee.py")
	if _, err := os.Stat(referee); err != nil {
		t.Skipf("the course referee is not beside the repository (%v)", err)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found on PATH")
	}
	bin := buildNonetZerokit(t)
	agentDir := filepath.Join(t.TempDir(), "agent")
	// The shipped agent with a test's budget (the search, not the limits).
	if out, err := exec.Command(bin, "export", "-out", agentDir, "-sims", "24", "-move-time", "0").CombinedOutput(); err != nil {
		t.Fatalf("export: %v\n%s", err, out)
	}
	// Relative paths from another working directory, as a user types them:
	// the referee's, and -keep's (each game's PYTHONPATH names its directory).
	work := t.TempDir()
	absReferee, err := filepath.Abs(referee)
	if err != nil {
		t.Fatal(err)
	}
	relReferee, err := filepath.Rel(work, absReferee)
	if err != nil {
		t.Fatal(err)
	}
	jsonPath := filepath.Join(work, "games.json")
	cmd := exec.Command(bin, "refbench", "-referee", relReferee, "-agent", agentDir, "-vs", "random@noclock", "-colour", "black", "-games", "1",
		"-parallel", "1", "-keep", "games", "-json", "games.json", "-game-timeout", "5m", "-add-to", agentDir)
	cmd.Dir = work
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("refbench: %v\n%s", err, out)
	}
	matches := readMatchesFile(t, jsonPath)
	if len(matches) != 1 || len(matches[0].Games) != 1 {
		t.Fatalf("want one match of one game:\n%s", out)
	}
	g := matches[0].Games[0]
	if g.Outcome == refbench.Failed || g.Outcome == refbench.Unfinished || g.Actions < 24 || g.AgentColour != "black" {
		t.Fatalf("game %+v: want a finished game, the agent Black\n%s", g, out)
	}
	// review reads the real referee's transcript: every board follows
	// from the one before by a legal action, and the game ends as the
	// referee said.
	transcript := filepath.Join(work, "games", "opp0-game000", "referee.out")
	rout, err := exec.Command(bin, "review", "-from", "0", "-nodes", "1000", "-time", "0", transcript).CombinedOutput()
	if err != nil {
		t.Fatalf("review of the referee's transcript: %v\n%s", err, rout)
	}
	winner := map[refbench.Outcome]string{refbench.Win: "winner B", refbench.Loss: "winner W", refbench.Draw: "a draw"}[g.Outcome]
	if head := fmt.Sprintf(": %d actions, %s\n", g.Actions, winner); !strings.Contains(strings.SplitN(string(rout), "\n", 2)[0]+"\n", head) || strings.Contains(string(rout), "note:") {
		t.Errorf("review of the referee's transcript begins\n%.300s\nwant a first line ending %q and no note", rout, head)
	}
	// Each adapter's limits are its own: the opponent @noclock has none.
	for file, want := range map[string]float64{"zkopponent.json": 0, filepath.Join("zkagent", "zerokit_player.json"): 60} {
		b, err := os.ReadFile(filepath.Join(work, "games", "opp0-game000", file))
		if err != nil {
			t.Fatal(err)
		}
		var conf map[string]any
		if err := json.Unmarshal(b, &conf); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if conf["cpu_limit"] != want {
			t.Errorf("%s: cpu_limit %v, want %v", file, conf["cpu_limit"], want)
		}
	}
	if !(g.AgentCPU > 0 && g.AgentCPU <= 60) || !(g.AgentPeakMB > 1 && g.AgentPeakMB <= 100) || g.AgentOverLimit != "" {
		t.Fatalf("agent used %.2f s CPU and %.1f MB (over limit: %q): want within 60 s and 100 MB", g.AgentCPU, g.AgentPeakMB, g.AgentOverLimit)
	}
	// -add-to put the result in the agent's evaluation table.
	m, err := neural.ReadManifest(agentDir)
	if err != nil {
		t.Fatal(err)
	}
	evals := m.Provenance.Evaluations
	last := evals[len(evals)-1]
	wins := map[refbench.Outcome]int{refbench.Win: 1}[g.Outcome]
	if last.Opponent != "random (no clock) (referee)" || last.Wins != wins || last.Wins+last.Draws+last.Losses != 1 ||
		last.AsFirst == nil || !strings.Contains(last.Command, "refbench") || !strings.Contains(last.Search, "-game-time 55s") || !strings.Contains(last.Search, "referee.py -t 60 -s 100") ||
		!strings.Contains(last.Resources, "peak memory") {
		t.Errorf("last evaluation in the agent's manifest: %+v, want this game's", last)
	}
	t.Logf("%s", out)
}

// readMatchesFile reads refbench's -json record.
func readMatchesFile(t *testing.T, path string) []refbench.Match {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var matches []refbench.Match
	if err := json.Unmarshal(b, &matches); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return matches
}

// buildNonetZerokit builds zerokit without libtorch into a temporary
// directory, or skips the test when no go command is found. A libtorch
// binary takes about a second to start, and the Python tests start
// "zerokit serve" or "zerokit replay" again and again.
func buildNonetZerokit(t *testing.T) string {
	t.Helper()
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		if goBin, err = exec.LookPath("go"); err != nil {
			t.Skip("go command not found: cannot build zerokit for the Python tests")
		}
	}
	bin := filepath.Join(t.TempDir(), "zerokit")
	build := exec.Command(goBin, "build", "-tags", "nonet", "-o", bin, "../cmd/zerokit")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestRefbenchBrokenSetupFails checks that refbench exits with an error,
// naming the referee's failure, when every game of a match fails before a
// move (a referee that cannot import a player, say), rather than printing
// a table of errors as if it were a result.
func TestRefbenchBrokenSetupFails(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found on PATH")
	}
	dir, referee, agentDir := fakeRefbenchSetup(t,
		"import sys\nsys.stderr.write(\"Traceback (most recent call last):\\nModuleNotFoundError: No module named 'zkagent'\\n\")\nsys.exit(1)\n")
	var stdout, stderr bytes.Buffer
	err := runRefbench(context.Background(), []string{"-referee", referee, "-agent", agentDir, "-binary", "zerokit",
		"-vs", "random", "-games", "2", "-parallel", "1", "-json", filepath.Join(dir, "games.json")}, nil, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "every game against random failed") || !strings.Contains(err.Error(), "No module named") {
		t.Fatalf("err = %v; want every game failed, naming the referee's error\n%s%s", err, stdout.String(), stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "games.json")); err != nil {
		t.Errorf("the games were not written: %v", err)
	}
}

// TestRefbenchAddToBrokenAdapterConfig checks that refbench -add-to stops
// before the first game, naming the file, when the agent's adapter
// configuration (zerokit_player.json) cannot be read: the adapter could not
// start the agent, and the evaluation entry would lack its serve flags.
func TestRefbenchAddToBrokenAdapterConfig(t *testing.T) {
	dir := t.TempDir()
	agentDir := filepath.Join(dir, "agent")
	var out bytes.Buffer
	if err := runExport(context.Background(), []string{"-out", agentDir, "-sims", "8", "-move-time", "0"}, nil, &out, &out); err != nil {
		t.Fatalf("export: %v\n%s", err, out.String())
	}
	config := filepath.Join(agentDir, "zerokit_player.json")
	for _, tc := range []struct {
		name   string
		damage func() error
		want   string
	}{
		{"missing", func() error { return os.Remove(config) }, "zerokit_player.json"},
		{"not JSON", func() error { return os.WriteFile(config, []byte("{args"), 0o644) }, "zerokit_player.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.damage(); err != nil {
				t.Fatal(err)
			}
			// A referee that must not be reached: the check comes first.
			referee := filepath.Join(dir, "no-referee.py")
			var stdout, stderr bytes.Buffer
			err := runRefbench(context.Background(), []string{"-referee", referee, "-agent", agentDir, "-binary", "zerokit",
				"-vs", "random", "-games", "1", "-add-to", agentDir}, nil, &stdout, &stderr)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "-agent") {
				t.Fatalf("err = %v; want an -agent error naming %s\n%s%s", err, tc.want, stdout.String(), stderr.String())
			}
			if strings.Contains(stderr.String(), "game 0") {
				t.Errorf("a game was played before the check:\n%s", stderr.String())
			}
		})
	}
}

// TestRefbenchResume checks -json's protection and -resume: an existing
// record is not overwritten without -resume, a record of another agent is
// refused, and a record that holds every game is reported without playing.
func TestRefbenchResume(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not found on PATH")
	}
	// The referee fails if run: no game may start.
	dir, referee, agentDir := fakeRefbenchSetup(t, "import sys\nsys.exit(3)\n")
	record := func(agent string) []byte {
		games := []refbench.Game{
			{Opponent: "random", Index: 0, AgentColour: "white", Outcome: refbench.Win, Reason: "game over", Actions: 218, AgentCPU: 7},
			{Opponent: "random", Index: 1, AgentColour: "black", Outcome: refbench.Loss, Reason: "game over", Actions: 640, AgentCPU: 9},
		}
		b, err := json.Marshal([]refbench.Match{{Opponent: "random", Agent: agent, TimeLimit: 60, SpaceLimit: 100, Games: games}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	absAgent, err := filepath.Abs(agentDir)
	if err != nil {
		t.Fatal(err)
	}
	jsonPath := filepath.Join(dir, "games.json")
	base := []string{"-referee", referee, "-agent", agentDir, "-binary", "zerokit", "-vs", "random", "-games", "2", "-json", jsonPath}
	for _, tc := range []struct {
		name   string
		file   []byte // nil: no file
		args   []string
		want   string // error text; "" for success
		stdout string // with success
	}{
		{"existing record without -resume", record(absAgent), base, "exists: give -resume", ""},
		{"-resume without -json", nil, []string{"-referee", referee, "-agent", agentDir, "-binary", "zerokit", "-vs", "random", "-resume"}, "-resume: give the -json FILE", ""},
		{"another agent's record", record("weights sha256 0123"), append(base, "-resume"), `of agent "weights sha256 0123"`, ""},
		{"not JSON", []byte("[{"), append(base, "-resume"), "-resume: " + jsonPath, ""},
		{"every game recorded", record(absAgent), append(base, "-resume"), "", "| random | 1-0-1 | 0.500"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(jsonPath)
			if tc.file != nil {
				if err := os.WriteFile(jsonPath, tc.file, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var stdout, stderr bytes.Buffer
			err := runRefbench(context.Background(), tc.args, nil, &stdout, &stderr)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v; want one with %q\n%s", err, tc.want, stderr.String())
				}
				if tc.file != nil {
					if b, _ := os.ReadFile(jsonPath); !bytes.Equal(b, tc.file) {
						t.Errorf("the record changed:\n%s", b)
					}
				}
				return
			}
			if err != nil || !strings.Contains(stdout.String(), tc.stdout) {
				t.Fatalf("err = %v, stdout:\n%s\nwant %q\n%s", err, stdout.String(), tc.stdout, stderr.String())
			}
			var matches []refbench.Match
			if b, err := os.ReadFile(jsonPath); err != nil || json.Unmarshal(b, &matches) != nil || len(matches) != 1 || len(matches[0].Games) != 2 {
				t.Errorf("record after the run: %v, %+v; want the 2 games", err, matches)
			}
		})
	}
}

// TestAgentBinaryEnv checks when refbench points the agent's adapter at
// -binary: only when nothing names the agent's own zerokit.
func TestAgentBinaryEnv(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config string // zerokit_player.json; "" for none
		beside bool   // a zerokit file in the agent directory
		env    string // ZEROKIT_BIN
		want   []string
	}{
		{"no binary named", `{"agent": "default", "args": []}`, false, "", []string{"ZEROKIT_BIN=/opt/zk"}},
		{"config names one", `{"binary": "/usr/bin/zerokit", "agent": "default"}`, false, "", nil},
		{"zerokit beside the adapter", `{"agent": "default"}`, true, "", nil},
		{"ZEROKIT_BIN set", `{"agent": "default"}`, false, "/x/zerokit", nil},
		{"no config", "", false, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.config != "" {
				if err := os.WriteFile(filepath.Join(dir, "zerokit_player.json"), []byte(tc.config), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.beside {
				if err := os.WriteFile(filepath.Join(dir, "zerokit"), nil, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			t.Setenv("ZEROKIT_BIN", tc.env)
			if got := agentBinaryEnv(dir, "/opt/zk"); !slices.Equal(got, tc.want) {
				t.Errorf("agentBinaryEnv = %q, want %q", got, tc.want)
			}
		})
	}
}

// fakeRefbenchSetup writes, in a new temporary directory, a referee.py of
// the given Python source and an agent directory holding only __init__.py
// (enough for refbench to start), and returns the three paths.
func fakeRefbenchSetup(t *testing.T, refereeSource string) (dir, referee, agentDir string) {
	t.Helper()
	dir = t.TempDir()
	referee = filepath.Join(dir, "referee.py")
	if err := os.WriteFile(referee, []byte(refereeSource), 0o644); err != nil {
		t.Fatal(err)
	}
	agentDir = filepath.Join(dir, "agent")
	if err := os.MkdirAll(agentDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agentDir, "__init__.py"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, referee, agentDir
}
