//go:build !nonet

package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/zerokit/zerokit/model/arch"
	"github.com/zerokit/zerokit/train"
)

const trainUsage = `usage: zerokit train -config FILE -run DIR [-max-minutes N] [-max-steps N] [-quiet]
       zerokit train -run DIR            (resume a run with its stored configuration)
       zerokit train -store URL -config FILE [-run DIR] [-store-retry D]
                                         (train on games from "zerokit worker"s)
       zerokit train -defaults           (print every configuration key with its default)

Trains a network by self-play (see configs/ for configurations): self-play
phases and training phases alternate, with checkpoints and evaluation
matches every so many steps. The run directory keeps the effective
configuration (config.yaml), checkpoints/, the games (games/), metrics.jsonl
and train.log.

Ctrl-C (SIGINT) or SIGTERM stops at the next step or game boundary, saves a
checkpoint and exits 0; the same command continues the run. A run killed
outright resumes from its last checkpoint without losing finished games.
Resuming with -config may change the learning-rate schedule, eval,
checkpoint, batcher, self-play parallelism, the sparring partner, the value
target's mix (buffer.root_value_weight), MCTS-Solver (search.solver), threads,
the recipe's stages, the weight averaging and the agent settings (recorded
in meta.json); any other difference is an error.

DIR/agent is the run's ready-to-play agent (an exported agent, see
"zerokit export"), refreshed at every checkpoint: the running mean of the
weights once the configuration's averaging has begun, else the newest
checkpoint. "zerokit play -run DIR" and the agent spec net:path=DIR play it.

With -store, the run lives in an object store (file:///abs/dir,
and with -tags s3, gcs or azure s3://bucket/prefix?endpoint=...,
gs://bucket/prefix, azblob://container/prefix;
credentials from the standard environment, e.g. AWS_ACCESS_KEY_ID and
AWS_SECRET_ACCESS_KEY) and its games come from self-play workers ("zerokit
worker -store URL", on any number of machines); the configuration must say
train.self_play: store (configs/wyb-store.yaml). The trainer publishes every
checkpoint and its network there, trains only as new games call for (it
waits, and says so, when the workers are slow), and resumes from the
store's newest checkpoint and metrics: a trainer restarted on another
machine continues the run and its history. It reads at most an
iteration's worth of new games (train.positions_per_iteration) before
training on them, so that it trains train.samples_per_position samples
per position whether the workers are faster or slower than it; later
games wait in the store. When the store cannot be reached it retries for
-store-retry (10m), saying so, before it exits. DIR is then a local
working copy (a temporary directory if omitted).

flags:
`

// runTrain implements "zerokit train".
func runTrain(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("train", trainUsage, stderr)
	configPath := fs.String("config", "", "configuration `file` (YAML); optional when resuming")
	runDir := fs.String("run", "", "run `directory` (created if needed); with -store, a local working copy")
	store := fs.String("store", "", "store `URL` of a run trained on games from workers (see above)")
	maxMinutes := fs.Float64("max-minutes", 0, "stop after this many `minutes` of wall time (0: no limit)")
	maxSteps := fs.Int64("max-steps", 0, "stop when the run reaches this training `step` (0: no limit)")
	storeRetry := fs.Duration("store-retry", train.DefaultStoreRetry, "with -store, retry a failing store operation for this `long` before exiting")
	quiet := fs.Bool("quiet", false, "no progress bars (they are drawn only on a terminal anyway)")
	defaults := fs.Bool("defaults", false, "print the default configuration and exit")
	initFrom := fs.String("init", "", "start a new run from these trained weights: a checkpoint `file`, an agent directory or a run directory (a fine-tune; step 0, a new optimizer)")
	device := deviceFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *defaults {
		text, err := train.DefaultConfig().Encode()
		if err != nil {
			return err
		}
		_, err = stdout.Write(text)
		return err
	}
	if *runDir == "" && *store == "" {
		fs.Usage()
		return errors.New("-run is required")
	}
	if *maxMinutes < 0 || *maxSteps < 0 || *storeRetry <= 0 {
		return errors.New("-max-minutes and -max-steps must not be negative, -store-retry must be positive")
	}
	var progress train.Progress
	if !*quiet && isTerminal(stderr) {
		progress = progressBars{w: stderr}
	}
	sum, err := train.Run(ctx, train.Options{
		Dir:         *runDir,
		Store:       *store,
		StoreRetry:  *storeRetry,
		ConfigPath:  *configPath,
		MaxSteps:    *maxSteps,
		MaxDuration: time.Duration(*maxMinutes * float64(time.Minute)),
		Progress:    progress,
		Stderr:      stderr,
		Device:      *device,
		Init:        *initFrom,
		Command:     commandLine("train", args),
		Commit:      sourceRevision(),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "steps %d -> %d, %d iterations, %d games; stopped: %s\n",
		sum.StartStep, sum.Step, sum.Iterations, sum.Games, sum.Stopped)
	return nil
}

// linksLibtorch reports whether this build links libtorch (about 170 MB
// resident once loaded, over the course's 100 MB): this one does.
const linksLibtorch = true

// deviceFlag defines -device, the device of the libtorch network, for the
// commands that run it (train, worker, selfplay, bench).
func deviceFlag(fs *flag.FlagSet) *string {
	return fs.String("device", "", "`device` of the network: "+arch.DeviceNames+" (default: the configuration's device, auto unless it says otherwise: CUDA when libtorch sees a GPU)")
}
