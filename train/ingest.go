package train

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/runstore"
	"github.com/zerokit/zerokit/selfplay"
)

// storeGames is the game source of a store trainer (train.self_play
// store): the shards of games that self-play workers upload to the run's
// store, read into the buffer as training calls for them.
type storeGames struct {
	t     *trainer
	st    *runstore.Store
	retry *runstore.Retrier
	// ingested holds the store's shards already in the buffer, pending
	// those listed but not read yet (in key order; queued is the same
	// set), cursor the greatest key read. shardsRead and positionsRead
	// count the shards read by this process and their positions (the
	// estimate of a shard's size for train.max_backlog_windows).
	ingested                  map[string]bool
	pending                   []string
	queued                    map[string]bool
	cursor                    string
	shardsRead, positionsRead int64
	// sweep is when the store's last hours of shards were last listed,
	// lastIngest when the latest ingestion of games ended.
	sweep, lastIngest time.Time
}

func newStoreGames(t *trainer, st *runstore.Store, retry *runstore.Retrier) *storeGames {
	return &storeGames{t: t, st: st, retry: retry, ingested: map[string]bool{}, queued: map[string]bool{}}
}

// load reads into the buffer the store's shards that the resumed state
// says the trainer had read (see storeShards), and queues the rest as new
// games.
func (g *storeGames) load(ctx context.Context) (data.LoadStats, string, error) {
	t := g.t
	var keys []string
	if err := g.retry.Do(ctx, "list "+runstore.GamesPrefix, func(ctx context.Context) (err error) {
		keys, err = g.st.Shards(ctx)
		return err
	}); err != nil {
		return data.LoadStats{}, g.st.URL(), err
	}
	load, rest := storeShards(keys, t.state)
	ls, err := t.buffer.LoadFrom(ctx, retryingSource{st: g.st, retry: g.retry, keys: load})
	if err != nil {
		return ls, g.st.URL(), err
	}
	g.sweep = time.Now()
	for _, name := range ls.Names {
		g.ingested[name] = true
	}
	if len(ls.Names) > 0 {
		g.cursor = ls.Names[len(ls.Names)-1]
	}
	g.queue(rest)
	t.log.Info("store", "url", g.st.URL(), "backlog_shards", len(g.pending), "retry_limit", g.retry.Limit)
	fmt.Fprintf(t.stderr, "train: store %s: %d shards of games not read yet; store operations that fail are retried for up to %v\n",
		g.st.URL(), len(g.pending), g.retry.Limit)
	return ls, g.st.URL(), nil
}

func (g *storeGames) gather(ctx context.Context) (selfplay.Stats, *ingestStats, error) {
	is, err := g.ingestPhase(ctx)
	g.t.games += is.games
	return is.selfPlayStats(), &is, err
}

// The workers play the next games whatever the trainer does, and apply
// the recipe's stages themselves (see Work).
func (g *storeGames) underWay() bool                                      { return false }
func (g *storeGames) ahead(ctx context.Context, stage func() error) error { return nil }
func (g *storeGames) finish() error                                       { return nil }
func (g *storeGames) close()                                              {}
func (g *storeGames) setSparring(string, float64, func(seed uint64) (selfplay.Opponent, error)) error {
	return nil
}

func (g *storeGames) restart() *ingestStats {
	return &ingestStats{owedAtStart: true, backlog: len(g.pending)}
}

// limit: workers may have delivered a backlog: the trainer trains on it
// in phases of a local iteration's length, so that new games and progress
// reports keep coming.
func (g *storeGames) limit(owed int64) int64 { return min(owed, g.intakeSteps()) }

func (g *storeGames) mark(st *State) { st.StoreCursor = g.cursor }

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
	retry *runstore.Retrier
	keys  []string
}

func (s retryingSource) Shards(ctx context.Context) ([]string, error) { return s.keys, nil }

func (s retryingSource) Info(ctx context.Context, key string) (info data.ShardInfo, err error) {
	err = s.retry.Do(ctx, "read "+key, func(ctx context.Context) (err error) {
		info, err = s.st.Info(ctx, key)
		return err
	})
	return info, err
}

func (s retryingSource) Open(ctx context.Context, key string) (r *data.ShardReader, err error) {
	err = s.retry.Do(ctx, "download "+key, func(ctx context.Context) (err error) {
		r, err = s.st.Open(ctx, key)
		return err
	})
	return r, err
}

// queue adds the store's shard keys not yet read or queued to the shards
// to read, which it keeps in key (upload time) order.
func (g *storeGames) queue(keys []string) {
	added := false
	for _, k := range keys {
		if !g.ingested[k] && !g.queued[k] {
			g.queued[k] = true
			g.pending = append(g.pending, k)
			added = true
		}
	}
	if added {
		slices.Sort(g.pending)
	}
}

