package train

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/rundir"
)

// pinnedConfig is the configuration of TestPinnedRun: everything in it
// runs one thing at a time on the CPU, so that no result depends on
// scheduling.
const pinnedConfig = "testdata/tictactoe-pinned.yaml"

// pinnedGolden is the golden digest of TestPinnedRun's run: its self-play
// games and the metrics that depend on no timing and on no float the
// network computes (see pinnedRun). A change of behaviour changes it; when
// the change is meant, the failure prints the new value.
const pinnedGolden = "9940940715218f2b9ee87197"

// TestPinnedRun pins what a fixed seed makes of a training run: the same
// self-play games (every action, the returns, the network step and seed of
// each game, the sparring stage's games among them), the same evaluation
// results (wins, draws and losses against the previous checkpoint and
// random, played by the running mean of the weights) and the same counts
// in every metrics line, through a stop at step 30 and a resumed run to
// step 40. It runs twice: the two runs must agree on everything, the
// losses and the network's other outputs to the last bit (a test of
// determinism), and on the golden digest (a test that a refactoring
// changed nothing). The golden digest leaves the network's float outputs
// out, so that it holds on any x86-64 or arm64 CPU whose libtorch rounds
// differently in the last bits (a change there would have to flip a
// search's choice to show).
func TestPinnedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("two short training runs")
	}
	golden1, exact1 := pinnedRun(t)
	golden2, exact2 := pinnedRun(t)
	t.Logf("golden digest %s, exact digest %s", golden1, exact1)
	if exact1 != exact2 {
		t.Errorf("two runs with the same seed differ: exact digests %s and %s", exact1, exact2)
	}
	if golden1 != golden2 {
		t.Fatalf("two runs with the same seed differ: golden digests %s and %s", golden1, golden2)
	}
	if golden1 != pinnedGolden {
		t.Fatalf("the pinned run's games, evaluations or metrics changed: golden digest %s, want %s\n(if the change of behaviour is meant, set pinnedGolden to the new digest)", golden1, pinnedGolden)
	}
}

// pinnedRun trains pinnedConfig to step 30, resumes it to step 40 and
// digests the run directory: golden covers the games and the metrics that
// depend on no float computed by the network, exact everything but
// timings.
func pinnedRun(t *testing.T) (golden, exact string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	ctx := context.Background()
	for _, steps := range []int64{30, 40} {
		sum, err := Run(ctx, Options{Dir: dir, ConfigPath: pinnedConfig, MaxSteps: steps})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Step != steps {
			t.Fatalf("run stopped at step %d, want %d: %+v", sum.Step, steps, sum)
		}
	}
	g, e := sha256.New(), sha256.New()
	both := func(format string, args ...any) {
		fmt.Fprintf(g, format, args...)
		fmt.Fprintf(e, format, args...)
	}
	shards, err := data.ListShards(filepath.Join(dir, rundir.GamesDir))
	if err != nil {
		t.Fatal(err)
	}
	games, sparring := 0, 0
	for _, sh := range shards {
		recs, err := data.ReadShard(sh.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			both("game %d seed %d step %d returns %v actions %v\n", games, r.Meta.Seed, r.Meta.NetworkStep, r.Returns, r.Actions)
			for _, m := range r.Moves {
				fmt.Fprintf(e, "%+v\n", m)
				if !m.Full && !m.HasRootValue {
					sparring++
				}
			}
			games++
		}
	}
	if games == 0 || sparring == 0 {
		t.Fatalf("%d games, %d moves of a sparring partner: the run does not test what it should", games, sparring)
	}
	evals := 0
	for _, line := range metricLines(t, dir) {
		keys := make([]string, 0, len(line))
		for k := range line {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			switch {
			case timingMetric(k):
			case networkMetric(k):
				fmt.Fprintf(e, "%s=%v ", k, line[k])
			default:
				both("%s=%v ", k, line[k])
			}
		}
		both("\n")
		if line["kind"] == "eval" {
			evals++
			if _, ok := line["eval_previous_wins"]; !ok {
				t.Errorf("evaluation without the previous checkpoint: %v", line)
			}
			if p, _ := line["eval_player"].(string); !strings.Contains(p, "-avg") {
				t.Errorf("evaluation of %q, want the running mean of the weights", p)
			}
		}
	}
	if evals != 2 {
		t.Fatalf("%d evaluations, want 2 (steps 20 and 40)", evals)
	}
	return digest(g), digest(e)
}

func digest(h hash.Hash) string { return fmt.Sprintf("%x", h.Sum(nil)[:12]) }

// timingMetric reports whether a metrics key measures time.
func timingMetric(k string) bool {
	switch k {
	case "time", "elapsed_s", "selfplay_s", "train_s", "eval_s", "eval_seconds", "forward_share":
		return true
	}
	return strings.HasSuffix(k, "_per_s")
}

// networkMetric reports whether a metrics key is a float computed by the
// network (whose last bits may differ between CPUs).
func networkMetric(k string) bool {
	switch k {
	case "policy_loss", "value_loss", "total_loss", "grad_norm", "policy_entropy", "value_accuracy":
		return true
	}
	return false
}
