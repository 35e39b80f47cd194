package runstore_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/rundir"
	"github.com/zerokit/zerokit/runstore"
	"github.com/zerokit/zerokit/runstore/runstoretest"
)

func openRun(t *testing.T, o runstore.RunOptions) *runstore.Run {
	t.Helper()
	r, err := runstore.OpenRun(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestRunOptions: a run needs a directory unless it lives in a store, a
// negative retry limit is an error, and a directory is held by one Run.
func TestRunOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    runstore.RunOptions
		want string
	}{
		{"no directory", runstore.RunOptions{}, "no run directory"},
		{"negative retry", runstore.RunOptions{Dir: t.TempDir(), Retry: -1}, "want a positive duration"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := runstore.OpenRun(tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				if r != nil {
					r.Close()
				}
				t.Fatalf("OpenRun(%+v): %v, want an error with %q", tc.o, err, tc.want)
			}
		})
	}
	dir := t.TempDir()
	r := openRun(t, runstore.RunOptions{Dir: dir})
	if _, err := runstore.OpenRun(runstore.RunOptions{Dir: dir}); !errors.Is(err, rundir.ErrLocked) {
		t.Errorf("a second Run on %s: %v, want rundir.ErrLocked", dir, err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	r2 := openRun(t, runstore.RunOptions{Dir: dir})
	if r2.Dir() != dir {
		t.Errorf("Dir %q, want %q", r2.Dir(), dir)
	}
}

// TestLocalRun: a run that lives in its directory has nothing to fetch or
// push, and logs to the directory's log.
func TestLocalRun(t *testing.T) {
	dir := t.TempDir()
	r := openRun(t, runstore.RunOptions{Dir: dir})
	ctx := context.Background()
	if err := r.Fetch(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.PutConfig(ctx); err != nil {
		t.Fatal(err)
	}
	if err := r.Push(ctx, 7); err != nil {
		t.Fatal(err)
	}
	if r.InStore() || r.Store() != nil || r.Where() != dir {
		t.Errorf("a local run: in a store %v, store %v, where %q", r.InStore(), r.Store(), r.Where())
	}
	r.Log().Info("hello")
	if b, err := os.ReadFile(filepath.Join(dir, rundir.LogFile)); err != nil || !bytes.Contains(b, []byte("hello")) {
		t.Errorf("the log holds %q (%v)", b, err)
	}
}

// TestStoreRun: a run in a store works in a temporary directory (removed
// at Close) unless given one; PutConfig publishes the configuration, and
// Fetch makes an empty directory hold the store's newest checkpoint, the
// configuration and the run's history, keeping a longer local history.
func TestStoreRun(t *testing.T) {
	url := runstoretest.FileURL(t)
	ctx := context.Background()
	var stderr bytes.Buffer
	r := openRun(t, runstore.RunOptions{URL: url, Stderr: &stderr, Who: "test"})
	tmp := r.Dir()
	if tmp == "" || !r.InStore() || r.Where() != url {
		t.Fatalf("a store run: dir %q, in a store %v, where %q", tmp, r.InStore(), r.Where())
	}
	if err := r.Fetch(ctx); err != nil {
		t.Fatal(err)
	}
	if r.Store() == nil {
		t.Fatal("no store after Fetch")
	}
	if _, err := os.Stat(filepath.Join(tmp, rundir.CheckpointsDir)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an empty store fetched something: %v", err)
	}
	config := []byte("seed: 1\n")
	if err := os.WriteFile(r.Layout().Config(), config, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := r.PutConfig(ctx); err != nil {
		t.Fatal(err)
	}
	st := r.Store()
	// A checkpoint as a trainer uploads it, and the run's history.
	ckptFile, stateFile := filepath.Join(t.TempDir(), "c"), filepath.Join(t.TempDir(), "s")
	os.WriteFile(ckptFile, []byte("weights"), 0o644)
	os.WriteFile(stateFile, []byte(`{"step": 5}`), 0o644)
	if err := st.PutCheckpoint(ctx, 5, ckptFile, stateFile); err != nil {
		t.Fatal(err)
	}
	metrics := []byte("{\"step\":1}\n{\"step\":5}\n")
	for key, b := range map[string][]byte{runstore.MetricsKey: metrics, runstore.MetaKey: []byte("{}\n"),
		runstore.AgentPrefix + rundir.AgentManifest: []byte("{}\n")} {
		if err := st.Put(ctx, key, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the temporary directory %s outlived Close: %v", tmp, err)
	}

	dir := t.TempDir()
	r2 := openRun(t, runstore.RunOptions{Dir: dir, URL: url, Stderr: &stderr, Who: "test"})
	if err := r2.Fetch(ctx); err != nil {
		t.Fatal(err)
	}
	run := rundir.Run{Dir: dir}
	latest, ok, err := run.Checkpoints().Latest()
	if err != nil || !ok || latest.Step != 5 {
		t.Fatalf("fetched latest %+v, %v, %v; want step 5", latest, ok, err)
	}
	for path, want := range map[string][]byte{run.Config(): config, run.Checkpoints().Path(5): []byte("weights"),
		run.Metrics(): metrics, filepath.Join(run.Agent(), rundir.AgentManifest): []byte("{}\n")} {
		if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, want) {
			t.Errorf("%s holds %q (%v), want %q", path, b, err, want)
		}
	}
	if !strings.Contains(stderr.String(), "test: fetched checkpoint 5 from "+url) {
		t.Errorf("stderr says %q", &stderr)
	}
}
