package train

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/model/arch"
	"github.com/zerokit/zerokit/model/torch"
	"github.com/zerokit/zerokit/rundir"
)

// prepare builds the trainer's network and optimizer, new or resumed from
// the run's latest checkpoint, its replay buffer with the run's games so
// far, and its metrics and evaluation, and saves step 0 of a new run.
func (t *trainer) prepare(ctx context.Context) error {
	cfg := t.cfg
	setup, err := NewSetup(cfg)
	if err != nil {
		return err
	}
	game := setup.Game
	t.setup, t.game, t.shape = setup, game, setup.Shape
	t.log.Info("start", "dir", t.opts.Dir, "game", game.Name(), "pid", os.Getpid(), "seed", cfg.Seed,
		"max_steps", t.opts.MaxSteps, "max_duration", t.opts.MaxDuration)

	if cfg.Train.SelfPlay == SelfPlayStore {
		t.source = newStoreGames(t, t.run.Store(), t.run.Retrier())
	} else {
		g, err := openSelfPlayGames(t)
		if err != nil {
			return err
		}
		t.source = g
	}

	t.ckpts = t.run.Layout().Checkpoints()
	t.ckpts.KeepLast, t.ckpts.KeepEvery = cfg.Checkpoint.KeepLast, cfg.Checkpoint.KeepEvery
	if err := os.MkdirAll(t.ckpts.Dir, 0o755); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	latest, ok, err := t.ckpts.Latest()
	if err != nil {
		return err
	}
	if ok && t.opts.Init != "" {
		return fmt.Errorf("train: -init %s: the run already has checkpoints (step %d) and resumes from them; -init starts a new run only", t.opts.Init, latest.Step)
	}
	if ok {
		ck, err := setup.Load(t.ckpts.Path(latest.Step))
		if err != nil {
			return fmt.Errorf("train: resume: %w", err)
		}
		t.net = ck.Net
		if t.tr, err = torch.NewTrainer(t.net, cfg.Optimizer); err != nil {
			return fmt.Errorf("train: %w", err)
		}
		if err := t.tr.Restore(ck); err != nil {
			return fmt.Errorf("train: resume: %w", err)
		}
		if t.state, err = readState(t.ckpts.StatePath(latest.Step)); err != nil {
			return err
		}
		if t.state.Step != latest.Step || ck.Step != latest.Step {
			return fmt.Errorf("train: resume: checkpoint %d has state for step %d and network for step %d",
				latest.Step, t.state.Step, ck.Step)
		}
		if t.state.Seed != cfg.Seed {
			return fmt.Errorf("train: resume: checkpoint seed %d differs from the configuration's %d", t.state.Seed, cfg.Seed)
		}
		t.resumed = true
	} else {
		t.state = State{Seed: cfg.Seed}
		if t.opts.Init != "" {
			if t.net, t.state.Init, err = setup.InitNet(t.opts.Init); err != nil {
				return err
			}
			t.log.Info("init", "weights", t.state.Init)
			fmt.Fprintf(t.stderr, "train: a new run from the weights %s\n", t.state.Init)
		} else if t.net, err = setup.NewNet(); err != nil {
			return err
		}
		if t.tr, err = torch.NewTrainer(t.net, cfg.Optimizer); err != nil {
			return fmt.Errorf("train: %w", err)
		}
	}
	t.device = torch.DeviceName(t.net.Device())
	if err := recordDevice(t.opts.Dir, cfg.Device, t.device); err != nil {
		return err
	}
	t.log.Info("device", "device", t.device, "configured", cfg.Device)
	if spec, _ := arch.ParseDevice(cfg.Device); spec.Auto {
		fmt.Fprintf(t.stderr, "train: device auto: chose %s\n", t.device)
	}
	t.trainedBefore = t.state.TrainSeconds
	t.lastSaved = -1
	if ok {
		t.lastSaved = t.state.Step
	}

	bc := cfg.Buffer
	bc.Seed = deriveSeed(cfg.Seed, "buffer", uint64(t.state.Step))
	if t.buffer, err = data.NewBuffer(game, bc); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	ls, srcName, err := t.source.load(ctx)
	if err != nil {
		return fmt.Errorf("train: loading games: %w", err)
	}
	bs := t.buffer.Stats()
	if bs.TotalPositions < int64(t.state.PositionsTrained) {
		// Positions the checkpoint counted are gone from disk.
		return fmt.Errorf("train: resume: %s holds %d positions but the checkpoint had trained on %.0f; were games deleted?",
			srcName, bs.TotalPositions, t.state.PositionsTrained)
	}
	if t.metrics, err = rundir.OpenMetrics(t.run.Layout().Metrics()); err != nil {
		return err
	}
	t.evals = &evaluator{setup: setup, ckpts: t.ckpts, average: t.run.Layout().Average(),
		metrics: t.metrics, log: t.log, stderr: t.stderr, revision: t.revision()}
	t.configPath = t.opts.ConfigPath
	if t.configPath == "" {
		t.configPath = startConfig(t.opts.Dir)
	}
	if err := t.applyStage(); err != nil {
		return err
	}
	if m, err := os.ReadFile(filepath.Join(t.run.Layout().Agent(), rundir.AgentManifest)); err == nil {
		// The run's agent keeps the latest evaluation across restarts.
		if m, err := neural.DecodeManifest(m); err == nil && m.Provenance != nil {
			t.evaluations = m.Provenance.Evaluations
		}
	}
	if ok {
		// A crash between a checkpoint's commit and its averaging leaves
		// that step out of the mean; and an agent is due after any stop.
		if err := t.average(latest.Step); err != nil {
			return err
		}
		if err := t.refreshAgent(latest.Step); err != nil {
			return err
		}
		// A store may lack what a trainer killed while uploading had
		// saved locally.
		if err := t.run.Push(ctx, latest.Step); err != nil {
			return err
		}
	}

	for i := range t.slots {
		if t.slots[i], err = newSampleSlot(t.tr, cfg.Train.BatchSize, t.shape.Actions, cfg.Buffer.ValueOnlyPositions); err != nil {
			return err
		}
	}

	t.log.Info("ready", "resumed", t.resumed, "step", t.state.Step, "next_game", t.state.NextGame,
		"shards", ls.Shards, "games_loaded", ls.Games, "positions_total", bs.TotalPositions,
		"window", bs.Window, "params", t.net.NumParams(), "store", t.opts.Store)
	fmt.Fprintf(t.stderr, "train: %s %s at step %d, %d positions in %s (%d in the window), network %d blocks x %d channels (%d parameters)\n",
		map[bool]string{true: "resuming", false: "starting"}[t.resumed], t.opts.Dir, t.state.Step,
		bs.TotalPositions, srcName, bs.Positions, cfg.NetConfig().Blocks, cfg.NetConfig().Channels, t.net.NumParams())
	if !ok {
		// Step 0 is the baseline of the first evaluation against the
		// previous checkpoint (and, with a store, the workers' first
		// network).
		if err := t.save(); err != nil {
			return err
		}
	}
	return nil
}
