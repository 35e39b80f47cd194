package train

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"syscall"
	"time"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/model/torch"
	"github.com/zerokit/zerokit/runstore"
	"github.com/zerokit/zerokit/selfplay"
)

// WorkerOptions configures Work.
type WorkerOptions struct {
	// Store is the run's store URL (see package runstore).
	Store string
	// Seed seeds the worker's games (game i plays with
	// selfplay.GameSeed(Seed, i)) and names the worker in its shards' keys
	// (Seed in hexadecimal). 0 draws a random seed, which the log shows.
	Seed uint64
	// ShardGames and ShardTime make the worker upload a shard once it
	// holds that many finished games, or once its oldest game is that old
	// (checked when a game finishes). They bound what killing the worker
	// can lose: the finished games not yet uploaded. Defaults 16 and 2m.
	ShardGames int
	ShardTime  time.Duration
	// Poll is how often the worker checks for a newly published network
	// (and, before the trainer has published one, for the run). Default
	// 10s.
	Poll time.Duration
	// MaxDuration stops the worker after this much wall time (0: none).
	MaxDuration time.Duration
	// Stderr receives the worker's log lines; nil discards them.
	Stderr io.Writer
	// Device, when not empty, is where the worker's network runs (auto,
	// cpu, cuda, cuda:N) instead of the run configuration's device.
	Device string
	// StoreRetry is how long the worker retries reading the run's
	// configuration and networks, and its last upload when it stops, while
	// the store fails with transient errors (unreachable, server errors);
	// its other uploads keep their games for the next try. 0 means
	// DefaultStoreRetry.
	StoreRetry time.Duration
	// KillAfterBytes is for crash tests: when positive, the worker kills
	// its own process with SIGKILL once that many bytes of shards in all
	// have gone to the store, in the middle of the upload that crosses
	// the mark.
	KillAfterBytes int64
}

// WorkerSummary says what Work did.
type WorkerSummary struct {
	// Name is the worker's name in its shard keys, Seed its seed.
	Name string
	Seed uint64
	// Games and Shards count what it uploaded, Positions the moves of
	// those games; Networks the networks it played with; Elapsed is how
	// long it ran.
	Games, Shards, Networks int
	Positions               int64
	Elapsed                 time.Duration
	// Stopped says why it stopped.
	Stopped string
}

// Work is a self-play worker of a distributed run: it reads the run's
// configuration and newest published network from the store, plays games
// with the batched search as a training run's self-play does (the recipe's
// stage at the network's step says whether some games are against a
// sparring partner), and uploads the finished games as shards, each game
// tagged with the network step that played it. It switches to a newly
// published network at the next move boundary (games in flight continue
// with it). It runs until ctx is cancelled or MaxDuration has passed, then
// uploads its finished games and returns nil. Workers hold no state: a
// worker killed at any moment loses only the games it had not uploaded.
func Work(ctx context.Context, opts WorkerOptions) (sum WorkerSummary, err error) {
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	if opts.ShardGames == 0 {
		opts.ShardGames = 16
	}
	if opts.ShardTime == 0 {
		opts.ShardTime = 2 * time.Minute
	}
	if opts.Poll == 0 {
		opts.Poll = 10 * time.Second
	}
	if opts.StoreRetry == 0 {
		opts.StoreRetry = DefaultStoreRetry
	}
	if opts.ShardGames < 1 || opts.ShardTime < 0 || opts.Poll < 10*time.Millisecond || opts.MaxDuration < 0 || opts.StoreRetry < 0 {
		return sum, fmt.Errorf("train: bad worker options: %d games per shard, shard time %v, poll %v, max duration %v, store retry %v",
			opts.ShardGames, opts.ShardTime, opts.Poll, opts.MaxDuration, opts.StoreRetry)
	}
	if opts.Seed == 0 {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return sum, fmt.Errorf("train: worker seed: %w", err)
		}
		opts.Seed = binary.LittleEndian.Uint64(b[:]) | 1
	}
	if opts.MaxDuration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = cancelAt(ctx, time.Now().Add(opts.MaxDuration))
		defer cancel()
	}
	w := &worker{opts: opts, name: fmt.Sprintf("%016x", opts.Seed),
		log: slog.New(slog.NewTextHandler(opts.Stderr, nil))}
	w.retry = &runstore.Retrier{Limit: opts.StoreRetry, Log: w.log}
	sum.Name, sum.Seed = w.name, opts.Seed
	var st *runstore.Store
	if err := w.retry.Do(ctx, "open the store", func(ctx context.Context) (err error) {
		st, err = runstore.Open(ctx, opts.Store)
		return err
	}); err != nil {
		return sum, fmt.Errorf("train: %w", err)
	}
	defer st.Close()
	w.store = st
	start := time.Now()
	err = w.run(ctx)
	sum.Games, sum.Shards, sum.Networks, sum.Positions, sum.Elapsed = w.games, w.shards, w.networks, w.positions, time.Since(start)
	sum.Stopped = "stopped"
	if errors.Is(context.Cause(ctx), errTimeLimit) {
		sum.Stopped = fmt.Sprintf("reached the time limit (%v)", opts.MaxDuration)
	}
	return sum, err
}

