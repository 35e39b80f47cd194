package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/arena"
	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/internal/atomicfile"
)

const positionsUsage = `usage: zerokit positions -out FILE [-game connect4] [flags]

Writes a position set for zerokit accuracy: positions from games between
weak and strong players (-players, drawn for each side of each game), at a
number of discs drawn between -min-discs and -max-discs, each with its
exact value and the moves that keep it, by the game's solver. Positions
where every move keeps the value (lost ones among them) are left out, and
so is one the solver does not solve within -solve-time (counted). The
command line is written into the file. Ctrl-C (SIGINT) or SIGTERM writes
the positions found so far, the beginning of the whole set.

Agent specs (-players):
`

// runPositions implements "zerokit positions".
func runPositions(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, err := newSpecFlagSet("positions", positionsUsage, stderr)
	if err != nil {
		return err
	}
	out := fs.String("out", "", "the position set `FILE` to write (required)")
	gameName := fs.String("game", "connect4", "game: "+games.Help(isSolvable))
	n := fs.Int("n", 1000, "positions")
	minDiscs := fs.Int("min-discs", 10, "fewest discs of a position")
	maxDiscs := fs.Int("max-discs", 36, "most discs of a position")
	players := fs.String("players", "random,alphabeta:depth=1,alphabeta:depth=2,alphabeta:depth=4", "comma-separated agent specs that play the games")
	solveTime := fs.Duration("solve-time", time.Minute, "skip a position not solved in this time")
	parallel := fs.Int("parallel", 1, "positions solved at the same time")
	seed := fs.Uint64("seed", 1, "seed of the games")
	quiet := fs.Bool("q", false, "no progress lines on stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" {
		fs.Usage()
		return errors.New("-out is required")
	}
	if *parallel < 1 || *n < 1 {
		return errors.New("-parallel and -n must be at least 1")
	}
	game, err := games.ByName(*gameName)
	if err != nil {
		return fmt.Errorf("-game: %w", err)
	}
	reg, err := newAgents(*parallel)
	if err != nil {
		return err
	}
	defer reg.Close()
	var fs2 []agent.Factory
	for _, sp := range splitSpecs(*players) {
		b, err := reg.Build(game, sp)
		if err != nil {
			return fmt.Errorf("-players: %w", err)
		}
		fs2 = append(fs2, seeded(b))
	}
	cfg := arena.GenerateConfig{
		Game: game, Positions: *n, MinDiscs: *minDiscs, MaxDiscs: *maxDiscs, Players: fs2,
		SolveTime: *solveTime, Workers: *parallel, Seed: *seed,
	}
	start := time.Now()
	if !*quiet {
		last := 0
		cfg.OnPosition = func(kept, candidates int) {
			if kept != last && (kept%max(1, *n/20) == 0 || kept == *n) {
				last = kept
				fmt.Fprintf(stderr, "positions: %d/%d from %d games, %s elapsed\n", kept, *n, candidates, time.Since(start).Round(time.Second))
			}
		}
	}
	ps, st, err := arena.GeneratePositions(ctx, cfg)
	stopped := ""
	switch {
	case err != nil && ctx.Err() != nil && len(ps) > 0:
		// Ctrl-C or SIGTERM: the positions so far begin the whole set.
		stopped = fmt.Sprintf("stopped by a signal after %d of the %d positions asked for (the first ones of the whole set)", len(ps), *n)
		fmt.Fprintln(stderr, "positions: "+stopped)
	case err != nil:
		return err
	}
	set := arena.PositionSet{Game: game.Name(), Positions: ps, Comments: []string{
		"written by: zerokit positions " + strings.Join(args, " "),
		fmt.Sprintf("%d positions from %d games (%d over too soon, %d repeated, %d where every move keeps the value, %d not solved within %v)",
			len(ps), st.Candidates, st.Ended, st.Repeated, st.Trivial, st.Skipped, *solveTime),
		"MOVES VALUE KEEP: columns 0 = leftmost; W win, L loss, D draw, and the discs to the end under perfect play",
	}}
	if stopped != "" {
		set.Comments = append(set.Comments, stopped)
	}
	if err := atomicfile.Write(*out, 0o644, func(w io.Writer) error { return arena.WritePositions(w, game, set) }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d positions to %s (%d games: %d over too soon, %d repeated, %d trivial, %d not solved within %v) in %s\n",
		len(ps), *out, st.Candidates, st.Ended, st.Repeated, st.Trivial, st.Skipped, *solveTime, time.Since(start).Round(time.Second))
	return nil
}
