package rundir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

// Metrics appends JSON objects, one per line, to a metrics file. Each line is
// written with one write call and synced, so a crash leaves at most a
// partial last line, which OpenMetrics removes.
type Metrics struct {
	mu sync.Mutex // one line at a time (the trainer's background evaluation writes too)
	f  *os.File
}

// OpenMetrics opens (creating it if needed) the metrics file at path for
// appending, first truncating a partial last line left by a crash.
func OpenMetrics(path string) (*Metrics, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("rundir: %w", err)
	}
	if err := trimPartialLine(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("rundir: metrics %s: %w", path, err)
	}
	return &Metrics{f: f}, nil
}

// trimPartialLine truncates f after its last newline and leaves the offset
// at the end.
func trimPartialLine(f *os.File) error {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	if size == 0 {
		return nil
	}
	// Scan back in blocks for the last newline.
	const block = 4096
	end := size
	buf := make([]byte, block)
	for end > 0 {
		start := max(end-block, 0)
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && err != io.EOF {
			return err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			cut := start + int64(i) + 1
			if cut == size {
				return nil
			}
			return truncateAt(f, cut)
		}
		end = start
	}
	return truncateAt(f, 0)
}

func truncateAt(f *os.File, n int64) error {
	if err := f.Truncate(n); err != nil {
		return err
	}
	_, err := f.Seek(n, io.SeekStart)
	return err
}

// Write appends v as one JSON line and syncs the file.
func (m *Metrics) Write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("rundir: metrics: %w", err)
	}
	b = append(b, '\n')
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, err := m.f.Write(b); err != nil {
		return fmt.Errorf("rundir: metrics: %w", err)
	}
	if err := m.f.Sync(); err != nil {
		return fmt.Errorf("rundir: metrics: %w", err)
	}
	return nil
}

// Close closes the file.
func (m *Metrics) Close() error {
	if err := m.f.Close(); err != nil {
		return fmt.Errorf("rundir: metrics: %w", err)
	}
	return nil
}
