package layering

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/zerokit/zerokit"

// ranks orders the module's top-level trees: a package may import a package
// of its own tree or of a tree with a lower rank. A new tree must be added
// here, which is the place to decide where it stands.
var ranks = map[string]int{
	// What imports nothing of zerokit, or only internal helpers.
	"internal": 0,
	"scripts":  0,
	// The rules, the networks' pure tensor code, the embedded referee
	// adapters (written into exported agents), the run directory, plots.
	"env":         1,
	"model":       1,
	"pyadapter":   1,
	"javaadapter": 1,
	"rundir":      1,
	"plots":       1,
	// Search and records know games.
	"mcts": 2,
	"data": 2,
	// Agents know search and networks; self-play knows search and records.
	"agent":    3,
	"selfplay": 3,
	"runstore": 3,
	// What plays agents: the shipped ones, matches (arena, the referee
	// bench); what reads the games of every file (records, self-play's
	// pending games, referee transcripts).
	"agents":   4,
	"arena":    4,
	"gamefile": 4,
	// What wires all that: the browser front end, the network protocol's
	// server (its tables are Elo fits), the trainer.
	"web":   5,
	"wubpp": 5,
	"train": 5,
	// The command line as a library, and the programs that run it.
	"cli": 6,
	"cmd": 7,
}

// listed is what "go list -json" says of a package.
type listed struct {
	ImportPath string
	Imports    []string
	Error      *struct{ Err string }
}

// tree is a package's top-level directory within the module ("" outside it).
func tree(path string) string {
	rel, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return ""
	}
	top, _, _ := strings.Cut(rel, "/")
	return top
}

// upward returns the imports of pkgs that go from a tree to a higher-ranked
// one, and an error for a package in a tree without a rank.
func upward(pkgs []listed) ([]string, error) {
	var bad []string
	var errs []error
	for _, p := range pkgs {
		if p.Error != nil {
			errs = append(errs, fmt.Errorf("%s: %s", p.ImportPath, p.Error.Err))
			continue
		}
		from := tree(p.ImportPath)
		rf, ok := ranks[from]
		if !ok {
			errs = append(errs, fmt.Errorf("%s: tree %q has no rank", p.ImportPath, from))
			continue
		}
		for _, imp := range p.Imports {
			to := tree(imp)
			if to == "" || to == from {
				continue
			}
			rt, ok := ranks[to]
			if !ok {
				errs = append(errs, fmt.Errorf("%s imports %s: tree %q has no rank", p.ImportPath, imp, to))
				continue
			}
			if rt >= rf {
				bad = append(bad, fmt.Sprintf("%s (%s, rank %d) imports %s (%s, rank %d)", p.ImportPath, from, rf, imp, to, rt))
			}
		}
	}
	return bad, errors.Join(errs...)
}

func TestUpward(t *testing.T) {
	for _, tc := range []struct {
		name string
		pkgs []listed
		bad  int
		err  bool
	}{
		{"down", []listed{{ImportPath: module + "/arena/refbench", Imports: []string{module + "/agent/spec", module + "/arena/elo", module + "/pyadapter", "fmt"}}}, 0, false},
		{"own tree", []listed{{ImportPath: module + "/arena/refbench/javareferee", Imports: []string{module + "/arena/refbench"}}}, 0, false},
		{"same rank", []listed{{ImportPath: module + "/wubpp", Imports: []string{module + "/train"}}}, 1, false},
		{"up", []listed{{ImportPath: module + "/pyadapter/refbench", Imports: []string{module + "/arena/elo", module + "/agent/spec"}}}, 2, false},
		{"unranked importer", []listed{{ImportPath: module + "/nowhere"}}, 0, true},
		{"unranked import", []listed{{ImportPath: module + "/cmd/zerokit", Imports: []string{module + "/nowhere/x"}}}, 0, true},
		{"not listed", []listed{{ImportPath: module + "/agent", Error: &struct{ Err string }{"no Go files"}}}, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad, err := upward(tc.pkgs)
			if len(bad) != tc.bad || (err != nil) != tc.err {
				t.Errorf("upward = %q, %v; want %d upward imports, error %v", bad, err, tc.bad, tc.err)
			}
		})
	}
}

// TestDependenciesPointOneWay lists every package of the module, in both
// builds (with and without the nonet tag), and fails on a non-test import
// that points up.
func TestDependenciesPointOneWay(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		if root := os.Getenv("GOROOT"); root != "" {
			goTool = filepath.Join(root, "bin", "go")
		} else {
			t.Skip("no go command on PATH")
		}
	}
	for _, tags := range []string{"", "nonet"} {
		cmd := exec.Command(goTool, "list", "-e", "-json=ImportPath,Imports,Error", "-tags", tags, module+"/...")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -tags %q: %v\n%s", tags, err, stderr.Bytes())
		}
		var pkgs []listed
		for dec := json.NewDecoder(bytes.NewReader(out)); ; {
			var p listed
			if err := dec.Decode(&p); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("go list -tags %q: %v", tags, err)
			}
			pkgs = append(pkgs, p)
		}
		if len(pkgs) < 20 {
			t.Fatalf("go list -tags %q: only %d packages", tags, len(pkgs))
		}
		bad, err := upward(pkgs)
		if err != nil {
			t.Errorf("tags %q: %v", tags, err)
		}
		for _, b := range bad {
			t.Errorf("tags %q: upward import: %s", tags, b)
		}
	}
}
