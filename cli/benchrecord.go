package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/arena/refbench"
	"github.com/zerokit/zerokit/arena/refbench/bench"
	"github.com/zerokit/zerokit/internal/atomicfile"
)

// benchRecord is the file bench-run -json writes and -table, -resume and
// -add-to read: the agent that played (its weights, search and noise), the
// game, the programs that played it, and every game.
type benchRecord struct {
	// Agent identifies the agent: "weights sha256 HEX, search ..." for an
	// exported network agent (refbench.Options.AgentID).
	Agent string `json:"agent"`
	// Game is the game's name (wyb, squatterN); absent in records written
	// before it was kept, which were Watch Your Back!'s.
	Game string `json:"game,omitempty"`
	// Revisions are the source revisions of the binaries that played its
	// games, and Commands their command lines, one per run of a resumed
	// bench, oldest first.
	Revisions []string `json:"revisions,omitempty"`
	Commands  []string `json:"commands,omitempty"`
	// Rows is the table (derived from Matches when written).
	Rows    []bench.Row      `json:"rows"`
	Matches []refbench.Match `json:"matches"`
}

// readBenchRecord reads a bench-run -json file.
func readBenchRecord(file string) (benchRecord, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return benchRecord{}, err
	}
	var rec benchRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return benchRecord{}, fmt.Errorf("%s: %w", file, err)
	}
	if len(rec.Matches) == 0 {
		return benchRecord{}, fmt.Errorf("%s records no matches", file)
	}
	return rec, nil
}

// write writes the record atomically, its rows derived from its matches.
func (r benchRecord) write(file string) error {
	r.Rows = bench.Rows(r.Matches)
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(file, append(b, '\n'), 0o644)
}

// addRun notes a run of the bench: the revision of this program (when its
// build recorded one) and its command line, each once.
func (r *benchRecord) addRun(revision, command string) {
	if revision != "" && !slices.Contains(r.Revisions, revision) {
		r.Revisions = append(r.Revisions, revision)
	}
	if command != "" && !slices.Contains(r.Commands, command) {
		r.Commands = append(r.Commands, command)
	}
}

// weights returns the SHA-256 of the weights that played, from the
// record's agent.
func (r benchRecord) weights() (string, error) {
	const prefix = "weights sha256 "
	rest, ok := strings.CutPrefix(r.Agent, prefix)
	if !ok {
		return "", fmt.Errorf("the bench's agent %q is not an exported network agent (no %q)", r.Agent, strings.TrimSpace(prefix))
	}
	sum, _, _ := strings.Cut(rest, ",")
	if len(sum) != 64 || strings.Trim(sum, "0123456789abcdef") != "" {
		return "", fmt.Errorf("the bench's agent %q: weights SHA-256 %q is not 64 hexadecimal digits", r.Agent, sum)
	}
	return sum, nil
}

// evaluations turns the record's matches into entries of an agent's
// evaluation table, one per opponent (both colours), stamped with the
// record's revisions and commands (else fallback, the command adding
// them) and time ended.
func (r benchRecord) evaluations(fallback string, ended time.Time) ([]neural.Evaluation, error) {
	n, squatter := 0, false
	if r.Game != "" {
		var err error
		if n, squatter, err = refbenchGame(r.Game); err != nil {
			return nil, fmt.Errorf("the bench's game: %w", err)
		}
	}
	_, search, _ := strings.Cut(r.Agent, ", search ")
	command := strings.Join(r.Commands, "; then ")
	if command == "" {
		command = fallback
	}
	var out []neural.Evaluation
	for _, m := range r.Matches {
		e, ok := matchEvaluation(m, fmt.Sprintf("%s (bench, %s)", m.Opponent, refereeWhere(n, squatter)), search)
		if !ok {
			continue
		}
		e.Command, e.Time, e.Commit = command, ended.UTC().Truncate(time.Second), strings.Join(r.Revisions, ", ")
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, errors.New("the bench has no scored game")
	}
	return out, nil
}

// addBenchTo adds the record's scored matches to the evaluation table of
// the exported agent in dir, whose weights must be those that played, and
// returns how many; the manifest is rewritten once, atomically.
func addBenchTo(dir string, r benchRecord, fallback string, ended time.Time) (int, error) {
	sum, err := r.weights()
	if err != nil {
		return 0, fmt.Errorf("-add-to: %w", err)
	}
	evals, err := r.evaluations(fallback, ended)
	if err != nil {
		return 0, fmt.Errorf("-add-to: %w", err)
	}
	if err := neural.AppendEvaluations(dir, sum, evals...); err != nil {
		return 0, fmt.Errorf("-add-to: %w", err)
	}
	return len(evals), nil
}
