package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/agent/neural/export"
	"github.com/zerokit/zerokit/agent/spec"
	shipped "github.com/zerokit/zerokit/agents"
	"github.com/zerokit/zerokit/arena/refbench"
	"github.com/zerokit/zerokit/arena/refbench/javareferee"
	squatterpkg "github.com/zerokit/zerokit/env/squatter"
	"github.com/zerokit/zerokit/internal/atomicfile"
)

const refbenchUsage = `usage: zerokit refbench -referee PATH/referee.py [-agent DIR] -vs OPPONENT [-vs ...] [flags]
       zerokit refbench -game squatterN -java-referee DIR [-agent DIR] -vs OPPONENT [-vs ...] [flags]

Plays an exported agent (default: the Watch Your Back! agent that ships
with zerokit) inside the course's own referee, "python3 referee.py -t 60
-s 100 WHITE BLACK", against each opponent, games in parallel and colours
alternated, and prints the agent's W-D-L (also per colour) with the
score's 95% interval, and per game its CPU seconds and peak memory as its
adapter measured them (the referee cannot see the agent's zerokit
process; the adapter charges it and fails the game if the agent exceeds
the limits). A benchmark, not a test: a game takes up to a minute.

An OPPONENT is
  SPEC            a zerokit agent spec through the Python adapter, e.g.
                  greedy, alphabeta:depth=3
  SPEC@DURATION   the same with a thinking budget per game, e.g.
                  alphabeta:time=2s@55s (alpha-beta at equal resources),
                  split evenly over its moves (serve -unweighted: the
                  game's move weights are the agent's, not the baseline's)
  SPEC@noclock    the same with no CPU or memory limit in its adapter:
                  it may think as long as it needs, so its clock never
                  decides a game (alphabeta:depth=4@noclock); the agent
                  keeps -t and -s
  module:PATH     any referee Player module (x.py or a package directory)

Opponents run the zerokit binary of -binary, and the shipped agent is
exported with it: use the play-only build (CGO_ENABLED=0 go build -tags
nonet), whose process stays far below 100 MB; a libtorch build does not.
The agent plays as its directory's agent.json says: an adapter that runs
"default" (the agent built into that binary, as agents/wyb's does) runs
net:path=DIR instead, since the built-in agent may be another.

Squatter (-game squatterN, N the board size): the games are played in the
2015 course's Java referee, "java aiproj.squatter.Referee N WHITE BLACK",
compiled from -java-referee's directory (holding aiproj/squatter/*.java),
with the agent's Java player (zerokit.ZerokitPlayer, from the agent
directory's zerokit-player.jar or its sources) and opponents as Java
Players: a SPEC plays as zerokit.ZerokitOpponent, and
  class:NAME      any Player class on the class path (-cp adds to it)
That referee sets no limits: -t and -s, if given, are the agent's CPU
seconds and peak MB per game, which its player enforces; its CPU and
memory are measured either way. The default agent is the shipped Squatter
agent with its own search.

A long match (100 games at equal time take over an hour on two cores)
can run in pieces: -json FILE is rewritten after every game, and the same
command with -resume, after a stop or a crash, plays only the games FILE
lacks (it must hold the same agent's games under the same limits: the
same weights with the same search and serve arguments).

flags:
`

