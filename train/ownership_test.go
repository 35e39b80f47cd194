package train

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/model/torch"
	"github.com/zerokit/zerokit/rundir"
)

// TestOwnershipRun trains a tiny Squatter run with the ownership head
// (model.ownership_head, optimizer.ownership_loss_weight): its iterations
// report the ownership loss, its checkpoints carry the head, and its final
// network predicts who holds each cell at the end of the run's games
// better than its first.
func TestOwnershipRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	ctx := context.Background()
	var stderr strings.Builder
	const steps = 60
	sum, err := Run(ctx, Options{Dir: dir, ConfigPath: "testdata/squatter-ownership.yaml", MaxSteps: steps, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Step != steps {
		t.Fatalf("run stopped at step %d, want %d", sum.Step, steps)
	}
	if !strings.Contains(stderr.String(), " ownership ") {
		t.Errorf("iteration lines do not report the ownership loss:\n%s", stderr.String())
	}
	trained := 0
	for _, l := range metricLines(t, dir) {
		if _, ok := l["policy_loss"]; !ok {
			continue
		}
		trained++
		v, ok := l["ownership_loss"].(float64)
		if !ok || !(v > 0) || math.IsInf(v, 0) {
			t.Errorf("training iteration with ownership loss %v: %v", l["ownership_loss"], l)
		}
	}
	if trained == 0 {
		t.Fatal("no iteration trained")
	}

	cfg, err := LoadConfig(filepath.Join(dir, rundir.ConfigFile))
	if err != nil {
		t.Fatal(err)
	}
	game, err := games.New(cfg.Game)
	if err != nil {
		t.Fatal(err)
	}
	const n = 256
	mb := runBatch(t, dir, cfg, game, n, true)
	ck := rundir.Checkpoints{Dir: filepath.Join(dir, rundir.CheckpointsDir)}
	for _, step := range []int64{0, steps} {
		c, err := torch.Load(ck.Path(step), torch.Expect{Game: game.Name(), EncodingVersion: game.EncodingVersion(), Shape: neural.ShapeOf(game)})
		if err != nil {
			t.Fatal(err)
		}
		head := c.Net.Config().OwnershipHead
		c.Net.Close()
		if !head {
			t.Fatalf("checkpoint %d has no ownership head", step)
		}
	}
	loss := func(step int64) torch.Losses { return batchLoss(t, ck.Path(step), cfg, game, mb) }
	initial, final := loss(0), loss(steps)
	t.Logf("ownership loss on %d positions: initial %.3f, after %d steps %.3f (total %.3f -> %.3f)", n, initial.Ownership, steps, final.Ownership, initial.Total, final.Total)
	if !(final.Ownership < 0.9*initial.Ownership) {
		t.Fatalf("ownership loss did not fall: initial %.3f, final %.3f", initial.Ownership, final.Ownership)
	}
}
