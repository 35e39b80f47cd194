package neural

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/zerokit/zerokit/internal/atomicfile"
	"github.com/zerokit/zerokit/model/arch"
	"github.com/zerokit/zerokit/rundir"
)

// Files of an exported agent directory.
const (
	// ManifestName is the manifest (a Manifest as JSON).
	ManifestName = rundir.AgentManifest
	// WeightsName is the network: a model checkpoint without optimizer
	// state.
	WeightsName = "weights.ckpt"
)

// Manifest format identification.
const (
	ManifestFormat  = "zerokit-agent"
	ManifestVersion = 1
)

// Manifest describes an exported agent: what the network plays, its
// architecture, the default search settings and where it came from. It is
// stored as ManifestName in the agent's directory.
type Manifest struct {
	// Format is ManifestFormat and Version is ManifestVersion.
	Format  string `json:"format"`
	Version int    `json:"version"`
	// Name labels the agent in reports.
	Name string `json:"name"`
	// Game is the name of the game the network was trained on (rule
	// variants of the same game, such as wyb and wyb-nolimit, share
	// networks) and EncodingVersion the version of its observation and
	// action encoding.
	Game            string `json:"game"`
	EncodingVersion int    `json:"encoding_version"`
	// Shape and Network are the network's input/output shape and
	// architecture; Parameters is its number of trained parameters.
	Shape      arch.Shape  `json:"shape"`
	Network    arch.Config `json:"network"`
	Parameters int         `json:"parameters"`
	// Weights is the network file's name in the directory and
	// WeightsSHA256 its SHA-256 checksum (hex).
	Weights       string `json:"weights"`
	WeightsSHA256 string `json:"weights_sha256"`
	// Search is the default search; agent specs may override it.
	Search Settings `json:"search"`
	// Source is the checkpoint the agent was exported from.
	Source Source `json:"source"`
	// Created is when the agent was exported.
	Created time.Time `json:"created"`
	// Provenance says how the weights were made; absent in agents
	// exported by hand from a checkpoint without it.
	Provenance *Provenance `json:"provenance,omitempty"`
}

// Provenance records how an agent's weights were made: enough to make them
// again, and the evidence of their strength.
type Provenance struct {
	// Commit is the zerokit source revision that trained the weights (with
	// "+dirty" when the work tree had changes), "" when unknown.
	Commit string `json:"commit,omitempty"`
	// Command is the command line that trained them, and Config the
	// configuration file it named (the effective configuration itself is
	// in the weights file, see model/ckpt's run configuration).
	Command string `json:"command,omitempty"`
	Config  string `json:"config,omitempty"`
	// Seed is the run's seed.
	Seed uint64 `json:"seed"`
	// Steps is the number of training steps, TrainSeconds the wall time
	// the run had trained for, Games and Positions the self-play games
	// and positions generated.
	Steps        int64   `json:"steps"`
	TrainSeconds float64 `json:"train_seconds"`
	Games        int64   `json:"games"`
	Positions    int64   `json:"positions"`
	// Machine describes the machine that trained them (CPU, cores,
	// memory, OS).
	Machine string `json:"machine,omitempty"`
	// Averaging says how the weights were averaged ("" for the weights of
	// one step); the weights file's header lists the steps.
	Averaging string `json:"averaging,omitempty"`
	// Init names the weights the run started from (train's -init) with
	// their SHA-256; "" when it started from random ones.
	Init string `json:"init,omitempty"`
	// Evaluations are the matches measured of the agent, newest last.
	Evaluations []Evaluation `json:"evaluations,omitempty"`
}

