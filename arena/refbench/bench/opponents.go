package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/zerokit/zerokit/arena/refbench"
)

// DefaultStyles are the opponent styles (agent specs of package
// agent/styles) that the bench plays for each game, besides the public
// agents.
var DefaultStyles = map[string][]string{
	WYB:      {"centre", "locker", "trader"},
	Squatter: {"blocker", "mirror"},
}

// Config says which opponents Opponents returns.
type Config struct {
	// Game is WYB or Squatter.
	Game string
	// Dir is the scratch folder the agents were extracted into (Extract's
	// dest).
	Dir string
	// Only, if not empty, keeps the agents and styles of these names.
	Only []string
	// Styles are agent specs played besides the public agents, each with
	// opening=Opening added when Opening is positive and the spec sets
	// none.
	Styles  []string
	Opening int
	// Course is the Squatter referee's folder (holding
	// aiproj/squatter/*.java), whose classes CoursePath the agents are
	// compiled against into Dir/.build with Javac (default javac).
	CoursePath, Javac string
}

// Opponents returns the bench's opponents for refbench: the runnable
// agents of m for cfg.Game (Python modules run from their extracted
// folder; Java classes compiled from their sources), then the styles.
func Opponents(ctx context.Context, m Manifest, cfg Config) ([]refbench.Opponent, error) {
	keep := func(name string) bool {
		if len(cfg.Only) == 0 {
			return true
		}
		for _, o := range cfg.Only {
			if o == name {
				return true
			}
		}
		return false
	}
	var opps []refbench.Opponent
	for _, a := range m.Runnable(cfg.Game) {
		if !keep(a.Name) {
			continue
		}
		tree := filepath.Join(cfg.Dir, a.Name)
		if _, err := os.Stat(filepath.Join(tree, stampName)); err != nil {
			return nil, fmt.Errorf("bench: agent %s is not extracted in %s (run zerokit bench-fetch)", a.Name, cfg.Dir)
		}
		o := refbench.Opponent{Label: a.Name + " (" + a.Repo + ")", Env: a.Env}
		switch cfg.Game {
		case WYB:
			o.Module, o.Root = a.Module, filepath.Join(tree, filepath.FromSlash(a.Root))
		case Squatter:
			out := filepath.Join(cfg.Dir, ".build", a.Name)
			if err := compileJava(ctx, cfg.Javac, cfg.CoursePath, tree, out, a.Sources); err != nil {
				return nil, fmt.Errorf("bench: agent %s: %w", a.Name, err)
			}
			o.Class, o.ClassPath = a.Class, out
		}
		opps = append(opps, o)
	}
	for _, s := range cfg.Styles {
		kind, _, _ := strings.Cut(s, ":")
		if !keep(kind) && !keep(s) {
			continue
		}
		spec := s
		if cfg.Opening > 0 && !strings.Contains(s, "opening=") {
			sep := ":"
			if strings.Contains(s, ":") {
				sep = ","
			}
			spec += fmt.Sprintf("%sopening=%d", sep, cfg.Opening)
		}
		opps = append(opps, refbench.Opponent{Spec: spec})
	}
	if len(opps) == 0 {
		return nil, fmt.Errorf("bench: no opponents for %s (of %d runnable agents and %d styles)", cfg.Game, len(m.Runnable(cfg.Game)), len(cfg.Styles))
	}
	return opps, nil
}

// compileJava compiles an agent's unmodified sources (relative to tree)
// against the course's classes into out, warnings allowed.
func compileJava(ctx context.Context, javac, coursePath, tree, out string, sources []string) error {
	if javac == "" {
		javac = "javac"
	}
	if coursePath == "" {
		return fmt.Errorf("no course classes to compile against")
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	args := []string{"-nowarn", "-encoding", "UTF-8", "-cp", coursePath, "-d", out}
	for _, s := range sources {
		args = append(args, filepath.Join(tree, filepath.FromSlash(s)))
	}
	cmd := exec.CommandContext(ctx, javac, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("javac: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return nil
}
