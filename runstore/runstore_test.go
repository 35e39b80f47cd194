package runstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/runstore"
	"github.com/zerokit/zerokit/runstore/runstoretest"
)

// stores opens a fresh store of each kind this build serves (s3:// with the
// build tag s3).
func stores(t *testing.T) map[string]*runstore.Store {
	t.Helper()
	urls := map[string]string{"file": runstoretest.FileURL(t)}
	if runstore.HasDriver("s3") {
		urls["s3"] = runstoretest.StartS3(t, "bucket").URL("bucket", "runs/a")
	}
	out := map[string]*runstore.Store{}
	for name, u := range urls {
		s, err := runstore.Open(context.Background(), u)
		if err != nil {
			t.Fatalf("Open(%s): %v", u, err)
		}
		t.Cleanup(func() { s.Close() })
		out[name] = s
	}
	return out
}

func record(seed uint64, moves int) data.Record {
	r := data.Record{Game: "tictactoe", EncodingVersion: 1, Returns: [2]float32{1, -1},
		Meta: data.Meta{NetworkStep: 7, Seed: seed, Time: time.Unix(1700000000, 0).UTC()}}
	for i := range moves {
		r.Actions = append(r.Actions, i)
		r.Moves = append(r.Moves, data.Move{Full: i%2 == 0, Policy: []data.ActionProb{{Action: int32(i), Prob: 1}}})
	}
	return r
}

func TestShards(t *testing.T) {
	ctx := context.Background()
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			var b data.ShardBuilder
			for i := range 3 {
				rec := record(uint64(i), 4+i)
				if err := b.Add(&rec); err != nil {
					t.Fatal(err)
				}
			}
			t0 := time.Unix(1700000000, 5)
			k1, _ := runstore.ShardKey(t0.Add(time.Second), "w1", 0)
			k2, _ := runstore.ShardKey(t0, "w2", 3)
			for _, k := range []string{k1, k2} {
				if err := s.PutShard(ctx, k, bytes.NewReader(b.Bytes())); err != nil {
					t.Fatal(err)
				}
			}
			// Objects that are not shards: never listed.
			for _, k := range []string{"games/" + filepath.Base(k1) + ".1a2b.tmp", "games/notes.txt", "games/sub/x.zk"} {
				if err := s.Put(ctx, k, []byte("junk")); err != nil {
					t.Fatal(err)
				}
			}
			keys, err := s.Shards(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(keys) != 2 || keys[0] != k2 || keys[1] != k1 {
				t.Fatalf("Shards = %q, want [%s %s] (upload time order)", keys, k2, k1)
			}
			info, err := s.Info(ctx, k1)
			if err != nil {
				t.Fatal(err)
			}
			if want := b.Info(); info.Records != want.Records || info.Moves != want.Moves || info.FullMoves != want.FullMoves {
				t.Fatalf("Info = %+v, want %+v", info, want)
			}
			r, err := s.Open(ctx, k2)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for r.Next() {
				if got := r.Record(); got.Meta.Seed != uint64(n) || len(got.Moves) != 4+n {
					t.Fatalf("record %d: seed %d, %d moves", n, got.Meta.Seed, len(got.Moves))
				}
				n++
			}
			if r.Err() != nil || n != 3 {
				t.Fatalf("read %d records, err %v", n, r.Err())
			}
			// A truncated object is reported as corrupt, naming the key.
			bad, _ := runstore.ShardKey(t0.Add(2*time.Second), "w1", 1)
			full := b.Bytes()
			if err := s.PutShard(ctx, bad, bytes.NewReader(full[:len(full)-5])); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Info(ctx, bad); !errors.Is(err, data.ErrCorrupt) || !strings.Contains(err.Error(), bad) {
				t.Fatalf("Info of a truncated shard: %v", err)
			}
			// The buffer loads from the store as from a directory.
			if err := s.PutShard(ctx, bad, bytes.NewReader(full)); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Get(ctx, "games/missing.zk"); !errors.Is(err, runstore.ErrNotExist) {
				t.Fatalf("Get of a missing object: %v, want ErrNotExist", err)
			}
		})
	}
}

func TestShardKey(t *testing.T) {
	for _, tc := range []struct {
		worker string
		seq    int64
		ok     bool
	}{
		{"w1", 0, true},
		{"abcdefghijklmnopqrstuvwxyz012345", 999999, true},
		{"W1", 0, false},
		{"a-b", 0, false},
		{"", 0, false},
		{"abcdefghijklmnopqrstuvwxyz0123456", 0, false},
		{"w", -1, false},
	} {
		k, err := runstore.ShardKey(time.Unix(0, 1), tc.worker, tc.seq)
		if (err == nil) != tc.ok {
			t.Errorf("ShardKey(%q, %d) = %q, %v; want ok %v", tc.worker, tc.seq, k, err, tc.ok)
			continue
		}
		if tc.ok {
			w, seq, ok := runstore.ParseShardKey(k)
			if !ok || w != tc.worker || seq != tc.seq {
				t.Errorf("ParseShardKey(%q) = %q, %d, %v", k, w, seq, ok)
			}
		}
	}
}

