//go:build !nonet

package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/zerokit/zerokit/runstore"
	"github.com/zerokit/zerokit/runstore/runstoretest"
)

// runMainEnv makes the test binary run zerokit's main instead of the
// tests: the distributed test starts trainer and worker processes that way.
const runMainEnv = "ZEROKIT_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		os.Exit(Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// proc is a zerokit process started by the test.
type proc struct {
	name string
	cmd  *exec.Cmd
	mu   sync.Mutex
	err  bytes.Buffer // its stderr, as it comes
	done chan struct{}
	exit error
}

func startZerokit(t *testing.T, name string, env []string, args ...string) *proc {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &proc{name: name, cmd: exec.Command(self, args...), done: make(chan struct{})}
	p.cmd.Env = append(append(os.Environ(), runMainEnv+"=1", "GOMAXPROCS=2"), env...)
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			p.mu.Lock()
			p.err.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
		}
		p.exit = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("%s stderr (last 3000 bytes):\n%s", p.name, tail(p.stderr(), 3000))
		}
	})
	return p
}

func (p *proc) stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err.String()
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// signal sends sig and waits for the process to end.
func (p *proc) signal(t *testing.T, sig syscall.Signal) error {
	t.Helper()
	p.cmd.Process.Signal(sig)
	select {
	case <-p.done:
	case <-time.After(90 * time.Second):
		t.Fatalf("%s did not exit within 90s of %v", p.name, sig)
	}
	return p.exit
}

