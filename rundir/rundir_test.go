package rundir

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLockExcludesSecondHolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	l, err := AcquireLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = AcquireLock(dir)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second lock: %v, want ErrLocked", err)
	}
	if want := fmt.Sprintf("process %d", os.Getpid()); !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not name the holder (%s)", err, want)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	l2, err := AcquireLock(dir)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	l2.Release()
	if err := l.Release(); err != nil {
		t.Fatalf("second release: %v", err)
	}
}

func touch(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCheckpointsRetention(t *testing.T) {
	for _, tc := range []struct {
		keepLast  int
		keepEvery int64
		want      []int64
	}{
		{1, 0, []int64{100}},
		{3, 0, []int64{80, 90, 100}},
		{2, 40, []int64{40, 80, 90, 100}},
	} {
		t.Run(fmt.Sprint(tc.keepLast, tc.keepEvery), func(t *testing.T) {
			c := Checkpoints{Dir: t.TempDir(), KeepLast: tc.keepLast, KeepEvery: tc.keepEvery}
			if _, ok, err := c.Latest(); ok || err != nil {
				t.Fatalf("empty dir: ok=%v err=%v", ok, err)
			}
			for s := int64(10); s <= 100; s += 10 {
				touch(t, c.Path(s), c.StatePath(s))
				if err := c.Commit(s); err != nil {
					t.Fatal(err)
				}
			}
			// An uncommitted newer checkpoint (crash before Commit) is left alone.
			touch(t, c.Path(110))
			if err := c.Commit(100); err != nil {
				t.Fatal(err)
			}
			steps, err := c.Steps()
			if err != nil {
				t.Fatal(err)
			}
			if want := append(tc.want, 110); !reflect.DeepEqual(steps, want) {
				t.Fatalf("kept %v, want %v", steps, want)
			}
			l, ok, err := c.Latest()
			if err != nil || !ok || l.Step != 100 || filepath.Join(c.Dir, l.Checkpoint) != c.Path(100) {
				t.Fatalf("latest %+v ok=%v err=%v", l, ok, err)
			}
		})
	}
}

func TestCommitNeedsFiles(t *testing.T) {
	c := Checkpoints{Dir: t.TempDir(), KeepLast: 2}
	touch(t, c.Path(5))
	if err := c.Commit(5); err == nil {
		t.Fatal("commit without a state file succeeded")
	}
	if _, ok, _ := c.Latest(); ok {
		t.Fatal("failed commit left a pointer")
	}
}

func TestLatestRejectsBadPointer(t *testing.T) {
	for _, text := range []string{
		`{"step": 5, "checkpoint": "../x.ckpt", "state": "step-000000005.json"}`,
		`{"step": 5, "checkpoint": "step-000000006.ckpt", "state": "step-000000005.json"}`,
		`{"step": 5, "extra": 1}`,
		`not json`,
	} {
		c := Checkpoints{Dir: t.TempDir(), KeepLast: 1}
		if err := os.WriteFile(filepath.Join(c.Dir, latestName), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := c.Latest(); err == nil {
			t.Errorf("pointer %s accepted", text)
		}
	}
}

func TestMetricsTrimsPartialLine(t *testing.T) {
	for _, tc := range []struct {
		name, before string
		wantLines    int
	}{
		{"empty", "", 1},
		{"clean", "{\"step\":1}\n", 2},
		{"partial", "{\"step\":1}\n{\"st", 2},
		{"only partial", "{\"st", 1},
		{"long partial", "{\"step\":1}\n" + strings.Repeat("x", 10000), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "metrics.jsonl")
			if err := os.WriteFile(path, []byte(tc.before), 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := OpenMetrics(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Write(map[string]any{"step": 2, "loss": 0.5}); err != nil {
				t.Fatal(err)
			}
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			sc := bufio.NewScanner(f)
			n := 0
			for sc.Scan() {
				var v map[string]any
				if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
					t.Fatalf("line %d %q: %v", n+1, sc.Text(), err)
				}
				n++
			}
			if n != tc.wantLines {
				t.Fatalf("%d lines, want %d", n, tc.wantLines)
			}
		})
	}
}
