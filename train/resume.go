package train

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/zerokit/zerokit/internal/atomicfile"
	"github.com/zerokit/zerokit/rundir"
)

// resolveConfig loads the run's stored configuration or the given one,
// writing it (and meta.json) for a new run.
func resolveConfig(dir, path string) (Config, error) {
	stored := filepath.Join(dir, rundir.ConfigFile)
	_, statErr := os.Stat(stored)
	switch {
	case statErr == nil:
		cfg, err := LoadConfig(stored)
		if err != nil {
			return Config{}, fmt.Errorf("train: the run's stored configuration: %w", err)
		}
		if path == "" {
			return cfg, nil
		}
		given, err := LoadConfig(path)
		if err != nil {
			return Config{}, err
		}
		return resumeConfig(dir, cfg, given, path)
	case errors.Is(statErr, fs.ErrNotExist):
		if path == "" {
			return Config{}, fmt.Errorf("train: %s has no %s: a new run needs a configuration file (-config)", dir, rundir.ConfigFile)
		}
		cfg, err := LoadConfig(path)
		if err != nil {
			return Config{}, err
		}
		text, err := cfg.Encode()
		if err != nil {
			return Config{}, err
		}
		header := fmt.Sprintf("# Effective configuration of this run (from %s, defaults filled in).\n", path)
		if err := atomicfile.WriteFile(stored, append([]byte(header), text...), 0o644); err != nil {
			return Config{}, fmt.Errorf("train: %w", err)
		}
		host, _ := os.Hostname()
		meta, err := json.MarshalIndent(map[string]any{
			"seed":       cfg.Seed,
			"start_time": time.Now().UTC().Format(time.RFC3339),
			"go_version": runtime.Version(),
			"host":       host,
			"config":     path,
		}, "", "  ")
		if err != nil {
			return Config{}, fmt.Errorf("train: %w", err)
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, rundir.MetaFile), append(meta, '\n'), 0o644); err != nil {
			return Config{}, fmt.Errorf("train: %w", err)
		}
		return cfg, nil
	default:
		return Config{}, fmt.Errorf("train: %w", statErr)
	}
}

// withAdjustable returns stored with the fields a resumed run may change
// taken from given: the learning-rate schedule, the evaluation matches,
// checkpoint retention, batching, self-play parallelism and cache, the
// sparring partner and its share of the games, the share of the search's
// root value in the value target, MCTS-Solver in the searches, threads and
// device,
// the recipe's stages, the weight averaging, the run's agent, the store
// trainer's polling interval and whether self-play overlaps training. None of them changes what a
// position, a game record or the network means, so the run stays one run
// (the sparring games, like a schedule, change only which positions are
// generated from then on; the value target is formed when a sample is
// drawn, so its mix changes for every sample drawn from then on).
func withAdjustable(stored, given Config) Config {
	c := stored
	c.Optimizer.Schedule = given.Optimizer.Schedule
	c.Eval = given.Eval
	c.Checkpoint = given.Checkpoint
	c.Batcher = given.Batcher
	c.SelfPlay.ParallelGames = given.SelfPlay.ParallelGames
	c.SelfPlay.Workers = given.SelfPlay.Workers
	c.SelfPlay.CacheSize = given.SelfPlay.CacheSize
	c.SelfPlay.SparringAgent = given.SelfPlay.SparringAgent
	c.SelfPlay.SparringFraction = given.SelfPlay.SparringFraction
	c.Buffer.RootValueWeight = given.Buffer.RootValueWeight
	c.Search.Solver = given.Search.Solver
	c.Threads = given.Threads
	c.Device = given.Device
	c.Precision = given.Precision
	c.Stages = given.Stages
	c.Averaging = given.Averaging
	c.Agent = given.Agent
	c.Train.Poll = given.Train.Poll
	c.Train.MaxBacklogWindows = given.Train.MaxBacklogWindows
	c.Train.Overlap = given.Train.Overlap
	return c
}

