// Package gamestore keeps the self-play games of a run on disk so that no
// finished game is ever lost or duplicated, whenever the process dies.
//
// Layout of a store directory:
//
//	shard-000001.zk ...   compacted shards (package data's format); the
//	                      directory data.Buffer.Load reads
//	pending/game-<index>.zkg
//	                      one file per finished game not yet compacted,
//	                      named by its global game index
//	next.json             {"next_game": N}: N exceeds the index of every
//	                      game in a shard
//
// Protocol. Add writes a finished game to its own pending file (temporary
// file, fsync, rename, fsync of the directory) before returning, so a game
// is durable as soon as its sink call returns. Compact moves the pending
// games into one new shard in four steps:
//
//  1. list the pending files (index order) and decode them;
//  2. raise next.json above their indices (atomic write);
//  3. publish them as one shard (data.Writer: temporary file, fsync,
//     hard link to the next free shard name, fsync of the directory);
//  4. delete the pending files and fsync the pending directory.
//
// Why this is crash-safe. No loss: a game leaves pending/ only in step 4,
// after step 3 has made a shard holding it durable. No duplicate: a game is
// both in a shard and pending only between steps 3 and 4, and then every
// pending file left is one listed in step 1, so its game is in the newest
// shard. Open repairs that state by deleting the pending files whose game
// (identified by its seed, unique within a run: selfplay.GameSeed is a
// bijection of the game index) is in the newest shard; a crash before
// step 3 completes leaves no shard holding them, so they stay pending and
// the next compaction takes them. No index reuse: next.json is raised in
// step 2, before a shard can hold the games, and pending files carry their
// index in their name, so Open's NextGame exceeds the index of every game on
// disk. (Indices of games that were in flight when the process died are
// handed out again; they never produced a record.)
//
// Adds and compactions are serialised by the Store; the directory must have
// a single writer (the training run's lock file guarantees it).
package gamestore

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/internal/atomicfile"
)

const (
	pendingDir = "pending"
	nextFile   = "next.json"
	// pendingMagic starts every pending game file (format version 1).
	pendingMagic = PendingPrefix + "\x00\x01"
)

// PendingPrefix starts every pending game file, whatever its format
// version.
const PendingPrefix = "ZKGAME"

var (
	pendingName = regexp.MustCompile(`^game-([0-9]{12,19})\.zkg$`)
	castagnoli  = crc32.MakeTable(crc32.Castagnoli)
)

// Store is a run's games directory. It is safe for concurrent use.
type Store struct {
	dir string

	mu      sync.Mutex
	next    int64
	pending map[int64]string // index -> file

	// crash, if set (by tests), is called at the points of Compact named
	// in the package documentation; an error aborts Compact there, as a
	// crash would.
	crash func(point string) error
}

func (s *Store) crashPoint(point string) error {
	if s.crash == nil {
		return nil
	}
	return s.crash(point)
}

// RecoverStats reports what Open found and repaired.
type RecoverStats struct {
	// Shards is the number of compacted shards.
	Shards int
	// Pending is the number of pending games found; Duplicates of them
	// were already in the newest shard (a crash during compaction) and were
	// deleted; the others were compacted into Compacted (a shard path, or
	// "" if there were none).
	Pending, Duplicates int
	Compacted           string
	// TempRemoved counts leftover temporary files deleted.
	TempRemoved int
	// NextGame is the first unused game index.
	NextGame int64
}