// runRefbench implements "zerokit refbench".
func runRefbench(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("refbench", refbenchUsage, stderr)
	referee := fs.String("referee", "", "the course's `referee.py` (required)")
	agentDir := fs.String("agent", "", "exported agent `directory` (default: the shipped Watch Your Back! agent, exported with -binary)")
	binary := fs.String("binary", "", "zerokit executable of the adapters (default: this program)")
	var opponents []refbench.Opponent
	fs.Func("vs", "an opponent (repeatable; see above)", func(v string) error {
		o, err := parseOpponent(v)
		if err == nil {
			opponents = append(opponents, o)
		}
		return err
	})
	games := fs.Int("games", 10, "games per opponent (colours alternate unless -colour)")
	colour := fs.String("colour", "both", "the agent's `colour`: white, black, or both (alternate)")
	maxTurns := fs.Int("max-moving-turns", 1000, "Watch Your Back!: a game still playing at this many moving `turns` (a locked board) is stopped and counts as unfinished (negative: no limit)")
	parallel := fs.Int("parallel", 2, "games at once")
	timeLimit := fs.Float64("t", 0, "the referee's -t: CPU seconds per player per game (0: 60; Squatter: the agent's limit, 0 none)")
	spaceLimit := fs.Float64("s", 0, "the referee's -s: MB per player (0: 100; Squatter: the agent's limit, 0 none)")
	gameName := fs.String("game", "wyb", "wyb (the 2018 Python referee) or squatterN (the 2015 Java referee on N x N)")
	javaReferee := fs.String("java-referee", "", "Squatter: the 2015 referee's `directory`, holding aiproj/squatter/*.java (required)")
	classPath := fs.String("cp", "", "Squatter: class `path` added for class: opponents")
	timeout := fs.Duration("game-timeout", 20*time.Minute, "wall time after which a game counts as unfinished (the referee has no turn limit)")
	python := fs.String("python", "python3", "Python interpreter")
	jsonOut := fs.String("json", "", "also write every game as JSON to `FILE`, rewritten after each game (an existing FILE needs -resume)")
	resume := fs.Bool("resume", false, "continue the matches recorded in -json's FILE (same agent, limits and opponents), playing only the games it lacks; without FILE, start them")
	addTo := fs.String("add-to", "", addToHelp)
	keep := fs.String("keep", "", "keep each game's directory (referee output, usage logs) under `DIR`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	n, squatter, err := refbenchGame(*gameName)
	if err != nil {
		return err
	}
	switch {
	case len(opponents) == 0:
		fs.Usage()
		return errors.New("at least one -vs is required")
	case !squatter && *referee == "":
		fs.Usage()
		return errors.New("-referee is required")
	case squatter && *javaReferee == "":
		fs.Usage()
		return errors.New("-game squatter needs -java-referee, the directory of the course's Java package")
	}
	bin := *binary
	if bin == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("finding this program (set -binary): %w", err)
		}
		bin = exe
		if linksLibtorch {
			fmt.Fprintln(stderr, "refbench: note: this zerokit links libtorch, whose process alone exceeds 100 MB; give -binary a play-only build (CGO_ENABLED=0 go build -tags nonet)")
		}
	}
	dir := *agentDir
	if dir == "" {
		tmp, err := os.MkdirTemp("", "zerokit-refbench-agent-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		if dir, err = exportShipped(tmp, *gameName, bin); err != nil {
			return err
		}
	}
	var target *evalTarget
	var search string
	if *addTo != "" {
		m, err := neural.ReadManifest(dir)
		if err != nil {
			return fmt.Errorf("-agent: %w", err)
		}
		if target, err = newEvalTarget(*addTo, filepath.Join(dir, m.Weights), "refbench", args); err != nil {
			return err
		}
		// The adapter reads the same file to start the agent: an agent whose
		// file cannot be read cannot play, so stop before the first game.
		if _, _, err := export.Adapter(dir); err != nil {
			return fmt.Errorf("-agent: %w", err)
		}
		search = agentSearch(dir, m)
		if squatter {
			search += fmt.Sprintf(", in the Java referee on %dx%d", n, n)
		} else {
			limits := refbench.Options{TimeLimit: *timeLimit, SpaceLimit: *spaceLimit}
			if err := (refbench.Python{}).Defaults(&limits); err != nil {
				return err
			}
			search += fmt.Sprintf(", in referee.py -t %g -s %g", limits.TimeLimit, limits.SpaceLimit)
		}
	}
	id := agentID(dir)
	ownSpec, err := ownAgentSpec(dir, squatter)
	if err != nil {
		return err
	}
	var table refbench.Table
	if squatter {
		build, err := os.MkdirTemp("", "zerokit-refbench-java-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(build)
		t, err := javareferee.New(ctx, javareferee.Config{N: n, Course: *javaReferee, Agent: dir, BuildDir: build, ExtraClassPath: *classPath})
		if err != nil {
			return err
		}
		table = t
		// The games of another board size would not measure this one.
		id += fmt.Sprintf(", squatter %dx%d", n, n)
	}
	env := agentBinaryEnv(dir, bin)
	if squatter && len(env) > 0 {
		// The Java player reads its own variable.
		env = append(env, "ZEROKIT_PLAYER_BINARY="+strings.TrimPrefix(env[0], "ZEROKIT_BIN="))
	}
	opts := refbench.Options{
		Table: table, Python: *python, Referee: *referee, Agent: dir, AgentSpec: ownSpec, Binary: bin, Opponents: opponents,
		Games: *games, Colour: *colour, MaxMovingTurns: *maxTurns, Parallel: *parallel, TimeLimit: *timeLimit, SpaceLimit: *spaceLimit,
		GameTimeout: *timeout, Dir: *keep, AgentID: id, Env: env,
		OnGame: func(g refbench.Game) {
			var table string
			if g.AfterSecondShrink != "" {
				table = "; table after the 2nd shrink: " + g.AfterSecondShrink
			}
			fmt.Fprintf(stderr, "%s game %d: agent %s %s after %d actions; %.1f s CPU, %.1f MB%s\n",
				g.Opponent, g.Index, g.AgentColour, g.Outcome, g.Actions, g.AgentCPU, g.AgentPeakMB, table)
		},
	}
	if *jsonOut != "" {
		done, err := earlierGames(*jsonOut, *resume, opts)
		if err != nil {
			return err
		}
		opts.Done = done
		opts.OnProgress = func(matches []refbench.Match) error { return writeMatches(*jsonOut, matches) }
	} else if *resume {
		return errors.New("-resume: give the -json FILE that records the matches")
	}
	fmt.Fprintf(stderr, "refbench: agent %s, %d games against each of %d opponents (%d played before), %d at once\n",
		dir, *games, len(opponents), len(opts.Done), *parallel)
	// -json's FILE is written by OnProgress after each game: it already
	// holds every game when Run returns.
	matches, err := refbench.Run(ctx, opts)
	if err != nil {
		return err
	}
	if err := refbench.WriteText(stdout, matches); err != nil {
		return err
	}
	for _, m := range matches {
		if len(m.Games) > 0 && m.Failed == len(m.Games) {
			return fmt.Errorf("refbench: every game against %s failed (a broken set-up, not a result): %s", m.Opponent, m.Games[0].Reason)
		}
	}
	if target == nil {
		return nil
	}
	for _, m := range matches {
		e, ok := matchEvaluation(m, fmt.Sprintf("%s (%s)", m.Opponent, refereeWhere(n, squatter)), search)
		if !ok {
			continue
		}
		if err := target.add(e); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "added to the evaluation table of %s\n", *addTo)
	return nil
}

