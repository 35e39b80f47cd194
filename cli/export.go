package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/agent/neural/export"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/rundir"
)

const exportUsage = `usage: zerokit export [-checkpoint FILE_OR_DIR] -out DIR [flags]

Writes a self-contained agent directory DIR from a checkpoint (or from a
training run directory's latest checkpoint; from an exported agent
directory, e.g. a run's agent/, keeping its name, source, provenance and
search settings unless flags change them; without -checkpoint, likewise from
the trained Watch Your Back! agent that ships with zerokit): the network without optimizer
state, agent.json (game, encoding version, architecture, search settings,
source checkpoint, step, seed, creation time), the Python adapter for the
course referee (zerokit_player.py, zerokit_player.json, __init__.py), for a
Squatter agent the Java player of the 2015 course referee
(ZerokitPlayer.java, zerokit_player.properties; with -java-referee also
compiled into zerokit-player.jar) and a README.txt. DIR is written under a temporary name and renamed into place.

Then play it with any command's agent spec net:path=DIR (optionally
,sims=N or ,time=D to change the search), e.g.

  zerokit play -agent net:path=DIR
  zerokit eval -a net:path=DIR -b alphabeta:depth=3 -games 200 -parallel 2
  python3 referee.py DIR other_player      (DIR next to referee.py)

flags:
`