// worker is one invocation of Work.
type worker struct {
	opts  WorkerOptions
	name  string
	log   *slog.Logger
	store *runstore.Store
	retry *runstore.Retrier

	// setup is the run's configuration (with Device applied) and what it
	// builds.
	setup *Setup

	// The shard being filled: its games, the time of its first game, and
	// its key once an upload was tried (a retry reuses it).
	shard data.ShardBuilder
	first time.Time
	key   string
	seq   int64
	// kill counts the bytes uploaded towards KillAfterBytes.
	kill *killingReader

	games     int
	positions int64
	shards    int
	networks  int
}

func (w *worker) run(ctx context.Context) error {
	w.log.Info("worker starting", "name", w.name, "seed", w.opts.Seed, "store", w.store.URL())
	text, err := w.waitFor(ctx, "the run's configuration", func() ([]byte, error) { return w.store.Get(ctx, runstore.ConfigKey) })
	if err != nil || text == nil {
		return err
	}
	cfg, err := ParseConfig(w.store.URL()+"/"+runstore.ConfigKey, text)
	if err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if w.setup, err = NewSetup(w.withDevice(cfg)); err != nil {
		return err
	}
	var cur runstore.Network
	if _, err := w.waitFor(ctx, "the trainer's first network", func() ([]byte, error) {
		cur, err = w.store.CurrentNetwork(ctx)
		return nil, err
	}); err != nil || cur.Key == "" {
		return err
	}
	gen, err := w.setup.Generator(selfplay.Options{Seed: w.opts.Seed, Worker: int(w.opts.Seed & 0x7fffffff)})
	if err != nil {
		return err
	}
	for {
		net, err := w.load(ctx, cur)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return err
		}
		next, err := w.play(ctx, gen, net, cur.Step)
		net.Close()
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			break
		}
		cur = next
		w.reloadConfig(ctx)
	}
	// Stopping: the finished games go to the store before the worker
	// exits, retried while the store fails.
	uctx, cancel := context.WithTimeout(context.Background(), time.Minute+w.opts.StoreRetry)
	defer cancel()
	if n := w.shard.Len(); n > 0 {
		if err := w.retry.Do(uctx, "upload the last games", w.upload); err != nil {
			return fmt.Errorf("train: %d finished games could not be uploaded: %w", n, err)
		}
	}
	w.log.Info("worker stopped", "name", w.name, "games", w.games, "shards", w.shards, "networks", w.networks,
		"unfinished_games", gen.InFlight())
	return nil
}