// agentBinaryEnv returns ZEROKIT_BIN=bin for the referee processes when
// the agent in dir names no zerokit executable of its own (neither in its
// zerokit_player.json nor as a zerokit file beside it) and the environment
// sets none: its adapter then runs -binary, like the opponents', instead of
// whatever zerokit is on PATH, or failing to find one (as with the agents
// that ship in agents/, exported without a binary).
func agentBinaryEnv(dir, bin string) []string {
	if os.Getenv("ZEROKIT_BIN") != "" {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "zerokit")); err == nil {
		return nil
	}
	if named, _, err := export.Adapter(dir); err != nil || named != "" {
		return nil
	}
	if strings.ContainsRune(bin, filepath.Separator) {
		// The referee runs in each game's directory.
		if abs, err := filepath.Abs(bin); err == nil {
			bin = abs
		}
	}
	return []string{"ZEROKIT_BIN=" + bin}
}

// agentID names the agent of dir in refbench's records: its weights'
// SHA-256 and its search (agentSearch) from its manifest, else the
// directory's absolute path. The search is part of the name so that
// -resume does not mix the games of two searches with the same weights
// (an agent.json whose settings were changed between runs) into one
// result.
func agentID(dir string) string {
	if m, err := neural.ReadManifest(dir); err == nil && m.WeightsSHA256 != "" {
		id := "weights sha256 " + m.WeightsSHA256
		if _, _, err := export.Adapter(dir); err == nil {
			id += ", search " + agentSearch(dir, m)
		}
		return id
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// ownAgentSpec returns the agent spec that makes the exported agent in dir
// play as its manifest says, for refbench.Options.AgentSpec, or "" to
// leave its adapter's own. An adapter that runs "default" (with or without
// parameters) plays the agent built into the zerokit binary that runs it,
// which is dir's agent only if the binary was built from the same agents/
// (agents/wyb itself, edited after the binary was built, is not); refbench's
// records name dir's weights and search, so it plays net:path=DIR with the
// same parameters instead. squatter reads the Java player's settings.
func ownAgentSpec(dir string, squatter bool) (string, error) {
	if _, err := neural.ReadManifest(dir); err != nil {
		return "", nil // no manifest: the adapter's spec is all there is
	}
	read := export.AdapterAgent
	if squatter {
		read = export.JavaAgent
	}
	configured, err := read(dir)
	if err != nil {
		return "", fmt.Errorf("-agent: %w", err)
	}
	if strings.TrimSpace(configured) == "" {
		configured = DefaultAgentKind // what the adapters run
	}
	sp, err := spec.Parse(configured)
	if err != nil || sp.Kind != DefaultAgentKind {
		return "", nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	own := spec.Spec{Kind: neural.KindName, Params: append([]spec.Param{{Key: "path", Value: abs}}, sp.Params...)}
	back, err := spec.Parse(own.String())
	if path, _ := back.Lookup("path"); err != nil || path != abs {
		return "", fmt.Errorf("-agent %s: its adapter runs %q, the agent built into zerokit, and refbench would run the directory itself, but an agent spec cannot hold its path (a comma?): move the directory", dir, configured)
	}
	return own.String(), nil
}

// agentSearch describes the search of the exported agent in dir with
// manifest m: its search settings, the flags its Python adapter passes to
// "zerokit serve", and a Squatter agent's Java player's game_time and
// cpu_limit, e.g. "sims2000-1s-solver (puct), serve -game-time 55s".
func agentSearch(dir string, m neural.Manifest) string {
	s := searchSummary(m.Search)
	if _, serveArgs, err := export.Adapter(dir); err == nil && len(serveArgs) > 0 {
		s += ", serve " + strings.Join(serveArgs, " ")
	}
	gameTime, err1 := export.JavaSetting(dir, "game_time")
	cpuLimit, err2 := export.JavaSetting(dir, "cpu_limit")
	if err1 == nil && err2 == nil && (gameTime != "" || cpuLimit != "") {
		s += fmt.Sprintf(", Java player game_time=%s cpu_limit=%s", gameTime, cpuLimit)
	}
	return s
}

// earlierGames returns the games recorded in path (refbench's or
// bench-run's -json) for opts.Done when resume is set and path exists. An existing path without resume is an
// error: its games would be overwritten by the first new one.
func earlierGames(path string, resume bool, opts refbench.Options) ([]refbench.Game, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("-json: %w", err)
	}
	if !resume {
		return nil, fmt.Errorf("-json: %s exists: give -resume to continue its matches, or another file", path)
	}
	// refbench records a list of matches; bench-run an object holding
	// them with its table's rows.
	var prev []refbench.Match
	if trimmed := bytes.TrimSpace(b); len(trimmed) > 0 && trimmed[0] == '{' {
		var rec struct {
			Matches []refbench.Match `json:"matches"`
		}
		err = json.Unmarshal(b, &rec)
		prev = rec.Matches
	} else {
		err = json.Unmarshal(b, &prev)
	}
	if err != nil {
		return nil, fmt.Errorf("-resume: %s: %w", path, err)
	}
	games, err := refbench.ResumeGames(prev, opts)
	if err != nil {
		return nil, fmt.Errorf("-resume: %s: %w", path, err)
	}
	return games, nil
}

// writeMatches writes matches as indented JSON to path, atomically.
func writeMatches(path string, matches []refbench.Match) error {
	b, err := json.MarshalIndent(matches, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o644)
}

// refbenchGame reads -game: wyb, or squatterN with its board size.
func refbenchGame(name string) (n int, squatter bool, err error) {
	if name == "wyb" {
		return 0, false, nil
	}
	if rest, ok := strings.CutPrefix(name, "squatter"); ok {
		if n, err := strconv.Atoi(rest); err == nil && n >= squatterpkg.MinN && n <= squatterpkg.MaxN {
			return n, true, nil
		}
	}
	return 0, false, fmt.Errorf("-game %q: want wyb or squatterN with %d <= N <= %d", name, squatterpkg.MinN, squatterpkg.MaxN)
}

// parseOpponent reads a -vs value.
func parseOpponent(v string) (refbench.Opponent, error) {
	if name, ok := strings.CutPrefix(v, "class:"); ok {
		if name == "" || strings.ContainsAny(name, " /:") {
			return refbench.Opponent{}, fmt.Errorf("-vs %q: want class:NAME, a Java class name such as their.Player", v)
		}
		return refbench.Opponent{Class: name}, nil
	}
	if path, ok := strings.CutPrefix(v, "module:"); ok {
		if path == "" {
			return refbench.Opponent{}, errors.New("-vs module: needs a path")
		}
		return refbench.Opponent{Module: path}, nil
	}
	parts := strings.Split(v, "@")
	if strings.TrimSpace(parts[0]) == "" {
		return refbench.Opponent{}, fmt.Errorf("-vs %q: no agent spec", v)
	}
	o := refbench.Opponent{Spec: parts[0]}
	for _, p := range parts[1:] {
		if p == "noclock" {
			if o.NoClock {
				return refbench.Opponent{}, fmt.Errorf("-vs %q: @noclock twice", v)
			}
			o.NoClock = true
			continue
		}
		d, err := time.ParseDuration(p)
		if err != nil || d <= 0 || o.ServeArgs != nil {
			return refbench.Opponent{}, fmt.Errorf("-vs %q: after @ want one budget, a positive duration such as 55s, and/or noclock", v)
		}
		o.ServeArgs = []string{"-game-time", d.String(), "-unweighted"}
	}
	return o, nil
}

// exportShipped exports the shipped agent for game (wyb or squatterN:
// agents.For's, squatter7 on 7x7 and squatter6, whose network plays every
// N, on the others) into tmp/agent with adapters that run bin, and returns that
// directory. The budget is the export's default: 55 s for Watch Your
// Back!, the course's for N for Squatter.
func exportShipped(tmp, game, bin string) (string, error) {
	name, err := shipped.For(game)
	if err != nil {
		return "", err
	}
	weights, m, err := shippedWeights(name, "")
	if err != nil {
		return "", err
	}
	dir := filepath.Join(tmp, "agent")
	if _, err := export.Export(export.Options{
		Checkpoint: weights, Out: dir, Name: m.Name, Search: m.Search,
		Binary: bin, Provenance: m.Provenance,
	}); err != nil {
		return "", err
	}
	return dir, nil
}

// refereeWhere names the referee a match was played in, for the opponent
// of its evaluation: the 2018 course's ("referee") or, for Squatter on an
// N x N board, the 2015 course's Java one.
func refereeWhere(n int, squatter bool) string {
	if squatter {
		return fmt.Sprintf("Java referee, %dx%d", n, n)
	}
	return "referee"
}

// matchEvaluation is the evaluation-table entry of a refereed match
// against opponent (the label to record), played with search: its
// results by colour, the games left out, the distinct games and the
// agent's resources. The caller stamps the command, time and commit. ok
// is false for a match with no scored game.
func matchEvaluation(m refbench.Match, opponent, search string) (e neural.Evaluation, ok bool) {
	if m.All.Wins+m.All.Draws+m.All.Losses == 0 {
		return neural.Evaluation{}, false
	}
	return neural.Evaluation{
		Opponent: opponent, Wins: m.All.Wins, Draws: m.All.Draws, Losses: m.All.Losses,
		Score: m.All.Score, Low: m.All.Low, High: m.All.High, Search: search,
		AsFirst:   newResults(m.AsWhite.Wins, m.AsWhite.Draws, m.AsWhite.Losses),
		AsSecond:  newResults(m.AsBlack.Wins, m.AsBlack.Draws, m.AsBlack.Losses),
		Excluded:  m.Unfinished + m.Failed,
		Distinct:  m.DistinctAsWhite + m.DistinctAsBlack,
		Resources: fmt.Sprintf("agent CPU s per game: mean %.1f, max %.1f; peak memory %.1f MB", m.MeanCPU, m.MaxCPU, m.MaxPeakMB),
	}, true
}