// resumeConfig checks a configuration given to resume the run in dir
// against the run's stored one. Only adjustable fields (withAdjustable)
// may differ; if some do, the run's config.yaml is replaced by the given
// configuration and meta.json records the change (time, file, lines).
func resumeConfig(dir string, stored, given Config, path string) (Config, error) {
	storedPath := filepath.Join(dir, rundir.ConfigFile)
	a, err := stored.Encode()
	if err != nil {
		return Config{}, err
	}
	b, err := given.Encode()
	if err != nil {
		return Config{}, err
	}
	fixed, err := withAdjustable(stored, given).Encode()
	if err != nil {
		return Config{}, err
	}
	if d := firstDifference(string(fixed), string(b)); d != "" {
		return Config{}, fmt.Errorf("train: %s conflicts with the run's configuration %s (%s); a resumed run may change only "+
			"optimizer.schedule, eval, checkpoint, batcher, selfplay.parallel_games/workers/cache_size/sparring_agent/sparring_fraction, buffer.root_value_weight, search.solver, threads, device, stages, averaging, agent, train.poll and train.max_backlog_windows: "+
			"resume without -config or use a new run directory", path, storedPath, d)
	}
	changes := changedLines(string(a), string(b))
	if len(changes) == 0 {
		return stored, nil
	}
	now := time.Now().UTC().Format(time.RFC3339)
	err = updateMeta(dir, func(meta map[string]any) {
		history, _ := meta["config_changes"].([]any)
		meta["config_changes"] = append(history, map[string]any{"time": now, "config": path, "changes": changes})
	})
	// meta.json first: a crash between the two writes leaves the change
	// recorded but not applied, never applied but unrecorded.
	if err != nil {
		return Config{}, err
	}
	header := fmt.Sprintf("# Effective configuration of this run (from %s at %s, defaults filled in;\n# earlier changes are listed in %s).\n", path, now, rundir.MetaFile)
	if err := atomicfile.WriteFile(storedPath, append([]byte(header), b...), 0o644); err != nil {
		return Config{}, fmt.Errorf("train: %w", err)
	}
	return given, nil
}

// changedLines lists the lines of two encodings of one configuration
// that differ, as "line: stored -> given".
func changedLines(a, b string) []string {
	la, lb, idx := differingLines(a, b)
	var out []string
	for _, i := range idx {
		_, xv, _ := strings.Cut(lineAt(la, i), ":")
		_, yv, _ := strings.Cut(lineAt(lb, i), ":")
		out = append(out, fmt.Sprintf("%s: %s -> %s", yamlKeyPath(lb, i), strings.TrimSpace(xv), strings.TrimSpace(yv)))
	}
	return out
}

// differingLines splits a and b into lines and returns them with the
// indexes of the lines that differ (a line one text lacks counts as
// empty).
func differingLines(a, b string) (la, lb []string, idx []int) {
	la, lb = strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(la), len(lb)) {
		if lineAt(la, i) != lineAt(lb, i) {
			idx = append(idx, i)
		}
	}
	return la, lb, idx
}

// lineAt returns lines[i], or "" past the end.
func lineAt(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return ""
}

// yamlKeyPath names line i of an indented YAML document by the keys of
// its enclosing mappings, e.g. "optimizer.schedule.kind".
func yamlKeyPath(lines []string, i int) string {
	if i >= len(lines) {
		return fmt.Sprintf("line %d", i+1)
	}
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	key := func(l string) string { k, _, _ := strings.Cut(strings.TrimSpace(l), ":"); return k }
	path := []string{key(lines[i])}
	for j, in := i-1, indent(lines[i]); j >= 0 && in > 0; j-- {
		if strings.TrimSpace(lines[j]) != "" && indent(lines[j]) < in {
			in = indent(lines[j])
			path = append([]string{key(lines[j])}, path...)
		}
	}
	return strings.Join(path, ".")
}

// firstDifference describes the first line where two texts differ, or
// returns "" if they are equal.
func firstDifference(a, b string) string {
	la, lb, idx := differingLines(a, b)
	if len(idx) == 0 {
		return ""
	}
	i := idx[0]
	return fmt.Sprintf("effective configuration line %d: stored %q, given %q", i+1, strings.TrimSpace(lineAt(la, i)), strings.TrimSpace(lineAt(lb, i)))
}

// updateMeta rewrites the run's meta.json in dir (atomically) with the
// changes edit makes to its fields; a missing file starts empty.
func updateMeta(dir string, edit func(meta map[string]any)) error {
	metaPath := filepath.Join(dir, rundir.MetaFile)
	meta := map[string]any{}
	if raw, err := os.ReadFile(metaPath); err == nil {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return fmt.Errorf("train: %s: %w", metaPath, err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("train: %w", err)
	}
	edit(meta)
	var text bytes.Buffer
	enc := json.NewEncoder(&text)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(meta); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if err := atomicfile.WriteFile(metaPath, text.Bytes(), 0o644); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	return nil
}

// recordDevice notes in meta.json the device this invocation of the run
// trains on ("cuda:0 (NVIDIA H200)", "cpu"), as "device", and appends it to
// "devices" (with the time and the configured name) when it differs from
// the last one recorded.
func recordDevice(dir, configured, device string) error {
	return updateMeta(dir, func(meta map[string]any) {
		meta["device"] = device
		history, _ := meta["devices"].([]any)
		if n := len(history); n > 0 {
			if last, ok := history[n-1].(map[string]any); ok && last["device"] == device {
				return
			}
		}
		meta["devices"] = append(history, map[string]any{
			"time": time.Now().UTC().Format(time.RFC3339), "device": device, "configured": configured,
		})
	})
}
