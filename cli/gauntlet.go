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
	"strings"

	"github.com/zerokit/zerokit/arena"
	"github.com/zerokit/zerokit/arena/elo"
	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/internal/atomicfile"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/plots"
	"github.com/zerokit/zerokit/rundir"
)

const gauntletUsage = `usage: zerokit gauntlet [-players SPEC,SPEC,...] [-run RUNDIR] -out DIR [flags]

Plays -games games between every pair of players (colours alternating,
-parallel at a time) and fits maximum-likelihood Elo ratings (Bradley-Terry,
draws as half wins) to all results, anchored at random = 0 when random
plays. Writes DIR/ratings.txt (the table and every pairing, also printed),
DIR/gauntlet.json, and with -run DIR/elo.png: each checkpoint's Elo (95%
interval) against its training step, the other players as reference lines.

-players lists agent specs separated by commas; a comma followed by key=value
continues the previous spec, so "random,alphabeta:depth=3,seed=2,greedy" is
three players. -run adds the checkpoints of a training run directory
(RUNDIR/checkpoints/step-*.ckpt; at most -max-checkpoints, evenly spaced,
always the newest), each played as net:path=FILE,<-net>.

The number of pairings grows as the square of the players: 10 players and
-games 20 are 900 games.

Ctrl-C (SIGINT) or SIGTERM stops the gauntlet and writes what was played:
the pairings played in full, then the interrupted pairing's games 0 to N-1
(as eval reports an interrupted match), with ratings fitted to those when
they determine any ("interrupted": true in gauntlet.json).

Agent specs:
`

