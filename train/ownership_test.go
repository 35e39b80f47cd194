package train

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/data"
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
	bc := cfg.Buffer
	bc.Seed = 99
	buf, err := data.NewBuffer(game, bc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := buf.Load(ctx, filepath.Join(dir, rundir.GamesDir)); err != nil {
		t.Fatal(err)
	}
	const n = 256
	shape := neural.ShapeOf(game)
	db := data.Batch{Obs: make([]float32, n*shape.Size()), Policy: make([]float32, n*shape.Actions), Value: make([]float32, n),
		Mask: make([]float32, n*shape.Actions), Ownership: make([]float32, n*shape.Height*shape.Width)}
	if bc.ValueOnlyPositions {
		db.PolicyWeight = make([]float32, n)
	}
	if err := buf.Sample(n, &db); err != nil {
		t.Fatal(err)
	}
	mb := torch.Batch{N: n, Obs: db.Obs, Policy: db.Policy, Value: db.Value, Ownership: db.Ownership, Legal: make([]bool, len(db.Mask))}
	for i, m := range db.Mask {
		mb.Legal[i] = m != 0
	}
	loss := func(step int64) torch.Losses {
		path := rundir.Checkpoints{Dir: filepath.Join(dir, rundir.CheckpointsDir)}.Path(step)
		ck, err := torch.Load(path, torch.Expect{Game: game.Name(), EncodingVersion: game.EncodingVersion(), Shape: shape})
		if err != nil {
			t.Fatal(err)
		}
		defer ck.Net.Close()
		if !ck.Net.Config().OwnershipHead {
			t.Fatalf("checkpoint %d has no ownership head", step)
		}
		tr, err := torch.NewTrainer(ck.Net, cfg.Optimizer)
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		l, err := tr.Loss(mb)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	initial, final := loss(0), loss(steps)
	t.Logf("ownership loss on %d positions: initial %.3f, after %d steps %.3f (total %.3f -> %.3f)", n, initial.Ownership, steps, final.Ownership, initial.Total, final.Total)
	if !(final.Ownership < 0.9*initial.Ownership) {
		t.Fatalf("ownership loss did not fall: initial %.3f, final %.3f", initial.Ownership, final.Ownership)
	}
}
