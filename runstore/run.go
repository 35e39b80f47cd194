package runstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/zerokit/zerokit/internal/atomicfile"
	"github.com/zerokit/zerokit/model/ckpt"
	"github.com/zerokit/zerokit/rundir"
)

// Objects a Run keeps in its store beside the trainer's checkpoints (see
// the package documentation): the running mean of the weights, the run's
// meta.json and its agent, so that a trainer resumed on another machine
// continues them.
const (
	AverageKey  = rundir.AverageFile
	MetaKey     = rundir.MetaFile
	AgentPrefix = rundir.RunAgent + "/"
)

// UploadTimeout bounds the uploads of one checkpoint (Run.Push), beyond
// the time spent retrying them.
const UploadTimeout = 10 * time.Minute

// Run is a training run's storage, one seam wherever the run lives. The
// trainer always works in a local run directory laid out by package rundir
// (its work directory), which a Run holds locked and logs to. A run that
// lives in that directory has nothing more to it: its other methods do
// nothing. A run that lives in a store (RunOptions.URL) keeps its durable
// copy there and the directory is its local cache: Fetch makes the
// directory hold the store's newest checkpoint and the run's history,
// PutConfig and Push copy the configuration and every committed checkpoint
// (with the run's mean weights, agent and history) back, and every
// operation on the store is retried while it fails transiently (Retrier).
//
// A Run is used by one goroutine at a time.
type Run struct {
	dir     string
	tempDir bool
	url     string
	lock    *rundir.Lock
	logf    *os.File
	log     *slog.Logger
	retry   *Retrier
	stderr  io.Writer
	who     string
	store   *Store // nil until Fetch, and for a run that lives in dir
}

// RunOptions says where a run lives.
type RunOptions struct {
	// Dir is the local run directory (created if missing). With a URL it
	// may be empty: a temporary directory, removed by Close.
	Dir string
	// URL is the run's store (see Open); "" for a run that lives in Dir.
	URL string
	// Retry is how long an operation on the store that fails transiently
	// is tried again (DefaultRetry when 0).
	Retry time.Duration
	// Stderr receives the messages for the user (retries, a fetched
	// checkpoint), each prefixed with Who; nil discards them.
	Stderr io.Writer
	Who    string
}

