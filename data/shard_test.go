package data

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// writeGames writes recs through a Writer into dir and returns the shard
// paths written.
func writeGames(t *testing.T, dir string, perShard int, recs []*Record) []string {
	t.Helper()
	w, err := NewWriter(dir, perShard)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	shards, err := ListShards(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(shards))
	for i, s := range shards {
		out[i] = s.Path
	}
	return out
}

func randomRecords(t *testing.T, seed uint64, n int) []*Record {
	rng := rand.New(rand.NewPCG(seed, 2))
	g := newMNK(3, 3)
	recs := make([]*Record, n)
	for i := range recs {
		recs[i] = playRandom(t, g, rng, 0.75)
	}
	return recs
}

func TestWriterReaderRoundTrip(t *testing.T) {
	for _, perShard := range []int{1, 3, 10} {
		t.Run(fmt.Sprint(perShard), func(t *testing.T) {
			dir := t.TempDir()
			recs := randomRecords(t, uint64(perShard), 10)
			paths := writeGames(t, dir, perShard, recs)
			if want := (10 + perShard - 1) / perShard; len(paths) != want {
				t.Fatalf("%d shards, want %d", len(paths), want)
			}
			var got []*Record
			for i, p := range paths {
				if want := ShardPath(dir, i+1); p != want {
					t.Errorf("shard %d is %s, want %s", i, p, want)
				}
				rs, err := ReadShard(p)
				if err != nil {
					t.Fatal(err)
				}
				info, err := ReadShardInfo(Shard{Path: p, Number: i + 1})
				if err != nil {
					t.Fatal(err)
				}
				var moves, full int64
				for i := range rs {
					got = append(got, &rs[i])
					moves += int64(len(rs[i].Moves))
					full += int64(rs[i].FullMoves())
				}
				if info.Records != len(rs) || info.Moves != moves || info.FullMoves != full {
					t.Errorf("%s: info %+v, want %d records %d moves %d full", p, info, len(rs), moves, full)
				}
			}
			if !reflect.DeepEqual(got, recs) {
				t.Fatalf("records read back differ from those written")
			}
		})
	}
}

// shardBytes returns one shard holding recs and the byte offset of each
// record's frame end.
func shardBytes(t *testing.T, recs []*Record) ([]byte, []int) {
	t.Helper()
	dir := t.TempDir()
	paths := writeGames(t, dir, len(recs), recs)
	b, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	ends := []int{}
	off := headerSize
	for _, r := range recs {
		p, err := AppendRecord(nil, r)
		if err != nil {
			t.Fatal(err)
		}
		off += len(appendFrame(nil, p))
		ends = append(ends, off)
	}
	if off+footerSize != len(b) {
		t.Fatalf("shard is %d bytes, frames end at %d + footer %d", len(b), off, footerSize)
	}
	return b, ends
}

// recordAt is the index of the record whose frame holds byte off.
func recordAt(ends []int, off int) int {
	for i, e := range ends {
		if off < e {
			return i
		}
	}
	return len(ends)
}

func readAll(b []byte, name string) (int, error) {
	r, err := NewShardReader(bytes.NewReader(b), name)
	if err != nil {
		return 0, err
	}
	n := 0
	for r.Next() {
		n++
	}
	return n, r.Err()
}