// Evaluation is one match of an agent against an opponent, colours
// alternated.
type Evaluation struct {
	// Opponent is the opponent's agent spec.
	Opponent string `json:"opponent"`
	// Wins, Draws and Losses are the agent's results.
	Wins   int `json:"wins"`
	Draws  int `json:"draws"`
	Losses int `json:"losses"`
	// Score is (wins + draws/2) / games, and Low and High its 95% Wilson
	// interval.
	Score float64 `json:"score"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	// Search is the agent's search in the match, and Command the command
	// that played it.
	Search  string `json:"search"`
	Command string `json:"command"`
	// Time is when the match ended.
	Time time.Time `json:"time"`
	// Commit is the source revision of the program that played the match
	// (with "+dirty" for a modified work tree), when its build recorded
	// one: the same weights can play differently from one revision to the
	// next.
	Commit string `json:"commit,omitempty"`
	// AsFirst and AsSecond split the results by the agent's colour (the
	// first player is White in Watch Your Back!), when the match recorded
	// them.
	AsFirst  *Results `json:"as_first,omitempty"`
	AsSecond *Results `json:"as_second,omitempty"`
	// Excluded counts games left out of the results (unfinished, or
	// failed without a winner).
	Excluded int `json:"excluded,omitempty"`
	// Distinct counts the different games of the match (by their move
	// sequences), when the match recorded it: two deterministic players
	// repeat one game, and then the results are one result.
	Distinct int `json:"distinct,omitempty"`
	// Resources describes what the agent used per game in a match under
	// the course's limits (CPU time, peak memory).
	Resources string `json:"resources,omitempty"`
}

// Results are an agent's wins, draws and losses.
type Results struct {
	Wins   int `json:"wins"`
	Draws  int `json:"draws"`
	Losses int `json:"losses"`
}

// CheckEvaluationTarget reports why AppendEvaluation(dir, weightsSHA256, e)
// would fail for any e: dir is not an exported agent, holds other weights,
// or has no provenance. Call it before a match to fail before playing.
func CheckEvaluationTarget(dir, weightsSHA256 string) error {
	_, err := readEvaluationTarget(dir, weightsSHA256)
	return err
}

// readEvaluationTarget reads the manifest of the agent in dir and checks
// that it can take an evaluation of the weights with weightsSHA256.
func readEvaluationTarget(dir, weightsSHA256 string) (Manifest, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return Manifest{}, err
	}
	if m.WeightsSHA256 != weightsSHA256 {
		return Manifest{}, fmt.Errorf("agent %s holds other weights (SHA-256 %s): not those that play (SHA-256 %s)",
			dir, m.WeightsSHA256, weightsSHA256)
	}
	if m.Provenance == nil {
		return Manifest{}, fmt.Errorf("agent %s has no provenance in %s to add the evaluation to (it was exported from a checkpoint without one)", dir, ManifestName)
	}
	return m, nil
}

// AppendEvaluation adds e to the evaluation table of the exported agent in
// dir, whose weights must be those that played: weightsSHA256 is the
// SHA-256 of the weights file the match loaded. The manifest is replaced
// atomically; an agent without provenance (exported from a checkpoint
// that had none) is an error.
func AppendEvaluation(dir, weightsSHA256 string, e Evaluation) error {
	return AppendEvaluations(dir, weightsSHA256, e)
}

// AppendEvaluations adds several evaluations at once, as AppendEvaluation
// adds one: all of them or, on an error, none.
func AppendEvaluations(dir, weightsSHA256 string, evals ...Evaluation) error {
	for _, e := range evals {
		if e.Opponent == "" || e.Command == "" {
			return errors.New("evaluation: opponent and command are required")
		}
	}
	m, err := readEvaluationTarget(dir, weightsSHA256)
	if err != nil {
		return err
	}
	m.Provenance.Evaluations = append(m.Provenance.Evaluations, evals...)
	b, err := m.Encode()
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, ManifestName), b, 0o644); err != nil {
		return fmt.Errorf("agent %s: %w", dir, err)
	}
	return nil
}

// Source identifies the checkpoint an agent was exported from.
type Source struct {
	// Checkpoint is the checkpoint file's absolute path at export time.
	Checkpoint string `json:"checkpoint"`
	// Step is the training step of the checkpoint and Seed the run's seed.
	Step int64  `json:"step"`
	Seed uint64 `json:"seed"`
}

// Validate checks the manifest's own fields (not the files).
func (m Manifest) Validate() error {
	bad := func(field string, v any, want string) error {
		return fmt.Errorf("field %s = %v: %s", field, v, want)
	}
	switch {
	case m.Format != ManifestFormat:
		return bad("format", fmt.Sprintf("%q", m.Format), fmt.Sprintf("want %q", ManifestFormat))
	case m.Version != ManifestVersion:
		return bad("version", m.Version, fmt.Sprintf("this program reads version %d", ManifestVersion))
	case m.Name == "":
		return bad("name", `""`, "want a name")
	case m.Game == "":
		return bad("game", `""`, "want the game's name")
	case m.EncodingVersion < 1:
		return bad("encoding_version", m.EncodingVersion, "want at least 1")
	case m.Weights == "" || filepath.Base(m.Weights) != m.Weights || m.Weights == "." || m.Weights == "..":
		return bad("weights", fmt.Sprintf("%q", m.Weights), "want a file name in the agent's directory")
	case len(m.WeightsSHA256) != 2*sha256.Size:
		return bad("weights_sha256", fmt.Sprintf("%q", m.WeightsSHA256), "want 64 hex digits")
	}
	if _, err := hex.DecodeString(m.WeightsSHA256); err != nil {
		return bad("weights_sha256", fmt.Sprintf("%q", m.WeightsSHA256), "want 64 hex digits")
	}
	cfg := m.Network.WithDefaults()
	if err := errors.Join(cfg.Validate(), m.Shape.Validate(cfg)); err != nil {
		return fmt.Errorf("field network/shape: %w", err)
	}
	if err := m.Search.Validate(); err != nil {
		return fmt.Errorf("field search: %w", err)
	}
	return nil
}

// ReadManifest reads and validates the manifest of the agent directory dir
// and checks that its weights file exists with the recorded checksum.
// Errors name the file and the problem.
func ReadManifest(dir string) (Manifest, error) {
	path := filepath.Join(dir, ManifestName)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Manifest{}, fmt.Errorf("%s is not an exported zerokit agent: %s is missing", dir, ManifestName)
	}
	if err != nil {
		return Manifest{}, fmt.Errorf("agent manifest: %w", err)
	}
	m, err := DecodeManifest(b)
	if err != nil {
		return Manifest{}, fmt.Errorf("agent manifest %s: %w", path, err)
	}
	wpath := filepath.Join(dir, m.Weights)
	sum, err := FileSHA256(wpath)
	if errors.Is(err, fs.ErrNotExist) {
		return Manifest{}, fmt.Errorf("agent %s: weights file %s is missing", dir, m.Weights)
	}
	if err != nil {
		return Manifest{}, fmt.Errorf("agent %s: weights: %w", dir, err)
	}
	if sum != m.WeightsSHA256 {
		return Manifest{}, fmt.Errorf("agent %s: weights file %s is corrupt or was replaced: its SHA-256 is %s, the manifest records %s",
			dir, m.Weights, sum, m.WeightsSHA256)
	}
	return m, nil
}

// DecodeManifest parses a manifest strictly (unknown fields are errors)
// and validates it.
func DecodeManifest(b []byte) (Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, fmt.Errorf("not a valid agent manifest: %w", err)
	}
	if dec.More() {
		return Manifest{}, errors.New("not a valid agent manifest: data after the JSON object")
	}
	if err := m.Validate(); err != nil {
		return Manifest{}, err
	}
	return m, nil
}

// Encode writes the manifest as indented JSON.
func (m Manifest) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("agent manifest: %w", err)
	}
	return append(b, '\n'), nil
}

// FileSHA256 returns the hex SHA-256 checksum of the file at path.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
