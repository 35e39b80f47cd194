// Package bench is the bench of real opponents (docs/bench.md): public
// course agents of Watch Your Back! (2018, Python Player modules for
// referee.py) and Squatter (2015, Java Player classes for the Java
// referee), described by a manifest kept in the repository, extracted
// unmodified from snapshots of their repositories into a scratch folder
// outside it, and played by package arena/refbench together with
// zerokit's opponent styles (package agent/styles).
//
// The repository holds the manifest only: the agents' code stays in the
// scratch folder.
package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"
)

// Version is the manifest's format version.
const Version = 1

// Games of the bench.
const (
	WYB      = "wyb"      // Watch Your Back!, referee.py (2018)
	Squatter = "squatter" // Squatter, the Java referee (2015)
)

// HeldOut are the public repositories kept out of the bench as an
// independent test that nobody tunes against: a manifest must not name
// them (nor may anyone fetch, read or play them for the bench).
var HeldOut = []string{
	"ZufengW/comp30024-project-b", "ztl8702/ai-board-game", "laitingsheng/2018S1-COMP30024",
	"samuel-x/COMP30024-Watch-Your-Back", "abardac/si7", "djblain/WatchYourBack_PartB",
	"maniarora/watch-your-back", "Gregcake/WatchYourBack",
	"RohanSharma1994/SharWang", "lachlandee/Squatter", "seacen/SquatterB", "rhysw99/squatterB",
	"brickl/SquatterAI",
}

// Manifest lists the candidate agents of the bench.
type Manifest struct {
	Version int     `json:"version"`
	Agents  []Agent `json:"agents"`
}

// Agent is one candidate: where its code is, how it is run, and whether
// and why it runs.
type Agent struct {
	// Name names it in reports and its folder in the scratch folder (a
	// lower-case word with digits, '-' and '_').
	Name string `json:"name"`
	// Game is WYB or Squatter.
	Game string `json:"game"`
	// Repo is the public repository ("owner/name") and Commit the pinned
	// commit (40 hex digits).
	Repo   string `json:"repo"`
	Commit string `json:"commit"`
	// Files are the paths extracted from the commit (files or folders,
	// relative, "." for the whole tree).
	Files []string `json:"files"`
	// Module is, for Watch Your Back!, the Player module's dotted name
	// for referee.py, relative to Root.
	Module string `json:"module,omitempty"`
	// Root is the folder, relative to the extracted tree, that is the
	// agent's working directory and import root ("" for the tree's top).
	Root string `json:"root,omitempty"`
	// Class is, for Squatter, the Player class (its fully qualified
	// name), and Sources the agent's .java files (relative to the tree),
	// which make a Player against the course's package aiproj.squatter
	// (not the agent's copy of it). zerokit does not compile them: the
	// bench plays a Java agent from classes the user built (Config.Classes).
	Class   string   `json:"class,omitempty"`
	Sources []string `json:"sources,omitempty"`
	// Debian lists the Debian packages the agent needs (python3-numpy).
	Debian []string `json:"debian,omitempty"`
	// Env is added to the environment of its games ("KEY=VALUE").
	Env []string `json:"env,omitempty"`
	// Runs says whether the agent plays in the bench, and Why why it
	// runs or not (what was tried, what failed).
	Runs bool   `json:"runs"`
	Why  string `json:"why"`
}

var (
	nameRE   = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)
	repoRE   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*/[A-Za-z0-9][A-Za-z0-9._-]*$`)
	commitRE = regexp.MustCompile(`^[0-9a-f]{40}$`)
	moduleRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)
	classRE  = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$`)
	envRE    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	debRE    = regexp.MustCompile(`^[a-z0-9][a-z0-9.+-]+$`)
)

// Load reads and validates the manifest at file.
func Load(file string) (Manifest, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return Manifest{}, fmt.Errorf("bench: manifest: %w", err)
	}
	m, err := Parse(b)
	if err != nil {
		return Manifest{}, fmt.Errorf("bench: manifest %s: %w", file, err)
	}
	return m, nil
}

// Parse decodes a manifest (unknown fields are errors) and validates it.
func Parse(b []byte) (Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, err
	}
	if dec.More() {
		return Manifest{}, errors.New("text after the manifest's object")
	}
	if err := m.Validate(); err != nil {
		return Manifest{}, err
	}
	return m, nil
}

