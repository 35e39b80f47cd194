// Package agents holds the trained agents that ship with zerokit, exported
// agent directories (see "zerokit export"): wyb for Watch Your Back!,
// squatter6 for Squatter (trained on 6x6, then against the blocker style;
// its spatial policy head plays any board size), squatter7 for Squatter on
// 7x7 (the same network before that fine-tune, which plays 7x7 better) and
// connect4 for Connect Four (7x6). They are embedded in the program, so
// the agent spec "default" works from any directory and in the play-only
// build.
//
// Each directory's agent.json records its provenance: the commit, command
// and configuration that trained it, its training steps and wall time, the
// machine, how its weights were averaged, their checksum, and its
// evaluations with the commands that produced them.
package agents

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/internal/atomicfile"
)

//go:embed wyb squatter6 squatter7 connect4
var shipped embed.FS

// Names lists the shipped agents. Its order matters to For: of a game
// family, the first listed plays the games no agent is named after.
func Names() []string { return []string{"wyb", "squatter6", "squatter7", "connect4"} }

// For returns the name of the shipped agent that plays the game named
// game (a name as env.Game.Name gives it: wyb, wyb-nolimit, squatter7, ...):
// the one named after the game if there is one (squatter7), else the first
// of Names trained on a game of the same family (package env/games, where
// both games must be registered).
func For(game string) (string, error) {
	if want, err := games.ConfigFromName(game); err == nil {
		if slices.Contains(Names(), game) {
			return game, nil
		}
		for _, name := range Names() {
			m, err := Manifest(name)
			if err != nil {
				return "", err
			}
			if have, err := games.ConfigFromName(m.Game); err == nil && have.Name == want.Name {
				return name, nil
			}
		}
	}
	return "", fmt.Errorf("no trained agent ships for game %s (shipped: %s)", game, strings.Join(Names(), ", "))
}

// Manifest returns the manifest of the shipped agent name.
func Manifest(name string) (neural.Manifest, error) {
	b, err := shipped.ReadFile(path.Join(name, neural.ManifestName))
	if err != nil {
		return neural.Manifest{}, fmt.Errorf("shipped agent %q: %w", name, err)
	}
	m, err := neural.DecodeManifest(b)
	if err != nil {
		return neural.Manifest{}, fmt.Errorf("shipped agent %q: %w", name, err)
	}
	return m, nil
}

// Dir returns a directory holding the shipped agent name, for everything
// that loads agents from disk (the agent spec net:path=DIR, the Python
// adapter): the embedded files written once under cache (the user's cache
// directory when empty), in a directory named after the weights' checksum,
// and checked (manifest and checksum) on every call.
func Dir(name, cache string) (string, error) {
	m, err := Manifest(name)
	if err != nil {
		return "", err
	}
	if cache == "" {
		if cache, err = os.UserCacheDir(); err != nil {
			return "", fmt.Errorf("shipped agent %s: no cache directory to unpack it into: %w", name, err)
		}
		cache = filepath.Join(cache, "zerokit", "agents")
	}
	dir := filepath.Join(cache, name+"-"+m.WeightsSHA256[:16])
	if _, err := neural.ReadManifest(dir); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", fmt.Errorf("shipped agent %s: %w", name, err)
	}
	tmp, err := os.MkdirTemp(cache, "."+filepath.Base(dir)+atomicfile.TempPrefix)
	if err != nil {
		return "", fmt.Errorf("shipped agent %s: %w", name, err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", err
	}
	if err := unpack(name, tmp); err != nil {
		return "", fmt.Errorf("shipped agent %s: %w", name, err)
	}
	if _, err := neural.ReadManifest(tmp); err != nil {
		return "", fmt.Errorf("shipped agent %s: %w", name, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("shipped agent %s: %w", name, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, rerr := neural.ReadManifest(dir); rerr == nil {
			return dir, nil // another process unpacked it first
		}
		return "", fmt.Errorf("shipped agent %s: %w", name, err)
	}
	return dir, nil
}

// unpack writes the embedded files of agent name into dir.
func unpack(name, dir string) error {
	entries, err := shipped.ReadDir(name)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return errors.New("no files")
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := shipped.ReadFile(path.Join(name, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Files returns the shipped agent's files, for tests and for "zerokit
// export" without a checkpoint.
func Files(name string) (fs.FS, error) {
	return fs.Sub(shipped, name)
}
