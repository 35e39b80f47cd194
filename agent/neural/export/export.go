// Package export writes a self-contained agent directory from a training
// checkpoint: the network, its manifest (game, encoding version,
// architecture, search settings, provenance), the Python adapter for the
// course referee with its configuration, and a README for the user.
//
// Layout of an agent directory DIR:
//
//	agent.json           the neural.Manifest
//	weights.ckpt         the network (a model checkpoint without optimizer state)
//	zerokit_player.py    the referee adapter (a Player class running "zerokit serve")
//	zerokit_player.json  its configuration: the zerokit binary and agent spec net:path=DIR
//	__init__.py          makes DIR an importable module: python3 referee.py DIR other
//	README.txt           how to play against the agent and use it with the referee
//
// and for Squatter the player of the 2015 Java referee (package javaadapter):
//
//	ZerokitPlayer.java, ZerokitOpponent.java  its source (class zerokit.ZerokitPlayer)
//	zerokit_player.properties                 its configuration, like zerokit_player.json
//	zerokit-player.jar                        its classes, when Options.JavaReferee is set
package export

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/internal/atomicfile"
	"github.com/zerokit/zerokit/internal/relpath"
	"github.com/zerokit/zerokit/model/ckpt"
	"github.com/zerokit/zerokit/model/gonet"
	"github.com/zerokit/zerokit/pyadapter"
)

// Adapter file names.
const (
	AdapterModule = pyadapter.PlayerModuleName
	AdapterConfig = "zerokit_player.json"
	PackageInit   = "__init__.py"
	ReadmeName    = "README.txt"
)

// Options configure Export.
type Options struct {
	// Checkpoint is the checkpoint file to export.
	Checkpoint string
	// Out is the agent directory to create. Its path must not contain a
	// comma, since it goes into an agent spec.
	Out string
	// Force replaces an existing Out (atomically: the old directory is
	// removed only after the new one is in place).
	Force bool
	// Name labels the agent (default: "<game>-step<step>").
	Name string
	// Search is the agent's default search.
	Search neural.Settings
	// Binary is the zerokit executable the Python adapter runs; it is
	// made absolute. Empty leaves the adapter to find zerokit next to
	// itself or on PATH.
	Binary string
	// GameTime is the agent's thinking budget per game ("zerokit serve
	// -game-time"), which the adapters' settings carry: 0 is the game's
	// default (Budget), negative none.
	GameTime time.Duration
	// CPULimit is, for a Squatter agent, the Java player's cpu_limit: the
	// agent's CPU time per game, over which the player fails the game. 0
	// is the course's limit for the referee's N (Budget), negative none.
	CPULimit time.Duration
	// ServeArgs are more "zerokit serve" flags for the adapters, e.g.
	// -move-time 2s; not -game-time, which GameTime sets.
	ServeArgs []string
	// Created is the export time recorded in the manifest (zero: now).
	Created time.Time
	// Provenance, if set, is recorded in the manifest.
	Provenance *neural.Provenance
	// Source, if set, is recorded as the manifest's source instead of
	// Checkpoint and its header's step and seed: a re-export of an
	// exported agent keeps where the weights came from.
	Source *neural.Source
	// Spec is the agent spec that the adapter configuration and README
	// name, e.g. "default" (the agent built into zerokit) for a copy that
	// must not depend on where it is stored. Empty: net:path=Out, Out
	// made absolute.
	Spec string
	// JavaReferee, for a Squatter agent, is the directory of the 2015
	// course's Java package (holding aiproj/squatter/*.java): the Java
	// player is compiled against it with Javac ("" finds javac on PATH)
	// into zerokit-player.jar. Empty: the player's source only.
	JavaReferee, Javac string
}

// Export writes the agent directory described by opts and returns its
// manifest. It builds the directory under a temporary name next to Out,
// loads it back as a check, and renames it into place, so Out is either
// absent, the old agent, or the complete new one.
func Export(opts Options) (neural.Manifest, error) {
	m, err := export(opts)
	if err != nil {
		return neural.Manifest{}, fmt.Errorf("export %s: %w", opts.Checkpoint, err)
	}
	return m, nil
}