// Open opens (creating it if needed) the store in dir and repairs the state
// a crash may have left: temporary files are removed, pending games
// already compacted are deleted, and the remaining pending games are
// compacted into a new shard.
func Open(dir string) (*Store, RecoverStats, error) {
	var st RecoverStats
	if err := os.MkdirAll(filepath.Join(dir, pendingDir), 0o755); err != nil {
		return nil, st, fmt.Errorf("gamestore: %w", err)
	}
	s := &Store{dir: dir, pending: map[int64]string{}}
	var err error
	if st.TempRemoved, err = removeTemps(dir); err != nil {
		return nil, st, err
	}
	n, err := removeTemps(s.pendingPath())
	if err != nil {
		return nil, st, err
	}
	st.TempRemoved += n
	if s.next, err = readNext(filepath.Join(dir, nextFile)); err != nil {
		return nil, st, err
	}
	shards, err := data.ListShards(dir)
	if err != nil {
		return nil, st, fmt.Errorf("gamestore: %w", err)
	}
	st.Shards = len(shards)
	files, err := s.listPending()
	if err != nil {
		return nil, st, err
	}
	st.Pending = len(files)
	if len(files) > 0 && len(shards) > 0 {
		seeds, err := shardSeeds(shards[len(shards)-1].Path)
		if err != nil {
			return nil, st, err
		}
		kept := files[:0]
		for _, f := range files {
			_, rec, err := readPending(f.path)
			if err != nil {
				return nil, st, err
			}
			if seeds[rec.Meta.Seed] {
				if err := os.Remove(f.path); err != nil {
					return nil, st, fmt.Errorf("gamestore: remove duplicate: %w", err)
				}
				st.Duplicates++
				continue
			}
			kept = append(kept, f)
		}
		if st.Duplicates > 0 {
			if err := syncDir(s.pendingPath()); err != nil {
				return nil, st, err
			}
		}
		files = kept
	}
	for _, f := range files {
		s.pending[f.index] = f.path
		s.next = max(s.next, f.index+1)
	}
	path, _, err := s.Compact(0)
	if err != nil {
		return nil, st, err
	}
	st.Compacted = path
	st.NextGame = s.next
	return s, st, nil
}

// Dir is the directory of the compacted shards (for data.Buffer.Load).
func (s *Store) Dir() string { return s.dir }

func (s *Store) pendingPath() string { return filepath.Join(s.dir, pendingDir) }

// NextGame is the first game index not used by any game on disk.
func (s *Store) NextGame() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next
}

// Pending is the number of games not yet compacted.
func (s *Store) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}

// Add makes a finished game durable as game index: when it returns nil the
// game survives any crash. An index already on disk, or an invalid record,
// is an error.
func (s *Store) Add(index int64, rec *data.Record) error {
	if index < 0 {
		return fmt.Errorf("gamestore: add: negative game index %d", index)
	}
	payload, err := rec.MarshalBinary()
	if err != nil {
		return fmt.Errorf("gamestore: add game %d: %w", index, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.pending[index]; ok {
		return fmt.Errorf("gamestore: add: game %d is already pending", index)
	}
	path := filepath.Join(s.pendingPath(), pendingFileName(index))
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("gamestore: add: %s exists", path)
	}
	if err := atomicfile.WriteFile(path, encodePending(index, payload), 0o644); err != nil {
		return fmt.Errorf("gamestore: add game %d: %w", index, err)
	}
	s.pending[index] = path
	s.next = max(s.next, index+1)
	return nil
}

// Compact moves every pending game into one new shard (see the package
// documentation for the protocol) and returns its path and number of
// games ("" and 0 when nothing was pending). nextGame, the caller's next
// game index, raises next.json so that indices handed out but not yet
// finished are not reused either.
func (s *Store) Compact(nextGame int64) (string, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if nextGame > s.next {
		s.next = nextGame
	}
	if len(s.pending) == 0 {
		return "", 0, nil
	}
	idx := make([]int64, 0, len(s.pending))
	for i := range s.pending {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
	recs := make([]data.Record, len(idx))
	for k, i := range idx {
		gotIdx, rec, err := readPending(s.pending[i])
		if err != nil {
			return "", 0, err
		}
		if gotIdx != i {
			return "", 0, fmt.Errorf("gamestore: %s holds game %d", s.pending[i], gotIdx)
		}
		recs[k] = rec
	}
	if err := s.crashPoint("listed"); err != nil {
		return "", 0, err
	}
	// Step 2: next.json above every index about to enter a shard.
	if err := writeNext(filepath.Join(s.dir, nextFile), s.next); err != nil {
		return "", 0, err
	}
	if err := s.crashPoint("next"); err != nil {
		return "", 0, err
	}
	// Step 3: publish the shard.
	w, err := data.NewWriter(s.dir, len(recs)+1)
	if err != nil {
		return "", 0, fmt.Errorf("gamestore: compact: %w", err)
	}
	for k := range recs {
		if err := w.Add(&recs[k]); err != nil {
			return "", 0, fmt.Errorf("gamestore: compact game %d: %w", idx[k], err)
		}
	}
	path, err := w.Flush()
	if err != nil {
		return "", 0, fmt.Errorf("gamestore: compact: %w", err)
	}
	if err := w.Close(); err != nil {
		return "", 0, fmt.Errorf("gamestore: compact: %w", err)
	}
	if err := s.crashPoint("published"); err != nil {
		return "", 0, err
	}
	// Step 4: delete the pending files.
	for _, i := range idx {
		if err := s.crashPoint("remove"); err != nil {
			return "", 0, err
		}
		if err := os.Remove(s.pending[i]); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", 0, fmt.Errorf("gamestore: compact: %w", err)
		}
		delete(s.pending, i)
	}
	if err := syncDir(s.pendingPath()); err != nil {
		return "", 0, err
	}
	return path, len(idx), nil
}

// pendingFile is a pending game file found on disk.
type pendingFile struct {
	index int64
	path  string
}

func pendingFileName(index int64) string { return fmt.Sprintf("game-%012d.zkg", index) }

func (s *Store) listPending() ([]pendingFile, error) {
	entries, err := os.ReadDir(s.pendingPath())
	if err != nil {
		return nil, fmt.Errorf("gamestore: %w", err)
	}
	var out []pendingFile
	for _, e := range entries {
		m := pendingName.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		i, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("gamestore: pending file %s: bad index: %w", e.Name(), err)
		}
		out = append(out, pendingFile{i, filepath.Join(s.pendingPath(), e.Name())})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].index < out[b].index })
	return out, nil
}