func TestTruncatedShardDetected(t *testing.T) {
	recs := randomRecords(t, 3, 4)
	b, ends := shardBytes(t, recs)
	dir := t.TempDir()
	path := filepath.Join(dir, "shard-000001.zk")
	for cut := 0; cut < len(b); cut++ {
		_, err := readAll(b[:cut], path)
		if cut%7 == 0 {
			// Through the file API too, now and then (it is slower).
			if err := os.WriteFile(path, b[:cut], 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = ReadShard(path)
			if _, infoErr := ReadShardInfo(Shard{Path: path}); infoErr == nil {
				t.Fatalf("cut at %d: ReadShardInfo accepted a truncated shard", cut)
			}
		}
		var ce *CorruptError
		if !errors.As(err, &ce) || !errors.Is(err, ErrTruncated) || !errors.Is(err, ErrCorrupt) {
			t.Fatalf("cut at %d of %d: error %v, want a truncation *CorruptError", cut, len(b), err)
		}
		if !strings.Contains(err.Error(), path) {
			t.Fatalf("cut at %d: error %q does not name the file", cut, err)
		}
		wantRec := recordAt(ends, cut)
		switch {
		case cut < headerSize:
			if ce.Record != -1 || !strings.Contains(err.Error(), "header") {
				t.Fatalf("cut at %d: %v, want a header error", cut, err)
			}
		case cut >= ends[len(ends)-1]+1:
			if !ce.Footer || ce.Record != len(recs) {
				t.Fatalf("cut at %d: %v, want a footer error after %d records", cut, err, len(recs))
			}
		default:
			if ce.Record != wantRec || !strings.Contains(err.Error(), fmt.Sprintf("record %d ", wantRec)) {
				t.Fatalf("cut at %d: %v, want record %d", cut, err, wantRec)
			}
		}
	}
}

func TestFlippedByteDetected(t *testing.T) {
	recs := randomRecords(t, 4, 3)
	b, ends := shardBytes(t, recs)
	name := "run/games/shard-000007.zk"
	for off := range b {
		for _, mask := range []byte{0x01, 0x10, 0x80, 0xff} {
			c := append([]byte{}, b...)
			c[off] ^= mask
			_, err := readAll(c, name)
			var ce *CorruptError
			if !errors.As(err, &ce) {
				t.Fatalf("byte %d ^ %#x: error %v, want *CorruptError", off, mask, err)
			}
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("byte %d: error %q does not name the file", off, err)
			}
			// The reader never gets past a damaged record, so the error
			// names the record holding the flipped byte (the footer counts
			// as record len(recs); the header as -1).
			want := recordAt(ends, off)
			if off < headerSize {
				want = -1
			}
			if ce.Record != want {
				t.Fatalf("byte %d ^ %#x: error names record %d, want %d: %v", off, mask, ce.Record, want, err)
			}
		}
	}
}

func TestFooterCountMismatchDetected(t *testing.T) {
	recs := randomRecords(t, 5, 2)
	b, ends := shardBytes(t, recs)
	c := appendFooter(append([]byte{}, b[:ends[1]]...), 3, 1, 1)
	_, err := readAll(c, "x.zk")
	if err == nil || !strings.Contains(err.Error(), "footer counts 3 records") {
		t.Fatalf("error %v, want a footer count mismatch", err)
	}
	c = append(append([]byte{}, b...), 0)
	if _, err := readAll(c, "x.zk"); err == nil || !strings.Contains(err.Error(), "data after the footer") {
		t.Fatalf("error %v, want trailing data detected", err)
	}
}

