package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/agent/neural/export"
	"github.com/zerokit/zerokit/arena/refbench"
	"github.com/zerokit/zerokit/arena/refbench/bench"
	"github.com/zerokit/zerokit/arena/refbench/javareferee"
	"github.com/zerokit/zerokit/mcts"
)

// defaultManifest is the bench's manifest in the repository.
const defaultManifest = "arena/refbench/bench/manifest.json"

// benchDir is the default scratch folder of the extracted agents:
// $BENCH_DIR, else ~/.cache/zerokit-bench.
func benchDir() string {
	if d := os.Getenv("BENCH_DIR"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "zerokit-bench")
	}
	return filepath.Join(os.TempDir(), "zerokit-bench")
}

const benchFetchUsage = `usage: zerokit bench-fetch [-mirrors DIR] [-dir DIR] [-manifest FILE] [-all]

Extracts the public course agents of the bench's manifest, each at its
pinned commit and unmodified, from a folder of repository snapshots
(-mirrors, default $BENCH_MIRRORS: OWNER+NAME/repo git directories, as
the fetch tool leaves them) into a scratch folder outside the repository
(-dir, default $BENCH_DIR or ~/.cache/zerokit-bench). An agent already
extracted at its commit is left alone. See docs/bench.md.

flags:
`

// runBenchFetch implements "zerokit bench-fetch".
func runBenchFetch(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench-fetch", benchFetchUsage, stderr)
	mirrors := fs.String("mirrors", os.Getenv("BENCH_MIRRORS"), "folder of the repositories' snapshots (default $BENCH_MIRRORS)")
	dir := fs.String("dir", benchDir(), "scratch `folder` for the extracted agents")
	manifest := fs.String("manifest", defaultManifest, "the bench's manifest `file`")
	all := fs.Bool("all", false, "extract the agents that do not run too")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *mirrors == "" {
		fs.Usage()
		return errors.New("give -mirrors or set BENCH_MIRRORS")
	}
	m, err := bench.Load(*manifest)
	if err != nil {
		return err
	}
	done, err := bench.Extract(ctx, m, *mirrors, *dir, *all)
	if err != nil {
		return err
	}
	failed := 0
	for _, e := range done {
		if e.Err != nil {
			failed++
			fmt.Fprintf(stdout, "%s: %s: %v\n", e.Name, e.Status, e.Err)
			continue
		}
		fmt.Fprintf(stdout, "%s: %s in %s\n", e.Name, e.Status, e.Dir)
	}
	if failed > 0 {
		return fmt.Errorf("bench-fetch: %d of %d agents not extracted", failed, len(done))
	}
	return nil
}

const benchRunUsage = `usage: zerokit bench-run -referee PATH/referee.py [flags]
       zerokit bench-run -game squatterN -java-referee DIR [flags]
       zerokit bench-run -table FILE [-add-to AGENT_DIR]

Plays the bench of real opponents: every public course agent of the
manifest that runs (extracted by bench-fetch into -dir), in the unmodified
course referee, and zerokit's opponent styles (-styles), against the agent
(default: the shipped one, exported with -binary), -games games per
opponent and colour, and prints one table: per opponent and colour W-D-L,
score with its 95% interval, the games and how many were distinct (move
sequences), and the agent's CPU and peak memory per game. So that a
match against a deterministic player is more than one game, the agent
samples its first moves among those its search rates nearly alike
(-agent-temp, seeded per game pair) and the styles play their first
-opening actions at random (with -agent-temp 0 the agent does too).
-json FILE -resume plays a long bench in chunks; the file records the
agent, the game, every game, and the revisions and command lines that
played them. -add-to DIR adds the bench's matches (one per opponent, both
colours, with the distinct games) to the exported agent DIR's evaluation
table, after the games or, with -table, from the record; the weights that
played must be DIR's. A benchmark, not a
test: a Watch Your Back! game takes up to a minute of CPU per side. See
docs/bench.md.

flags:
`