// encodePending is magic | uvarint index | payload | crc32c(index and
// payload bytes).
func encodePending(index int64, payload []byte) []byte {
	b := make([]byte, 0, len(pendingMagic)+binary.MaxVarintLen64+len(payload)+4)
	b = append(b, pendingMagic...)
	b = binary.AppendUvarint(b, uint64(index))
	b = append(b, payload...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[len(pendingMagic):], castagnoli))
}

// DecodePending decodes the contents of a pending game file, returning the
// game's index and record. Malformed input is an error, never a panic.
func DecodePending(b []byte) (int64, data.Record, error) {
	if len(b) < len(pendingMagic)+1+4 || !bytes.HasPrefix(b, []byte(pendingMagic)) {
		return 0, data.Record{}, errors.New("not a pending game file (bad magic or too short)")
	}
	body := b[len(pendingMagic) : len(b)-4]
	if got, want := crc32.Checksum(body, castagnoli), binary.LittleEndian.Uint32(b[len(b)-4:]); got != want {
		return 0, data.Record{}, fmt.Errorf("checksum mismatch (%08x, want %08x)", got, want)
	}
	idx, n := binary.Uvarint(body)
	if n <= 0 || idx > 1<<62 {
		return 0, data.Record{}, errors.New("bad game index")
	}
	rec, err := data.DecodeRecord(body[n:])
	if err != nil {
		return 0, data.Record{}, err
	}
	return int64(idx), rec, nil
}

func readPending(path string) (int64, data.Record, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, data.Record{}, fmt.Errorf("gamestore: %w", err)
	}
	idx, rec, err := DecodePending(b)
	if err != nil {
		return 0, data.Record{}, fmt.Errorf("gamestore: %s: %w", path, err)
	}
	return idx, rec, nil
}

// shardSeeds returns the seeds of the games in a shard.
func shardSeeds(path string) (map[uint64]bool, error) {
	r, err := data.OpenShard(path)
	if err != nil {
		return nil, fmt.Errorf("gamestore: %w", err)
	}
	defer r.Close()
	seeds := map[uint64]bool{}
	for r.Next() {
		seeds[r.Record().Meta.Seed] = true
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("gamestore: %w", err)
	}
	return seeds, nil
}

type nextJSON struct {
	NextGame int64 `json:"next_game"`
}

func readNext(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("gamestore: %w", err)
	}
	var n nextJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&n); err != nil {
		return 0, fmt.Errorf("gamestore: %s: %w", path, err)
	}
	if n.NextGame < 0 {
		return 0, fmt.Errorf("gamestore: %s: next_game %d is negative", path, n.NextGame)
	}
	return n.NextGame, nil
}

func writeNext(path string, next int64) error {
	b, err := json.Marshal(nextJSON{next})
	if err != nil {
		return fmt.Errorf("gamestore: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("gamestore: %w", err)
	}
	return nil
}

// removeTemps deletes atomicfile's temporary files in dir. The store has a
// single writer, so any such file is the leftover of a crash.
func removeTemps(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("gamestore: %w", err)
	}
	n := 0
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), atomicfile.TempPrefix) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, fmt.Errorf("gamestore: %w", err)
		}
		n++
	}
	return n, nil
}

// syncDir is atomicfile.SyncDir with the package's error prefix.
func syncDir(dir string) error {
	if err := atomicfile.SyncDir(dir); err != nil {
		return fmt.Errorf("gamestore: %w", err)
	}
	return nil
}