func TestTempFilesIgnoredAndCleaned(t *testing.T) {
	dir := t.TempDir()
	recs := randomRecords(t, 6, 4)
	writeGames(t, dir, 2, recs[:2])
	old := filepath.Join(dir, tempPrefix+"123"+tempSuffix)
	fresh := filepath.Join(dir, tempPrefix+"456"+tempSuffix)
	other := filepath.Join(dir, "notes.txt")
	for _, p := range []string{old, fresh, other} {
		if err := os.WriteFile(p, []byte("ZKSHARD\x01partial"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	past := time.Now().Add(-2 * StaleTempAge)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	shards, err := ListShards(dir)
	if err != nil || len(shards) != 1 || shards[0].Number != 1 {
		t.Fatalf("ListShards = %v, %v; want only shard 1", shards, err)
	}
	paths := writeGames(t, dir, 2, recs[2:])
	if len(paths) != 2 || paths[1] != ShardPath(dir, 2) {
		t.Fatalf("shards %v, want shards 1 and 2", paths)
	}
	if _, err := os.Stat(old); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale temp file not removed: %v", err)
	}
	for _, p := range []string{fresh, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}

func TestShardNumberingSurvivesRestarts(t *testing.T) {
	dir := t.TempDir()
	recs := randomRecords(t, 7, 6)
	writeGames(t, dir, 1, recs[:2]) // shards 1, 2
	// A gap and a larger number left by another run.
	b, err := os.ReadFile(ShardPath(dir, 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ShardPath(dir, 9), b, 0o644); err != nil {
		t.Fatal(err)
	}
	paths := writeGames(t, dir, 1, recs[2:3])
	want := []string{ShardPath(dir, 1), ShardPath(dir, 2), ShardPath(dir, 9), ShardPath(dir, 10)}
	if !reflect.DeepEqual(paths, want) {
		t.Fatalf("shards %v, want %v", paths, want)
	}
	// Numbers above 999999 keep sorting numerically.
	if err := os.WriteFile(ShardPath(dir, 1234567), b, 0o644); err != nil {
		t.Fatal(err)
	}
	paths = writeGames(t, dir, 1, recs[3:4])
	if got := paths[len(paths)-1]; got != ShardPath(dir, 1234568) {
		t.Fatalf("last shard %s, want number 1234568", got)
	}
}

func TestConcurrentWritersNeverOverwrite(t *testing.T) {
	dir := t.TempDir()
	recs := randomRecords(t, 8, 12)
	// Writers created together all start at the same number.
	var ws []*Writer
	for range 3 {
		w, err := NewWriter(dir, 1)
		if err != nil {
			t.Fatal(err)
		}
		ws = append(ws, w)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(recs))
	for i, w := range ws {
		wg.Go(func() {
			for _, r := range recs[i*4 : i*4+4] {
				if err := w.Add(r); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	shards, err := ListShards(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(shards) != len(recs) {
		t.Fatalf("%d shards, want %d (one per game, none overwritten)", len(shards), len(recs))
	}
	seen := map[uint64]bool{}
	for _, sh := range shards {
		rs, err := ReadShard(sh.Path)
		if err != nil {
			t.Fatal(err)
		}
		seen[rs[0].Meta.Seed] = true
	}
	if len(seen) != len(recs) {
		t.Fatalf("%d distinct games on disk, want %d", len(seen), len(recs))
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if isTempName(e.Name()) {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestWriterRejectsInvalidRecord(t *testing.T) {
	w, err := NewWriter(t.TempDir(), 2)
	if err != nil {
		t.Fatal(err)
	}
	bad := validRecord()
	bad.Game = ""
	if err := w.Add(bad); err == nil {
		t.Fatal("Add accepted an invalid record")
	}
	if w.Pending() != 0 {
		t.Fatalf("invalid record buffered")
	}
	if _, err := NewWriter(t.TempDir(), 0); err == nil {
		t.Fatal("NewWriter accepted 0 games per shard")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(validRecord()); err == nil {
		t.Fatal("Add after Close succeeded")
	}
}

func FuzzShardReader(f *testing.F) {
	rng := rand.New(rand.NewPCG(9, 9))
	g := newMNK(3, 3)
	var recs []*Record
	for range 2 {
		recs = append(recs, playRandom(f, g, rng, 0.5))
	}
	buf := []byte(shardMagic + "\x01")
	var moves, full int64
	for _, r := range recs {
		p, err := AppendRecord(nil, r)
		if err != nil {
			f.Fatal(err)
		}
		buf = appendFrame(buf, p)
		moves += int64(len(r.Moves))
		full += int64(r.FullMoves())
	}
	buf = appendFooter(buf, len(recs), moves, full)
	f.Add(buf)
	f.Add(buf[:len(buf)/2])
	f.Add([]byte(shardMagic + "\x01\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		n, err := readAll(b, "fuzz.zk")
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not match ErrCorrupt", err)
			}
			return
		}
		if n < 0 {
			t.Fatal("negative count")
		}
	})
}

// crashDirEnv, when set, turns TestCrashLeavesNoPartialShard into the
// writer process that the test kills.
const crashDirEnv = "ZEROKIT_DATA_CRASH_DIR"

func TestCrashLeavesNoPartialShard(t *testing.T) {
	if dir := os.Getenv(crashDirEnv); dir != "" {
		// Child: write shards until killed.
		recs := randomRecords(t, 10, 50)
		w, err := NewWriter(dir, 200)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			if err := w.Add(recs[i%len(recs)]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if testing.Short() {
		t.Skip("spawns a process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashLeavesNoPartialShard$")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill the writer (SIGKILL: no cleanup runs) once it has written a few
	// shards, most likely in the middle of another.
	deadline := time.Now().Add(20 * time.Second)
	for {
		shards, err := ListShards(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(shards) >= 4 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("writer produced %d shards in 20s", len(shards))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatal("writer exited cleanly; want it killed")
	}
	shards, err := ListShards(dir)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	t.Logf("after kill: %d shards, %d directory entries", len(shards), len(entries))
	for i, sh := range shards {
		if sh.Number != i+1 {
			t.Fatalf("shard %d has number %d: a gap", i, sh.Number)
		}
		recs, err := ReadShard(sh.Path)
		if err != nil {
			t.Fatalf("visible shard after kill -9: %v", err)
		}
		if len(recs) != 200 {
			t.Fatalf("%s holds %d games, want 200", sh.Path, len(recs))
		}
	}
	// A restarted writer continues the numbering.
	paths := writeGames(t, dir, 1, randomRecords(t, 11, 1))
	if got, want := paths[len(paths)-1], ShardPath(dir, len(shards)+1); got != want {
		t.Fatalf("restarted writer wrote %s, want %s", got, want)
	}
}
