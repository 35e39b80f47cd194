package train

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/internal/atomicfile"
	"github.com/zerokit/zerokit/model/ckpt"
	"github.com/zerokit/zerokit/rundir"
	"github.com/zerokit/zerokit/runstore"
	"github.com/zerokit/zerokit/selfplay"
)

// Objects a store trainer keeps beside runstore's: the running mean of the
// weights, the run's agent and its meta.json, so that a trainer resumed on
// another machine continues them.
const (
	storeAverageKey = "average.ckpt"
	storeAgentDir   = "agent/"
	storeMetaKey    = "meta.json"
)

// pullFromStore makes the local run directory dir hold the store's newest
// checkpoint (with its state, the run's configuration and the running mean
// of the weights), unless dir already has one as new: how a trainer
// resumes from the store on a machine with an empty disk. A store without
// a checkpoint is a new run. Either way dir then also holds the run's
// history from the store (see pullHistory). Every operation on the store
// is retried by rt.
func pullFromStore(ctx context.Context, rt *retrier, st *runstore.Store, dir string) (pulled int64, ok bool, err error) {
	var step int64
	var have bool
	if err := rt.do(ctx, "read "+runstore.LatestKey, func(ctx context.Context) (err error) {
		step, have, err = st.LatestCheckpoint(ctx)
		return err
	}); err != nil || !have {
		return 0, false, err
	}
	cks := rundir.Checkpoints{Dir: filepath.Join(dir, rundir.CheckpointsDir), KeepLast: 1 << 30}
	if latest, have, err := cks.Latest(); err != nil {
		return 0, false, err
	} else if have && latest.Step >= step {
		return 0, false, pullHistory(ctx, rt, st, dir, false)
	}
	var cfgText []byte
	if err := rt.do(ctx, "read "+runstore.ConfigKey, func(ctx context.Context) (err error) {
		cfgText, err = st.Get(ctx, runstore.ConfigKey)
		return err
	}); err != nil {
		return 0, false, fmt.Errorf("train: the store's checkpoint %d has no configuration: %w", step, err)
	}
	if err := os.MkdirAll(cks.Dir, 0o755); err != nil {
		return 0, false, fmt.Errorf("train: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, rundir.ConfigFile), cfgText, 0o644); err != nil {
		return 0, false, fmt.Errorf("train: %w", err)
	}
	if err := rt.do(ctx, fmt.Sprintf("download checkpoint %d", step), func(ctx context.Context) error {
		return st.GetCheckpoint(ctx, step, cks.Path(step), cks.StatePath(step))
	}); err != nil {
		return 0, false, err
	}
	avg := rundir.Run{Dir: dir}.Average()
	switch err := rt.do(ctx, "download "+storeAverageKey, func(ctx context.Context) error { return st.GetFile(ctx, storeAverageKey, avg) }); {
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
	if err := pullHistory(ctx, rt, st, dir, true); err != nil {
		return 0, false, err
	}
	if err := cks.Commit(step); err != nil {
		return 0, false, err
	}
	return step, true, nil
}

// The run's history that a store trainer keeps in the store beside its
// checkpoints, and the local file of each: the metrics, the run's meta.json
// (its start and its configuration changes) and the manifest of the run's
// agent (its latest evaluations).
// The first two only grow (lines are appended, configuration changes
// added); the agent is replaced at every checkpoint, and pushAgent uploads
// it.
func historyFiles(dir string) []historyFile {
	run := rundir.Run{Dir: dir}
	return []historyFile{
		{runstore.MetricsKey, run.Metrics(), true},
		{storeMetaKey, run.Meta(), true},
		{storeAgentDir + rundir.AgentManifest, filepath.Join(run.Agent(), rundir.AgentManifest), false},
	}
}

// historyFile is a file of the run's history: its key in the store, its
// local path, and whether it only grows.
type historyFile struct {
	key, path string
	grows     bool
}

// pullHistory downloads the run's history from the store into dir (see
// historyFiles): every file when replace is set (the store's checkpoint
// is newer than dir's), else each file that dir lacks, and each growing
// file that is shorter in dir than in the store. A trainer that resumes in an empty directory thus
// appends to the run's metrics instead of uploading a file that starts at
// its resumption. Files the store lacks are left alone.
func pullHistory(ctx context.Context, rt *retrier, st *runstore.Store, dir string, replace bool) error {
	for _, f := range historyFiles(dir) {
		if !replace {
			info, err := os.Stat(f.path)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("train: %w", err)
			}
			if err == nil && !f.grows {
				continue
			}
			if err == nil {
				var size int64
				err := rt.do(ctx, "stat "+f.key, func(ctx context.Context) (err error) {
					size, err = st.Size(ctx, f.key)
					return err
				})
				if errors.Is(err, runstore.ErrNotExist) || (err == nil && size <= info.Size()) {
					continue
				}
				if err != nil {
					return err
				}
			}
		}
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return fmt.Errorf("train: %w", err)
		}
		err := rt.do(ctx, "download "+f.key, func(ctx context.Context) error { return st.GetFile(ctx, f.key, f.path) })
		if err != nil && !errors.Is(err, runstore.ErrNotExist) {
			return err
		}
	}
	return nil
}

