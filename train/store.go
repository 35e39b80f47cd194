package train

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/zerokit/zerokit/internal/atomicfile"
	"github.com/zerokit/zerokit/model/ckpt"
	"github.com/zerokit/zerokit/rundir"
	"github.com/zerokit/zerokit/runstore"
	"github.com/zerokit/zerokit/selfplay"
)

// Objects a store trainer keeps beside runstore's: the running mean of the
// weights and the run's agent, so that a trainer resumed on another machine
// continues them.
const (
	storeAverageKey = "average.ckpt"
	storeAgentDir   = "agent/"
)

// pullFromStore makes the local run directory dir hold the store's newest
// checkpoint (with its state, the run's configuration and the running mean
// of the weights), unless dir already has one as new: how a trainer
// resumes from the store on a machine with an empty disk. A store without
// a checkpoint is a new run.
func pullFromStore(ctx context.Context, st *runstore.Store, dir string) (pulled int64, ok bool, err error) {
	step, ok, err := st.LatestCheckpoint(ctx)
	if err != nil || !ok {
		return 0, false, err
	}
	cks := rundir.Checkpoints{Dir: filepath.Join(dir, CheckpointsDir), KeepLast: 1 << 30}
	if latest, have, err := cks.Latest(); err != nil {
		return 0, false, err
	} else if have && latest.Step >= step {
		return 0, false, nil
	}
	cfgText, err := st.Get(ctx, runstore.ConfigKey)
	if err != nil {
		return 0, false, fmt.Errorf("train: the store's checkpoint %d has no configuration: %w", step, err)
	}
	if err := os.MkdirAll(cks.Dir, 0o755); err != nil {
		return 0, false, fmt.Errorf("train: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, ConfigFile), cfgText, 0o644); err != nil {
		return 0, false, fmt.Errorf("train: %w", err)
	}
	if err := st.GetCheckpoint(ctx, step, cks.Path(step), cks.StatePath(step)); err != nil {
		return 0, false, err
	}
	avg := rundir.Run{Dir: dir}.Average()
	switch err := st.GetFile(ctx, storeAverageKey, avg); {
	case errors.Is(err, runstore.ErrNotExist):
		if err := os.Remove(avg); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return 0, false, fmt.Errorf("train: %w", err)
		}
	case err != nil:
		return 0, false, err
	default:
		// A mean ahead of the checkpoint (the trainer died between
		// uploading them) would count steps twice: start it again.
		if h, err := readHeader(avg); err != nil || len(h.AveragedSteps) == 0 || h.AveragedSteps[len(h.AveragedSteps)-1] > step {
			os.Remove(avg)
		}
	}
	if err := cks.Commit(step); err != nil {
		return 0, false, err
	}
	return step, true, nil
}

// pushToStore uploads the committed checkpoint of step, publishes the
// network's weights for the workers, and copies the running mean of the
// weights, the run's agent and the metrics.
func (t *trainer) pushToStore(ctx context.Context, step int64) error {
	st := t.remote
	if err := st.PutCheckpoint(ctx, step, t.ckpts.Path(step), t.ckpts.StatePath(step)); err != nil {
		return err
	}
	c, err := ckpt.ReadFile(t.ckpts.Path(step))
	if err != nil {
		return fmt.Errorf("train: publish: %w", err)
	}
	c.Header.Optimizer, c.Optimizer = nil, nil
	var weights bytes.Buffer
	if err := ckpt.Write(&weights, c); err != nil {
		return fmt.Errorf("train: publish: %w", err)
	}
	n, err := st.PublishNetwork(ctx, step, weights.Bytes())
	if err != nil {
		return err
	}
	run := rundir.Run{Dir: t.opts.Dir}
	if fileExists(run.Average()) {
		if err := st.PutFile(ctx, storeAverageKey, run.Average()); err != nil {
			return err
		}
	}
	if err := t.pushAgent(ctx, run.Agent()); err != nil {
		return err
	}
	if err := st.PutFile(ctx, runstore.MetricsKey, run.Metrics()); err != nil {
		return err
	}
	t.log.Info("published", "step", step, "network", n.Key, "bytes", n.Size, "store", st.URL())
	return nil
}

