//go:build !nonet

package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent/neural"
	shipped "github.com/zerokit/zerokit/agents"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/tictactoe"
	"github.com/zerokit/zerokit/env/wyb"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/model/torch"
	"github.com/zerokit/zerokit/rundir"
)

// writeTinyCheckpoint saves a freshly initialised small network for game.
func writeTinyCheckpoint(t *testing.T, path string, game env.Game, step int64) {
	t.Helper()
	cfg := torch.Config{Blocks: 1, Channels: 8, PolicyChannels: 2, ValueChannels: 2, ValueHidden: 8}
	net, err := torch.New(cfg, neural.ShapeOf(game), uint64(step)+1)
	if err != nil {
		t.Fatal(err)
	}
	defer net.Close()
	meta := torch.Metadata{Game: game.Name(), EncodingVersion: game.EncodingVersion(), Step: step, Seed: 3}
	if err := torch.Save(path, net, nil, meta); err != nil {
		t.Fatal(err)
	}
}

// writeRun makes a training run directory with checkpoints at steps.
func writeRun(t *testing.T, dir string, game env.Game, steps ...int64) {
	t.Helper()
	cks := rundir.Run{Dir: dir}.Checkpoints()
	cks.KeepLast = len(steps)
	if err := os.MkdirAll(cks.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		writeTinyCheckpoint(t, cks.Path(s), game, s)
		if err := os.WriteFile(cks.StatePath(s), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := cks.Commit(s); err != nil {
			t.Fatal(err)
		}
	}
}

var trainingWYB = wyb.New(wyb.Options{TurnLimit: wyb.DefaultTurnLimit})

func TestExportCommand(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	writeRun(t, run, trainingWYB, 5, 9)
	out := filepath.Join(dir, "my_agent")
	stdout, stderr, err := runCmd(t, runExport, "-checkpoint", run, "-out", out, "-sims", "16", "-move-time", "2s",
		"-leaves", "2", "-material", "0.3", "-material-term", "eval", "-material-until", "24", "-solver", "-sym", "-policy-temp", "1.5", "-lcb", "2", "-weighted", "-binary", "/opt/zk/zerokit", "-game-time", "50s")
	if err != nil {
		t.Fatalf("export: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "exported wyb-step9") || !strings.Contains(stdout, "agent spec: net:path="+out) {
		t.Errorf("output:\n%s", stdout)
	}
	m, err := neural.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	want := neural.Settings{Settings: mcts.Settings{Simulations: 16, MoveTime: mcts.Duration(2e9), Mode: "puct", LeavesInFlight: 2, CPUCT: 1.25, ReuseTree: true, MaxNodes: mcts.AgentMaxNodes, Solver: true, PolicyTemperature: 1.5, WeightedBudget: true, LCB: 2}, MaterialWeight: 0.3, MaterialTerm: "eval", MaterialUntil: 24, AverageSymmetries: true}
	if m.Search != want || m.Source.Step != 9 || !strings.HasSuffix(m.Source.Checkpoint, "step-000000009.ckpt") {
		t.Errorf("manifest %+v", m)
	}
	conf, err := os.ReadFile(filepath.Join(out, "zerokit_player.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"binary": "/opt/zk/zerokit"`, `"-game-time"`, `"50s"`} {
		if !strings.Contains(string(conf), w) {
			t.Errorf("adapter config lacks %s:\n%s", w, conf)
		}
	}
	// A directory name the referee cannot import is pointed out.
	stdout, _, err = runCmd(t, runExport, "-checkpoint", run, "-out", filepath.Join(dir, "my-agent"))
	if err != nil || !strings.Contains(stdout, `"my-agent" is not a Python module name`) {
		t.Errorf("export to my-agent: %v\n%s", err, stdout)
	}
	// Without -checkpoint: the shipped agent, its search and provenance
	// but what the flags set.
	shippedOut := filepath.Join(dir, "shipped")
	if _, stderr, err := runCmd(t, runExport, "-out", shippedOut, "-sims", "50", "-cache", filepath.Join(dir, "cache")); err != nil {
		t.Fatalf("export of the shipped agent: %v\n%s", err, stderr)
	}
	sm, err := neural.ReadManifest(shippedOut)
	if err != nil {
		t.Fatal(err)
	}
	orig, err := shipped.Manifest("wyb")
	if err != nil {
		t.Fatal(err)
	}
	wantSearch := orig.Search
	wantSearch.Simulations = 50
	if sm.Name != orig.Name || sm.Search != wantSearch || sm.WeightsSHA256 != orig.WeightsSHA256 || sm.Provenance == nil ||
		sm.Provenance.Command != orig.Provenance.Command {
		t.Errorf("exported shipped agent %+v, want %s with %+v and its provenance", sm, orig.Name, wantSearch)
	}
	// -material 0 turns off the shipped agent's material term and its
	// companions; naming a term with it is still refused.
	offOut := filepath.Join(dir, "shipped-off")
	if _, stderr, err := runCmd(t, runExport, "-out", offOut, "-material", "0", "-cache", filepath.Join(dir, "cache")); err != nil {
		t.Fatalf("export of the shipped agent with -material 0: %v\n%s", err, stderr)
	}
	om, err := neural.ReadManifest(offOut)
	if err != nil {
		t.Fatal(err)
	}
	wantOff := orig.Search
	wantOff.MaterialWeight, wantOff.MaterialTerm, wantOff.MaterialUntil = 0, "", 0
	if om.Search != wantOff {
		t.Errorf("exported with -material 0: %+v, want %+v", om.Search, wantOff)
	}
	if _, _, err := runCmd(t, runExport, "-out", filepath.Join(dir, "shipped-off-term"), "-material", "0", "-material-term", "table",
		"-cache", filepath.Join(dir, "cache")); err == nil || !strings.Contains(err.Error(), "set a weight too") {
		t.Errorf("export -material 0 -material-term table: error %v, want one saying the term needs a weight", err)
	}
	// From an exported agent directory, with an adapter that names no
	// path (how a run's agent is copied into agents/): the name, source,
	// provenance and search are kept.
	portable := filepath.Join(dir, "portable")
	stdout, stderr, err = runCmd(t, runExport, "-checkpoint", shippedOut, "-out", portable, "-spec", "default")
	if err != nil {
		t.Fatalf("re-export: %v\n%s", err, stderr)
	}
	pm, err := neural.ReadManifest(portable)
	if err != nil {
		t.Fatal(err)
	}
	if pm.Name != sm.Name || pm.Source != sm.Source || pm.Search != sm.Search || pm.WeightsSHA256 != sm.WeightsSHA256 ||
		pm.Provenance == nil || pm.Provenance.Command != sm.Provenance.Command {
		t.Errorf("re-exported manifest %+v, want %+v", pm, sm)
	}
	if !strings.Contains(stdout, "its adapter runs the agent spec default") {
		t.Errorf("output:\n%s", stdout)
	}
	conf, err = os.ReadFile(filepath.Join(portable, "zerokit_player.json"))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(portable, "README.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(conf), "binary") || !strings.Contains(string(conf), `"agent": "default"`) ||
		strings.Contains(string(readme), "net:path=") || strings.Contains(string(readme), dir) {
		t.Errorf("portable copy names a path:\n%s\n%s", conf, readme)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-sims", "5"}, "-out is required"},
		{[]string{"-out", out}, "exists (use -force"},
		{[]string{"-checkpoint", run, "-out", out}, "exists (use -force"},
		{[]string{"-checkpoint", filepath.Join(dir, "nope"), "-out", out}, "no such file"},
		{[]string{"-checkpoint", dir, "-out", filepath.Join(dir, "x")}, "without checkpoints/latest.json"},
		{[]string{"-checkpoint", run, "-out", filepath.Join(dir, "y"), "-sims", "0"}, "no budget"},
		{[]string{"-checkpoint", run, "-out", filepath.Join(dir, "y"), "-mode", "mcts"}, "mode"},
		{[]string{"-checkpoint", run, "-out", filepath.Join(dir, "y"), "-material", "1"}, "material_weight"},
		{[]string{"-checkpoint", run, "-out", filepath.Join(dir, "y"), "-material-scale", "-2"}, "material_scale"},
		{[]string{"-checkpoint", run, "-out", filepath.Join(dir, "y"), "-material-term", "rollout"}, "material_term"},
	} {
		_, _, err := runCmd(t, runExport, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("export %q: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
}

func TestEvalNetwork(t *testing.T) {
	ckpt := filepath.Join(t.TempDir(), "ttt.ckpt")
	writeTinyCheckpoint(t, ckpt, tictactoe.New(), 7)
	stdout, stderr, err := runCmd(t, runEval, "-game", "tictactoe", "-a", "net:path="+ckpt+",sims=8", "-b", "random",
		"-games", "4", "-parallel", "2", "-q")
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "step7-sims8 vs random") || !regexp.MustCompile(`network .*ttt.ckpt \(go backend\): [1-9][0-9]* positions`).MatchString(stdout) {
		t.Errorf("output:\n%s", stdout)
	}
	if stderr != "" {
		t.Errorf("-q printed %q", stderr)
	}
	_, _, err = runCmd(t, runEval, "-a", "net:path="+filepath.Join(t.TempDir(), "nope"), "-b", "greedy")
	if err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("eval with a missing network: %v", err)
	}
}

func TestGauntletRun(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	writeRun(t, run, tictactoe.New(), 10, 20, 30)
	out := filepath.Join(dir, "gauntlet")
	stdout, stderr, err := runCmd(t, runGauntlet, "-run", run, "-players", "random,greedy", "-net", "sims=4",
		"-max-checkpoints", "2", "-games", "2", "-parallel", "2", "-out", out, "-q")
	if err != nil {
		t.Fatalf("gauntlet: %v\n%s", err, stderr)
	}
	if !strings.Contains(stdout, "step-10") || !strings.Contains(stdout, "step-30") || strings.Contains(stdout, "step-20") {
		t.Errorf("want checkpoints 10 and 30 rated:\n%s", stdout)
	}
	var rep struct {
		Game     string `json:"game"`
		Entrants []struct {
			Name string `json:"name"`
			Spec string `json:"spec"`
			Step *int64 `json:"step"`
		} `json:"entrants"`
	}
	b, err := os.ReadFile(filepath.Join(out, "gauntlet.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Game != "tictactoe" || len(rep.Entrants) != 4 || rep.Entrants[3].Step == nil || *rep.Entrants[3].Step != 30 ||
		!strings.HasSuffix(rep.Entrants[3].Spec, "step-000000030.ckpt,sims=4") {
		t.Errorf("gauntlet.json entrants: %+v", rep.Entrants)
	}
	png, err := os.ReadFile(filepath.Join(out, "elo.png"))
	if err != nil || len(png) < 1000 || string(png[1:4]) != "PNG" {
		t.Errorf("elo.png: %d bytes, %v", len(png), err)
	}
}

// TestExportedAgentWithReferee exports an agent with a real zerokit
// binary and plays it through the Python adapter against the Python
// random player under the referee test double, which validates every
// action with zerokit replay; the referee imports the agent directory by
// its name, as the course's referee.py would.
func TestExportedAgentWithReferee(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the exported agent's referee game (builds zerokit)")
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found on PATH")
	}
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goBin); err != nil {
		if goBin, err = exec.LookPath("go"); err != nil {
			t.Skip("go command not found: cannot build zerokit")
		}
	}
	dir := t.TempDir()
	full, light := filepath.Join(dir, "zerokit"), filepath.Join(dir, "zerokit-nonet")
	for _, b := range []struct{ out, tags string }{{full, ""}, {light, "nonet"}} {
		cmd := exec.Command(goBin, "build", "-tags", b.tags, "-o", b.out, "../cmd/zerokit")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build -tags %q: %v\n%s", b.tags, err, out)
		}
	}
	ckpt := filepath.Join(dir, "w.ckpt")
	writeTinyCheckpoint(t, ckpt, trainingWYB, 4)
	work := filepath.Join(dir, "referee")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	agentDir := filepath.Join(work, "our_agent")
	// The exported adapter runs the binary that exported it.
	// With the play-only binary, as for the course's 100 MB (the libtorch
	// binary's process alone is over it, and the adapter says so).
	if out, err := exec.Command(full, "export", "-checkpoint", ckpt, "-out", agentDir, "-sims", "4", "-binary", light).CombinedOutput(); err != nil {
		t.Fatalf("zerokit export: %v\n%s", err, out)
	}
	referee, err := filepath.Abs(filepath.Join("..", "pyadapter", "fake_referee.py"))
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"PYTHONDONTWRITEBYTECODE=1", "PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	for _, colours := range [][2]string{{"our_agent", "random_player"}, {"random_player", "our_agent"}} {
		// The light binary validates the actions: it starts faster.
		cmd := exec.Command(py, referee, "-q", "--max-turns", "60", "--zerokit", light, colours[0], colours[1])
		cmd.Dir = work
		cmd.Env = append(env, "RANDOM_PLAYER_SEED=5")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("fake_referee %s %s: %v\n%s", colours[0], colours[1], err, out)
		}
		if !regexp.MustCompile(`winner: (W|B|draw|None)!`).Match(out) || strings.Contains(string(out), "invalid action") {
			t.Errorf("fake_referee %s %s:\n%s", colours[0], colours[1], out)
		}
	}
}

func TestAverageCommand(t *testing.T) {
	dir := t.TempDir()
	a, b, w := filepath.Join(dir, "a.ckpt"), filepath.Join(dir, "b.ckpt"), filepath.Join(dir, "w.ckpt")
	writeTinyCheckpoint(t, a, tictactoe.New(), 5)
	writeTinyCheckpoint(t, b, tictactoe.New(), 9)
	writeTinyCheckpoint(t, w, trainingWYB, 9)
	out := filepath.Join(dir, "avg.ckpt")
	stdout, _, err := runCmd(t, runAverage, "-out", out, a, b)
	if err != nil || !strings.Contains(stdout, "mean of 2 checkpoints (steps [5 9])") {
		t.Fatalf("average: %v, output %q", err, stdout)
	}
	// A run's checkpoints, selected by step.
	writeRun(t, filepath.Join(dir, "run"), tictactoe.New(), 3, 5, 9)
	stdout, _, err = runCmd(t, runAverage, "-out", filepath.Join(dir, "run.ckpt"), "-run", filepath.Join(dir, "run"), "-from", "4")
	if err != nil || !strings.Contains(stdout, "mean of 2 checkpoints (steps [5 9])") {
		t.Fatalf("average -run: %v, output %q", err, stdout)
	}

	// The average plays like any checkpoint.
	stdout, stderr, err := runCmd(t, runEval, "-game", "tictactoe", "-a", "net:path="+out+",sims=8", "-b", "random",
		"-games", "2", "-q")
	if err != nil || !strings.Contains(stdout, "step9-avg2-sims8 vs random") {
		t.Fatalf("eval of the average: %v\n%s%s", err, stdout, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-out", out, a, b}, "exists (use -force"},
		{[]string{"-out", filepath.Join(dir, "x.ckpt"), a, w}, `checkpoint 0 (step 5) does not match checkpoint 1 (step 9): game is "tictactoe", expected "wyb"`},
		{[]string{"-out", filepath.Join(dir, "x.ckpt"), a, filepath.Join(dir, "nope.ckpt")}, "nope.ckpt"},
		{[]string{"-out", filepath.Join(dir, "x.ckpt")}, "no checkpoints"},
		{[]string{"-out", filepath.Join(dir, "x.ckpt"), "-run", dir, a}, "not both"},
		{[]string{"-out", filepath.Join(dir, "x.ckpt"), "-from", "5", a}, "-from and -to select checkpoints of -run"},
		{[]string{"-out", filepath.Join(dir, "x.ckpt"), "-run", dir}, "not a training run directory"},
		{[]string{"-out", filepath.Join(dir, "x.ckpt"), "-run", filepath.Join(dir, "run"), "-from", "20"}, "is after -to 9"},
		{[]string{"-out", filepath.Join(dir, "x.ckpt"), "-run", filepath.Join(dir, "run"), "-from", "6", "-to", "8"}, "no checkpoint with a step from 6 to 8"},
	} {
		if _, _, err := runCmd(t, runAverage, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("average %q: error %v, want %q", tc.args, err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.ckpt")); !os.IsNotExist(err) {
		t.Errorf("a failed average left a file: %v", err)
	}
}
