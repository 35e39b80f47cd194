// Package cli is zerokit's command line as a library: Main runs the
// subcommands (train, eval, play, serve, export, web, ...) for the games
// registered with package env/games. Command zerokit is Main and the
// imports of this repository's games; a game in a module of its own gets
// every command from a main of the same two parts (docs/games.md).
// Run "zerokit help" for the list of subcommands.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sort"
	"syscall"

	"github.com/zerokit/zerokit/env/games"
)

// command is one subcommand: it parses its own flags from args and writes
// its output to stdout. Errors are returned, and main prints them.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

// commands lists the subcommands. Each lives in a file of its own name.
func commands() map[string]command {
	return map[string]command{
		"play":        {"play a game against an agent in the terminal", runPlay},
		"serve":       {"play an agent through the referee line protocol on stdin/stdout or TCP", runServe},
		"net-server":  {"referee Watch Your Back! games between netreferee.py clients in the course's network protocol (WUBPP)", runNetServer},
		"net-play":    {"play an agent on a server of the course's network protocol (WUBPP), like netreferee.py", runNetPlay},
		"replay":      {"replay referee-format games from stdin and print the referee's transcript", runReplay},
		"review":      {"review referee transcripts of Watch Your Back! with the exact search: which moves before the second shrink lost, and what was proven better", runReview},
		"export":      {"write a self-contained agent directory (network, settings, referee adapter) from a checkpoint", runExport},
		"eval":        {"play a match between two agents and report the score and Elo difference with 95% intervals", runEval},
		"accuracy":    {"measure play against perfect play: the share of moves that keep the value of a set of solved positions (Connect Four)", runAccuracy},
		"positions":   {"write a set of solved positions for accuracy: positions from games between weak and strong players, by the game's solver", runPositions},
		"book":        {"write or extend an opening book of solved early positions for the perfect player (Connect Four)", runBook},
		"solve":       {"the exact value of a position and of each move, by the game's solver (Connect Four)", runSolve},
		"gauntlet":    {"rate several agents and a run's checkpoints together (Elo table, JSON, PNG plot)", runGauntlet},
		"plot":        {"draw PNG plots of a training run's metrics", runPlot},
		"train":       {"train a network by self-play from a configuration file; resumable (see configs/)", runTrain},
		"selfplay":    {"generate self-play games with a fixed network checkpoint into a games directory", runSelfplay},
		"worker":      {"play self-play games for a run in an object store (train -store), on any number of machines", runWorker},
		"average":     {"write the mean of several checkpoints' weights (stochastic weight averaging)", runAverage},
		"bench":       {"measure self-play (batched vs unbatched) and training throughput", runBench},
		"web":         {"serve the browser front end: play an agent, replay and analyse games, follow training runs live", runWeb},
		"bench-fetch": {"extract the bench's public course agents, pinned and unmodified, from repository snapshots into a scratch folder", runBenchFetch},
		"bench-run":   {"play the bench of real opponents (public course agents in the course referee, and opponent styles): one table per opponent and colour", runBenchRun},
		"refbench":    {"play an exported agent inside the course referee (referee.py -t 60 -s 100) against opponents: W-D-L, score, CPU and memory per game", runRefbench},
	}
}

// Main runs the command line args (a program's os.Args[1:]) on the
// process's standard streams, until the command ends or an interrupt
// (SIGINT, SIGTERM) cancels it, and returns the exit status: 0, 1 for a
// failed command, 2 for a usage error. Without a GOMAXPROCS variable it
// sets the runtime's (maxProcs). The games are those registered with
// package env/games by the program's imports.
func Main(args []string) int {
	if os.Getenv("GOMAXPROCS") == "" {
		if n := maxProcs(runtime.NumCPU(), runtime.GOMAXPROCS(0)); n != runtime.GOMAXPROCS(0) {
			runtime.GOMAXPROCS(n)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, args, os.Stdin, os.Stdout, os.Stderr)
}

// Run is Main on the given streams, cancelled with ctx, without touching
// GOMAXPROCS or signals: for tests and programs that embed the command
// line.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(ctx, args, stdin, stdout, stderr)
}

// maxProcs is the GOMAXPROCS zerokit runs with when the environment does
// not set it, given the machine's CPUs and the runtime's default (which is
// lower under a container's CPU limit, a cgroup quota).
//
// On a machine of its own, twice the CPUs: a goroutine inside a libtorch
// call (cgo) keeps its P until the scheduler's monitor takes it back; with
// a batcher worker per core busy in libtorch, the search goroutines would
// wait for a P. Twice the CPUs leaves Ps free for them (measured with
// zerokit bench on 2 cores, two self-play workers: 954 positions/s with 2
// Ps, 1,138 with 4). Under a CPU limit, the runtime's default (the limit):
// more running threads than the quota allows only get the whole process
// throttled for the rest of each quota period.
func maxProcs(cpus, runtimeDefault int) int {
	if runtimeDefault < cpus {
		return runtimeDefault
	}
	return 2 * cpus
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmds := commands()
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stderr, cmds)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "zerokit: unknown command %q\n\n", args[0])
		usage(stderr, cmds)
		return 2
	}
	if err := c.run(ctx, args[1:], stdin, stdout, stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "zerokit %s: %v\n", args[0], err)
		return 1
	}
	return 0
}

func usage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: zerokit <command> [flags]\n\ncommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintf(w, "\ngames (-game): %s\n", games.Help(nil))
	fmt.Fprintln(w, "\nRun \"zerokit <command> -h\" for a command's flags.")
}