func export(opts Options) (neural.Manifest, error) {
	if opts.Checkpoint == "" {
		return neural.Manifest{}, errors.New("no checkpoint given")
	}
	if opts.Out == "" {
		return neural.Manifest{}, errors.New("no output directory given")
	}
	out, err := filepath.Abs(opts.Out)
	if err != nil {
		return neural.Manifest{}, err
	}
	if strings.ContainsAny(out, ",\n") {
		return neural.Manifest{}, fmt.Errorf("output directory %q contains a comma or newline, which agent specs cannot hold", out)
	}
	if err := opts.Search.Validate(); err != nil {
		return neural.Manifest{}, err
	}
	if f := gameTimeFlag(opts.ServeArgs); f != "" {
		return neural.Manifest{}, fmt.Errorf("serve flags %q: %s sets the time budget per game, which the game time option sets (one setting)", opts.ServeArgs, f)
	}
	if _, err := os.Stat(out); err == nil && !opts.Force {
		return neural.Manifest{}, fmt.Errorf("output directory %s exists (use -force to replace it)", out)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return neural.Manifest{}, err
	}
	binary := opts.Binary
	if binary != "" {
		if binary, err = filepath.Abs(binary); err != nil {
			return neural.Manifest{}, err
		}
	}

	ck, err := ckpt.ReadFile(opts.Checkpoint)
	if err != nil {
		return neural.Manifest{}, err
	}
	// Building the network checks the tensors and counts the parameters.
	net, err := gonet.FromCheckpoint(ck)
	if err != nil {
		return neural.Manifest{}, fmt.Errorf("checkpoint %s: %w", opts.Checkpoint, err)
	}
	h := &ck.Header
	gc, err := games.ConfigFromName(h.Game)
	if err != nil {
		return neural.Manifest{}, fmt.Errorf("checkpoint's game: %w", err)
	}
	game, err := games.New(gc)
	if err != nil {
		return neural.Manifest{}, fmt.Errorf("checkpoint's game: %w", err)
	}
	if err := neural.CheckGame(h.Game, h.EncodingVersion, game); err != nil {
		return neural.Manifest{}, err
	}
	// The source is recorded relative to the working directory (the
	// repository, for a shipped agent), not by this machine's absolute path.
	src, err := filepath.Abs(opts.Checkpoint)
	if err != nil {
		return neural.Manifest{}, err
	}
	source := neural.Source{Checkpoint: relpath.ToWorkingDir(src), Step: h.Step, Seed: h.Seed}
	if opts.Source != nil {
		source = *opts.Source
	}
	spec := opts.Spec
	if spec == "" {
		spec = neural.KindName + ":path=" + out
	}
	created := opts.Created
	if created.IsZero() {
		created = time.Now()
	}
	name := opts.Name
	if name == "" {
		name = h.Game + "-" + h.Label()
	}
	m := neural.Manifest{
		Format: neural.ManifestFormat, Version: neural.ManifestVersion,
		Name: name, Game: h.Game, EncodingVersion: h.EncodingVersion,
		Shape: net.Shape(), Network: net.Config(), Parameters: net.NumParams(),
		Weights:    neural.WeightsName,
		Search:     opts.Search,
		Source:     source,
		Created:    created.UTC().Round(time.Second),
		Provenance: opts.Provenance,
	}

	tmp, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+atomicfile.TempPrefix)
	if err != nil {
		return neural.Manifest{}, err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	if err := os.Chmod(tmp, 0o755); err != nil {
		return neural.Manifest{}, err
	}
	budget := budgetFor(game.Name(), opts.GameTime, opts.CPULimit)
	if err := writeBundle(tmp, spec, binary, budget, opts.ServeArgs, ck, &m, game); err != nil {
		return neural.Manifest{}, err
	}
	if strings.HasPrefix(game.Name(), "squatter") {
		if err := writeJava(tmp, spec, binary, budget, opts); err != nil {
			return neural.Manifest{}, err
		}
	} else if opts.JavaReferee != "" {
		return neural.Manifest{}, fmt.Errorf("a Java player is for Squatter agents, not %s", game.Name())
	}
	// Check the result the way users will load it.
	n, err := neural.Load(tmp, game, neural.Options{})
	if err != nil {
		return neural.Manifest{}, fmt.Errorf("checking the exported agent: %w", err)
	}
	n.Close()
	if err := atomicfile.SyncDir(tmp); err != nil {
		return neural.Manifest{}, err
	}
	if err := replaceDir(tmp, out); err != nil {
		return neural.Manifest{}, err
	}
	return m, nil
}