// runBenchRun implements "zerokit bench-run".
func runBenchRun(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench-run", benchRunUsage, stderr)
	referee := fs.String("referee", "", "Watch Your Back!: the course's `referee.py`")
	javaReferee := fs.String("java-referee", "", "Squatter: the 2015 referee's `directory`, holding aiproj/squatter/*.java")
	javaClasses := fs.String("java-classes", os.Getenv("BENCH_JAVA_CLASSES"), "Squatter: a `folder` with one subfolder of compiled classes per public Java agent, your own build (zerokit compiles no fetched code; default $BENCH_JAVA_CLASSES)")
	gameName := fs.String("game", "wyb", "wyb or squatterN")
	dir := fs.String("dir", benchDir(), "scratch `folder` of the extracted agents (bench-fetch's -dir)")
	manifest := fs.String("manifest", defaultManifest, "the bench's manifest `file`")
	agentDir := fs.String("agent", "", "exported agent `directory` (default: the shipped agent, exported with -binary)")
	binary := fs.String("binary", "", "zerokit executable of the adapters (default: this program; use the play-only build)")
	games := fs.Int("games", 2, "games per opponent and colour")
	opening := fs.Int("opening", 2, "random actions at the start of the styles' games (and the agent's, with -agent-temp 0)")
	agentTemp := fs.Float64("agent-temp", 0.5, "vary the agent's opening by its search: the first -agent-temp-moves moves sampled with probability proportional to N^(1/T) of the search's visits (network agents); 0: -opening's random actions instead, as the styles play them")
	agentTempMoves := fs.Int("agent-temp-moves", 8, "moves of the game (both sides') the agent plays at -agent-temp")
	colour := fs.String("colour", "both", "the agent's colour: white, black or both (-games each)")
	stylesFlag := fs.String("styles", "", "comma-separated opponent style specs (default: centre,locker,trader; Squatter: blocker,mirror; \"none\": none)")
	only := fs.String("only", "", "comma-separated names of the agents and styles to play (default all)")
	parallel := fs.Int("parallel", 2, "games at once")
	timeLimit := fs.Float64("t", 0, "the referee's -t (0: 60; Squatter: the agent's CPU limit, 0 none)")
	spaceLimit := fs.Float64("s", 0, "the referee's -s (0: 100; Squatter: the agent's memory limit, 0 none)")
	maxTurns := fs.Int("max-moving-turns", 1000, "Watch Your Back!: stop a game at this many moving turns (unfinished)")
	timeout := fs.Duration("game-timeout", 20*time.Minute, "wall time after which a game counts as unfinished")
	python := fs.String("python", "python3", "Python interpreter (one that has the agents' Debian packages, e.g. /usr/bin/python3)")
	jsonOut := fs.String("json", "", "write the table's rows and every game as JSON to `FILE`, rewritten after each game")
	keep := fs.String("keep", "", "keep each game's directory under `DIR`")
	resume := fs.Bool("resume", false, "continue the bench recorded in -json's FILE (same agent, noise, limits and opponents), playing only the games it lacks: a full bench in chunks")
	tableOf := fs.String("table", "", "print the table of the games recorded in `FILE` (an earlier -json) and stop")
	addTo := fs.String("add-to", "", "add the bench's matches, one per opponent, to the evaluation table (provenance) of the exported agent `DIR` whose weights played them: after the games, or with -table those recorded")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *tableOf != "" {
		rec, err := readBenchRecord(*tableOf)
		if err != nil {
			return fmt.Errorf("-table: %w", err)
		}
		if err := bench.WriteTable(stdout, bench.Rows(rec.Matches)); err != nil {
			return err
		}
		if *addTo == "" {
			return nil
		}
		ended := time.Now()
		if st, err := os.Stat(*tableOf); err == nil {
			ended = st.ModTime()
		}
		added, err := addBenchTo(*addTo, rec, commandLine("bench-run", args), ended)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "added %d matches to the evaluation table of %s\n", added, *addTo)
		return nil
	}
	n, squatter, err := refbenchGame(*gameName)
	if err != nil {
		return err
	}
	switch {
	case !squatter && *referee == "":
		fs.Usage()
		return errors.New("-referee is required")
	case squatter && *javaReferee == "":
		fs.Usage()
		return errors.New("-game squatter needs -java-referee")
	case *games < 1 || *opening < 0:
		return errors.New("-games must be at least 1 and -opening not negative")
	case *agentTemp < 0 || *agentTemp > mcts.MaxTemperature || (*agentTemp > 0 && *agentTempMoves < 1):
		return fmt.Errorf("-agent-temp %g for %d moves: want 0 to %d, and with one at least 1 move", *agentTemp, *agentTempMoves, mcts.MaxTemperature)
	case *colour != "white" && *colour != "black" && *colour != "both":
		return fmt.Errorf("-colour %q: want white, black or both", *colour)
	}
	perOpponent := 2 * *games
	if *colour != "both" {
		perOpponent = *games
	}
	m, err := bench.Load(*manifest)
	if err != nil {
		return err
	}
	game := bench.WYB
	if squatter {
		game = bench.Squatter
	}
	styles := bench.DefaultStyles[game]
	switch *stylesFlag {
	case "":
	case "none":
		styles = nil
	default:
		styles = strings.Split(*stylesFlag, ",")
	}
	cfg := bench.Config{Game: game, Dir: *dir, Styles: styles, Opening: *opening}
	if *only != "" {
		cfg.Only = strings.Split(*only, ",")
	}
	bin := *binary
	if bin == "" {
		if bin, err = os.Executable(); err != nil {
			return fmt.Errorf("finding this program (set -binary): %w", err)
		}
	}
	agent := *agentDir
	if agent == "" {
		tmp, err := os.MkdirTemp("", "zerokit-bench-agent-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		if agent, err = exportShipped(tmp, *gameName, bin); err != nil {
			return err
		}
	}
	ownSpec, err := ownAgentSpec(agent, squatter)
	if err != nil {
		return err
	}
	if ownSpec == "" && (*opening > 0 || *agentTemp > 0) {
		// The opening's noise is a parameter of the agent's spec: the one
		// its adapter runs.
		read := export.AdapterAgent
		if squatter {
			read = export.JavaAgent
		}
		if ownSpec, err = read(agent); err != nil {
			return fmt.Errorf("-agent: %w", err)
		}
		if strings.TrimSpace(ownSpec) == "" {
			ownSpec = DefaultAgentKind
		}
	}
	var table refbench.Table
	if squatter {
		build, err := os.MkdirTemp("", "zerokit-bench-java-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(build)
		t, err := javareferee.New(ctx, javareferee.Config{N: n, Course: *javaReferee, Agent: agent, BuildDir: build})
		if err != nil {
			return err
		}
		table = t
		cfg.Classes = *javaClasses
		if missing := bench.MissingClasses(m, cfg); len(missing) > 0 {
			fmt.Fprintf(stderr, "bench-run: left out (no compiled Player class under -java-classes): %s\n", strings.Join(missing, ", "))
		}
	}
	opps, err := bench.Opponents(ctx, m, cfg)
	if err != nil {
		return err
	}
	env := agentBinaryEnv(agent, bin)
	if squatter && len(env) > 0 {
		env = append(env, "ZEROKIT_PLAYER_BINARY="+strings.TrimPrefix(env[0], "ZEROKIT_BIN="))
	}
	opts := refbench.Options{
		Table: table, Python: *python, Referee: *referee, Agent: agent, AgentSpec: ownSpec, Binary: bin, Opponents: opps,
		Games: perOpponent, Colour: *colour, MaxMovingTurns: *maxTurns, Parallel: *parallel, TimeLimit: *timeLimit, SpaceLimit: *spaceLimit,
		GameTimeout: *timeout, Dir: *keep, AgentID: agentID(agent), Env: env, AgentOpening: *opening,
		AgentTemperature: *agentTemp, AgentTemperatureMoves: *agentTempMoves,
		OnGame: func(g refbench.Game) {
			fmt.Fprintf(stderr, "%s game %d: agent %s %s after %d actions (%s); %.1f s CPU, %.1f MB\n",
				g.Opponent, g.Index, g.AgentColour, g.Outcome, g.Actions, g.Reason, g.AgentCPU, g.AgentPeakMB)
		},
	}
	// The noise is part of the agent's record: -resume does not mix the
	// games of two kinds of opening.
	opts.AgentID += ", bench " + benchNoise(*opening, *agentTemp, *agentTempMoves)
	rec := benchRecord{Agent: opts.AgentID, Game: *gameName}
	if *jsonOut != "" {
		done, err := earlierGames(*jsonOut, *resume, opts)
		if err != nil {
			return err
		}
		opts.Done = done
		if len(done) > 0 {
			// earlierGames checked the agent; keep the runs that played.
			if prev, err := readBenchRecord(*jsonOut); err == nil {
				rec.Revisions, rec.Commands = prev.Revisions, prev.Commands
			}
		}
	} else if *resume {
		return errors.New("-resume: give the -json FILE that records the bench")
	}
	rec.addRun(sourceRevision(), commandLine("bench-run", args))
	if *addTo != "" {
		// Stop before the first game if the games could not be added.
		sum, err := rec.weights()
		if err == nil {
			err = neural.CheckEvaluationTarget(*addTo, sum)
		}
		if err != nil {
			return fmt.Errorf("-add-to: %w", err)
		}
	}
	writeJSON := func(matches []refbench.Match) error {
		r := rec
		r.Matches = matches
		return r.write(*jsonOut)
	}
	if *jsonOut != "" {
		// Rewritten after every game: a stopped bench keeps its games.
		opts.OnProgress = writeJSON
	}
	fmt.Fprintf(stderr, "bench-run: agent %s, %d opponents, %d games each per colour (%s), %s, %d played before, %d at once\n",
		agent, len(opps), *games, *colour, benchNoise(*opening, *agentTemp, *agentTempMoves), len(opts.Done), *parallel)
	matches, err := refbench.Run(ctx, opts)
	if err != nil {
		return err
	}
	if err := bench.WriteTable(stdout, bench.Rows(matches)); err != nil {
		return err
	}
	if *jsonOut != "" {
		if err := writeJSON(matches); err != nil {
			return err
		}
	}
	if *addTo != "" {
		rec.Matches = matches
		added, err := addBenchTo(*addTo, rec, "", time.Now())
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "added %d matches to the evaluation table of %s\n", added, *addTo)
	}
	return nil
}

// benchNoise describes how a bench varies its games: the agent's random
// opening or its temperature, and the styles' opening.
func benchNoise(opening int, temp float64, tempMoves int) string {
	if temp > 0 {
		return fmt.Sprintf("agent temperature %g for %d moves, styles' opening %d", temp, tempMoves, opening)
	}
	return fmt.Sprintf("opening %d", opening)
}
