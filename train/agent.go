package train

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/agent/neural/export"
	"github.com/zerokit/zerokit/internal/buildinfo"
	"github.com/zerokit/zerokit/internal/relpath"
	"github.com/zerokit/zerokit/model/ckpt"
	"github.com/zerokit/zerokit/rundir"
)

// applyStage puts the recipe's stage of the current step in force: the
// sparring partner of the games started from now on, the value target's
// mix, the evaluation opponents. It reports a change of stage in the log
// and on stderr.
func (t *trainer) applyStage() error {
	eff, name := t.cfg.StageAt(t.state.Step)
	if t.effSet && name == t.stage {
		return nil
	}
	partners, err := SparringPartners(t.game, eff.SelfPlay)
	if err != nil {
		return err
	}
	if err := t.source.setSparring(eff.SelfPlay.SparringAgent, eff.SelfPlay.SparringFraction, partners); err != nil {
		return fmt.Errorf("train: stage %s: %w", name, err)
	}
	if err := t.buffer.SetRootValueWeight(eff.Buffer.RootValueWeight); err != nil {
		return fmt.Errorf("train: stage %s: %w", name, err)
	}
	if t.effSet || name != "" {
		sparring := "none"
		if eff.SelfPlay.SparringFraction > 0 {
			sparring = fmt.Sprintf("%s in %.0f%% of the games", eff.SelfPlay.SparringAgent, 100*eff.SelfPlay.SparringFraction)
		}
		t.log.Info("stage", "name", name, "step", t.state.Step, "sparring", sparring,
			"root_value_weight", eff.Buffer.RootValueWeight, "eval_opponents", strings.Join(eff.Eval.Opponents, " "))
		fmt.Fprintf(t.stderr, "train: stage %q at step %d: sparring %s, root value weight %g, eval against %s\n",
			name, t.state.Step, sparring, eff.Buffer.RootValueWeight, strings.Join(eff.Eval.Opponents, ", "))
	}
	t.eff, t.stage, t.effSet = eff, name, true
	return nil
}

// averageDue reports whether the checkpoint of step enters the running
// mean of the weights.
func (t *trainer) averageDue(step int64) bool {
	a := t.cfg.Averaging
	return a.FromStep > 0 && step >= a.FromStep && step%a.Every == 0
}

// average folds the committed checkpoint of step into the running mean of
// the weights (RUN/average.ckpt) when the averaging settings call for it.
// It runs after the checkpoint is committed, so a crash in between leaves
// a step that setup folds in on resuming (the newest checkpoint), never a
// mean ahead of the checkpoints.
func (t *trainer) average(step int64) error {
	if !t.averageDue(step) {
		return nil
	}
	path := t.run.Layout().Average()
	var mean *ckpt.Checkpoint
	switch m, err := ckpt.ReadFile(path); {
	case err == nil:
		mean = m
		if steps := mean.Header.AveragedSteps; len(steps) > 0 && steps[len(steps)-1] >= step {
			return nil // folded in before a crash or a stop
		}
	case errors.Is(err, fs.ErrNotExist):
	default:
		return fmt.Errorf("train: the running mean of the weights: %w", err)
	}
	c, err := ckpt.ReadFile(t.ckpts.Path(step))
	if err != nil {
		return fmt.Errorf("train: averaging: %w", err)
	}
	next, err := ckpt.Accumulate(mean, c)
	if err != nil {
		return fmt.Errorf("train: averaging step %d into %s: %w", step, path, err)
	}
	if err := ckpt.WriteFile(path, next); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	t.log.Info("averaged", "step", step, "checkpoints", len(next.Header.AveragedSteps))
	return nil
}

