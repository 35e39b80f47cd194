package train

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/rundir"
	"github.com/zerokit/zerokit/runstore"
	"github.com/zerokit/zerokit/runstore/runstoretest"
)

const storeConfig = "testdata/tictactoe-store.yaml"

// randomGame plays a random game of g and records it as a worker would:
// about half the moves full searches with a policy over the legal actions.
func randomGame(t testing.TB, g env.Game, rng *rand.Rand) *data.Record {
	t.Helper()
	s := g.NewInitialState()
	rec := &data.Record{Game: g.Name(), EncodingVersion: g.EncodingVersion(),
		Meta: data.Meta{Seed: rng.Uint64(), Time: time.Now().UTC().Round(time.Millisecond)}}
	var legal []int
	for !s.IsTerminal() {
		legal = s.LegalActions(legal)
		m := data.Move{Full: rng.IntN(2) == 0}
		if m.Full {
			for _, a := range legal {
				m.Policy = append(m.Policy, data.ActionProb{Action: int32(a), Prob: 1 / float32(len(legal))})
			}
		}
		a := legal[rng.IntN(len(legal))]
		rec.Actions = append(rec.Actions, a)
		rec.Moves = append(rec.Moves, m)
		if err := s.ApplyAction(a); err != nil {
			t.Fatal(err)
		}
	}
	rec.Returns = s.Returns()
	return rec
}

// shardStats counts what putShards uploaded.
type shardStats struct {
	games int
	// positions counts the sampleable positions, and maxShard the most of
	// them in one shard.
	positions, maxShard int64
}

// valueOnly reports whether the store test configuration samples every
// position (buffer.value_only_positions).
func valueOnly(t *testing.T) bool {
	t.Helper()
	cfg, err := LoadConfig(storeConfig)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Buffer.ValueOnlyPositions
}

// putShards uploads shards shards of n random games each to the store, as
// worker's shards seq0, seq0+1, ...
func putShards(t *testing.T, st *runstore.Store, worker string, seq0 int64, shards, n int, rng *rand.Rand) shardStats {
	t.Helper()
	g := tinyGame(t)
	var ss shardStats
	for i := range shards {
		var b data.ShardBuilder
		for range n {
			if err := b.Add(randomGame(t, g, rng)); err != nil {
				t.Fatal(err)
			}
		}
		key, err := runstore.ShardKey(time.Now(), worker, seq0+int64(i))
		if err != nil {
			t.Fatal(err)
		}
		if err := st.PutShard(context.Background(), key, bytes.NewReader(b.Bytes())); err != nil {
			t.Fatal(err)
		}
		// The sampleable positions, as the trainer counts them: every
		// move with the buffer's value_only_positions (the store test
		// configuration's), else the full ones.
		pos := b.Info().FullMoves
		if valueOnly(t) {
			pos = b.Info().Moves
		}
		ss.games += n
		ss.positions += pos
		ss.maxShard = max(ss.maxShard, pos)
	}
	return ss
}

// lines records what a trainer writes on stderr, line by line, with the
// time each line arrived.
type lines struct {
	mu      sync.Mutex
	partial []byte
	text    []string
	at      []time.Time
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		l.text = append(l.text, string(l.partial[:i]))
		l.at = append(l.at, time.Now())
		l.partial = l.partial[i+1:]
	}
}

// find returns the index of the first line from from on that contains s,
// or -1.
func (l *lines) find(from int, s string) int {
	return l.index(from, func(line string) bool { return strings.Contains(line, s) })
}

// findPrefix is find for a line that begins with s.
func (l *lines) findPrefix(from int, s string) int {
	return l.index(from, func(line string) bool { return strings.HasPrefix(line, s) })
}

// index returns the index of the first line from from on for which match
// holds, or -1.
func (l *lines) index(from int, match func(string) bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := from; i < len(l.text); i++ {
		if match(l.text[i]) {
			return i
		}
	}
	return -1
}

func (l *lines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.text, "\n")
}