// runExport implements "zerokit export".
func runExport(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	def := neural.DefaultSettings()
	fs := newFlagSet("export", exportUsage, stderr)
	checkpoint := fs.String("checkpoint", "", "checkpoint `file`, a training run directory (its latest checkpoint) or an exported agent directory")
	out := fs.String("out", "", "agent `directory` to create")
	force := fs.Bool("force", false, "replace DIR if it exists")
	nameFlag := fs.String("name", "", "agent name for reports (default <game>-step<step>, or the shipped agent's)")
	sims := fs.Int("sims", def.Simulations, "simulations per move (0: no limit, needs -move-time)")
	moveTime := fs.Duration("move-time", 0, "thinking time per move (0: none); the search plays its best move so far when it runs out")
	mode := fs.String("mode", string(def.Mode), "search: puct or gumbel")
	leaves := fs.Int("leaves", def.LeavesInFlight, "leaves each search evaluates together in one network batch")
	cpuct := fs.Float64("cpuct", def.CPUCT, "PUCT exploration constant")
	reuse := fs.Bool("reuse", def.ReuseTree, "keep the search tree between moves")
	solver := fs.Bool("solver", def.Solver, "run MCTS-Solver: find game-ending moves one move ahead, play proven wins, avoid proven losses")
	ptemp := fs.Float64("policy-temp", def.PolicyTemperature, "policy temperature T: the search uses the network's priors P^(1/T), renormalised (0 or 1: unchanged; above 1: flatter)")
	temp := fs.Float64("temperature", def.Temperature, "move temperature T for the first -temperature-moves moves of a game: the move is sampled with probability proportional to N^(1/T) of the search's visits (puct only; 0: the most visited move)")
	tempMoves := fs.Int("temperature-moves", def.TemperatureMoves, "moves of the game (both sides') played at -temperature")
	lcb := fs.Float64("lcb", def.LCB, "Z > 0: play the move of highest lower confidence bound, Q minus Z standard errors, among the moves with enough visits, instead of the most visited move (puct only; 0: the most visited move)")
	weighted := fs.Bool("weighted", def.WeightedBudget, "multiply each move's simulations and move time by its position's time weight (Watch Your Back!: 3 in the 16 moving turns before the second shrink); max-nodes still bounds the tree")
	sym := fs.Bool("sym", def.AverageSymmetries, "average the network's outputs over the board's symmetries (Watch Your Back!: the left-right mirror), one network call per symmetry")
	maxNodes := fs.Int("max-nodes", mcts.AgentMaxNodes, "end a search once its tree holds this many nodes (0: no limit; -tree-mb bounds the tree's memory either way)")
	treeMB := fs.Int("tree-mb", 0, fmt.Sprintf("the search tree's memory budget in MiB: the search stops growing the tree there (0: the default, %d)", mcts.DefaultTreeMB))
	material := fs.Float64("material", 0, "weight in [0, 1) of the material balance blended into the search's leaf values (0: the network's value alone)")
	materialTerm := fs.String("material-term", "", "what -material blends in: "+agent.TermHelp()+" (default "+agent.TermMaterial+")")
	materialScale := fs.Float64("material-scale", 0, "material lead worth tanh(1) of the material term (0: the default, 2)")
	materialUntil := fs.Int("material-until", 0, "blend the material term only into positions before this move number, e.g. 24 for Watch Your Back!'s placing phase (0: every position)")
	binary := fs.String("binary", "", "zerokit executable the Python adapter runs (default: this program)")
	cache := fs.String("cache", "", "`directory` the shipped agent is unpacked into (default: the user's cache directory)")
	specFlag := fs.String("spec", "", "agent `spec` the adapter runs and the README names, e.g. default (the agent built into zerokit) for a copy that names no path of this machine; the adapter then finds zerokit next to itself or on PATH unless -binary is given (default: net:path=DIR)")
	javaReferee := fs.String("java-referee", "", "Squatter: the 2015 course referee's `directory` (holding aiproj/squatter/*.java); the Java player is compiled against it into zerokit-player.jar (needs javac)")
	gameTime := fs.Duration("game-time", 0, "the agent's thinking budget per game, zerokit serve's -game-time, in the adapters' settings (0: none; default: 55s for the 2018 course's 60 s, and for Squatter \"course\": 80% of the 2015 course's CPU limit for the referee's N, 6s on 6x6, 8s on 7x7)")
	cpuLimit := fs.Duration("cpu-limit", 0, "Squatter: the Java player's cpu_limit, the agent's CPU time per game over which it fails the game (0: none; default \"course\": the 2015 course's limit for the referee's N, 7.5s on 6x6, 10s on 7x7, 10s*N*N/49 above)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		fs.Usage()
		return errors.New("-out is required")
	}
	search := neural.Settings{Settings: mcts.Settings{Simulations: *sims, MoveTime: mcts.Duration(*moveTime), Mode: mcts.Mode(*mode), LeavesInFlight: *leaves, CPUCT: *cpuct, ReuseTree: *reuse, MaxNodes: *maxNodes, TreeMB: *treeMB, Solver: *solver, PolicyTemperature: *ptemp, WeightedBudget: *weighted, Temperature: *temp, TemperatureMoves: *tempMoves, LCB: *lcb}, AverageSymmetries: *sym, MaterialWeight: *material, MaterialScale: *materialScale, MaterialTerm: *materialTerm, MaterialUntil: *materialUntil}
	var ckpt string
	var prov *neural.Provenance
	var source *neural.Source
	var err error
	// from re-exports an agent: its weights, name, source, provenance and
	// search settings but those the flags set.
	from := func(weights string, m neural.Manifest) {
		ckpt, prov = weights, m.Provenance
		src := m.Source
		source = &src
		if *nameFlag == "" {
			*nameFlag = m.Name
		}
		search = overrideSettings(fs, m.Search, search)
	}
	switch {
	case *checkpoint == "":
		weights, m, err := shippedWeights("wyb", *cache)
		if err != nil {
			return err
		}
		from(weights, m)
	case rundir.IsAgentDir(*checkpoint):
		m, err := neural.ReadManifest(*checkpoint) // checks the weights' checksum
		if err != nil {
			return fmt.Errorf("-checkpoint: %w", err)
		}
		from(filepath.Join(*checkpoint, m.Weights), m)
	default:
		if ckpt, err = checkpointFile(*checkpoint); err != nil {
			return err
		}
	}
	if *gameTime < 0 || *cpuLimit < 0 {
		return fmt.Errorf("-game-time %v or -cpu-limit %v is negative", *gameTime, *cpuLimit)
	}
	// export.Options: 0 is the game's default, negative none.
	budget := map[string]time.Duration{"game-time": 0, "cpu-limit": 0}
	fs.Visit(func(f *flag.Flag) {
		if _, ok := budget[f.Name]; ok {
			d := f.Value.(flag.Getter).Get().(time.Duration)
			if d == 0 {
				d = -1
			}
			budget[f.Name] = d
		}
	})
	bin := *binary
	if bin == "" && *specFlag == "" {
		if bin, err = os.Executable(); err != nil {
			return fmt.Errorf("finding this program for the adapter (set -binary): %w", err)
		}
	}
	opts := export.Options{
		Checkpoint:  ckpt,
		Out:         *out,
		Force:       *force,
		Name:        *nameFlag,
		Search:      search,
		Binary:      bin,
		GameTime:    budget["game-time"],
		CPULimit:    budget["cpu-limit"],
		Provenance:  prov,
		Source:      source,
		Spec:        *specFlag,
		JavaReferee: *javaReferee,
	}
	m, err := export.Export(opts)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(*out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "exported %s (game %s, step %d, %d parameters, search %s) to %s\n",
		m.Name, m.Game, m.Source.Step, m.Parameters, m.Search.Label(), abs)
	fmt.Fprintf(stdout, "agent spec: %s:path=%s\n", neural.KindName, abs)
	if *specFlag != "" {
		fmt.Fprintf(stdout, "its adapter runs the agent spec %s\n", *specFlag)
	}
	if *binary == "" && bin != "" && linksLibtorch {
		fmt.Fprintln(stdout, "note: the adapter runs this zerokit, which links libtorch (about 170 MB resident): for the course's 100 MB, export with the play-only build (CGO_ENABLED=0 go build -tags nonet) or give -binary one")
	}
	if !pythonIdentifier.MatchString(filepath.Base(abs)) {
		fmt.Fprintf(stdout, "note: %q is not a Python module name; rename the directory (e.g. our_agent) before giving it to referee.py\n", filepath.Base(abs))
	}
	return nil
}

var pythonIdentifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkpointFile is path itself, or the latest checkpoint when path is a
// training run directory.
func checkpointFile(path string) (string, error) {
	target, err := rundir.Resolve(path)
	if err != nil && !errors.Is(err, rundir.ErrNoNetwork) {
		return "", fmt.Errorf("-checkpoint: %w", err)
	}
	if err != nil || target.Kind == rundir.AgentDir {
		return "", fmt.Errorf("-checkpoint %s: a directory without %s/latest.json (give a checkpoint file or a training run directory)", path, rundir.CheckpointsDir)
	}
	return target.Path, nil
}

// overrideSettings returns base with the search settings of the export
// flags that were given on the command line taken from flags. -material 0
// turns off base's material term (Settings.ClearIdleMaterial).
func overrideSettings(fs *flag.FlagSet, base, flags neural.Settings) neural.Settings {
	s := base
	var termGiven, untilGiven bool
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "sims":
			s.Simulations = flags.Simulations
		case "move-time":
			s.MoveTime = flags.MoveTime
		case "mode":
			s.Mode = flags.Mode
		case "leaves":
			s.LeavesInFlight = flags.LeavesInFlight
		case "cpuct":
			s.CPUCT = flags.CPUCT
		case "reuse":
			s.ReuseTree = flags.ReuseTree
		case "solver":
			s.Solver = flags.Solver
		case "policy-temp":
			s.PolicyTemperature = flags.PolicyTemperature
		case "weighted":
			s.WeightedBudget = flags.WeightedBudget
		case "temperature":
			s.Temperature = flags.Temperature
		case "temperature-moves":
			s.TemperatureMoves = flags.TemperatureMoves
		case "lcb":
			s.LCB = flags.LCB
		case "sym":
			s.AverageSymmetries = flags.AverageSymmetries
		case "max-nodes":
			s.MaxNodes = flags.MaxNodes
		case "tree-mb":
			s.TreeMB = flags.TreeMB
		case "material":
			s.MaterialWeight = flags.MaterialWeight
		case "material-term":
			s.MaterialTerm, termGiven = flags.MaterialTerm, true
		case "material-scale":
			s.MaterialScale = flags.MaterialScale
		case "material-until":
			s.MaterialUntil, untilGiven = flags.MaterialUntil, true
		}
	})
	s.ClearIdleMaterial(termGiven, untilGiven)
	return s
}
