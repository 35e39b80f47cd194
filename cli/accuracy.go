package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/zerokit/zerokit/arena"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/internal/atomicfile"
)

const accuracyUsage = `usage: zerokit accuracy -agent SPEC [-game connect4] [-positions FILE] [flags]

Measures play against perfect play: asks the agent for its move in every
won or drawn position of a position set (default: the set the game ships,
Connect Four's env/connect4/positions.txt) and reports the share of moves
that keep the position's game-theoretic value (a won position stays won,
a drawn one is not lost), with its 95% interval (Wilson), in total and by
the number of discs. Lost positions are not scored: every move keeps a
loss. zerokit positions writes such sets.

Agent specs (-agent):
`

// runAccuracy implements "zerokit accuracy".
func runAccuracy(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs, err := newSpecFlagSet("accuracy", accuracyUsage, stderr)
	if err != nil {
		return err
	}
	agentSpec := fs.String("agent", "", "the agent's spec (required), e.g. net:path=runs/connect4,time=1s")
	gameName := fs.String("game", "connect4", "game: "+games.Help(isSolvable))
	posFile := fs.String("positions", "", "position set `FILE` (default: the game's own)")
	parallel := fs.Int("parallel", 1, "positions searched at the same time")
	seed := fs.Uint64("seed", 1, "seed of the agents (position i: seed+i)")
	minDiscs := fs.Int("min-discs", 0, "score only positions with at least this many discs")
	maxDiscs := fs.Int("max-discs", 0, "score only positions with at most this many discs (0: no bound)")
	width := fs.Int("bucket", 5, "report by groups of this many discs")
	limit := fs.Int("n", 0, "score only the first N positions of the set (0: all)")
	jsonOut := fs.String("json", "", "also write the report as JSON to `FILE`")
	quiet := fs.Bool("q", false, "no progress lines on stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *agentSpec == "" {
		fs.Usage()
		return errors.New("-agent is required")
	}
	if *parallel < 1 || *width < 1 || *minDiscs < 0 || *maxDiscs < 0 || *limit < 0 {
		return errors.New("-parallel and -bucket must be at least 1; -min-discs, -max-discs and -n not negative")
	}
	game, err := games.ByName(*gameName)
	if err != nil {
		return fmt.Errorf("-game: %w", err)
	}
	set, err := loadPositions(game, *posFile)
	if err != nil {
		return err
	}
	ps := set.Positions
	if *limit > 0 && *limit < len(ps) {
		ps = ps[:*limit]
	}
	reg, err := newAgents(*parallel)
	if err != nil {
		return err
	}
	defer reg.Close()
	b, err := reg.Build(game, *agentSpec)
	if err != nil {
		return fmt.Errorf("-agent: %w", err)
	}
	cfg := arena.AccuracyConfig{
		Game: game, Workers: *parallel, Seed: *seed, MinDiscs: *minDiscs, MaxDiscs: *maxDiscs, BucketWidth: *width,
	}
	start := time.Now()
	if !*quiet {
		cfg.OnPosition = func(done, total int) {
			if every := max(1, total/10); done%every == 0 || done == total {
				fmt.Fprintf(stderr, "accuracy: %d/%d positions, %s elapsed\n", done, total, time.Since(start).Round(time.Second))
			}
		}
	}
	rep, err := arena.Accuracy(ctx, cfg, seeded(b), ps)
	if err != nil {
		return err
	}
	rep.Agent = b.Spec.String()
	printAccuracy(stdout, rep)
	if *jsonOut != "" {
		data, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(*jsonOut, append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// isSolvable reports whether g has a solver (a perfect player).
func isSolvable(g env.Game) bool {
	_, ok := g.(env.SolvableGame)
	return ok
}

// loadPositions reads the position set in path, or the game's own.
func loadPositions(game env.Game, path string) (arena.PositionSet, error) {
	var data []byte
	if path == "" {
		tp, ok := game.(env.TestPositioner)
		if ok {
			data = tp.TestPositions()
		}
		if data == nil {
			return arena.PositionSet{}, fmt.Errorf("%s ships no position set: give one with -positions (zerokit positions writes them)", game.Name())
		}
		path = "the shipped set"
	} else {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			return arena.PositionSet{}, err
		}
	}
	set, err := arena.ReadPositions(bytes.NewReader(data), game)
	if err != nil {
		return arena.PositionSet{}, fmt.Errorf("%s: %w", path, err)
	}
	return set, nil
}

func printAccuracy(w io.Writer, rep arena.AccuracyReport) {
	fmt.Fprintf(w, "%s on %s: value kept in %s of the won and drawn positions (95%% interval); %d lost positions not scored\n",
		rep.Agent, rep.Game, rep.All, rep.Lost)
	fmt.Fprintf(w, "%-8s %-28s %-28s %s\n", "discs", "all", "won", "drawn")
	for _, b := range rep.Buckets {
		row := []string{"-", "-"}
		for i, v := range []string{"win", "draw"} {
			if s := b.ByValue[v]; s != nil {
				row[i] = fmt.Sprintf("%d/%d = %.3f", s.Kept, s.Positions, s.Rate)
			}
		}
		fmt.Fprintf(w, "%-8s %-28s %-28s %s\n", fmt.Sprintf("%d-%d", b.MinDiscs, b.MaxDiscs),
			fmt.Sprintf("%d/%d = %.3f [%.3f, %.3f]", b.Kept, b.Positions, b.Rate, b.Lo, b.Hi), row[0], row[1])
	}
	fmt.Fprintf(w, "time per move: mean %.3f s, longest %.3f s; fallbacks %d\n", rep.MeanMove.Seconds(), rep.MaxMove.Seconds(), rep.Fallbacks)
	for _, m := range rep.Missed {
		fmt.Fprintf(w, "  missed: %s\n", m)
	}
}