// waitLine waits until a line from from on contains s and returns its
// index; it fails the test after limit or when done is closed first.
func waitLine(t *testing.T, l *lines, from int, s string, limit time.Duration, done <-chan struct{}) int {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		if i := l.find(from, s); i >= 0 {
			return i
		}
		select {
		case <-done:
			t.Fatalf("the trainer stopped before saying %q:\n%s", s, l)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q after %v:\n%s", s, limit, l)
		}
	}
}

// storeTrainer runs a store trainer in the background.
type storeTrainer struct {
	out    lines
	cancel context.CancelFunc
	done   chan struct{}
	sum    Summary
	err    error
}

func startStoreTrainer(t *testing.T, opts Options) *storeTrainer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st := &storeTrainer{cancel: cancel, done: make(chan struct{})}
	opts.Stderr = &st.out
	go func() {
		defer close(st.done)
		st.sum, st.err = Run(ctx, opts)
	}()
	t.Cleanup(func() {
		cancel()
		<-st.done
	})
	return st
}

// stop cancels the trainer (a signal) and waits for it.
func (st *storeTrainer) stop(t *testing.T) {
	t.Helper()
	st.cancel()
	select {
	case <-st.done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the trainer did not stop within 2 minutes of its cancellation")
	}
}

// metricsOfKind reads a metrics file's lines of kind.
func metricsOfKind(t *testing.T, b []byte, kind string) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("metrics line %q: %v", sc.Text(), err)
		}
		if m["kind"] == kind {
			out = append(out, m)
		}
	}
	return out
}

