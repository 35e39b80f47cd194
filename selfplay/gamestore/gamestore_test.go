package gamestore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/env/tictactoe"
	"github.com/zerokit/zerokit/internal/atomicfile"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/selfplay"
)

// games plays n tic-tac-toe games with indices first.. and returns them by
// index.
func games(t testing.TB, first int64, n int) map[int64]data.Record {
	t.Helper()
	search := mcts.DefaultConfig()
	search.Simulations = 4
	out := map[int64]data.Record{}
	opts := selfplay.Options{Search: search, Seed: 99, FirstGame: first}
	_, err := selfplay.Generate(context.Background(), selfplay.Config{ParallelGames: 2}, opts, tictactoe.New(),
		mcts.UniformEvaluator{}, 0, n, func(i int64, rec *data.Record) error {
			out[i] = *rec
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// onDisk returns the seeds of every game in the store's shards (with
// repetitions) and the number of pending files.
func onDisk(t *testing.T, dir string) (seeds []uint64, pending int) {
	t.Helper()
	shards, err := data.ListShards(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range shards {
		recs, err := data.ReadShard(sh.Path)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			seeds = append(seeds, r.Meta.Seed)
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, pendingDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".zkg") {
			pending++
		}
	}
	return seeds, pending
}

func seedsOf(recs map[int64]data.Record) []uint64 {
	var s []uint64
	for _, r := range recs {
		s = append(s, r.Meta.Seed)
	}
	return s
}

func sameSet(t *testing.T, got, want []uint64) {
	t.Helper()
	sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
	sort.Slice(want, func(i, j int) bool { return want[i] < want[j] })
	if len(got) != len(want) {
		t.Fatalf("%d games on disk, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("games on disk differ from the games added (seed %d vs %d)", got[i], want[i])
		}
	}
}

func TestAddCompactReopen(t *testing.T) {
	dir := t.TempDir()
	s, st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.NextGame != 0 || st.Shards != 0 {
		t.Fatalf("fresh store: %+v", st)
	}
	recs := games(t, 0, 6)
	// Add out of order, as games finish.
	for _, i := range []int64{3, 0, 5, 1, 4, 2} {
		r := recs[i]
		if err := s.Add(i, &r); err != nil {
			t.Fatal(err)
		}
	}
	r := recs[2]
	if err := s.Add(2, &r); err == nil {
		t.Fatal("adding game 2 twice succeeded")
	}
	if s.Pending() != 6 || s.NextGame() != 6 {
		t.Fatalf("pending %d next %d", s.Pending(), s.NextGame())
	}
	path, n, err := s.Compact(9)
	if err != nil || n != 6 {
		t.Fatalf("compact: %q %d %v", path, n, err)
	}
	got, err := data.ReadShard(path)
	if err != nil {
		t.Fatal(err)
	}
	for k, rec := range got {
		if rec.Meta.Seed != selfplay.GameSeed(99, int64(k)) {
			t.Fatalf("shard record %d is not game %d: compaction must keep index order", k, k)
		}
	}
	if path, n, err := s.Compact(0); path != "" || n != 0 || err != nil {
		t.Fatalf("empty compaction: %q %d %v", path, n, err)
	}
	s2, st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.NextGame != 9 || s2.NextGame() != 9 || st.Shards != 1 || st.Pending != 0 {
		t.Fatalf("reopened: %+v", st)
	}
}

// TestCrashAtEveryPoint aborts a compaction at each of its steps (as a
// crash would, leaving the files as they are), reopens the store and checks
// that every added game is on disk exactly once and that indices are not
// reused.
func TestCrashAtEveryPoint(t *testing.T) {
	points := []struct {
		point string
		nth   int // abort at the nth call of that point
	}{
		{"listed", 1}, {"next", 1}, {"published", 1}, {"remove", 1}, {"remove", 3}, {"remove", 5},
	}
	first := games(t, 0, 4)
	second := games(t, 4, 5)
	for _, p := range points {
		t.Run(p.point, func(t *testing.T) {
			dir := t.TempDir()
			s, _, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range first {
				if err := s.Add(i, &r); err != nil {
					t.Fatal(err)
				}
			}
			if _, _, err := s.Compact(0); err != nil {
				t.Fatal(err)
			}
			for i, r := range second {
				if err := s.Add(i, &r); err != nil {
					t.Fatal(err)
				}
			}
			calls := 0
			crash := errors.New("crash")
			s.crash = func(point string) error {
				if point == p.point {
					if calls++; calls == p.nth {
						return crash
					}
				}
				return nil
			}
			if _, _, err := s.Compact(12); !errors.Is(err, crash) {
				t.Fatalf("compact: %v, want the injected crash", err)
			}
			// A temporary file as a crashed atomic write leaves it.
			tmp := filepath.Join(dir, pendingDir, atomicfile.TempPrefix+"game-000000000099.zkg-123")
			if err := os.WriteFile(tmp, []byte("partial"), 0o644); err != nil {
				t.Fatal(err)
			}
			s2, st, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			all := append(seedsOf(first), seedsOf(second)...)
			seeds, pending := onDisk(t, dir)
			if pending != 0 {
				t.Fatalf("%d pending files after reopening", pending)
			}
			sameSet(t, seeds, all)
			if st.TempRemoved != 1 {
				t.Fatalf("removed %d temporary files, want 1", st.TempRemoved)
			}
			wantNext := int64(9)
			if p.point != "listed" {
				wantNext = 12 // next.json was raised before the crash
			}
			if s2.NextGame() != wantNext {
				t.Fatalf("next game %d, want %d", s2.NextGame(), wantNext)
			}
			if wantDup := p.point == "published" || p.point == "remove"; (st.Duplicates > 0) != wantDup {
				t.Fatalf("recovery found %d duplicates at crash point %s", st.Duplicates, p.point)
			}
		})
	}
}

// TestPendingKeptWhenNotInLastShard checks that recovery only removes
// pending games that really are in the newest shard.
func TestPendingKeptWhenNotInLastShard(t *testing.T) {
	dir := t.TempDir()
	s, _, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	recs := games(t, 0, 5)
	for i := range int64(3) {
		r := recs[i]
		if err := s.Add(i, &r); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.Compact(0); err != nil {
		t.Fatal(err)
	}
	for i := int64(3); i < 5; i++ {
		r := recs[i]
		if err := s.Add(i, &r); err != nil {
			t.Fatal(err)
		}
	}
	// The process dies here, with two games pending.
	_, st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Pending != 2 || st.Duplicates != 0 || st.Compacted == "" || st.NextGame != 5 {
		t.Fatalf("recovery: %+v", st)
	}
	seeds, _ := onDisk(t, dir)
	sameSet(t, seeds, seedsOf(recs))
}

func TestCorruptPendingIsAnError(t *testing.T) {
	dir := t.TempDir()
	s, _, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := games(t, 0, 1)[0]
	if err := s.Add(0, &r); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, pendingDir, pendingFileName(0))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = Open(dir)
	if err == nil || !strings.Contains(err.Error(), "game-000000000000.zkg") {
		t.Fatalf("Open with a corrupt pending file: %v, want an error naming it", err)
	}
}

func FuzzDecodePending(f *testing.F) {
	r := games(f, 0, 1)[0]
	payload, err := r.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	good := encodePending(7, payload)
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add([]byte(pendingMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		idx, rec, err := DecodePending(b)
		if err != nil {
			return
		}
		if err := rec.Validate(); err != nil {
			t.Fatalf("decoded an invalid record: %v", err)
		}
		p, err := rec.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		i2, _, err := DecodePending(encodePending(idx, p))
		if err != nil || i2 != idx {
			t.Fatalf("re-encoding: %v, index %d vs %d", err, i2, idx)
		}
	})
}
