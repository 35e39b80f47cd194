//go:build !nonet

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/selfplay"
	"github.com/zerokit/zerokit/selfplay/gamestore"
	"github.com/zerokit/zerokit/train"
)

const selfplayUsage = `usage: zerokit selfplay -checkpoint FILE|RUNDIR -games N -out DIR [flags]

Plays N self-play games with a fixed network (a checkpoint file, or a
training run directory's latest checkpoint) and stores them in DIR as a
training run does (DIR/shard-*.zk, readable by the replay buffer), each game
durable as soon as it finishes. The search and self-play settings are those
of the configuration saved in the checkpoint, or of -config. Game numbers
continue after the games already in DIR, so several invocations (even with
different networks) can fill one directory; Ctrl-C keeps every finished game.

flags:
`

// runSelfplay implements "zerokit selfplay".
func runSelfplay(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("selfplay", selfplayUsage, stderr)
	ckptPath := fs.String("checkpoint", "", "checkpoint `file`, or a training run directory (its latest checkpoint)")
	nGames := fs.Int("games", 0, "number of `games` to play")
	out := fs.String("out", "", "output `directory`")
	configPath := fs.String("config", "", "configuration `file` to use instead of the checkpoint's")
	seed := fs.Uint64("seed", 1, "`seed` of the games (game i plays with a seed derived from it and i)")
	parallel := fs.Int("parallel", 0, "games played at once (0: the configuration's)")
	sims := fs.Int("sims", 0, "simulations per full search (0: the configuration's)")
	worker := fs.Int("worker", 0, "worker `id` recorded in the games")
	quiet := fs.Bool("quiet", false, "no progress bar")
	device := deviceFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *ckptPath == "" || *out == "" || *nGames <= 0 {
		fs.Usage()
		return errors.New("-checkpoint, -out and a positive -games are required")
	}
	if *parallel < 0 || *sims < 0 || *worker < 0 {
		return errors.New("-parallel, -sims and -worker must not be negative")
	}
	path, err := checkpointFile(*ckptPath)
	if err != nil {
		return err
	}
	cfg, err := train.CheckpointRunConfig(path, *configPath)
	if err != nil {
		return err
	}
	if *parallel > 0 {
		cfg.SelfPlay.ParallelGames = *parallel
	}
	if *sims > 0 {
		cfg.Search.Simulations = *sims
		if cfg.Search.PlayoutCap.Enabled && cfg.Search.PlayoutCap.CheapSimulations >= *sims {
			cfg.Search.PlayoutCap.Enabled = false
		}
	}
	if *device != "" {
		cfg.Device = *device
	}
	setup, err := train.NewSetup(cfg)
	if err != nil {
		return err
	}
	ck, err := setup.Load(path)
	if err != nil {
		return err
	}
	defer ck.Net.Close()

	store, rec, err := gamestore.Open(*out)
	if err != nil {
		return err
	}
	if rec.Pending > 0 {
		fmt.Fprintf(stderr, "selfplay: recovered %d games left pending by an interrupted run (%d already stored)\n", rec.Pending, rec.Duplicates)
	}
	eval, closeEval, err := setup.Evaluator(ck.Net)
	if err != nil {
		return err
	}
	defer closeEval()
	gen, err := setup.Generator(selfplay.Options{Seed: *seed, FirstGame: store.NextGame(), Worker: *worker})
	if err != nil {
		return err
	}
	bar := newBar(stderr, !*quiet && isTerminal(stderr), int64(*nGames), "self-play", "games")
	st, stored, err := gen.RunStored(ctx, eval, ck.Step, selfplay.Stop{Games: *nGames}, store, func(int64, *data.Record) error {
		bar.Add(1)
		return nil
	})
	bar.Finish()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s\n", st)
	if stored.Games > 0 {
		fmt.Fprintf(stdout, "wrote %d games to %s\n", stored.Games, stored.Shard)
	}
	if stored.Interrupted {
		fmt.Fprintf(stdout, "interrupted after %d of %d games\n", st.Games, *nGames)
	}
	return nil
}
