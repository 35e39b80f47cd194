package bench

import (
	"context"
	"fmt"
	"os"
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
	// Classes is, for Squatter, a folder with one subfolder per Java
	// agent (named as in the manifest) holding that agent's compiled
	// classes. zerokit builds no code it fetched (the terms under which
	// the snapshots are read), so these classes are the user's own
	// build; an agent without them is left out (see MissingClasses).
	Classes string
}

// Opponents returns the bench's opponents for refbench: the runnable
// agents of m for cfg.Game (Python modules run from their extracted
// folder; Java agents from their classes in cfg.Classes, those without
// classes left out), then the styles.
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
			classes, ok := javaClasses(cfg, a)
			if !ok {
				continue
			}
			o.Class, o.ClassPath = a.Class, classes
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

// javaClasses returns the folder of a's compiled classes in cfg.Classes,
// and whether it holds a's Player class.
func javaClasses(cfg Config, a Agent) (string, bool) {
	if cfg.Classes == "" {
		return "", false
	}
	dir := filepath.Join(cfg.Classes, a.Name)
	class := filepath.Join(dir, filepath.FromSlash(strings.ReplaceAll(a.Class, ".", "/"))+".class")
	if _, err := os.Stat(class); err != nil {
		return "", false
	}
	return dir, true
}

// MissingClasses names the runnable Java agents of m for cfg.Game that
// Opponents leaves out because cfg.Classes has no compiled Player class
// for them.
func MissingClasses(m Manifest, cfg Config) []string {
	if cfg.Game != Squatter {
		return nil
	}
	var missing []string
	for _, a := range m.Runnable(cfg.Game) {
		if _, ok := javaClasses(cfg, a); !ok {
			missing = append(missing, a.Name)
		}
	}
	return missing
}
