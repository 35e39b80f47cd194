package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/internal/buildinfo"
	"github.com/zerokit/zerokit/internal/relpath"
)

// addToHelp is the help of eval's and refbench's -add-to flag.
const addToHelp = "append the result, with this command line, to the evaluation table in agent.json of the exported agent `DIR` (its weights must be those that played)"

// evalTarget is the exported agent directory whose manifest a match's
// result goes into (-add-to), checked before the match is played so that a
// wrong directory costs nothing.
type evalTarget struct {
	dir     string
	weights string // SHA-256 of the weights that play
	command string
}

// newEvalTarget checks that the agent in dir holds the weights file
// weightsFile and has a provenance to add to. command is the command's name
// and args its arguments, recorded as the command line.
func newEvalTarget(dir, weightsFile, command string, args []string) (*evalTarget, error) {
	sum, err := neural.FileSHA256(weightsFile)
	if err != nil {
		return nil, fmt.Errorf("-add-to: the weights that play: %w", err)
	}
	if err := neural.CheckEvaluationTarget(dir, sum); err != nil {
		return nil, fmt.Errorf("-add-to: %w", err)
	}
	return &evalTarget{dir: dir, weights: sum, command: commandLine(command, args)}, nil
}

// add appends e, stamped with the command line and the time, to the
// target's evaluation table.
func (t *evalTarget) add(e neural.Evaluation) error {
	e.Command = t.command
	e.Time = time.Now().UTC().Truncate(time.Second)
	e.Commit = sourceRevision()
	if err := neural.AppendEvaluation(t.dir, t.weights, e); err != nil {
		return fmt.Errorf("-add-to: %w", err)
	}
	return nil
}

// commandLine writes "zerokit NAME ARGS..." with each argument quoted for a
// POSIX shell where it needs to be, and absolute paths in the arguments
// written relative to the working directory (relativePaths), so that a
// record names files as they lie beside the repository, not by the
// absolute paths of the machine that made it.
func commandLine(name string, args []string) string {
	wd, _ := os.Getwd()
	parts := append([]string{"zerokit", name}, args...)
	for i, a := range parts {
		parts[i] = shellQuote(relativePaths(a, wd))
	}
	return strings.Join(parts, " ")
}

// relativePaths rewrites the absolute paths in a command-line argument (the
// whole argument, or a value after "=" or "," as in agent specs) relative
// to dir. Without dir it returns arg unchanged.
func relativePaths(arg, dir string) string {
	if dir == "" || !filepath.IsAbs(dir) {
		return arg
	}
	var b strings.Builder
	start := 0
	for i := 0; i <= len(arg); i++ {
		if i < len(arg) && arg[i] != '=' && arg[i] != ',' {
			continue
		}
		b.WriteString(relpath.To(dir, arg[start:i]))
		if i < len(arg) {
			b.WriteByte(arg[i])
		}
		start = i + 1
	}
	return b.String()
}

// shellQuote quotes s for a POSIX shell unless it holds only characters
// that need no quoting.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=+:,./@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// searchSummary describes an agent's search for an evaluation entry, e.g.
// "sims4000-2s-solver (puct)".
func searchSummary(s neural.Settings) string {
	return fmt.Sprintf("%s (%s)", s.Label(), s.Mode)
}

// newResults converts wins, draws and losses.
func newResults(w, d, l int) *neural.Results {
	return &neural.Results{Wins: w, Draws: d, Losses: l}
}

// sourceRevision is the source revision of this program: the one its build
// recorded, else, under "go run" (which records none but builds from the
// working directory just before running), the git commit of the working
// directory, "+dirty" when it has changes; "" when unknown. A binary built
// without VCS stamping (-buildvcs=false) reports "": the working directory
// may have moved on since it was built.
func sourceRevision() string {
	if rev := buildinfo.Revision(); rev != "" {
		return rev
	}
	if exe, err := os.Executable(); err != nil || !builtByGoRun(exe) {
		return ""
	}
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	rev := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
		rev += "+dirty"
	}
	return rev
}

// builtByGoRun reports whether the executable at path is one "go run"
// built: it links into a temporary go-build directory, under exe/.
func builtByGoRun(path string) bool {
	dir := filepath.ToSlash(filepath.Dir(path))
	return strings.HasSuffix(dir, "/exe") && strings.Contains(dir, "/go-build")
}