// reloadConfig takes up the run's configuration again when a new network
// is published: a trainer resumed with adjusted settings rewrites it, and
// the recipe's stages, batching and the evaluation cache take effect with
// the next network (the search and the number of games in flight stay). A
// configuration that cannot be read, or that changes the game or the
// network, is ignored with a warning: the worker keeps the one it has.
func (w *worker) reloadConfig(ctx context.Context) {
	text, err := w.store.Get(ctx, runstore.ConfigKey)
	if err != nil {
		w.log.Warn("re-reading the run's configuration", "err", err)
		return
	}
	cfg, err := ParseConfig(w.store.URL()+"/"+runstore.ConfigKey, text)
	old := w.setup.Config
	if err == nil && (cfg.Game != old.Game || cfg.Model.WithDefaults() != old.Model.WithDefaults()) {
		err = errors.New("it changes the game or the network")
	}
	if err != nil {
		w.log.Warn("keeping the run's previous configuration", "err", err)
		return
	}
	w.setup.Config = w.withDevice(cfg)
}

// withDevice returns cfg with the device of the worker's options, if any.
func (w *worker) withDevice(cfg Config) Config {
	if w.opts.Device != "" {
		cfg.Device = w.opts.Device
	}
	return cfg
}

// waitFor calls get every poll until it stops failing with ErrNotExist;
// it returns nil, nil if ctx ends first.
func (w *worker) waitFor(ctx context.Context, what string, get func() ([]byte, error)) ([]byte, error) {
	said := false
	for {
		var b []byte
		err := w.retry.Do(ctx, "read "+what, func(context.Context) (err error) {
			b, err = get()
			return err
		})
		if err == nil {
			return b, nil
		}
		if ctx.Err() != nil {
			return nil, nil
		}
		if !errors.Is(err, runstore.ErrNotExist) {
			return nil, fmt.Errorf("train: %w", err)
		}
		if !said {
			w.log.Info("waiting for "+what, "store", w.store.URL(), "poll", w.opts.Poll)
			said = true
		}
		select {
		case <-ctx.Done():
			return nil, nil
		case <-time.After(w.opts.Poll):
		}
	}
}

// load downloads a published network, checks it and loads it.
func (w *worker) load(ctx context.Context, n runstore.Network) (*torch.Net, error) {
	var b []byte
	err := w.retry.Do(ctx, "download "+n.Key, func(ctx context.Context) (err error) {
		b, err = w.store.ReadNetwork(ctx, n)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	ck, err := w.setup.LoadFrom(n.Key, bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, fmt.Errorf("train: network %s: %w", n.Key, err)
	}
	if ck.Step != n.Step {
		ck.Net.Close()
		return nil, fmt.Errorf("train: network %s holds step %d, published as step %d", n.Key, ck.Step, n.Step)
	}
	w.networks++
	w.log.Info("playing with network", "step", n.Step, "published", n.Time, "device", torch.DeviceName(ck.Net.Device()))
	return ck.Net, nil
}

// play plays games with net (of training step step) until ctx ends or a
// newer network is published, which it returns.
func (w *worker) play(ctx context.Context, gen *selfplay.Generator, net *torch.Net, step int64) (runstore.Network, error) {
	at, stage := w.setup.At(step)
	partners, err := at.SparringPartners()
	if err != nil {
		return runstore.Network{}, err
	}
	sp := at.Config.SelfPlay
	if err := gen.SetSparring(sp.SparringAgent, sp.SparringFraction, partners); err != nil {
		return runstore.Network{}, fmt.Errorf("train: stage %s: %w", stage, err)
	}
	eval, closeEval, err := at.Evaluator(net)
	if err != nil {
		return runstore.Network{}, err
	}
	defer closeEval()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next runstore.Network
	watched := make(chan error, 1)
	go func() {
		watched <- w.watch(runCtx, step, &next, cancel)
	}()
	sink := func(index int64, rec *data.Record) error {
		if err := w.shard.Add(rec); err != nil {
			return fmt.Errorf("train: game %d: %w", index, err)
		}
		if w.shard.Len() == 1 {
			w.first = time.Now()
		}
		if w.shard.Len() >= w.opts.ShardGames || time.Since(w.first) >= w.opts.ShardTime {
			return w.flush(ctx)
		}
		return nil
	}
	// No limit: the run ends when runCtx does.
	_, runErr := gen.Run(runCtx, eval, step, selfplay.Stop{Moves: math.MaxInt64}, sink)
	cancel()
	watchErr := <-watched
	if runErr != nil && runCtx.Err() == nil {
		return runstore.Network{}, runErr
	}
	if watchErr != nil {
		return runstore.Network{}, watchErr
	}
	if next.Key != "" {
		// The games of the old network go up before those of the new one.
		if err := w.flush(ctx); err != nil && ctx.Err() == nil {
			return runstore.Network{}, err
		}
	}
	return next, nil
}

// watch polls the store until a network newer than step is published; it
// then stores it in next and calls found. Errors reading the store are
// logged and retried (the store may be briefly unreachable); a bad
// published network is an error.
func (w *worker) watch(ctx context.Context, step int64, next *runstore.Network, found func()) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(w.opts.Poll):
		}
		n, err := w.store.CurrentNetwork(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			w.log.Warn("checking for a new network", "err", err)
			continue
		}
		if n.Step != step {
			*next = n
			found()
			return nil
		}
	}
}

