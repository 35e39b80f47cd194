package train

import (
	"context"
	"fmt"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/selfplay"
	"github.com/zerokit/zerokit/selfplay/gamestore"
)

// gameSource is where a trainer's new games come from, the one thing in
// which a trainer that plays its own games (selfPlayGames, train.self_play
// local) differs from one that reads the games workers upload to the run's
// store (storeGames, train.self_play store). Where the run's files live is
// the other seam, runstore.Run; the training loop calls both the same way
// for every run.
type gameSource interface {
	// load reads the games the run has so far into the trainer's buffer,
	// as far as the resumed state counts them, and names where they are.
	load(ctx context.Context) (ls data.LoadStats, where string, err error)
	// gather brings an iteration's new games into the buffer. The
	// ingestion statistics are nil for self-play.
	gather(ctx context.Context) (selfplay.Stats, *ingestStats, error)
	// underWay reports whether the next iteration's games are being
	// played already (started by ahead).
	underWay() bool
	// ahead starts the next iteration's games beside the training phase
	// when the source plays them ahead (train.overlap), calling stage
	// first to put the recipe's stage in force for them; other sources
	// do nothing.
	ahead(ctx context.Context, stage func() error) error
	// restart describes the training phase of a resumed trainer on the
	// positions it had not trained on before it stopped (nil for
	// self-play).
	restart() *ingestStats
	// limit bounds the training steps of one phase, given those owed.
	limit(owed int64) int64
	// setSparring puts a stage's sparring partner in force for the games
	// started from now on.
	setSparring(name string, fraction float64, partners func(seed uint64) (selfplay.Opponent, error)) error
	// mark records in the state of a checkpoint how far the games go.
	mark(st *State)
	// finish ends the games when the run stops (those finished are kept).
	finish() error
	// close stops games still under way (after an error).
	close()
}

// selfPlayGames is the game source of a trainer that plays its own games,
// stored durably in the run's games/ as they finish.
type selfPlayGames struct {
	t     *trainer
	store *gamestore.Store
	gen   *selfplay.Generator
	// running is the self-play phase under way beside training
	// (train.overlap), if any.
	running *overlapSelfPlay
}

// openSelfPlayGames opens the run's game store, recovering the games a
// crash left pending.
func openSelfPlayGames(t *trainer) (*selfPlayGames, error) {
	store, rec, err := gamestore.Open(t.run.Layout().Games())
	if err != nil {
		return nil, err
	}
	if rec.Pending > 0 || rec.TempRemoved > 0 {
		t.log.Info("recovered game store", "pending", rec.Pending, "duplicates", rec.Duplicates,
			"compacted", rec.Compacted, "temp_removed", rec.TempRemoved)
	}
	return &selfPlayGames{t: t, store: store}, nil
}

// load reads the stored games into the buffer and creates the generator,
// which numbers its games after them.
func (g *selfPlayGames) load(ctx context.Context) (data.LoadStats, string, error) {
	t := g.t
	ls, err := t.buffer.LoadFrom(ctx, data.DirSource(g.store.Dir()))
	if err != nil {
		return ls, g.store.Dir(), err
	}
	cfg := t.cfg
	nextGame := max(g.store.NextGame(), t.state.NextGame)
	t.state.NextGame = nextGame
	g.gen, err = t.setup.Generator(selfplay.Options{
		Seed: cfg.Seed, FirstGame: nextGame,
		OnMove: func(moves int64) {
			// Advance the bar to moves (capped at its end).
			if b := t.bar.Load(); b != nil {
				if prev := t.moves.Load(); moves > prev && prev < cfg.Train.PositionsPerIteration {
					(*b).Add(min(moves, cfg.Train.PositionsPerIteration) - prev)
					t.moves.Store(moves)
				}
			}
		},
	})
	return ls, g.store.Dir(), err
}

func (g *selfPlayGames) gather(ctx context.Context) (selfplay.Stats, *ingestStats, error) {
	if !g.t.cfg.Train.Overlap {
		st, err := g.phase(ctx)
		return st, nil, err
	}
	if g.running == nil {
		if err := g.start(ctx); err != nil {
			return selfplay.Stats{}, nil, err
		}
	}
	st, err := g.collect()
	return st, nil, err
}

func (g *selfPlayGames) underWay() bool { return g.running != nil }

func (g *selfPlayGames) ahead(ctx context.Context, stage func() error) error {
	if !g.t.cfg.Train.Overlap {
		return nil
	}
	if err := stage(); err != nil {
		return err
	}
	return g.start(ctx)
}

func (g *selfPlayGames) restart() *ingestStats  { return nil }
func (g *selfPlayGames) limit(owed int64) int64 { return owed }

