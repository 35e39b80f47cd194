package rundir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"

	"github.com/zerokit/zerokit/internal/atomicfile"
)

// Checkpoint file names: step-<step>.ckpt holds the network and optimizer
// (written by the model), step-<step>.json the trainer's state at that
// step, and latest.json points at the newest complete pair.
const (
	checkpointExt = ".ckpt"
	stateExt      = ".json"
	latestName    = "latest.json"
)

var checkpointName = regexp.MustCompile(`^step-([0-9]{9,19})\.(ckpt|json)$`)

// Checkpoints manages a run's checkpoint directory: file names by training
// step, the atomically replaced pointer to the latest checkpoint, and
// retention (the last KeepLast checkpoints plus every one whose step is a
// multiple of KeepEvery).
//
// Writing a checkpoint is: write Path(step) and StatePath(step) (each
// atomically), then Commit(step). A crash before Commit leaves the previous
// pointer, so a resumed run starts from the last committed checkpoint and
// the uncommitted files are overwritten when that step is saved again.
type Checkpoints struct {
	// Dir is the checkpoint directory.
	Dir string
	// KeepLast is the number of most recent checkpoints kept (at least 1).
	KeepLast int
	// KeepEvery, when positive, also keeps checkpoints whose step is a
	// multiple of it.
	KeepEvery int64
}

// Latest is the content of latest.json.
type Latest struct {
	// Step is the training step of the checkpoint.
	Step int64 `json:"step"`
	// Checkpoint and State are file names in the checkpoint directory.
	Checkpoint string `json:"checkpoint"`
	State      string `json:"state"`
}

// Path is the network checkpoint file of step.
func (c Checkpoints) Path(step int64) string {
	return filepath.Join(c.Dir, fmt.Sprintf("step-%09d%s", step, checkpointExt))
}

// StatePath is the trainer state file of step.
func (c Checkpoints) StatePath(step int64) string {
	return filepath.Join(c.Dir, fmt.Sprintf("step-%09d%s", step, stateExt))
}

// Commit makes step's checkpoint the latest (after checking its files
// exist) and deletes the checkpoints retention no longer keeps.
func (c Checkpoints) Commit(step int64) error {
	if c.KeepLast < 1 {
		return fmt.Errorf("rundir: checkpoints: keep_last is %d, want at least 1", c.KeepLast)
	}
	for _, p := range []string{c.Path(step), c.StatePath(step)} {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("rundir: commit checkpoint %d: %w", step, err)
		}
	}
	b, err := json.Marshal(Latest{Step: step, Checkpoint: filepath.Base(c.Path(step)), State: filepath.Base(c.StatePath(step))})
	if err != nil {
		return fmt.Errorf("rundir: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(c.Dir, latestName), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("rundir: commit checkpoint %d: %w", step, err)
	}
	return c.prune(step)
}

// Steps lists the steps that have a checkpoint file, in increasing order.
func (c Checkpoints) Steps() ([]int64, error) {
	entries, err := os.ReadDir(c.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("rundir: %w", err)
	}
	seen := map[int64]bool{}
	for _, e := range entries {
		m := checkpointName.FindStringSubmatch(e.Name())
		if m == nil || m[2] != "ckpt" {
			continue
		}
		if s, err := strconv.ParseInt(m[1], 10, 64); err == nil {
			seen[s] = true
		}
	}
	steps := make([]int64, 0, len(seen))
	for s := range seen {
		steps = append(steps, s)
	}
	sort.Slice(steps, func(i, j int) bool { return steps[i] < steps[j] })
	return steps, nil
}

// prune deletes the checkpoints (and state files) not kept, never the
// latest one and never one newer than it.
func (c Checkpoints) prune(latest int64) error {
	steps, err := c.Steps()
	if err != nil {
		return err
	}
	var older []int64
	for _, s := range steps {
		if s < latest {
			older = append(older, s)
		}
	}
	// The latest counts as one of the KeepLast.
	keepFrom := len(older) - (c.KeepLast - 1)
	for i, s := range older {
		if i >= keepFrom || (c.KeepEvery > 0 && s%c.KeepEvery == 0) {
			continue
		}
		for _, p := range []string{c.Path(s), c.StatePath(s)} {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("rundir: prune checkpoints: %w", err)
			}
		}
	}
	return nil
}

// Latest reads latest.json; ok is false when no checkpoint was committed.
func (c Checkpoints) Latest() (l Latest, ok bool, err error) {
	path := filepath.Join(c.Dir, latestName)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Latest{}, false, nil
	}
	if err != nil {
		return Latest{}, false, fmt.Errorf("rundir: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return Latest{}, false, fmt.Errorf("rundir: %s: %w", path, err)
	}
	if l.Step < 0 || filepath.Base(l.Checkpoint) != l.Checkpoint || filepath.Base(l.State) != l.State ||
		l.Checkpoint != filepath.Base(c.Path(l.Step)) || l.State != filepath.Base(c.StatePath(l.Step)) {
		return Latest{}, false, fmt.Errorf("rundir: %s: inconsistent pointer %+v", path, l)
	}
	return l, true, nil
}