// refreshAgent exports the run's agent (RUN/agent) from the running mean
// of the weights if there is one, else from the checkpoint of step.
func (t *trainer) refreshAgent(step int64) error {
	src := t.run.Layout().Average()
	averaging := ""
	if h, err := readHeader(src); err == nil {
		steps := h.AveragedSteps
		averaging = fmt.Sprintf("running mean of %d checkpoints, steps %d to %d every %d (stochastic weight averaging)",
			len(steps), steps[0], steps[len(steps)-1], t.cfg.Averaging.Every)
	} else if errors.Is(err, fs.ErrNotExist) {
		src = t.ckpts.Path(step)
	} else {
		return fmt.Errorf("train: agent: %w", err)
	}
	bs := t.buffer.Stats()
	prov := &neural.Provenance{
		Commit:       t.revision(),
		Command:      t.opts.Command,
		Config:       relpath.ToWorkingDir(t.configPath),
		Seed:         t.cfg.Seed,
		Steps:        step,
		TrainSeconds: t.trainSeconds(),
		Games:        bs.TotalGames,
		Positions:    bs.TotalPositions,
		Machine:      Machine() + ", device " + t.device,
		Averaging:    averaging,
		Init:         t.state.Init,
		Evaluations:  t.evaluations,
	}
	// agent.game_time is the 2018 course's (Python referee's) budget; a
	// Squatter agent's Java player takes the 2015 course's for the
	// referee's N, the export's default.
	gameTime := t.cfg.Agent.GameTime
	switch {
	case export.CourseBudget(t.game.Name()):
		gameTime = 0
	case gameTime == 0:
		gameTime = -1 // none
	}
	m, err := export.Export(export.Options{
		Checkpoint: src,
		Out:        t.run.Layout().Agent(),
		Force:      true,
		Search:     t.cfg.Agent.NeuralSettings(),
		GameTime:   gameTime,
		Provenance: prov,
	})
	if err != nil {
		return fmt.Errorf("train: agent: %w", err)
	}
	t.log.Info("agent", "name", m.Name, "source", src)
	return nil
}

// readHeader reads the header of the checkpoint file at path.
func readHeader(path string) (ckpt.Header, error) {
	f, size, err := ckpt.Open(path)
	if err != nil {
		return ckpt.Header{}, err
	}
	defer f.Close()
	rd, err := ckpt.NewReader(f, size)
	if err != nil {
		return ckpt.Header{}, err
	}
	if len(rd.Header.AveragedSteps) == 0 {
		return ckpt.Header{}, fmt.Errorf("%s: a running mean without averaged steps", path)
	}
	return rd.Header, nil
}

// revision is the source revision of the program training: Options.Commit,
// else the one its build recorded.
func (t *trainer) revision() string {
	if t.opts.Commit != "" {
		return t.opts.Commit
	}
	return buildinfo.Revision()
}

// Machine describes this machine for provenance records: CPU model,
// logical cores, memory and OS, e.g. "AMD EPYC 7B13, 2 cores, 23.4 GiB,
// linux/amd64".
func Machine() string {
	parts := []string{}
	if model := procField("/proc/cpuinfo", "model name"); model != "" {
		parts = append(parts, model)
	}
	parts = append(parts, fmt.Sprintf("%d cores", runtime.NumCPU()))
	if mem := procField("/proc/meminfo", "MemTotal"); mem != "" {
		var kb float64
		if _, err := fmt.Sscanf(mem, "%f kB", &kb); err == nil {
			parts = append(parts, fmt.Sprintf("%.1f GiB", kb/(1<<20)))
		}
	}
	parts = append(parts, runtime.GOOS+"/"+runtime.GOARCH)
	return strings.Join(parts, ", ")
}

// procField returns the value of the first "key: value" line of a /proc
// file, or "" when there is none.
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// fileExists reports whether path names an existing file.
func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// startConfig returns the configuration file a run in dir was started
// with, from its meta.json ("" when unknown).
func startConfig(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, rundir.MetaFile))
	if err != nil {
		return ""
	}
	var meta struct {
		Config string `json:"config"`
	}
	if json.Unmarshal(b, &meta) != nil {
		return ""
	}
	return meta.Config
}