// storeConfigWith writes the store test configuration with the lines old
// replaced by new (pairs) into the test's directory.
func storeConfigWith(t *testing.T, pairs ...string) string {
	t.Helper()
	b, err := os.ReadFile(storeConfig)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for i := 0; i < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("%s has no %q", storeConfig, pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func openStore(t *testing.T, url string) *runstore.Store {
	t.Helper()
	st, err := runstore.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

var storeRate = regexp.MustCompile(`^it \d+ step \d+: (\d+) games from the store \(([0-9.]+)/s`)

// TestStoreTrainerKeepsHistory: a store trainer resumed in an empty work
// directory continues the run's metrics, meta.json and the evaluations of
// its agent instead of replacing them in the store, even when it takes no
// step; its first iteration line is a store trainer's, its first rate is
// over the time it ran, and its summary counts the games it read.
func TestStoreTrainerKeepsHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: three store trainers")
	}
	url := runstoretest.FileURL(t)
	st := openStore(t, url)
	rng := rand.New(rand.NewPCG(1, 2))
	putShards(t, st, "w1", 0, 40, 8, rng)
	ctx := context.Background()
	root := t.TempDir()

	// A: 25 steps, an evaluation at step 20, stopped in the middle of a
	// training phase (positions read but not trained on).
	sumA, err := Run(ctx, Options{Dir: filepath.Join(root, "a"), ConfigPath: storeConfig, Store: url, MaxSteps: 25})
	if err != nil {
		t.Fatal(err)
	}
	if sumA.Step != 25 {
		t.Fatalf("the first trainer stopped at step %d, want 25", sumA.Step)
	}
	metricsA, err := st.Get(ctx, runstore.MetricsKey)
	if err != nil {
		t.Fatal(err)
	}
	itA := metricsOfKind(t, metricsA, "iteration")
	if len(itA) < 2 || len(metricsOfKind(t, metricsA, "eval")) == 0 {
		t.Fatalf("the first trainer's metrics have %d iteration lines and no evaluation:\n%s", len(itA), metricsA)
	}
	gamesA := 0
	for _, m := range itA {
		gamesA += int(m["games"].(float64))
	}
	if sumA.Games != gamesA || gamesA == 0 {
		t.Errorf("the first trainer's summary says %d games; its iteration lines %d", sumA.Games, gamesA)
	}
	metaA, err := os.ReadFile(filepath.Join(root, "a", rundir.MetaFile))
	if err != nil {
		t.Fatal(err)
	}
	evaluations := func() []neural.Evaluation {
		t.Helper()
		b, err := st.Get(ctx, runstore.AgentPrefix+rundir.AgentManifest)
		if err != nil {
			t.Fatal(err)
		}
		m, err := neural.DecodeManifest(b)
		if err != nil {
			t.Fatal(err)
		}
		if m.Provenance == nil {
			return nil
		}
		return m.Provenance.Evaluations
	}
	if len(evaluations()) == 0 {
		t.Fatal("the first trainer's agent records no evaluation")
	}

	// B: an empty work directory and no step to take.
	sumB, err := Run(ctx, Options{Dir: filepath.Join(root, "b"), Store: url, MaxSteps: 25})
	if err != nil {
		t.Fatal(err)
	}
	if sumB.StartStep != 25 || sumB.Step != 25 {
		t.Fatalf("the second trainer went from step %d to %d, want 25 to 25", sumB.StartStep, sumB.Step)
	}
	metricsB, err := st.Get(ctx, runstore.MetricsKey)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(metricsB, metricsA) {
		t.Errorf("a trainer resumed in an empty directory replaced the store's metrics (%d bytes) with %d bytes:\n%s",
			len(metricsA), len(metricsB), metricsB)
	}
	if meta, err := st.Get(ctx, runstore.MetaKey); err != nil || !bytes.Equal(meta, metaA) {
		t.Errorf("the store's meta.json is %q (%v), want the run's:\n%s", meta, err, metaA)
	}
	if len(evaluations()) == 0 {
		t.Error("a trainer resumed in an empty directory dropped the agent's evaluations")
	}

	// C: resumes with positions owed and trains on.
	c := startStoreTrainer(t, Options{Dir: filepath.Join(root, "c"), Store: url, MaxSteps: 45})
	<-c.done
	if c.err != nil {
		t.Fatalf("%v\n%s", c.err, &c.out)
	}
	metricsC, err := st.Get(ctx, runstore.MetricsKey)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(metricsC, metricsA) || len(metricsC) <= len(metricsA) {
		t.Errorf("the third trainer's metrics (%d bytes) do not continue the run's (%d bytes)", len(metricsC), len(metricsA))
	}
	localC, err := os.ReadFile(filepath.Join(root, "c", rundir.MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	first := c.out.find(0, "train: fetched checkpoint 25")
	owed := c.out.findPrefix(0, "it ")
	if first < 0 || owed < 0 {
		t.Fatalf("no fetch or iteration line:\n%s", &c.out)
	}
	if !strings.Contains(c.out.text[owed], "training on the positions read before the restart") {
		t.Errorf("the first iteration line after the resumption is %q, want the store trainer's for the positions owed", c.out.text[owed])
	}
	next := c.out.find(owed+1, "games from the store (")
	if next < 0 {
		t.Fatalf("no iteration with games after the resumption:\n%s", &c.out)
	}
	m := storeRate.FindStringSubmatch(c.out.text[next])
	if m == nil {
		t.Fatalf("iteration line %q", c.out.text[next])
	}
	games, _ := strconv.Atoi(m[1])
	rate, _ := strconv.ParseFloat(m[2], 64)
	// The rate is over the time since the trainer started, which includes
	// what happened between these two lines. Their times are when the test
	// read them, so a late read of the second (a loaded machine) makes the
	// interval look longer than it was: at intervals of tens of
	// milliseconds that is the whole margin, hence 1.5 (a rate over the
	// iteration alone, the bug this guards against, is many times higher).
	if ran := c.out.at[owed].Sub(c.out.at[first]).Seconds(); rate > 1.5*float64(games)/ran+0.1 {
		t.Errorf("%q: %.1f games/s, but %d games came in the %.2fs since the trainer started at least", c.out.text[next], rate, games, ran)
	}
	gamesC := 0
	for _, m := range metricsOfKind(t, localC[min(len(metricsA), len(localC)):], "iteration") {
		gamesC += int(m["games"].(float64))
	}
	if c.sum.Games != gamesC || gamesC == 0 {
		t.Errorf("the third trainer's summary says %d games; its iteration lines %d", c.sum.Games, gamesC)
	}
}

// TestStoreTrainerSampleRatio: a store trainer given a backlog several
// times its replay window reads it an iteration at a time, so that no
// position leaves the window before it is trained on; once the store has
// no new games it waits instead of training more; and it reports the
// samples per position it achieved: the configured 4.
func TestStoreTrainerSampleRatio(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a store trainer")
	}
	config := storeConfigWith(t, "min_positions: 2000", "min_positions: 300", "max_positions: 10000", "max_positions: 400",
		"every: 20", "every: 0", "poll: 200ms", "poll: 200ms\n  max_backlog_windows: 0")
	url := runstoretest.FileURL(t)
	st := openStore(t, url)
	backlog := putShards(t, st, "w1", 0, 60, 8, rand.New(rand.NewPCG(3, 4)))
	if backlog.positions < 4*400 {
		t.Fatalf("a backlog of %d positions: want several windows of 400", backlog.positions)
	}
	dir := t.TempDir()
	tr := startStoreTrainer(t, Options{Dir: dir, ConfigPath: config, Store: url, MaxDuration: 3 * time.Minute})
	w := waitLine(t, &tr.out, 0, "waiting for games from the workers: the", 2*time.Minute, tr.done)
	// Some polls with nothing new: no more steps.
	time.Sleep(time.Second)
	tr.stop(t)
	if tr.err != nil {
		t.Fatalf("%v\n%s", tr.err, &tr.out)
	}
	const k, batch = 4, 64
	if want := backlog.positions * k / batch; tr.sum.Step != want {
		t.Errorf("the trainer took %d steps on %d positions, want %d (%d samples per position)", tr.sum.Step, backlog.positions, want, k)
	}
	if tr.out.find(w+1, "waiting for games") >= 0 || tr.out.find(w+1, "steps (") >= 0 {
		t.Errorf("the trainer trained after it said it waits:\n%s", &tr.out)
	}
	b, err := os.ReadFile(filepath.Join(dir, rundir.MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	its := metricsOfKind(t, b, "iteration")
	// What an iteration reads is trained on before the next: at most an
	// iteration's positions and a shard are owed training at a time.
	bound := float64(160 + backlog.maxShard)
	for _, m := range its {
		total, step := m["positions_total"].(float64), m["step"].(float64)
		if owed := total - step*batch/k; owed > bound {
			t.Fatalf("after iteration %v, %.0f of the %.0f positions read were not trained on (at most %.0f may wait, the window holds 400): %v",
				m["iteration"], owed, total, bound, m)
		}
	}
	last := its[len(its)-1]
	got, ok := last["samples_per_position"].(float64)
	want := float64(tr.sum.Step*batch) / float64(backlog.positions)
	if !ok || math.Abs(got-want) > 1e-9 || got > k || got < k-float64(batch)/float64(backlog.positions) {
		t.Errorf("the last iteration reports %v samples per position; %d steps of %d on %d positions are %.4f (target %d)",
			last["samples_per_position"], tr.sum.Step, batch, backlog.positions, want, k)
	}
	if !strings.Contains(tr.out.String(), fmt.Sprintf("%.2f samples/position (target 4)", got)) {
		t.Errorf("the iteration lines do not report the samples per position:\n%s", &tr.out)
	}
}

// TestStoreTrainerSkipsStaleBacklog: a store trainer whose backlog holds
// more than train.max_backlog_windows replay windows of positions reads
// the oldest shard, skips the oldest of the rest down to about one window,
// says so, and trains on what it read at the configured ratio.
func TestStoreTrainerSkipsStaleBacklog(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a store trainer")
	}
	config := storeConfigWith(t, "min_positions: 2000", "min_positions: 300", "max_positions: 10000", "max_positions: 400",
		"every: 20", "every: 0", "poll: 200ms", "poll: 200ms\n  max_backlog_windows: 1")
	url := runstoretest.FileURL(t)
	st := openStore(t, url)
	const shards = 60
	backlog := putShards(t, st, "w1", 0, shards, 8, rand.New(rand.NewPCG(3, 4)))
	if backlog.positions < 4*400 {
		t.Fatalf("a backlog of %d positions: want several windows of 400", backlog.positions)
	}
	dir := t.TempDir()
	tr := startStoreTrainer(t, Options{Dir: dir, ConfigPath: config, Store: url, MaxDuration: 3 * time.Minute})
	waitLine(t, &tr.out, 0, "waiting for games from the workers: the", 2*time.Minute, tr.done)
	tr.stop(t)
	if tr.err != nil {
		t.Fatalf("%v\n%s", tr.err, &tr.out)
	}
	if !strings.Contains(tr.out.String(), "oldest unread shards") || !strings.Contains(tr.out.String(), "stale shards skipped") {
		t.Errorf("the trainer did not say that it skipped shards:\n%s", &tr.out)
	}
	b, err := os.ReadFile(filepath.Join(dir, rundir.MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	its := metricsOfKind(t, b, "iteration")
	var read, skipped float64
	for _, m := range its {
		read += m["shards"].(float64)
		skipped += m["skipped_shards"].(float64)
	}
	// One window of 400 is a few shards of 8 games; the first shard is
	// read before there is an estimate.
	if skipped < shards/2 || read+skipped != shards {
		t.Errorf("read %v and skipped %v of %d shards: want most skipped, every shard read or skipped once", read, skipped, shards)
	}
	const k, batch = 4, 64
	total := int64(its[len(its)-1]["positions_total"].(float64))
	if want := total * k / batch; tr.sum.Step != want || total >= backlog.positions {
		t.Errorf("the trainer took %d steps on %d positions read of %d, want %d", tr.sum.Step, total, backlog.positions, want)
	}
}

// TestStoreTrainerOutage: a store trainer rides out a store outage (the S3
// server stopped for a few seconds while it polls), says so, and trains on
// the games uploaded once the store is back; with a short retry limit it
// exits with an error that says how long it tried.
func TestStoreTrainerOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: store trainers")
	}
	config := storeConfigWith(t, "every: 20", "every: 0")
	srv := runstoretest.StartS3(t, "zerokit")
	url := srv.URL("zerokit", "runs/outage")
	st := openStore(t, url)
	rng := rand.New(rand.NewPCG(5, 6))
	first := putShards(t, st, "w1", 0, 10, 8, rng)

	tr := startStoreTrainer(t, Options{Dir: t.TempDir(), ConfigPath: config, Store: url, StoreRetry: time.Minute, MaxDuration: 3 * time.Minute})
	w := waitLine(t, &tr.out, 0, "waiting for games from the workers: the", 2*time.Minute, tr.done)
	srv.Stop()
	waitLine(t, &tr.out, w, "failed; retrying for up to 1m0s", time.Minute, tr.done)
	time.Sleep(3 * time.Second)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	second := putShards(t, st, "w1", 10, 10, 8, rng)
	back := waitLine(t, &tr.out, w, "the store answers again", time.Minute, tr.done)
	waitLine(t, &tr.out, back, "waiting for games from the workers: the", 2*time.Minute, tr.done)
	tr.stop(t)
	if tr.err != nil {
		t.Fatalf("the trainer failed: %v\n%s", tr.err, &tr.out)
	}
	if want := (first.positions + second.positions) * 4 / 64; tr.sum.Step != want {
		t.Errorf("the trainer took %d steps, want %d: the games of both sides of the outage", tr.sum.Step, want)
	}

	// Gives up after the limit.
	tr = startStoreTrainer(t, Options{Dir: t.TempDir(), Store: url, StoreRetry: 3 * time.Second, MaxDuration: 3 * time.Minute})
	w = waitLine(t, &tr.out, 0, "waiting for games from the workers: the", 2*time.Minute, tr.done)
	srv.Stop()
	stopped := time.Now()
	select {
	case <-tr.done:
	case <-time.After(time.Minute):
		t.Fatal("the trainer still runs a minute into an outage, with a retry limit of 3s")
	}
	if tr.err == nil || !strings.Contains(tr.err.Error(), "list new games failed for") || !runstore.Transient(tr.err) {
		t.Fatalf("the trainer ended with %v, want the listing's error after retrying for 3s", tr.err)
	}
	if d := time.Since(stopped); d < 2*time.Second {
		t.Errorf("the trainer gave up %v into the outage, with a retry limit of 3s", d)
	}
}

// TestWorkerUpload: the upload log's positions are the moves, as in the
// worker's summary; an upload when the worker is being stopped (its context
// cancelled) goes through without a warning.
func TestWorkerUpload(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	g := tinyGame(t)
	// newWorker returns a worker on a new file store with three finished
	// games, their moves and full moves, and its log.
	newWorker := func(t *testing.T) (w *worker, moves, full int, log *bytes.Buffer) {
		log = new(bytes.Buffer)
		w = &worker{opts: WorkerOptions{ShardGames: 16}, name: "w1", log: slog.New(slog.NewTextHandler(log, nil)),
			store: openStore(t, runstoretest.FileURL(t))}
		for range 3 {
			rec := randomGame(t, g, rng)
			moves += len(rec.Actions)
			full += rec.FullMoves()
			if err := w.shard.Add(rec); err != nil {
				t.Fatal(err)
			}
		}
		if full == moves {
			t.Fatal("every move is full: the test cannot tell positions from full positions")
		}
		return w, moves, full, log
	}
	t.Run("positions", func(t *testing.T) {
		w, moves, full, log := newWorker(t)
		if err := w.flush(context.Background()); err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf(" games=3 positions=%d ", moves); !strings.Contains(log.String(), want) {
			t.Errorf("the upload log says\n%s\nwant %q (the moves; %d of them full)", log, want, full)
		}
		if w.positions != int64(moves) {
			t.Errorf("the worker counts %d positions, want %d", w.positions, moves)
		}
	})
	t.Run("stopping", func(t *testing.T) {
		w, _, _, log := newWorker(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := w.flush(ctx); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(log.String(), "upload failed") || w.shard.Len() != 0 {
			t.Fatalf("an upload during the stop failed (%d games kept):\n%s", w.shard.Len(), log)
		}
		keys, err := w.store.Shards(context.Background())
		if err != nil || len(keys) != 1 {
			t.Fatalf("the store has shards %q (%v), want one", keys, err)
		}
	})
}

// TestIngestRate: the games per second of a store trainer's first
// iteration are over the time since the trainer started, not over the
// moment it took to read shards that were waiting.
func TestIngestRate(t *testing.T) {
	cfg, err := LoadConfig(storeConfig)
	if err != nil {
		t.Fatal(err)
	}
	g := tinyGame(t)
	buf, err := data.NewBuffer(g, cfg.Buffer)
	if err != nil {
		t.Fatal(err)
	}
	st := openStore(t, runstoretest.FileURL(t))
	put := putShards(t, st, "w1", 0, 4, 8, rand.New(rand.NewPCG(9, 10)))
	log := slog.New(slog.DiscardHandler)
	tr := &trainer{cfg: cfg, buffer: buf, log: log, stderr: &bytes.Buffer{}, start: time.Now().Add(-10 * time.Second)}
	src := newStoreGames(tr, st, &runstore.Retrier{Limit: time.Minute, Log: log})
	is, err := src.ingestPhase(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sp := is.selfPlayStats()
	if sp.Games == 0 || sp.Games > put.games || sp.Elapsed < 10*time.Second {
		t.Errorf("the first ingestion read %d games (of %d) over %v; want some over the 10s since the trainer started (%.1f games/s)",
			sp.Games, put.games, sp.Elapsed, sp.GamesPerSecond())
	}
}

// TestStoreTrainerInterruptedInOutage: a trainer stopped (SIGTERM) while it
// retries a store that does not answer at its start exits cleanly, having
// nothing to save.
func TestStoreTrainerInterruptedInOutage(t *testing.T) {
	srv := runstoretest.StartS3(t, "zerokit")
	url := srv.URL("zerokit", "runs/down")
	srv.Stop()
	tr := startStoreTrainer(t, Options{Dir: t.TempDir(), ConfigPath: storeConfig, Store: url, StoreRetry: time.Minute})
	waitLine(t, &tr.out, 0, "open the store failed; retrying for up to 1m0s", time.Minute, tr.done)
	tr.stop(t)
	if tr.err != nil || tr.sum.Stopped != "interrupted before the store answered" {
		t.Fatalf("stopped while retrying: %v, %q", tr.err, tr.sum.Stopped)
	}
}
