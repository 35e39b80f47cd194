package data

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/zerokit/zerokit/internal/atomicfile"
)

// Temporary shard files are named tempPrefix + random + tempSuffix.
const (
	tempPrefix = ".shard-"
	tempSuffix = ".tmp"
	// StaleTempAge is how old a temporary shard file must be for NewWriter
	// to delete it as the leftover of a crashed write. Writing a shard
	// takes well under a second, so a younger one may belong to a live
	// writer in another process.
	StaleTempAge = 10 * time.Minute
	// maxPublishAttempts bounds the retries when other writers take shard
	// numbers first.
	maxPublishAttempts = 1000
)

// Writer collects finished games and writes them as shard files in a
// directory, gamesPerShard at a time. Each shard is written to a temporary
// file, synced, and published under its final name without overwriting an
// existing file, so a crash never leaves a partial shard visible and
// completed shards are never lost. Several writers, even in different
// processes, may share a directory: each takes the next free number.
// A Writer is safe for concurrent use.
type Writer struct {
	mu            sync.Mutex
	dir           string
	gamesPerShard int
	next          int
	pending       ShardBuilder // the buffered records
	closed        bool
}

// NewWriter returns a writer into dir, creating it if needed. Shard numbers
// continue after the highest one already in dir, and temporary files older
// than StaleTempAge (left by a crash) are removed.
func NewWriter(dir string, gamesPerShard int) (*Writer, error) {
	if gamesPerShard < 1 {
		return nil, fmt.Errorf("data: new writer: games per shard is %d, want at least 1", gamesPerShard)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("data: new writer: %w", err)
	}
	if _, err := RemoveStaleTemp(dir, StaleTempAge); err != nil {
		return nil, err
	}
	w := &Writer{dir: dir, gamesPerShard: gamesPerShard}
	if err := w.rescan(); err != nil {
		return nil, err
	}
	return w, nil
}

// rescan sets next after the highest shard number in the directory.
func (w *Writer) rescan() error {
	shards, err := ListShards(w.dir)
	if err != nil {
		return fmt.Errorf("data: writer: %w", err)
	}
	if len(shards) > 0 && shards[len(shards)-1].Number >= w.next {
		w.next = shards[len(shards)-1].Number + 1
	}
	if w.next == 0 {
		w.next = 1
	}
	return nil
}

// RemoveStaleTemp deletes the temporary shard files in dir last modified
// more than age ago and returns their paths.
func RemoveStaleTemp(dir string, age time.Duration) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("data: remove stale temp files: %w", err)
	}
	var removed []string
	for _, e := range entries {
		if !isTempName(e.Name()) {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return removed, fmt.Errorf("data: remove stale temp files: %w", err)
		}
		if time.Since(info.ModTime()) < age {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("data: remove stale temp file: %w", err)
		}
		removed = append(removed, p)
	}
	return removed, nil
}

func isTempName(name string) bool {
	return strings.HasPrefix(name, tempPrefix) && strings.HasSuffix(name, tempSuffix)
}

// Add validates and buffers a finished game, writing a shard once
// gamesPerShard games are buffered. An invalid record is rejected with an
// error and not buffered.
func (w *Writer) Add(rec *Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return errors.New("data: writer is closed")
	}
	if err := w.pending.Add(rec); err != nil {
		return err
	}
	if w.pending.Len() >= w.gamesPerShard {
		_, err := w.flushLocked()
		return err
	}
	return nil
}

// Pending is the number of buffered games not yet in a shard.
func (w *Writer) Pending() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pending.Len()
}

// Flush writes the buffered games, if any, as a shard and returns its path
// ("" when nothing was buffered). On error the games stay buffered.
func (w *Writer) Flush() (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flushLocked()
}

// Close flushes the buffered games; later calls to Add fail.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	if _, err := w.flushLocked(); err != nil {
		return err
	}
	w.closed = true
	return nil
}

func (w *Writer) flushLocked() (string, error) {
	if w.pending.Len() == 0 {
		return "", nil
	}
	path, err := w.publish(w.pending.Bytes())
	if err != nil {
		return "", err
	}
	w.pending.Reset()
	return path, nil
}

// publish writes b to a synced temporary file and gives it the next free
// shard name.
func (w *Writer) publish(b []byte) (path string, err error) {
	f, err := os.CreateTemp(w.dir, tempPrefix+"*"+tempSuffix)
	if err != nil {
		return "", fmt.Errorf("data: write shard: %w", err)
	}
	tmp := f.Name()
	defer func() {
		// The temporary name is removed whether or not publishing worked;
		// on success the shard lives on under its final name.
		if rmErr := os.Remove(tmp); rmErr != nil && !errors.Is(rmErr, fs.ErrNotExist) && err == nil {
			err = fmt.Errorf("data: write shard: %w", rmErr)
		}
	}()
	if _, err := f.Write(b); err != nil {
		f.Close()
		return "", fmt.Errorf("data: write shard %s: %w", tmp, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return "", fmt.Errorf("data: sync shard %s: %w", tmp, err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("data: close shard %s: %w", tmp, err)
	}
	for range maxPublishAttempts {
		path = ShardPath(w.dir, w.next)
		err := linkNoClobber(tmp, path)
		if errors.Is(err, fs.ErrExist) {
			// Another writer took this number; move past everything on disk.
			w.next++
			if err := w.rescan(); err != nil {
				return "", err
			}
			continue
		}
		if err != nil {
			return "", fmt.Errorf("data: publish shard %s: %w", path, err)
		}
		w.next++
		if err := atomicfile.SyncDir(w.dir); err != nil {
			return "", fmt.Errorf("data: %w", err)
		}
		return path, nil
	}
	return "", fmt.Errorf("data: publish shard: no free shard number after %d attempts", maxPublishAttempts)
}

// linkNoClobber gives the file tmp the name path, failing with fs.ErrExist
// if path exists. It hard-links (atomic and never overwrites); on file
// systems without hard links it falls back to checking and renaming, which
// is safe as long as one process writes the directory.
func linkNoClobber(tmp, path string) error {
	err := os.Link(tmp, path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	if _, statErr := os.Lstat(path); statErr == nil {
		return fs.ErrExist
	}
	if renameErr := os.Rename(tmp, path); renameErr != nil {
		return fmt.Errorf("%w (after hard link failed: %v)", renameErr, err)
	}
	return nil
}
