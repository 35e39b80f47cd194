//go:build !nonet

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/zerokit/zerokit/train"
)

const workerUsage = `usage: zerokit worker -store URL [-seed N] [-shard-games N] [-shard-time D] [-poll D] [-max-minutes N] [-store-retry D]

A self-play worker of a run in an object store ("zerokit train -store URL";
URLs as there, credentials from the standard environment). It reads the
run's configuration and newest network from the store, plays games with the
batched search, and uploads them as shards (each object whole or not at
all), each game tagged with the network that played it; it switches to a
newly published network as soon as it sees it. Start as many as you have
machines; they hold no state.

Ctrl-C (SIGINT) or SIGTERM uploads the finished games and exits 0. A worker
killed outright loses only its finished games not yet uploaded: at most
-shard-games games or -shard-time of play.

flags:
`

// killMidShardEnv names the environment variable of crash tests: a number
// of bytes after which the worker kills itself in the middle of its first
// upload (see train.WorkerOptions.KillAfterBytes).
const killMidShardEnv = "ZEROKIT_TEST_KILL_MID_SHARD"

// runWorker implements "zerokit worker".
func runWorker(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("worker", workerUsage, stderr)
	store := fs.String("store", "", "the run's store `URL`")
	seed := fs.Uint64("seed", 0, "`seed` of the worker's games, also its name in the store (0: random)")
	shardGames := fs.Int("shard-games", 16, "upload a shard every this many finished `games`")
	shardTime := fs.Duration("shard-time", 2*time.Minute, "... or once its oldest game is this `old`")
	poll := fs.Duration("poll", 10*time.Second, "check for a new network this `often`")
	maxMinutes := fs.Float64("max-minutes", 0, "stop after this many `minutes` (0: no limit)")
	device := deviceFlag(fs)
	storeRetry := fs.Duration("store-retry", train.DefaultStoreRetry, "retry reading the run's configuration and networks for this `long` while the store fails")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *store == "" {
		fs.Usage()
		return errors.New("-store is required")
	}
	if *shardGames < 1 || *shardTime <= 0 || *poll <= 0 || *storeRetry <= 0 || *maxMinutes < 0 {
		return errors.New("-shard-games, -shard-time, -poll and -store-retry must be positive, -max-minutes not negative")
	}
	opts := train.WorkerOptions{
		Store: *store, Seed: *seed, ShardGames: *shardGames, ShardTime: *shardTime, Poll: *poll, StoreRetry: *storeRetry,
		MaxDuration: time.Duration(*maxMinutes * float64(time.Minute)), Stderr: stderr, Device: *device,
	}
	if v := os.Getenv(killMidShardEnv); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return fmt.Errorf("%s=%q: want a positive number of bytes", killMidShardEnv, v)
		}
		opts.KillAfterBytes = n
	}
	sum, err := train.Work(ctx, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "worker %s: %d games (%d positions, %.0f/s over %.0fs) in %d shards with %d networks; %s\n", sum.Name, sum.Games,
		sum.Positions, float64(sum.Positions)/sum.Elapsed.Seconds(), sum.Elapsed.Seconds(), sum.Shards, sum.Networks, sum.Stopped)
	return nil
}