// CourseGame reports whether game (by name) is one of the course games,
// Watch Your Back! (the 2018 course's Python referee) and Squatter (the
// 2015 one's Java referee), whose exports carry the referee adapters: a
// Python Player (zerokit_player.py, its settings and __init__.py) and for
// Squatter a Java one. Other games (Connect Four, tic-tac-toe) have no
// course referee; their exports hold the network, its manifest and the
// README, and play through zerokit's own commands and serve protocol.
func CourseGame(game string) bool {
	return strings.HasPrefix(game, "wyb") || strings.HasPrefix(game, "squatter")
}

// writeBundle writes every file of the agent into dir, which will be
// renamed into place; spec is the agent spec the adapter runs, and m gets
// the weights' checksum.
func writeBundle(dir, spec, binary string, budget Budget, serveArgs []string, ck *ckpt.Checkpoint, m *neural.Manifest, game env.Game) error {
	// Without the optimizer state (which ckpt.ReadFile leaves out) the
	// file is a third of a checkpoint.
	wpath := filepath.Join(dir, m.Weights)
	weights := *ck
	weights.Header.Optimizer, weights.Optimizer = nil, nil
	if err := ckpt.WriteFile(wpath, &weights); err != nil {
		return err
	}
	if err := os.Chmod(wpath, 0o644); err != nil {
		return err
	}
	sum, err := neural.FileSHA256(wpath)
	if err != nil {
		return err
	}
	m.WeightsSHA256 = sum
	js, err := m.Encode()
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, neural.ManifestName), js, 0o644); err != nil {
		return err
	}
	if !CourseGame(game.Name()) {
		// No course referee plays it: no adapter for one.
		return atomicfile.WriteFile(filepath.Join(dir, ReadmeName), readme(*m, spec, binary, budget, serveArgs, game), 0o644)
	}
	module, err := pyadapter.PlayerModule()
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, AdapterModule), module, 0o644); err != nil {
		return err
	}
	pyArgs := append(budget.flags(), serveArgs...)
	conf, err := adapterConfig(spec, binary, pyArgs)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, AdapterConfig), conf, 0o644); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, PackageInit), packageInit(*m), 0o644); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, ReadmeName), readme(*m, spec, binary, budget, serveArgs, game), 0o644)
}

// replaceDir renames tmp to out. An existing out is first moved aside and
// removed once tmp is in place; if the second rename fails it is put back.
func replaceDir(tmp, out string) error {
	parent := filepath.Dir(out)
	_, err := os.Stat(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.Rename(tmp, out); err != nil {
			return err
		}
		return atomicfile.SyncDir(parent)
	case err != nil:
		return err
	}
	old, err := os.MkdirTemp(parent, "."+filepath.Base(out)+".old-")
	if err != nil {
		return err
	}
	aside := filepath.Join(old, "agent")
	if err := os.Rename(out, aside); err != nil {
		os.Remove(old)
		return fmt.Errorf("moving the old %s aside: %w", out, err)
	}
	if err := os.Rename(tmp, out); err != nil {
		if rerr := os.Rename(aside, out); rerr != nil {
			return fmt.Errorf("%w (and restoring the old directory failed: %v; it is at %s)", err, rerr, aside)
		}
		os.Remove(old)
		return err
	}
	if err := atomicfile.SyncDir(parent); err != nil {
		return err
	}
	return os.RemoveAll(old)
}