func TestNetworks(t *testing.T) {
	ctx := context.Background()
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			if _, err := s.CurrentNetwork(ctx); !errors.Is(err, runstore.ErrNotExist) {
				t.Fatalf("CurrentNetwork before any: %v, want ErrNotExist", err)
			}
			var last runstore.Network
			for step := int64(1); step <= runstore.KeepNetworks+3; step++ {
				n, err := s.PublishNetwork(ctx, step*100, bytes.Repeat([]byte{byte(step)}, 1000+int(step)))
				if err != nil {
					t.Fatal(err)
				}
				last = n
			}
			cur, err := s.CurrentNetwork(ctx)
			if err != nil || cur.Step != last.Step || cur.SHA256 != last.SHA256 {
				t.Fatalf("CurrentNetwork = %+v, %v; want %+v", cur, err, last)
			}
			w, err := s.ReadNetwork(ctx, cur)
			if err != nil || len(w) != 1000+runstore.KeepNetworks+3 {
				t.Fatalf("ReadNetwork: %d bytes, %v", len(w), err)
			}
			var kept []string
			for _, step := range []int64{100, 300, 400, 800} {
				if _, err := s.Get(ctx, fmt.Sprintf("network/step-%012d.ckpt", step)); err == nil {
					kept = append(kept, fmt.Sprint(step))
				}
			}
			if strings.Join(kept, ",") != "400,800" {
				t.Fatalf("networks kept among 100,300,400,800: %v; want the newest %d only", kept, runstore.KeepNetworks)
			}
			// A network replaced behind the pointer's back is refused.
			if err := s.Put(ctx, cur.Key, []byte("tampered")); err != nil {
				t.Fatal(err)
			}
			if _, err := s.ReadNetwork(ctx, cur); err == nil || !strings.Contains(err.Error(), "sha256") {
				t.Fatalf("ReadNetwork of a replaced object: %v", err)
			}
			if err := s.Put(ctx, runstore.CurrentNetworkKey, []byte(`{"step":1}`)); err != nil {
				t.Fatal(err)
			}
			if _, err := s.CurrentNetwork(ctx); err == nil || !strings.Contains(err.Error(), "bad content") {
				t.Fatalf("CurrentNetwork of a bad pointer: %v", err)
			}
		})
	}
}

func TestCheckpoints(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			if _, ok, err := s.LatestCheckpoint(ctx); ok || err != nil {
				t.Fatalf("LatestCheckpoint of an empty store: %v, %v", ok, err)
			}
			for _, step := range []int64{250, 500, 750} {
				ck, st := filepath.Join(dir, "c"), filepath.Join(dir, "s")
				os.WriteFile(ck, []byte(fmt.Sprint("weights ", name, step)), 0o644)
				os.WriteFile(st, []byte(`{"step":1}`), 0o644)
				if err := s.PutCheckpoint(ctx, step, ck, st); err != nil {
					t.Fatal(err)
				}
			}
			step, ok, err := s.LatestCheckpoint(ctx)
			if !ok || err != nil || step != 750 {
				t.Fatalf("LatestCheckpoint = %d, %v, %v; want 750", step, ok, err)
			}
			ck, st := filepath.Join(dir, name+".ckpt"), filepath.Join(dir, name+".state")
			if err := s.GetCheckpoint(ctx, 750, ck, st); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(ck); string(b) != "weights "+name+"750" {
				t.Fatalf("downloaded checkpoint %q", b)
			}
			if err := s.GetCheckpoint(ctx, 250, ck, st); !errors.Is(err, runstore.ErrNotExist) {
				t.Fatalf("checkpoint 250 should be deleted (keep %d): %v", runstore.KeepCheckpoints, err)
			}
			if err := s.GetCheckpoint(ctx, 500, ck, st); err != nil {
				t.Fatalf("checkpoint 500: %v", err)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	type openCase struct {
		name, url, want string
		env             map[string]string
	}
	cases := []openCase{
		{"empty", "", "no store URL", nil},
		{"scheme", "ftp://host/x", `unsupported scheme "ftp"`, nil},
		{"file host", "file://host/x", "no host", nil},
	}
	// Without the driver, TestOptionalDrivers checks the error naming its tag.
	if runstore.HasDriver("s3") {
		s3 := runstoretest.StartS3(t, "bucket")
		cases = append(cases,
			openCase{"no bucket", "s3:///prefix", "no bucket", nil},
			openCase{"missing bucket", s3.URL("nope", "x"), "does not exist", nil},
			openCase{"no credentials", s3.URL("bucket", "x"), "AWS_ACCESS_KEY_ID",
				map[string]string{"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_EC2_METADATA_DISABLED": "true"}})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			s, err := runstore.Open(ctx, tc.url)
			if err == nil {
				s.Close()
				t.Fatalf("Open(%q) succeeded", tc.url)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Open(%q): %v; want it to mention %q", tc.url, err, tc.want)
			}
		})
	}
}