// waitUntil polls cond every 500ms until it holds, failing the test after
// limit.
func waitUntil(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting until %s", limit, what)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// storeGames reads every shard of the store: the games per worker, the
// network steps that played each worker's games, and the game seeds.
func storeGames(t *testing.T, st *runstore.Store) (perWorker map[string]int, steps map[string]map[int64]bool, seeds map[uint64]string) {
	t.Helper()
	ctx := context.Background()
	keys, err := st.Shards(ctx)
	if err != nil {
		t.Fatal(err)
	}
	perWorker, steps, seeds = map[string]int{}, map[string]map[int64]bool{}, map[uint64]string{}
	for _, key := range keys {
		w, _, _ := runstore.ParseShardKey(key)
		info, err := st.Info(ctx, key)
		if err != nil {
			t.Fatalf("shard %s: %v (a partial shard is visible)", key, err)
		}
		r, err := st.Open(ctx, key)
		if err != nil {
			if errors.Is(err, runstore.ErrNotExist) {
				continue
			}
			t.Fatal(err)
		}
		n := 0
		for r.Next() {
			rec := r.Record()
			if prev, dup := seeds[rec.Meta.Seed]; dup {
				t.Fatalf("game seed %d is in %s and %s: a duplicated game", rec.Meta.Seed, prev, key)
			}
			seeds[rec.Meta.Seed] = key
			if steps[w] == nil {
				steps[w] = map[int64]bool{}
			}
			steps[w][rec.Meta.NetworkStep] = true
			perWorker[w]++
			n++
		}
		if r.Err() != nil || n != info.Records {
			t.Fatalf("shard %s: %d of %d records read: %v", key, n, info.Records, r.Err())
		}
	}
	return perWorker, steps, seeds
}

var (
	resumedAt   = regexp.MustCompile(`train: resuming \S+ at step (\d+)`)
	uploadedKey = regexp.MustCompile(`msg=uploaded key=(\S+)`)
)

// TestDistributed runs a store trainer and self-play worker processes
// against an S3 server in the test process and against a file store: games
// from both workers reach training, workers switch to newly published
// networks, a worker killed in the middle of an upload leaves no partial
// shard and no game twice, and a trainer killed outright resumes from the
// store on an empty disk.
func TestDistributed(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the distributed run (processes, about a minute)")
	}
	config, err := filepath.Abs(filepath.Join("..", "train", "testdata", "tictactoe-store.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s3 := runstoretest.StartS3(t, "zerokit")
	for _, tc := range []struct{ name, url string }{
		{"s3", s3.URL("zerokit", "runs/ttt")},
		{"file", runstoretest.FileURL(t)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := runstoretest.Env()
			ctx := context.Background()
			dir := t.TempDir()
			trainer := startZerokit(t, "trainer", env, "train", "-store", tc.url, "-config", config,
				"-run", filepath.Join(dir, "work1"), "-quiet")
			workerArgs := func(seed string) []string {
				return []string{"worker", "-store", tc.url, "-seed", seed, "-shard-games", "24", "-poll", "300ms"}
			}
			w1 := startZerokit(t, "worker 1", env, workerArgs("1001")...)
			w2 := startZerokit(t, "worker 2", env, workerArgs("1002")...)
			name1, name2 := fmt.Sprintf("%016x", 1001), fmt.Sprintf("%016x", 1002)

			st, err := runstore.Open(ctx, tc.url)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			latest := func() int64 {
				s, _, err := st.LatestCheckpoint(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			// Both workers' games reach training, and both switch to
			// networks the trainer published after they started.
			waitUntil(t, 120*time.Second, "the trainer has trained on games of both workers", func() bool {
				e := trainer.stderr()
				return strings.Contains(e, name1+":") && strings.Contains(e, name2+":") && latest() >= 40
			})
			waitUntil(t, 60*time.Second, "both workers played with at least three networks", func() bool {
				_, steps, _ := storeGames(t, st)
				return len(steps[name1]) >= 3 && len(steps[name2]) >= 3
			})

			// A worker killed in the middle of its first upload: nothing of
			// it is visible.
			crash := startZerokit(t, "crashing worker", append(env, killMidShardEnv+"=3000"), workerArgs("1003")...)
			<-crash.done
			if ws, ok := crash.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("the crashing worker ended with %v, want SIGKILL", crash.exit)
			}
			if !strings.Contains(crash.stderr(), "playing with network") {
				t.Fatalf("the crashing worker died before playing")
			}
			// And a worker killed at an arbitrary moment.
			if err := w2.signal(t, syscall.SIGKILL); err == nil {
				t.Fatal("worker 2 survived SIGKILL")
			}
			// Its shards in the store are exactly those it finished
			// uploading; storeGames fails on a partial or duplicated shard.
			storeGames(t, st)
			crashName := fmt.Sprintf("%016x", 1003)
			logged := map[string]bool{}
			for _, m := range uploadedKey.FindAllStringSubmatch(crash.stderr(), -1) {
				logged[m[1]] = true
			}
			keys, err := st.Shards(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range keys {
				if w, _, _ := runstore.ParseShardKey(k); w == crashName && !logged[k] {
					t.Fatalf("%s is in the store but the worker killed mid-upload never finished uploading it", k)
				} else if w == crashName {
					delete(logged, k)
				}
			}
			if len(logged) > 0 {
				t.Fatalf("shards the crashed worker uploaded are missing: %v", logged)
			}

			// The trainer killed outright resumes from the store on an empty
			// disk and trains on.
			before := latest()
			if err := trainer.signal(t, syscall.SIGKILL); err == nil {
				t.Fatal("the trainer survived SIGKILL")
			}
			stored := latest()
			if stored < before {
				t.Fatalf("the store's checkpoint went back from %d to %d", before, stored)
			}
			trainer2 := startZerokit(t, "resumed trainer", env, "train", "-store", tc.url, "-config", config,
				"-run", filepath.Join(dir, "work2"), "-quiet")
			waitUntil(t, 60*time.Second, "the new trainer resumed", func() bool { return resumedAt.MatchString(trainer2.stderr()) })
			m := resumedAt.FindStringSubmatch(trainer2.stderr())
			if step, _ := strconv.ParseInt(m[1], 10, 64); step != stored {
				t.Fatalf("the new trainer resumed at step %d; the store's newest checkpoint is %d", step, stored)
			}
			if !strings.Contains(trainer2.stderr(), fmt.Sprintf("fetched checkpoint %d from", stored)) {
				t.Fatalf("the new trainer did not say it fetched checkpoint %d", stored)
			}
			waitUntil(t, 60*time.Second, "the resumed trainer published a newer checkpoint", func() bool { return latest() > stored })

			// SIGTERM: the worker uploads its finished games and exits 0;
			// so does the trainer, after a last checkpoint.
			if err := w1.signal(t, syscall.SIGTERM); err != nil {
				t.Fatalf("worker 1 after SIGTERM: %v", err)
			}
			if err := trainer2.signal(t, syscall.SIGTERM); err != nil {
				t.Fatalf("the trainer after SIGTERM: %v", err)
			}
			storeGames(t, st)
			if !strings.Contains(w1.stderr(), "worker stopped") {
				t.Fatal("worker 1 did not report its stop")
			}
		})
	}
}

// TestWorkerError: a worker's error names the command once
// ("zerokit worker: train: ..."), not twice.
func TestWorkerError(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, runstore.ConfigKey), []byte("game: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"worker", "-store", dir, "-poll", "100ms"}, nil, &stdout, &stderr)
	// The last line is the error; the worker's log comes before it.
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	msg := lines[len(lines)-1]
	if code != 1 || !strings.HasPrefix(msg, "zerokit worker: train: ") || strings.Count(msg, "worker:") != 1 {
		t.Errorf("exit %d, error %q; want exit 1 and one \"zerokit worker: train: \" prefix", code, msg)
	}
}

// TestDistributedMinIO runs a store trainer and a worker against a real S3
// server, MinIO (built by scripts/test-deps.sh into build/minio; the test skips
// without it): the trainer and the worker ride out a 15-second outage of
// the server and train on; once the worker stops, the trainer waits,
// having trained on every position read the configured 4 samples per
// position and never held more untrained positions than an iteration and a
// shard; a trainer restarted in an empty work directory keeps the run's
// metrics in the store.
func TestDistributedMinIO(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the MinIO run (processes, about two minutes)")
	}
	minio := runstoretest.StartMinIO(t, filepath.Join("..", "build", "minio"), "zerokit")
	config, err := filepath.Abs(filepath.Join("..", "train", "testdata", "tictactoe-store.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	url := minio.URL("zerokit", "runs/minio")
	env := runstoretest.Env()
	ctx := context.Background()
	dir := t.TempDir()
	trainer := startZerokit(t, "trainer", env, "train", "-store", url, "-config", config,
		"-run", filepath.Join(dir, "work1"), "-quiet", "-store-retry", "2m")
	worker := startZerokit(t, "worker", env, "worker", "-store", url, "-seed", "2001", "-shard-games", "24", "-poll", "300ms",
		"-store-retry", "2m")
	st, err := runstore.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	latest := func() int64 {
		var s int64
		waitUntil(t, time.Minute, "the store answers", func() bool {
			var err error
			s, _, err = st.LatestCheckpoint(ctx)
			return err == nil
		})
		return s
	}
	alive := func(p *proc) bool {
		select {
		case <-p.done:
			return false
		default:
			return true
		}
	}
	waitUntil(t, 2*time.Minute, "the trainer has trained 20 steps", func() bool { return latest() >= 20 })

	// The outage: 15 seconds without the server.
	before := latest()
	minio.Stop()
	time.Sleep(15 * time.Second)
	if !alive(trainer) || !alive(worker) {
		t.Fatalf("a process exited during the outage (trainer alive %v, worker alive %v)", alive(trainer), alive(worker))
	}
	if err := minio.Start(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 2*time.Minute, "the trainer trains on after the outage", func() bool { return latest() >= before+20 })
	e := trainer.stderr()
	if !strings.Contains(e, "failed; retrying for up to 2m0s") || !strings.Contains(e, "the store answers again") {
		t.Fatalf("the trainer did not say that it retried and that the store came back:\n%s", tail(e, 3000))
	}
	if !alive(worker) {
		t.Fatal("the worker exited after the outage")
	}

	// The worker stops: the trainer trains on what it read, then waits.
	if err := worker.signal(t, syscall.SIGTERM); err != nil {
		t.Fatalf("the worker after SIGTERM: %v", err)
	}
	from := len(trainer.stderr())
	waitUntil(t, 2*time.Minute, "the trainer waits for games", func() bool {
		return strings.Contains(trainer.stderr()[from:], "waiting for games from the workers: the")
	})
	storeGames(t, st) // no partial shard, no game twice
	time.Sleep(2 * time.Second)
	if err := trainer.signal(t, syscall.SIGTERM); err != nil {
		t.Fatalf("the trainer after SIGTERM: %v", err)
	}
	after := trainer.stderr()[from:]
	if waited := after[strings.Index(after, "waiting for games from the workers: the"):]; strings.Contains(waited, " steps (") {
		t.Errorf("the trainer trained on after it said it waits for games:\n%s", waited)
	}
	metrics, err := st.Get(ctx, runstore.MetricsKey)
	if err != nil {
		t.Fatal(err)
	}
	checkSampleRatio(t, metrics, 4, 64, 160+24*9)

	// A trainer restarted in an empty work directory, with no step to take,
	// keeps the run's metrics.
	step := latest()
	restarted := startZerokit(t, "restarted trainer", env, "train", "-store", url, "-run", filepath.Join(dir, "work2"), "-quiet",
		"-max-steps", strconv.FormatInt(step, 10))
	select {
	case <-restarted.done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the restarted trainer did not exit")
	}
	if restarted.exit != nil {
		t.Fatalf("the restarted trainer: %v", restarted.exit)
	}
	kept, err := st.Get(ctx, runstore.MetricsKey)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(kept, metrics) {
		t.Fatalf("the restarted trainer replaced the run's metrics (%d bytes) with %d bytes", len(metrics), len(kept))
	}
}

// checkSampleRatio checks a store trainer's metrics: after every
// iteration at most bound positions read were not trained on yet, and
// the last iteration reports k samples per position (within a batch) and
// no training owed.
func checkSampleRatio(t *testing.T, metrics []byte, k, batch, bound float64) {
	t.Helper()
	var last map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(metrics)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		if m["kind"] != "iteration" {
			continue
		}
		last = m
		total, step := m["positions_total"].(float64), m["step"].(float64)
		if owed := total - step*batch/k; owed > bound {
			t.Errorf("after iteration %v, %.0f of %.0f positions read were not trained on; at most %.0f may wait", m["iteration"], owed, total, bound)
		}
	}
	if last == nil {
		t.Fatal("no iteration in the metrics")
	}
	total := last["positions_total"].(float64)
	got, _ := last["samples_per_position"].(float64)
	if got > k || got < k-batch/total || last["owed_steps"] != 0.0 {
		t.Errorf("the last iteration: %v samples per position over %.0f positions, %v steps owed; want %g and none owed", last["samples_per_position"], total, last["owed_steps"], k)
	}
}