// runGauntlet implements "zerokit gauntlet".
func runGauntlet(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	// The real registry, after the flags, batches as many games as
	// -parallel plays at once.
	fs, err := newSpecFlagSet("gauntlet", gauntletUsage, stderr)
	if err != nil {
		return err
	}
	players := fs.String("players", "", "comma-separated agent specs (default with -run: random,greedy,alphabeta:depth=2; else required)")
	runDir := fs.String("run", "", "training run `directory` whose checkpoints to rate")
	netParams := fs.String("net", fmt.Sprintf("sims=%d", mcts.GauntletSimulations), "search parameters of the checkpoints' net: specs")
	maxCkpt := fs.Int("max-checkpoints", 8, "rate at most this many checkpoints of -run, evenly spaced (0: all)")
	nGames := fs.Int("games", 20, "games per pairing")
	parallel := fs.Int("parallel", 1, "games played at the same time")
	gameName := fs.String("game", "", "game (default: the checkpoints' game with -run, else "+defaultGame(nil)+"): "+games.Help(nil))
	seed := fs.Uint64("seed", 1, "seed of the openings and agents")
	opening := fs.Int("opening", 2, "uniformly random actions at the start of each game")
	priorDraws := fs.Float64("prior-draws", 1, "virtual draws added to every pairing, keeping ratings finite after clean sweeps")
	out := fs.String("out", "", "output `directory` (required)")
	quiet := fs.Bool("q", false, "no progress lines on stderr")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *out == "":
		fs.Usage()
		return errors.New("-out is required")
	case *players == "" && *runDir == "":
		fs.Usage()
		return errors.New("give -players, -run or both")
	case *nGames < 1 || *parallel < 1:
		return errors.New("-games and -parallel must be at least 1")
	case *opening < 0 || *maxCkpt < 0:
		return errors.New("-opening and -max-checkpoints must not be negative")
	case !(*priorDraws >= 0):
		return fmt.Errorf("-prior-draws %v: want a number >= 0", *priorDraws)
	}

	reg, err := newAgents(*parallel)
	if err != nil {
		return err
	}
	defer reg.Close()
	var ckpts []checkpointEntry
	if *runDir != "" {
		if ckpts, err = runCheckpoints(*runDir, *maxCkpt); err != nil {
			return err
		}
		if *players == "" {
			*players = "random,greedy,alphabeta:depth=2"
		}
	}
	name := *gameName
	if name == "" {
		name = defaultGame(nil)
		if len(ckpts) > 0 {
			if name, err = checkpointGame(ckpts[len(ckpts)-1].path); err != nil {
				return err
			}
		}
	}
	game, err := games.ByName(name)
	if err != nil {
		return fmt.Errorf("-game: %w", err)
	}

	var entrants []arena.Entrant
	var records []arena.GauntletEntrant
	for _, s := range splitSpecs(*players) {
		b, err := reg.Build(game, s)
		if err != nil {
			return fmt.Errorf("-players: %w", err)
		}
		entrants = append(entrants, arena.Entrant{Name: b.Spec.String(), Factory: seeded(b)})
		records = append(records, arena.GauntletEntrant{Name: b.Spec.String(), Spec: b.Spec.String()})
	}
	for _, c := range ckpts {
		if strings.Contains(c.path, ",") {
			return fmt.Errorf("checkpoint path %s contains a comma, which agent specs cannot hold", c.path)
		}
		text := "net:path=" + c.path
		if *netParams != "" {
			text += "," + *netParams
		}
		b, err := reg.Build(game, text)
		if err != nil {
			return fmt.Errorf("checkpoint %s: %w", c.path, err)
		}
		step := c.step
		entrants = append(entrants, arena.Entrant{Name: fmt.Sprintf("step-%d", c.step), Factory: seeded(b)})
		records = append(records, arena.GauntletEntrant{Name: fmt.Sprintf("step-%d", c.step), Spec: text, Step: &step})
	}
	if len(entrants) < 2 {
		return fmt.Errorf("a gauntlet needs at least two players, got %d", len(entrants))
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}

	pairings := len(entrants) * (len(entrants) - 1) / 2
	done := 0
	cfg := arena.GauntletConfig{
		Match: arena.Config{Game: game, Games: *nGames, Workers: *parallel, Seed: *seed, OpeningMoves: *opening},
		Fit:   elo.FitConfig{PriorDraws: *priorDraws},
		OnMatch: func(r arena.Result) {
			done++
			if !*quiet {
				e := r.Estimate()
				fallbacks := ""
				if r.FallbacksA+r.FallbacksB > 0 {
					fallbacks = fmt.Sprintf(" (fallbacks, moves whose deadline passed before a search completed: %d, %d)", r.FallbacksA, r.FallbacksB)
				}
				fmt.Fprintf(stderr, "gauntlet: %d/%d %s vs %s: %d-%d-%d%s\n", done, pairings, r.A, r.B, e.Wins, e.Draws, e.Losses, fallbacks)
			}
		},
	}
	if !*quiet {
		fmt.Fprintf(stderr, "gauntlet: %d players, %d pairings of %d games on %s\n", len(entrants), pairings, *nGames, game.Name())
	}
	res, err := arena.Gauntlet(ctx, cfg, entrants)
	var intr *arena.GauntletInterrupted
	switch {
	case errors.As(err, &intr) && len(res.Matches) > 0:
		// Ctrl-C: report and write what was played.
	case err != nil:
		return err
	}
	var text bytes.Buffer
	if intr != nil {
		text.WriteString(intr.Summary())
	}
	if err := res.WriteText(&text); err != nil {
		return err
	}
	if _, err := stdout.Write(text.Bytes()); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(*out, "ratings.txt"), text.Bytes(), 0o644); err != nil {
		return err
	}
	js, err := json.MarshalIndent(arena.GauntletReport{
		Game: game.Name(), GamesPerPairing: *nGames, Seed: *seed, Opening: *opening,
		Interrupted: intr != nil, Entrants: records, Result: res,
	}, "", "  ")
	if err != nil {
		return fmt.Errorf("gauntlet JSON: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(*out, "gauntlet.json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	written := []string{"ratings.txt", "gauntlet.json"}
	if len(ckpts) > 0 && len(res.Ratings.Ratings) > 0 {
		series, refs := eloSeries(res.Ratings, records, *netParams)
		chart := plots.EloChart{Options: plots.Options{Title: fmt.Sprintf("Elo over training (%s, %d games per pairing, random = 0)", game.Name(), *nGames)}}
		if err := plots.EloCurve(filepath.Join(*out, "elo.png"), series, refs, chart); err != nil {
			return err
		}
		written = append(written, "elo.png")
	}
	fmt.Fprintf(stdout, "\nwrote %s in %s\n", strings.Join(written, ", "), *out)
	return nil
}

// eloSeries splits the ratings into the checkpoints' curve and the other
// players' reference lines.
func eloSeries(tab elo.Table, entrants []arena.GauntletEntrant, netParams string) ([]plots.EloSeries, []plots.Reference) {
	steps := map[string]int64{}
	for _, e := range entrants {
		if e.Step != nil {
			steps[e.Name] = *e.Step
		}
	}
	label := "network"
	if netParams != "" {
		label += " (" + netParams + ")"
	}
	curve := plots.EloSeries{Name: label}
	var refs []plots.Reference
	for _, r := range tab.Ratings {
		if step, ok := steps[r.Name]; ok {
			curve.Points = append(curve.Points, plots.EloPoint{Step: float64(step), Elo: r.Elo, Lo: r.Lo, Hi: r.Hi})
		} else {
			refs = append(refs, plots.Reference{Name: r.Name, Elo: r.Elo})
		}
	}
	return []plots.EloSeries{curve}, refs
}

// splitSpecs splits comma-separated agent specs; an item of the form
// key=value (no colon before its '=') continues the previous spec.
func splitSpecs(list string) []string {
	var out []string
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		eq, colon := strings.Index(item, "="), strings.Index(item, ":")
		if eq >= 0 && (colon < 0 || eq < colon) && len(out) > 0 {
			out[len(out)-1] += "," + item
			continue
		}
		out = append(out, item)
	}
	return out
}

// checkpointEntry is one checkpoint of a run.
type checkpointEntry struct {
	step int64
	path string
}

// runCheckpoints lists the checkpoints of a run directory, keeping at most
// limit (0: all) evenly spaced ones, always including the newest.
func runCheckpoints(dir string, limit int) ([]checkpointEntry, error) {
	cks := rundir.Run{Dir: dir}.Checkpoints()
	if _, err := os.Stat(cks.Dir); err != nil {
		return nil, fmt.Errorf("-run %s: not a training run directory: %w", dir, err)
	}
	steps, err := cks.Steps()
	if err != nil {
		return nil, err
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("-run %s: no checkpoints in %s", dir, cks.Dir)
	}
	idx := evenlySpaced(len(steps), limit)
	out := make([]checkpointEntry, len(idx))
	for i, k := range idx {
		out[i] = checkpointEntry{step: steps[k], path: cks.Path(steps[k])}
	}
	return out, nil
}

// evenlySpaced picks at most limit (0: all) of the indices 0..n-1, evenly
// spaced, always including n-1.
func evenlySpaced(n, limit int) []int {
	if limit <= 0 || limit >= n {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	idx := make([]int, 0, limit)
	for i := 0; i < limit; i++ {
		// From the newest back, so that the last checkpoint is kept.
		idx = append(idx, n-1-i*(n-1)/max(limit-1, 1))
	}
	for i, j := 0, len(idx)-1; i < j; i, j = i+1, j-1 {
		idx[i], idx[j] = idx[j], idx[i]
	}
	return idx
}