// A plain path opens as a file store.
func TestOpenPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	s, err := runstore.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Put(context.Background(), runstore.ConfigKey, []byte("game: {}\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, runstore.ConfigKey)); err != nil {
		t.Fatal(err)
	}
}

// ShardsSince lists only the hours since its argument; Shards lists all.
func TestShardsSince(t *testing.T) {
	ctx := context.Background()
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			var b data.ShardBuilder
			rec := record(1, 3)
			if err := b.Add(&rec); err != nil {
				t.Fatal(err)
			}
			now := time.Now()
			old, _ := runstore.ShardKey(now.Add(-5*time.Minute), "w", 0)
			recent, _ := runstore.ShardKey(now.Add(-time.Minute), "w", 1)
			fresh, _ := runstore.ShardKey(now, "w", 2)
			for _, k := range []string{fresh, old, recent} {
				if err := s.PutShard(ctx, k, bytes.NewReader(b.Bytes())); err != nil {
					t.Fatal(err)
				}
			}
			got, err := s.ShardsSince(ctx, now.Add(-2*time.Minute))
			if err != nil || strings.Join(got, " ") != recent+" "+fresh {
				t.Fatalf("ShardsSince(2 minutes ago) = %q, %v; want [%s %s]", got, err, recent, fresh)
			}
			all, err := s.Shards(ctx)
			if err != nil || strings.Join(all, " ") != old+" "+recent+" "+fresh {
				t.Fatalf("Shards = %q, %v", all, err)
			}
		})
	}
}

// Open deletes the file driver's stale temporary files, not fresh ones.
func TestStaleTemp(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	games := filepath.Join(dir, "games", "2026-01-01T00")
	if err := os.MkdirAll(games, 0o755); err != nil {
		t.Fatal(err)
	}
	stale, fresh := filepath.Join(games, "a.zk.1.tmp"), filepath.Join(games, "b.zk.2.tmp")
	for _, p := range []string{stale, fresh} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * runstore.StaleTempAge)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	s, err := runstore.Open(context.Background(), "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stale temporary file kept: %v", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Fatalf("fresh temporary file removed: %v", err)
	}
}

// TestTransient: an unreachable store's errors are transient, and the
// store works again once it is back; a missing object, a cancelled context
// and errors from elsewhere are not transient.
func TestTransient(t *testing.T) {
	ctx := context.Background()
	srv := runstoretest.StartS3(t, "bucket")
	s, err := runstore.Open(ctx, srv.URL("bucket", "runs/a"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Put(ctx, "x", []byte("1")); err != nil {
		t.Fatal(err)
	}
	_, err = s.Get(ctx, "missing")
	if !errors.Is(err, runstore.ErrNotExist) || runstore.Transient(err) {
		t.Errorf("a missing object: %v, Transient %v; want ErrNotExist, not transient", err, runstore.Transient(err))
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Get(cctx, "x"); err == nil || runstore.Transient(err) {
		t.Errorf("a cancelled read: %v, Transient %v; want an error, not transient", err, runstore.Transient(err))
	}
	if runstore.Transient(errors.New("runstore: something else")) || runstore.Transient(nil) {
		t.Error("an error not from the store is transient")
	}

	srv.Stop()
	for name, op := range map[string]func() error{
		"get":  func() error { _, err := s.Get(ctx, "x"); return err },
		"put":  func() error { return s.Put(ctx, "y", []byte("2")) },
		"list": func() error { _, err := s.Shards(ctx); return err },
		"size": func() error { _, err := s.Size(ctx, "x"); return err },
	} {
		if err := op(); err == nil || !runstore.Transient(err) {
			t.Errorf("%s on a stopped server: %v, Transient %v; want a transient error", name, err, runstore.Transient(err))
		}
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	if b, err := s.Get(ctx, "x"); err != nil || string(b) != "1" {
		t.Fatalf("after the restart: %q, %v", b, err)
	}
	if n, err := s.Size(ctx, "x"); err != nil || n != 1 {
		t.Fatalf("Size = %d, %v; want 1", n, err)
	}
}