// pushAgent copies the run's agent directory into the store, its manifest
// last (the manifest names the weights by checksum).
func (t *trainer) pushAgent(ctx context.Context, dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && !strings.HasPrefix(e.Name(), ".") && e.Name() != rundir.AgentManifest {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	names = append(names, rundir.AgentManifest)
	for _, name := range names {
		if err := t.remote.PutFile(ctx, storeAgentDir+name, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// A store trainer lists the game shards of the last recentMinutes every
// train.poll, and those of the last sweepHours every sweepEvery (a late
// upload, a worker whose clock is off); all of them only when it starts.
const (
	recentMinutes = 3 * time.Minute
	sweepHours    = 3 * time.Hour
	sweepEvery    = 10 * time.Minute
)

// ingestStats summarises one wait for games from the store.
type ingestStats struct {
	shards, games, rejected int
	positions               int64
	workers                 map[string]int
	// lagSum sums, over the games, how many steps the network that played
	// them was behind the trainer's.
	lagSum  int64
	elapsed time.Duration
	waited  time.Duration
}

// ingestPhase is a store trainer's self-play phase: it adds the store's
// new game shards to the replay buffer until their positions call for
// training steps (or the run must stop), listing the store every
// train.poll and saying in the log and on stderr when it waits.
func (t *trainer) ingestPhase(ctx context.Context) (ingestStats, error) {
	is := ingestStats{workers: map[string]int{}}
	// Rates are over the whole iteration: since the previous ingestion
	// ended (the training phase in between included).
	start := t.lastIngest
	if start.IsZero() {
		start = time.Now()
	}
	waiting := false
	for {
		// Listing the last minutes finds new shards at a cost that does
		// not grow with the run.
		since := time.Now().Add(-recentMinutes)
		if time.Since(t.sweep) > sweepEvery {
			since = time.Now().Add(-sweepHours)
			t.sweep = time.Now()
		}
		keys, err := t.remote.ShardsSince(ctx, since)
		if err != nil {
			if t.stopReason(ctx) != "" {
				break
			}
			return is, err
		}
		for _, key := range keys {
			if t.ingested[key] {
				continue
			}
			if err := t.ingest(ctx, key, &is); err != nil {
				return is, err
			}
		}
		if t.owedSteps() > 0 || t.stopReason(ctx) != "" {
			break
		}
		if !waiting {
			waiting = true
			bs := t.buffer.Stats()
			msg := fmt.Sprintf("waiting for games from the workers: the %d positions so far are trained on (%g samples per position); listing %s every %v",
				bs.TotalPositions, t.cfg.Train.SamplesPerPosition, t.remote.URL(), t.cfg.Train.Poll)
			if bs.Positions < t.cfg.Train.MinBufferPositions {
				msg = fmt.Sprintf("waiting for games from the workers: %d positions in the buffer, training starts at %d; listing %s every %v",
					bs.Positions, t.cfg.Train.MinBufferPositions, t.remote.URL(), t.cfg.Train.Poll)
			}
			t.log.Info("waiting for games", "positions", bs.TotalPositions, "buffer", bs.Positions, "poll", t.cfg.Train.Poll)
			fmt.Fprintf(t.stderr, "train: %s\n", msg)
		}
		wait := time.Now()
		wctx, cancel := t.limited(ctx)
		select {
		case <-wctx.Done():
		case <-time.After(t.cfg.Train.Poll):
		}
		cancel()
		is.waited += time.Since(wait)
	}
	t.lastIngest = time.Now()
	is.elapsed = t.lastIngest.Sub(start)
	if is.games > 0 {
		t.state.Iteration++
		t.iterations++
	}
	return is, nil
}

// ingest adds one shard of the store to the buffer. A shard that cannot be
// read whole is skipped with a warning (a store's bad object must not stop
// the run); its games added before the problem stay.
func (t *trainer) ingest(ctx context.Context, key string, is *ingestStats) error {
	worker, _, _ := runstore.ParseShardKey(key)
	r, err := t.remote.Open(ctx, key)
	if errors.Is(err, runstore.ErrNotExist) {
		t.ingested[key] = true // deleted since the listing
		return nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer r.Close()
	for r.Next() {
		rec := r.Record()
		before := t.buffer.Stats().TotalPositions
		if err := t.buffer.Add(&rec); err != nil {
			t.log.Warn("rejected game", "shard", key, "record", r.Index(), "err", err)
			fmt.Fprintf(t.stderr, "train: warning: %s: record %d rejected: %v\n", key, r.Index(), err)
			is.rejected++
			continue
		}
		is.games++
		is.workers[worker]++
		is.positions += t.buffer.Stats().TotalPositions - before
		is.lagSum += max(0, t.state.Step-rec.Meta.NetworkStep)
	}
	if err := r.Err(); err != nil {
		t.log.Warn("bad shard", "shard", key, "err", err)
		fmt.Fprintf(t.stderr, "train: warning: skipping the rest of %s: %v\n", key, err)
	}
	t.ingested[key] = true
	is.shards++
	return nil
}

// selfPlayStats turns an ingestion into the self-play statistics of the
// iteration's report.
func (is ingestStats) selfPlayStats() selfplay.Stats {
	return selfplay.Stats{Games: is.games, Positions: is.positions, Searches: is.positions, Elapsed: is.elapsed}
}

// describe is the ingestion's part of the iteration line.
func (is ingestStats) describe() string {
	var ws []string
	for w, n := range is.workers {
		ws = append(ws, fmt.Sprintf("%s:%d", w, n))
	}
	sort.Strings(ws)
	lag := 0.0
	if is.games > 0 {
		lag = float64(is.lagSum) / float64(is.games)
	}
	s := fmt.Sprintf("%d shards from %d workers [%s], network lag %.0f steps, waited %.0fs", is.shards, len(is.workers),
		strings.Join(ws, " "), lag, is.waited.Seconds())
	if is.rejected > 0 {
		s += fmt.Sprintf(", %d games rejected", is.rejected)
	}
	return s
}