func (g *selfPlayGames) setSparring(name string, fraction float64, partners func(seed uint64) (selfplay.Opponent, error)) error {
	return g.gen.SetSparring(name, fraction, partners)
}

func (g *selfPlayGames) mark(st *State) {
	if g.running == nil {
		// (A self-play phase running beside training owns the generator;
		// its games are counted when it ends. A resumed run starts after
		// the games on disk either way.)
		st.NextGame = max(st.NextGame, g.gen.NextGame())
	}
}

// finish takes in the games of the self-play phase beside the last
// training phase (the rest are dropped, as at any stop) and compacts the
// game store.
func (g *selfPlayGames) finish() error {
	if g.running != nil {
		g.running.cancel()
		if _, err := g.collect(); err != nil {
			return err
		}
	}
	_, _, err := g.store.Compact(g.gen.NextGame())
	return err
}

func (g *selfPlayGames) close() {
	if o := g.running; o != nil {
		o.cancel()
		<-o.done
		g.running = nil
	}
}

// phase plays until PositionsPerIteration new positions are on disk (or
// the run is stopped, keeping every finished game).
func (g *selfPlayGames) phase(ctx context.Context) (selfplay.Stats, error) {
	t := g.t
	eval, closeEval, err := t.setup.Evaluator(t.net)
	if err != nil {
		return selfplay.Stats{}, err
	}
	defer closeEval()
	spCtx, cancel := t.limited(ctx)
	defer cancel()
	target := t.cfg.Train.PositionsPerIteration
	bar := t.phase(t.phaseLabel(fmt.Sprintf("self-play %d", t.state.Iteration+1)), target, "pos")
	defer bar.Finish()
	t.moves.Store(0)
	t.bar.Store(&bar)
	defer t.bar.Store(nil)
	games := 0
	each := func(index int64, rec *data.Record) error {
		if err := t.buffer.Add(rec); err != nil {
			return fmt.Errorf("train: game %d: %w", index, err)
		}
		games++
		bar.Describe(t.phaseLabel(fmt.Sprintf("self-play %d: %d games", t.state.Iteration+1, games)))
		return nil
	}
	st, stored, err := g.gen.RunStored(spCtx, eval, t.state.Step, selfplay.Stop{Moves: target}, g.store, each)
	t.games += st.Games
	if err != nil {
		return st, err
	}
	t.state.NextGame = g.gen.NextGame()
	if !stored.Interrupted {
		t.state.Iteration++
		t.iterations++
	}
	return st, nil
}

// overlapSelfPlay is a self-play phase running beside a training phase
// (train.overlap).
type overlapSelfPlay struct {
	done   chan struct{} // closed when the fields below are set
	cancel context.CancelFunc
	st     selfplay.Stats
	stored selfplay.Stored
	games  []storedGame // the finished games, for the replay buffer
	err    error
}

// storedGame is a finished game with its global index.
type storedGame struct {
	index int64
	rec   *data.Record
}

// start starts the next self-play phase in the background, with a copy of
// the current network, so that training can change the network meanwhile.
// Its games are stored as they finish, and enter the replay buffer when
// collect takes them.
func (g *selfPlayGames) start(ctx context.Context) error {
	t := g.t
	snap, err := t.net.Clone()
	if err != nil {
		return fmt.Errorf("train: self-play network: %w", err)
	}
	eval, closeEval, err := t.setup.Evaluator(snap)
	if err != nil {
		snap.Close()
		return err
	}
	spCtx, cancel := t.limited(ctx)
	o := &overlapSelfPlay{done: make(chan struct{}), cancel: cancel}
	step, target := t.state.Step, t.cfg.Train.PositionsPerIteration
	g.running = o
	go func() {
		defer close(o.done)
		defer snap.Close()
		defer closeEval()
		o.st, o.stored, o.err = g.gen.RunStored(spCtx, eval, step, selfplay.Stop{Moves: target}, g.store, func(index int64, rec *data.Record) error {
			o.games = append(o.games, storedGame{index, rec})
			return nil
		})
	}()
	return nil
}

// collect waits for the background self-play phase and takes in its
// games, as phase does at the end of a phase in turn.
func (g *selfPlayGames) collect() (selfplay.Stats, error) {
	t, o := g.t, g.running
	<-o.done
	o.cancel()
	g.running = nil
	t.games += o.st.Games
	for _, sg := range o.games {
		if err := t.buffer.Add(sg.rec); err != nil {
			return o.st, fmt.Errorf("train: game %d: %w", sg.index, err)
		}
	}
	if o.err != nil {
		return o.st, o.err
	}
	t.state.NextGame = g.gen.NextGame()
	if !o.stored.Interrupted {
		t.state.Iteration++
		t.iterations++
	}
	return o.st, nil
}