// flush uploads the finished games not yet in the store as one shard. A
// failed upload keeps them for the next try, under the same key; after
// 8 shards' worth of games the worker gives up with an error. An upload
// under way completes even when ctx is cancelled (the worker is stopping):
// its games would otherwise be uploaded again at the stop.
func (w *worker) flush(ctx context.Context) error {
	n := w.shard.Len()
	if n == 0 {
		return nil
	}
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), runstore.UploadTimeout)
	defer cancel()
	if err := w.upload(uctx); err != nil {
		if n >= 8*w.opts.ShardGames {
			return fmt.Errorf("train: %d finished games could not be uploaded: %w", n, err)
		}
		w.log.Warn("upload failed; keeping the games for the next try", "games", n, "key", w.key, "err", err)
	}
	return nil
}

// upload uploads the finished games as one shard, under the key of the
// previous failed try if there was one.
func (w *worker) upload(ctx context.Context) error {
	n := w.shard.Len()
	if w.key == "" {
		key, err := runstore.ShardKey(time.Now(), w.name, w.seq)
		if err != nil {
			return err
		}
		w.key = key
	}
	var r io.Reader = bytes.NewReader(w.shard.Bytes())
	if w.opts.KillAfterBytes > 0 {
		if w.kill == nil {
			w.kill = &killingReader{left: w.opts.KillAfterBytes}
		}
		w.kill.r = r
		r = w.kill
	}
	if err := w.store.PutShard(ctx, w.key, r); err != nil {
		return err
	}
	info := w.shard.Info()
	// Positions are moves, as in the worker's summary and the trainer's
	// figures; full_positions those chosen by a full search (the
	// positions training samples, see selfplay's playout cap).
	w.log.Info("uploaded", "key", w.key, "games", n, "positions", info.Moves, "full_positions", info.FullMoves)
	w.games += n
	w.positions += info.Moves
	w.shards++
	w.seq++
	w.key = ""
	w.shard.Reset()
	return nil
}

// killingReader kills the process once left bytes have been read through
// it (over successive readers r): a crash in the middle of an upload, for
// tests.
type killingReader struct {
	r    io.Reader
	left int64
}

func (k *killingReader) Read(p []byte) (int, error) {
	if k.left <= 0 {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal arrives
	}
	if int64(len(p)) > k.left {
		p = p[:k.left]
	}
	n, err := k.r.Read(p)
	k.left -= int64(n)
	return n, err
}