// intakeSteps is how many training steps' worth of new positions a store
// trainer reads from the store before it trains on them: a local
// iteration's (train.positions_per_iteration positions), at least one.
func (g *storeGames) intakeSteps() int64 {
	t := g.t
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
func (g *storeGames) ingestPhase(ctx context.Context) (ingestStats, error) {
	t := g.t
	is := ingestStats{workers: map[string]int{}}
	// Rates are over the whole iteration: since the previous ingestion
	// ended (the training phase in between included), or since the
	// trainer started.
	start := g.lastIngest
	if start.IsZero() {
		start = t.start
	}
	waiting := false
	target := g.intakeSteps()
	for {
		// Listing the last minutes finds new shards at a cost that does
		// not grow with the run.
		since := time.Now().Add(-recentMinutes)
		if time.Since(g.sweep) > sweepEvery {
			since = time.Now().Add(-sweepHours)
			g.sweep = time.Now()
		}
		var keys []string
		err := g.retry.Do(ctx, "list new games", func(ctx context.Context) (err error) {
			keys, err = g.st.ShardsSince(ctx, since)
			return err
		})
		if err != nil {
			if t.stopReason(ctx) != "" {
				break
			}
			return is, err
		}
		g.queue(keys)
		for len(g.pending) > 0 && t.owedSteps() < target && t.stopReason(ctx) == "" {
			g.skipStale(&is)
			key := g.pending[0]
			if err := g.ingest(ctx, key, &is); err != nil {
				if t.stopReason(ctx) != "" {
					break
				}
				return is, err
			}
			g.pending = g.pending[1:]
			delete(g.queued, key)
		}
		if t.owedSteps() > 0 || t.stopReason(ctx) != "" {
			break
		}
		if !waiting {
			waiting = true
			bs := t.buffer.Stats()
			msg := fmt.Sprintf("waiting for games from the workers: the %d positions so far are trained on (%g samples per position); listing %s every %v",
				bs.TotalPositions, t.cfg.Train.SamplesPerPosition, g.st.URL(), t.cfg.Train.Poll)
			if bs.Positions < t.cfg.Train.MinBufferPositions {
				msg = fmt.Sprintf("waiting for games from the workers: %d positions in the buffer, training starts at %d; listing %s every %v",
					bs.Positions, t.cfg.Train.MinBufferPositions, g.st.URL(), t.cfg.Train.Poll)
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
	g.lastIngest = time.Now()
	is.elapsed = g.lastIngest.Sub(start)
	is.backlog = len(g.pending)
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
func (g *storeGames) skipStale(is *ingestStats) {
	t := g.t
	w := t.cfg.Train.MaxBacklogWindows
	if w == 0 || g.shardsRead == 0 || g.positionsRead == 0 {
		return
	}
	perShard := float64(g.positionsRead) / float64(g.shardsRead)
	keep := max(1, int(math.Ceil(w*float64(t.buffer.Stats().Window)/perShard)))
	n := len(g.pending) - keep
	if n <= 0 {
		return
	}
	for _, key := range g.pending[:n] {
		delete(g.queued, key)
		g.ingested[key] = true
		g.cursor = max(g.cursor, key)
	}
	t.log.Warn("skipped stale shards", "shards", n, "first", g.pending[0], "last", g.pending[n-1],
		"max_backlog_windows", w, "kept", keep)
	fmt.Fprintf(t.stderr, "train: skipping the %d oldest unread shards (%s to %s): the backlog held more than %g replay windows (train.max_backlog_windows)\n",
		n, g.pending[0], g.pending[n-1], w)
	g.pending = g.pending[n:]
	is.skipped += n
}

// ingest adds one shard of the store to the buffer. A shard that cannot be
// read whole is skipped with a warning (a store's bad object must not stop
// the run); its games added before the problem stay.
func (g *storeGames) ingest(ctx context.Context, key string, is *ingestStats) error {
	t := g.t
	worker, _, _ := runstore.ParseShardKey(key)
	var r *data.ShardReader
	err := g.retry.Do(ctx, "download "+key, func(ctx context.Context) (err error) {
		r, err = g.st.Open(ctx, key)
		return err
	})
	if errors.Is(err, runstore.ErrNotExist) {
		g.ingested[key] = true // deleted since the listing
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
	g.ingested[key] = true
	g.cursor = max(g.cursor, key)
	is.shards++
	g.shardsRead++
	g.positionsRead += is.positions - positionsBefore
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