// OpenRun opens the run's local directory: it locks it (another process
// training there is an error, rundir.ErrLocked) and opens its log
// (rundir.LogFile, appended to). It does not reach the store: Fetch does.
func OpenRun(o RunOptions) (_ *Run, err error) {
	if o.Retry < 0 {
		return nil, fmt.Errorf("runstore: retry limit %v: want a positive duration", o.Retry)
	}
	if o.Retry == 0 {
		o.Retry = DefaultRetry
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	r := &Run{dir: o.Dir, url: o.URL, stderr: o.Stderr, who: o.Who}
	switch {
	case r.dir == "" && r.url != "":
		if r.dir, err = os.MkdirTemp("", "zerokit-trainer-"); err != nil {
			return nil, fmt.Errorf("runstore: %w", err)
		}
		r.tempDir = true
	case r.dir == "":
		return nil, errors.New("runstore: no run directory")
	}
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	if r.lock, err = rundir.AcquireLock(r.dir); err != nil {
		return nil, err
	}
	r.logf, err = os.OpenFile(filepath.Join(r.dir, rundir.LogFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("runstore: %w", err)
	}
	r.log = slog.New(slog.NewTextHandler(r.logf, nil))
	r.retry = &Retrier{Limit: o.Retry, Log: r.log, Stderr: o.Stderr, Who: o.Who}
	return r, nil
}

// Dir is the local run directory.
func (r *Run) Dir() string { return r.dir }

// Layout names the files of the local run directory.
func (r *Run) Layout() rundir.Run { return rundir.Run{Dir: r.dir} }

// Where names where the run lives: its store's URL, or its directory.
func (r *Run) Where() string {
	if r.url != "" {
		return r.url
	}
	return r.dir
}

// InStore reports whether the run lives in a store.
func (r *Run) InStore() bool { return r.url != "" }

// Log is the run's log (rundir.LogFile).
func (r *Run) Log() *slog.Logger { return r.log }

// Retrier retries the operations on the run's store.
func (r *Run) Retrier() *Retrier { return r.retry }

// Store is the run's open store: nil for a run that lives in its
// directory, and before Fetch.
func (r *Run) Store() *Store { return r.store }

// Close closes the store and the log, unlocks the directory and removes a
// temporary one.
func (r *Run) Close() error {
	var errs []error
	if r.store != nil {
		errs = append(errs, r.store.Close())
		r.store = nil
	}
	if r.logf != nil {
		errs = append(errs, r.logf.Close())
		r.logf = nil
	}
	errs = append(errs, r.lock.Release())
	r.lock = nil
	if r.tempDir {
		errs = append(errs, os.RemoveAll(r.dir))
		r.tempDir = false
	}
	return errors.Join(errs...)
}

// Fetch reaches the run's store (retried while it fails) and makes the
// local directory hold the store's newest checkpoint, with its state, the
// run's configuration and the running mean of the weights, unless the
// directory already has one as new: how a trainer resumes on a machine
// with an empty disk. A store without a checkpoint is a new run. Either
// way the directory then holds the run's history too (see history). A run
// that lives in its directory has nothing to fetch.
func (r *Run) Fetch(ctx context.Context) error {
	if r.url == "" || r.store != nil {
		return nil
	}
	var st *Store
	if err := r.retry.Do(ctx, "open the store", func(ctx context.Context) (err error) {
		st, err = Open(ctx, r.url)
		return err
	}); err != nil {
		return err
	}
	r.store = st
	step, fetched, err := r.pull(ctx)
	if err != nil {
		return fmt.Errorf("resuming from %s: %w", r.url, err)
	}
	if fetched {
		fmt.Fprintf(r.stderr, "%s: fetched checkpoint %d from %s into %s\n", r.who, step, r.url, r.dir)
	}
	return nil
}

// pull is Fetch's work once the store is open (see Fetch).
func (r *Run) pull(ctx context.Context) (pulled int64, ok bool, err error) {
	st := r.store
	var step int64
	var have bool
	if err := r.retry.Do(ctx, "read "+LatestKey, func(ctx context.Context) (err error) {
		step, have, err = st.LatestCheckpoint(ctx)
		return err
	}); err != nil || !have {
		return 0, false, err
	}
	run := r.Layout()
	cks := run.Checkpoints()
	cks.KeepLast = 1 << 30
	if latest, have, err := cks.Latest(); err != nil {
		return 0, false, err
	} else if have && latest.Step >= step {
		return 0, false, r.pullHistory(ctx, false)
	}
	var cfgText []byte
	if err := r.retry.Do(ctx, "read "+ConfigKey, func(ctx context.Context) (err error) {
		cfgText, err = st.Get(ctx, ConfigKey)
		return err
	}); err != nil {
		return 0, false, fmt.Errorf("the store's checkpoint %d has no configuration: %w", step, err)
	}
	if err := os.MkdirAll(cks.Dir, 0o755); err != nil {
		return 0, false, fmt.Errorf("runstore: %w", err)
	}
	if err := atomicfile.WriteFile(run.Config(), cfgText, 0o644); err != nil {
		return 0, false, fmt.Errorf("runstore: %w", err)
	}
	if err := r.retry.Do(ctx, fmt.Sprintf("download checkpoint %d", step), func(ctx context.Context) error {
		return st.GetCheckpoint(ctx, step, cks.Path(step), cks.StatePath(step))
	}); err != nil {
		return 0, false, err
	}
	avg := run.Average()
	switch err := r.retry.Do(ctx, "download "+AverageKey, func(ctx context.Context) error { return st.GetFile(ctx, AverageKey, avg) }); {
	case errors.Is(err, ErrNotExist):
		if err := os.Remove(avg); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return 0, false, fmt.Errorf("runstore: %w", err)
		}
	case err != nil:
		return 0, false, err
	default:
		// A mean ahead of the checkpoint (the trainer died between
		// uploading them) would count steps twice: start it again.
		if last, ok := lastAveraged(avg); !ok || last > step {
			os.Remove(avg)
		}
	}
	if err := r.pullHistory(ctx, true); err != nil {
		return 0, false, err
	}
	if err := cks.Commit(step); err != nil {
		return 0, false, err
	}
	return step, true, nil
}

// lastAveraged returns the last step folded into the running mean of the
// weights at path; ok is false when the file is not a running mean.
func lastAveraged(path string) (step int64, ok bool) {
	f, size, err := ckpt.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	rd, err := ckpt.NewReader(f, size)
	if err != nil || len(rd.Header.AveragedSteps) == 0 {
		return 0, false
	}
	return rd.Header.AveragedSteps[len(rd.Header.AveragedSteps)-1], true
}

// historyFile is a file of the run's history: its key in the store, its
// local path, and whether it only grows.
type historyFile struct {
	key, path string
	grows     bool
}

// history lists the run's history that a store keeps beside its
// checkpoints, and the local file of each: the metrics, the run's
// meta.json (its start and its configuration changes) and the manifest of
// the run's agent (its latest evaluations). The first two only grow (lines
// are appended, configuration changes added); the agent is replaced at
// every checkpoint, and pushAgent uploads it.
func (r *Run) history() []historyFile {
	run := r.Layout()
	return []historyFile{
		{MetricsKey, run.Metrics(), true},
		{MetaKey, run.Meta(), true},
		{AgentPrefix + rundir.AgentManifest, filepath.Join(run.Agent(), rundir.AgentManifest), false},
	}
}

// pullHistory downloads the run's history from the store into the
// directory (see history): every file when replace is set (the store's
// checkpoint is newer than the directory's), else each file that the
// directory lacks, and each growing file that is shorter there than in the
// store. A trainer that resumes in an empty directory thus appends to the
// run's metrics instead of uploading a file that starts at its
// resumption. Files the store lacks are left alone.
func (r *Run) pullHistory(ctx context.Context, replace bool) error {
	for _, f := range r.history() {
		if !replace {
			info, err := os.Stat(f.path)
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("runstore: %w", err)
			}
			if err == nil && !f.grows {
				continue
			}
			if err == nil {
				size, err := r.size(ctx, f.key)
				if errors.Is(err, ErrNotExist) || (err == nil && size <= info.Size()) {
					continue
				}
				if err != nil {
					return err
				}
			}
		}
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return fmt.Errorf("runstore: %w", err)
		}
		err := r.retry.Do(ctx, "download "+f.key, func(ctx context.Context) error { return r.store.GetFile(ctx, f.key, f.path) })
		if err != nil && !errors.Is(err, ErrNotExist) {
			return err
		}
	}
	return nil
}