// pushToStore uploads the committed checkpoint of step, publishes the
// network's weights for the workers, and copies the running mean of the
// weights, the run's agent and its history (metrics, meta.json). Each
// upload is retried by the trainer's retrier.
func (t *trainer) pushToStore(ctx context.Context, step int64) error {
	st := t.remote
	if err := t.retry.do(ctx, fmt.Sprintf("upload checkpoint %d", step), func(ctx context.Context) error {
		return st.PutCheckpoint(ctx, step, t.ckpts.Path(step), t.ckpts.StatePath(step))
	}); err != nil {
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
	var n runstore.Network
	if err := t.retry.do(ctx, fmt.Sprintf("publish network %d", step), func(ctx context.Context) (err error) {
		n, err = st.PublishNetwork(ctx, step, weights.Bytes())
		return err
	}); err != nil {
		return err
	}
	run := rundir.Run{Dir: t.opts.Dir}
	if fileExists(run.Average()) {
		if err := t.putFile(ctx, storeAverageKey, run.Average()); err != nil {
			return err
		}
	}
	if err := t.pushAgent(ctx, run.Agent()); err != nil {
		return err
	}
	for _, f := range historyFiles(t.opts.Dir) {
		if f.grows {
			if err := t.pushHistory(ctx, f.key, f.path); err != nil {
				return err
			}
		}
	}
	t.log.Info("published", "step", step, "network", n.Key, "bytes", n.Size, "store", st.URL())
	return nil
}

// putFile uploads a local file to the store, retrying.
func (t *trainer) putFile(ctx context.Context, key, path string) error {
	return t.retry.do(ctx, "upload "+key, func(ctx context.Context) error { return t.remote.PutFile(ctx, key, path) })
}

// pushHistory uploads a file of the run's history unless the store's copy
// is longer: the trainer never replaces the run's history with a part of
// it (pullHistory makes the local file hold the store's first).
func (t *trainer) pushHistory(ctx context.Context, key, path string) error {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	var size int64
	err = t.retry.do(ctx, "stat "+key, func(ctx context.Context) (err error) {
		size, err = t.remote.Size(ctx, key)
		return err
	})
	switch {
	case errors.Is(err, runstore.ErrNotExist):
	case err != nil:
		return err
	case size > info.Size():
		t.log.Warn("not replacing the store's longer copy", "key", key, "store_bytes", size, "local_bytes", info.Size())
		fmt.Fprintf(t.stderr, "train: warning: not uploading %s: the store's copy (%d bytes) is longer than %s (%d bytes)\n",
			key, size, path, info.Size())
		return nil
	}
	return t.putFile(ctx, key, path)
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
		if err := t.putFile(ctx, storeAgentDir+name, filepath.Join(dir, name)); err != nil {
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
	// positions counts the sampleable positions added to the buffer (those
	// owed training), moves every move of the games and full the moves
	// chosen by a full search.
	positions, moves, full int64
	workers                map[string]int
	// lagSum sums, over the games, how many steps the network that played
	// them was behind the trainer's.
	lagSum  int64
	elapsed time.Duration
	waited  time.Duration
	// backlog is the number of shards listed in the store but not read
	// yet when the ingestion ended; skipped counts the oldest ones left
	// unread because the backlog exceeded train.max_backlog_windows.
	backlog, skipped int
	// owedAtStart marks the training phase of a resumed trainer for the
	// positions it had not trained on before it stopped (no ingestion).
	owedAtStart bool
}

// storeShards splits the store's game shards (keys, in key order) into
// those a resumed trainer loads into its buffer, as its state at the
// checkpoint says it had, and the rest, which it reads as new games: the
// shards up to the state's cursor; all of them for the state of a trainer
// that kept no cursor but had read games; none for a new run.
func storeShards(keys []string, st State) (load, rest []string) {
	switch {
	case st.StoreCursor != "":
		n, _ := slices.BinarySearch(keys, st.StoreCursor)
		if n < len(keys) && keys[n] == st.StoreCursor {
			n++
		}
		return keys[:n], keys[n:]
	case st.TotalPositions > 0:
		return keys, nil
	}
	return nil, keys
}

// retryingSource is the data.ShardSource of a resumed trainer's buffer: the
// store's shards named by keys, read with retries.
type retryingSource struct {
	st    *runstore.Store
	retry *retrier
	keys  []string
}

func (s retryingSource) Shards(ctx context.Context) ([]string, error) { return s.keys, nil }

func (s retryingSource) Info(ctx context.Context, key string) (info data.ShardInfo, err error) {
	err = s.retry.do(ctx, "read "+key, func(ctx context.Context) (err error) {
		info, err = s.st.Info(ctx, key)
		return err
	})
	return info, err
}

func (s retryingSource) Open(ctx context.Context, key string) (r *data.ShardReader, err error) {
	err = s.retry.do(ctx, "download "+key, func(ctx context.Context) (err error) {
		r, err = s.st.Open(ctx, key)
		return err
	})
	return r, err
}

// queue adds the store's shard keys not yet read or queued to the shards
// to read, which it keeps in key (upload time) order.
func (t *trainer) queue(keys []string) {
	added := false
	for _, k := range keys {
		if !t.ingested[k] && !t.queued[k] {
			t.queued[k] = true
			t.pending = append(t.pending, k)
			added = true
		}
	}
	if added {
		slices.Sort(t.pending)
	}
}

// intakeSteps is how many training steps' worth of new positions a store
// trainer reads from the store before it trains on them: a local
// iteration's (train.positions_per_iteration positions), at least one.
func (t *trainer) intakeSteps() int64 {
	return max(1, int64(float64(t.cfg.Train.PositionsPerIteration)*t.cfg.Train.SamplesPerPosition/float64(t.cfg.Train.BatchSize)))
}

// ingestPhase is a store trainer's self-play phase. It lists the store's
// new game shards and reads them into the replay buffer, oldest first,
// until their positions call for a local iteration's training steps
// (intakeSteps); shards beyond that wait in the store (the backlog) for
// the next phases, so that no position leaves the replay window before it
// is trained on. When the store holds no new games and no training is
// owed, it lists the store again every train.poll and says in the log and
// on stderr that it waits: a trainer whose workers stop waits instead of
// reusing its samples more.
func (t *trainer) ingestPhase(ctx context.Context) (ingestStats, error) {
	is := ingestStats{workers: map[string]int{}}
	// Rates are over the whole iteration: since the previous ingestion
	// ended (the training phase in between included), or since the
	// trainer started.
	start := t.lastIngest
	if start.IsZero() {
		start = t.start
	}
	waiting := false
	target := t.intakeSteps()
	for {
		// Listing the last minutes finds new shards at a cost that does
		// not grow with the run.
		since := time.Now().Add(-recentMinutes)
		if time.Since(t.sweep) > sweepEvery {
			since = time.Now().Add(-sweepHours)
			t.sweep = time.Now()
		}
		var keys []string
		err := t.retry.do(ctx, "list new games", func(ctx context.Context) (err error) {
			keys, err = t.remote.ShardsSince(ctx, since)
			return err
		})
		if err != nil {
			if t.stopReason(ctx) != "" {
				break
			}
			return is, err
		}
		t.queue(keys)
		for len(t.pending) > 0 && t.owedSteps() < target && t.stopReason(ctx) == "" {
			t.skipStale(&is)
			key := t.pending[0]
			if err := t.ingest(ctx, key, &is); err != nil {
				if t.stopReason(ctx) != "" {
					break
				}
				return is, err
			}
			t.pending = t.pending[1:]
			delete(t.queued, key)
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
	is.backlog = len(t.pending)
	if is.games > 0 {
		t.state.Iteration++
		t.iterations++
	}
	return is, nil
}

// skipStale drops the oldest shards of the backlog beyond
// train.max_backlog_windows replay windows of positions, the size of a
// shard estimated from those read so far (nothing is skipped before one
// is read). The skipped shards count as read: the cursor passes them and
// they are never listed again.
func (t *trainer) skipStale(is *ingestStats) {
	w := t.cfg.Train.MaxBacklogWindows
	if w == 0 || t.shardsRead == 0 || t.positionsRead == 0 {
		return
	}
	perShard := float64(t.positionsRead) / float64(t.shardsRead)
	keep := max(1, int(math.Ceil(w*float64(t.buffer.Stats().Window)/perShard)))
	n := len(t.pending) - keep
	if n <= 0 {
		return
	}
	for _, key := range t.pending[:n] {
		delete(t.queued, key)
		t.ingested[key] = true
		t.cursor = max(t.cursor, key)
	}
	t.log.Warn("skipped stale shards", "shards", n, "first", t.pending[0], "last", t.pending[n-1],
		"max_backlog_windows", w, "kept", keep)
	fmt.Fprintf(t.stderr, "train: skipping the %d oldest unread shards (%s to %s): the backlog held more than %g replay windows (train.max_backlog_windows)\n",
		n, t.pending[0], t.pending[n-1], w)
	t.pending = t.pending[n:]
	is.skipped += n
}

// ingest adds one shard of the store to the buffer. A shard that cannot be
// read whole is skipped with a warning (a store's bad object must not stop
// the run); its games added before the problem stay.
func (t *trainer) ingest(ctx context.Context, key string, is *ingestStats) error {
	worker, _, _ := runstore.ParseShardKey(key)
	var r *data.ShardReader
	err := t.retry.do(ctx, "download "+key, func(ctx context.Context) (err error) {
		r, err = t.remote.Open(ctx, key)
		return err
	})
	if errors.Is(err, runstore.ErrNotExist) {
		t.ingested[key] = true // deleted since the listing
		return nil
	}
	if err != nil {
		return err
	}
	defer r.Close()
	positionsBefore := is.positions
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
		is.moves += int64(len(rec.Actions))
		is.full += int64(rec.FullMoves())
		is.lagSum += max(0, t.state.Step-rec.Meta.NetworkStep)
	}
	if err := r.Err(); err != nil {
		t.log.Warn("bad shard", "shard", key, "err", err)
		fmt.Fprintf(t.stderr, "train: warning: skipping the rest of %s: %v\n", key, err)
	}
	t.ingested[key] = true
	t.cursor = max(t.cursor, key)
	is.shards++
	t.shardsRead++
	t.positionsRead += is.positions - positionsBefore
	return nil
}

// selfPlayStats turns an ingestion into the self-play statistics of the
// iteration's report: positions are moves, as a local run's self-play
// counts them.
func (is ingestStats) selfPlayStats() selfplay.Stats {
	return selfplay.Stats{Games: is.games, Positions: is.moves, FullPositions: is.full, Searches: is.moves, Elapsed: is.elapsed}
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
	s := fmt.Sprintf("%d shards from %d workers [%s], network lag %.0f steps, waited %.0fs, backlog %d shards", is.shards, len(is.workers),
		strings.Join(ws, " "), lag, is.waited.Seconds(), is.backlog)
	if is.skipped > 0 {
		s += fmt.Sprintf(", %d stale shards skipped", is.skipped)
	}
	if is.rejected > 0 {
		s += fmt.Sprintf(", %d games rejected", is.rejected)
	}
	return s
}
