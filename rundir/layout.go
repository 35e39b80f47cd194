package rundir

import (
	"errors"
	"os"
	"path/filepath"
)

// Names of the files and directories of a run directory (see the package
// documentation).
const (
	ConfigFile     = "config.yaml"
	MetaFile       = "meta.json"
	MetricsFile    = "metrics.jsonl"
	LogFile        = "train.log"
	CheckpointsDir = "checkpoints"
	GamesDir       = "games"
)

// RunAgent is the exported agent inside a training run directory, which
// the run keeps fresh: a run directory played as a network plays it.
const RunAgent = "agent"

// AverageFile is the running mean of a run's weights (a checkpoint without
// optimizer state), kept by runs that average their weights.
const AverageFile = "average.ckpt"

// AgentManifest is the file that makes a directory an exported agent: its
// manifest (package agent/neural reads and writes it).
const AgentManifest = "agent.json"

// Run is a training run directory: where its files are.
type Run struct {
	// Dir is the run directory.
	Dir string
}

// Config is the run's effective configuration file.
func (r Run) Config() string { return filepath.Join(r.Dir, ConfigFile) }

// Meta is the run's metadata file.
func (r Run) Meta() string { return filepath.Join(r.Dir, MetaFile) }

// Metrics is the run's metrics file.
func (r Run) Metrics() string { return filepath.Join(r.Dir, MetricsFile) }

// Log is the run's log file.
func (r Run) Log() string { return filepath.Join(r.Dir, LogFile) }

// Agent is the run's exported agent directory.
func (r Run) Agent() string { return filepath.Join(r.Dir, RunAgent) }

// Average is the run's running mean of the weights.
func (r Run) Average() string { return filepath.Join(r.Dir, AverageFile) }

// Games is the run's self-play game directory.
func (r Run) Games() string { return filepath.Join(r.Dir, GamesDir) }

// Checkpoints is the run's checkpoint directory, for reading (no
// retention set: set KeepLast and KeepEvery to commit).
func (r Run) Checkpoints() Checkpoints {
	return Checkpoints{Dir: filepath.Join(r.Dir, CheckpointsDir)}
}

// IsAgentDir reports whether dir holds an agent manifest, i.e. looks like
// an exported agent (package agent/neural says whether it is a valid one).
func IsAgentDir(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, AgentManifest))
	return err == nil && st.Mode().IsRegular()
}

// Kind is what a path given for a network names.
type Kind int

// The kinds of network path.
const (
	// CheckpointFile is a file, taken to be a checkpoint.
	CheckpointFile Kind = iota + 1
	// RunDir is a training run directory; its network is the latest
	// committed checkpoint.
	RunDir
	// AgentDir is an exported agent directory (it holds AgentManifest).
	AgentDir
)

// Target is a resolved network path.
type Target struct {
	// Kind is what the path named.
	Kind Kind
	// Path is the agent directory for AgentDir, and otherwise the
	// checkpoint file (the latest one of a run directory).
	Path string
	// Step is the step of a run directory's latest checkpoint (RunDir
	// only).
	Step int64
}

// ErrNoNetwork is matched (errors.Is) by the error of Resolve for a
// directory that is neither an exported agent nor a run with a committed
// checkpoint.
var ErrNoNetwork = errors.New("a directory, but neither an exported agent (no " + AgentManifest +
	") nor a training run with a checkpoint (no " + CheckpointsDir + "/" + latestName + ")")

// Resolve says which network path names: an exported agent directory, a
// training run directory (its latest checkpoint), or a checkpoint file.
// Errors from os.Stat are returned as they are (errors.Is(err,
// fs.ErrNotExist) for a missing path).
func Resolve(path string) (Target, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Target{}, err
	}
	if !st.IsDir() {
		return Target{Kind: CheckpointFile, Path: path}, nil
	}
	if IsAgentDir(path) {
		return Target{Kind: AgentDir, Path: path}, nil
	}
	cks := Run{Dir: path}.Checkpoints()
	latest, ok, err := cks.Latest()
	if err != nil {
		return Target{}, err
	}
	if !ok {
		return Target{}, ErrNoNetwork
	}
	return Target{Kind: RunDir, Path: cks.Path(latest.Step), Step: latest.Step}, nil
}
