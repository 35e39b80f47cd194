package train

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/internal/relpath"
	"github.com/zerokit/zerokit/model/ckpt"
	"github.com/zerokit/zerokit/rundir"
)

// TestRecipe runs a tiny recipe across stops: a stage that brings in a
// sparring partner, a running mean of the weights, and the run's agent;
// and checks that a stop between a checkpoint and its averaging loses
// nothing.
func TestRecipe(t *testing.T) {
	base, err := os.ReadFile(tinyConfig)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(base), "stages: []\n", `stages:
  - name: plain
    from_step: 0
  - name: sparring
    from_step: 20
    sparring_agent: greedy
    sparring_fraction: 0.5
    eval_opponents: [random]
averaging:
  from_step: 20
  every: 20
agent:
  simulations: 8
  move_time: 0s
  mode: puct
  solver: true
`, 1)
	cfgPath := filepath.Join(t.TempDir(), "recipe.yaml")
	if err := os.WriteFile(cfgPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	run := rundir.Run{Dir: dir}
	var stderr strings.Builder
	train := func(steps int64) {
		t.Helper()
		if _, err := Run(context.Background(), Options{Dir: dir, ConfigPath: cfgPath, MaxSteps: steps, Stderr: &stderr, Command: "test"}); err != nil {
			t.Fatalf("to step %d: %v\n%s", steps, err, stderr.String())
		}
	}
	averaged := func() []int64 {
		t.Helper()
		c, err := ckpt.ReadFile(run.Average())
		if err != nil {
			t.Fatal(err)
		}
		return c.Header.AveragedSteps
	}

	train(20)
	if got := averaged(); !slices.Equal(got, []int64{20}) {
		t.Fatalf("averaged steps %v at step 20, want [20]", got)
	}
	saved, err := os.ReadFile(run.Average())
	if err != nil {
		t.Fatal(err)
	}
	train(40)
	if got := averaged(); !slices.Equal(got, []int64{20, 40}) {
		t.Fatalf("averaged steps %v at step 40, want [20 40]", got)
	}
	// A crash after checkpoint 40 was committed but before it was
	// averaged: the resumed run folds it in first.
	if err := os.WriteFile(run.Average(), saved, 0o644); err != nil {
		t.Fatal(err)
	}
	train(80)
	if got := averaged(); !slices.Equal(got, []int64{20, 40, 60, 80}) {
		t.Fatalf("averaged steps %v at step 80, want [20 40 60 80]", got)
	}

	out := stderr.String()
	for _, want := range []string{`stage "plain" at step 0`, `stage "sparring" at step`, "sparring greedy in 50% of the games", "-avg", "[sparring]: "} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}
	sparring := 0
	for _, l := range metricLines(t, dir) {
		if l["kind"] == "iteration" && l["stage"] == "sparring" {
			if n, ok := l["sparring_games"].(float64); ok {
				sparring += int(n)
			}
		}
		if l["kind"] == "eval" && l["step"].(float64) >= 40 {
			if _, ok := l["eval_random_score"]; !ok || !strings.Contains(l["eval_player"].(string), "avg") {
				t.Errorf("evaluation after the averaging began: %v; want the mean against random", l)
			}
		}
	}
	if sparring == 0 {
		t.Error("no sparring games in the sparring stage")
	}

	m, err := neural.ReadManifest(run.Agent())
	if err != nil {
		t.Fatal(err)
	}
	p := m.Provenance
	if !strings.HasSuffix(m.Name, "step80-avg4") || p == nil || p.Steps != 80 || p.Command != "test" || p.Seed != 7 ||
		!strings.Contains(p.Averaging, "4 checkpoints, steps 20 to 80") || p.Config != relpath.ToWorkingDir(cfgPath) || len(p.Evaluations) == 0 ||
		m.Search.Simulations != 8 || !m.Search.Solver || m.Search.MaterialWeight != neural.ShippedMaterialWeight || m.Search.MaterialTerm != "table" {
		t.Fatalf("run agent %s (search %+v) provenance %+v", m.Name, m.Search, p)
	}
	// A run directory played as a network plays its agent.
	n, err := neural.Load(dir, tinyGame(t), neural.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if !strings.Contains(n.Info().Name, "avg4") {
		t.Errorf("net:path=RUN loaded %q, want the run's averaged agent", n.Info().Name)
	}
}
