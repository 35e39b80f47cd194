// Package atomicfile writes files so that readers, and a process killed at
// any moment, see either the old content or the complete new content, never
// a partial file: data goes to a temporary file in the same directory, which
// is synced and then renamed over the destination.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// TempPrefix starts the name of every temporary file this package creates,
// so that directory scans can ignore (and clean up) leftovers of a crash.
const TempPrefix = ".tmp-"

// WriteFile atomically replaces path with data.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write atomically replaces path with what fill writes. If fill returns an
// error, path is left untouched and the temporary file is removed.
func Write(path string, perm os.FileMode, fill func(w io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, TempPrefix+base+"-*")
	if err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = fill(f); err != nil {
		return fmt.Errorf("atomicfile: writing %s: %w", path, err)
	}
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("atomicfile: sync %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("atomicfile: close %s: %w", path, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("atomicfile: %w", err)
	}
	// Persist the rename itself; failure to sync a directory is not fatal
	// on file systems that do not support it.
	_ = SyncDir(dir)
	return nil
}

// SyncDir flushes the entries of the directory dir to disk, making a
// rename, link or removal in it durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("atomicfile: sync directory: %w", err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("atomicfile: sync directory %s: %w", dir, err)
	}
	return nil
}