// Validate checks every agent, naming the first problem of each.
func (m Manifest) Validate() error {
	if m.Version != Version {
		return fmt.Errorf("version %d, want %d", m.Version, Version)
	}
	if len(m.Agents) == 0 {
		return errors.New("no agents")
	}
	var errs []error
	names := map[string]bool{}
	for i, a := range m.Agents {
		if err := a.validate(); err != nil {
			errs = append(errs, fmt.Errorf("agent %d (%q): %w", i+1, a.Name, err))
			continue
		}
		if names[a.Name] {
			errs = append(errs, fmt.Errorf("agent %d: name %q given twice", i+1, a.Name))
		}
		names[a.Name] = true
	}
	return errors.Join(errs...)
}

// validate checks one agent.
func (a Agent) validate() error {
	switch {
	case !nameRE.MatchString(a.Name):
		return errors.New("name: want a lower-case word (letters, digits, '-', '_')")
	case !repoRE.MatchString(a.Repo):
		return fmt.Errorf("repo %q: want owner/name", a.Repo)
	case isHeldOut(a.Repo):
		return fmt.Errorf("repo %s is held out of the bench (an independent test): do not list it", a.Repo)
	case !commitRE.MatchString(a.Commit):
		return fmt.Errorf("commit %q: want 40 lower-case hex digits", a.Commit)
	case len(a.Files) == 0:
		return errors.New("no files to extract")
	case strings.TrimSpace(a.Why) == "":
		return errors.New("why: say why it runs or not")
	}
	for _, f := range a.Files {
		if err := checkRel(f); err != nil {
			return fmt.Errorf("files: %w", err)
		}
	}
	if a.Root != "" {
		if err := checkRel(a.Root); err != nil {
			return fmt.Errorf("root: %w", err)
		}
	}
	for _, e := range a.Env {
		if !envRE.MatchString(e) {
			return fmt.Errorf("env %q: want KEY=VALUE", e)
		}
	}
	for _, d := range a.Debian {
		if !debRE.MatchString(d) {
			return fmt.Errorf("debian package %q: not a package name", d)
		}
	}
	switch a.Game {
	case WYB:
		if !moduleRE.MatchString(a.Module) {
			return fmt.Errorf("module %q: want a dotted Python module name (player, Players.Player_MCTS)", a.Module)
		}
		if a.Class != "" || len(a.Sources) > 0 {
			return errors.New("class and sources are for Squatter's Java agents")
		}
	case Squatter:
		if !classRE.MatchString(a.Class) {
			return fmt.Errorf("class %q: want a Java class name (pkg.Player)", a.Class)
		}
		if a.Module != "" {
			return errors.New("module is for Watch Your Back!'s Python agents")
		}
		if len(a.Sources) == 0 {
			return errors.New("sources: no .java files to compile")
		}
		for _, s := range a.Sources {
			if err := checkRel(s); err != nil || !strings.HasSuffix(s, ".java") {
				return fmt.Errorf("sources: %q: want a relative .java path", s)
			}
			if d := path.Dir(s); d == "aiproj/squatter" || strings.HasSuffix(d, "/aiproj/squatter") {
				return fmt.Errorf("sources: %s is the course's package, which comes from the course's copy", s)
			}
		}
	default:
		return fmt.Errorf("game %q: want %s or %s", a.Game, WYB, Squatter)
	}
	return nil
}

// checkRel checks that p is a clean relative path inside the tree.
func checkRel(p string) error {
	switch {
	case p == "":
		return errors.New("empty path")
	case p == ".":
		return nil
	case strings.HasPrefix(p, "/") || strings.Contains(p, `\`):
		return fmt.Errorf("%q: want a relative path with slashes", p)
	case path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../"):
		return fmt.Errorf("%q: want a clean path inside the tree", p)
	}
	return nil
}

// isHeldOut reports whether repo is one of HeldOut (GitHub names are
// case-insensitive).
func isHeldOut(repo string) bool {
	for _, h := range HeldOut {
		if strings.EqualFold(h, repo) {
			return true
		}
	}
	return false
}

// Runnable returns the agents of game that run.
func (m Manifest) Runnable(game string) []Agent {
	var out []Agent
	for _, a := range m.Agents {
		if a.Game == game && a.Runs {
			out = append(out, a)
		}
	}
	return out
}
