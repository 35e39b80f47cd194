package rundir

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// LockName is the lock file of a run directory.
const LockName = "lock"

// Lock is an exclusive lock on a run directory, held by one process: an
// advisory flock(2) on the directory's lock file, which the kernel releases
// when the process exits however it dies. The file holds the owner's pid
// for the error message of the next process that tries.
type Lock struct {
	f *os.File
}

// ErrLocked is matched (errors.Is) by the error of AcquireLock when another
// process holds the lock.
var ErrLocked = errors.New("run directory is in use")

// AcquireLock creates dir if needed and locks it, failing at once (not
// waiting) with an error naming the holder's pid if another process holds
// the lock.
func AcquireLock(dir string) (*Lock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("rundir: %w", err)
	}
	path := filepath.Join(dir, LockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("rundir: %w", err)
	}
	if busy, err := tryLock(f); err != nil {
		b, _ := os.ReadFile(path)
		f.Close()
		if busy {
			holder := "another process"
			if pid, perr := strconv.Atoi(string(bytes.TrimSpace(b))); perr == nil {
				holder = fmt.Sprintf("process %d", pid)
			}
			return nil, fmt.Errorf("rundir: %s is locked by %s (another train on the same run directory?): %w",
				dir, holder, ErrLocked)
		}
		return nil, fmt.Errorf("rundir: lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, fmt.Errorf("rundir: %w", err)
	}
	if _, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("rundir: %w", err)
	}
	return &Lock{f: f}, nil
}

// Release unlocks the directory. The lock file stays (deleting it would let
// two processes lock different files of the same name).
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the descriptor releases the flock
	l.f = nil
	if err != nil {
		return fmt.Errorf("rundir: unlock: %w", err)
	}
	return nil
}