// size returns the size of an object of the store, retrying.
func (r *Run) size(ctx context.Context, key string) (size int64, err error) {
	err = r.retry.Do(ctx, "stat "+key, func(ctx context.Context) (err error) {
		size, err = r.store.Size(ctx, key)
		return err
	})
	return size, err
}

// PutConfig copies the run's configuration (rundir.ConfigFile) into its
// store, where workers read it.
func (r *Run) PutConfig(ctx context.Context) error {
	if r.store == nil {
		return nil
	}
	text, err := os.ReadFile(r.Layout().Config())
	if err != nil {
		return fmt.Errorf("runstore: %w", err)
	}
	return r.retry.Do(ctx, "write "+ConfigKey, func(ctx context.Context) error {
		return r.store.Put(ctx, ConfigKey, text)
	})
}

// Push makes the committed checkpoint of step durable in the run's store:
// it uploads the checkpoint, publishes the network's weights for the
// workers, and copies the running mean of the weights, the run's agent and
// its history (metrics, meta.json). Each upload is retried. The uploads go
// on when ctx is cancelled (a stopping trainer's last checkpoint is where
// the run resumes from), for up to UploadTimeout beyond the retry limit.
func (r *Run) Push(ctx context.Context, step int64) error {
	if r.store == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), UploadTimeout+r.retry.Limit)
	defer cancel()
	st, run := r.store, r.Layout()
	cks := run.Checkpoints()
	if err := r.retry.Do(ctx, fmt.Sprintf("upload checkpoint %d", step), func(ctx context.Context) error {
		return st.PutCheckpoint(ctx, step, cks.Path(step), cks.StatePath(step))
	}); err != nil {
		return err
	}
	c, err := ckpt.ReadFile(cks.Path(step))
	if err != nil {
		return fmt.Errorf("runstore: publish: %w", err)
	}
	c.Header.Optimizer, c.Optimizer = nil, nil
	var weights bytes.Buffer
	if err := ckpt.Write(&weights, c); err != nil {
		return fmt.Errorf("runstore: publish: %w", err)
	}
	var n Network
	if err := r.retry.Do(ctx, fmt.Sprintf("publish network %d", step), func(ctx context.Context) (err error) {
		n, err = st.PublishNetwork(ctx, step, weights.Bytes())
		return err
	}); err != nil {
		return err
	}
	if st, err := os.Stat(run.Average()); err == nil && st.Mode().IsRegular() {
		if err := r.putFile(ctx, AverageKey, run.Average()); err != nil {
			return err
		}
	}
	if err := r.pushAgent(ctx, run.Agent()); err != nil {
		return err
	}
	for _, f := range r.history() {
		if f.grows {
			if err := r.pushHistory(ctx, f.key, f.path); err != nil {
				return err
			}
		}
	}
	r.log.Info("published", "step", step, "network", n.Key, "bytes", n.Size, "store", st.URL())
	return nil
}

// putFile uploads a local file to the store, retrying.
func (r *Run) putFile(ctx context.Context, key, path string) error {
	return r.retry.Do(ctx, "upload "+key, func(ctx context.Context) error { return r.store.PutFile(ctx, key, path) })
}

// pushHistory uploads a file of the run's history unless the store's copy
// is longer: a Run never replaces the run's history with a part of it
// (pullHistory makes the local file hold the store's first).
func (r *Run) pushHistory(ctx context.Context, key, path string) error {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("runstore: %w", err)
	}
	size, err := r.size(ctx, key)
	switch {
	case errors.Is(err, ErrNotExist):
	case err != nil:
		return err
	case size > info.Size():
		r.log.Warn("not replacing the store's longer copy", "key", key, "store_bytes", size, "local_bytes", info.Size())
		fmt.Fprintf(r.stderr, "%s: warning: not uploading %s: the store's copy (%d bytes) is longer than %s (%d bytes)\n",
			r.who, key, size, path, info.Size())
		return nil
	}
	return r.putFile(ctx, key, path)
}

// pushAgent copies the run's agent directory into the store, its manifest
// last (the manifest names the weights by checksum).
func (r *Run) pushAgent(ctx context.Context, dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("runstore: %w", err)
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
		if err := r.putFile(ctx, AgentPrefix+name, filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}
