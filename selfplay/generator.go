package selfplay

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/mcts"
)

// Sink receives each finished game with its global index (see
// Options.FirstGame). Calls are serialised (one at a time), in completion
// order, which is not index order; an error stops the run and is returned
// by Run. The record is not used by the generator after Sink returns.
type Sink func(index int64, rec *data.Record) error

// Options are the per-run settings of a Generator that do not come from the
// configuration file.
type Options struct {
	// Search configures every game's search (noise, temperature, Gumbel or
	// PUCT, playout cap, tree reuse).
	Search mcts.Config
	// Seed is the run seed; game i plays with GameSeed(Seed, i).
	Seed uint64
	// FirstGame is the global index of the first game this generator
	// starts (a resumed run continues after the games already on disk).
	FirstGame int64
	// Worker identifies this generator in the records (Meta.Worker), e.g.
	// one of several self-play processes writing into one directory.
	Worker int
	// Now stamps finished games (Meta.Time); nil uses time.Now.
	Now func() time.Time
	// Sparring builds the sparring partner of a game from the game's seed
	// (see Config.SparringAgent); required when Config.SparringFraction is
	// positive.
	Sparring func(seed uint64) (Opponent, error)
	// OnMove, if set, is called after each move with the number of moves
	// played so far in the current Run (for progress display). Calls are
	// serialised; it must be quick.
	OnMove func(moves int64)
}

// Opponent is a sparring partner: any player that picks an action for the
// player to move, without modifying the state (agent.Agent is one).
type Opponent interface {
	Act(ctx context.Context, s env.State) (action int, err error)
}

// Stop says when Run returns. Exactly one field must be positive.
type Stop struct {
	// Moves makes Run return once this many moves (searches) have been
	// played during the run, in finished games or not; the games in
	// flight pause and resume at the next Run. With games carried over
	// between runs this gives phases of even length, whereas the positions
	// of the games that happen to finish vary from run to run.
	Moves int64
	// Games makes Run finish this many games (resuming paused games first,
	// then starting new ones) and start no others.
	Games int
	// Positions makes Run return once the games finished during the run
	// hold at least this many positions. New games keep starting until
	// then; the games still in flight pause at their next move boundary
	// and resume at the next Run.
	Positions int64
}

// Generator plays self-play games. Its unfinished games persist between
// calls to Run. It is not safe for concurrent use (one Run at a time).
type Generator struct {
	game     env.Game
	cfg      Config
	opts     Options
	maxMoves int
	fwd      *forwarder
	// table ends games (Config.TableEnds); nil when it does not.
	table env.Tablebase

	next    int64
	paused  []*gameSlot
	step    int64
	stepSet bool
	running atomic.Bool
}

// gameSlot is one game in progress.
type gameSlot struct {
	index  int64
	seed   uint64
	state  env.State
	search *mcts.Search
	rec    data.Record
	// partner plays player partnerPlayer in a sparring game; nil in
	// self-play.
	partner       Opponent
	partnerPlayer int
	// legal is scratch space for the legal actions (Config.RandomMoves).
	legal []int
}

// NewGenerator returns a generator of games of game.
func NewGenerator(game env.Game, cfg Config, opts Options) (*Generator, error) {
	if game == nil {
		return nil, errors.New("selfplay: nil game")
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := opts.Search.Validate(); err != nil {
		return nil, fmt.Errorf("selfplay: %w", err)
	}
	if opts.FirstGame < 0 {
		return nil, fmt.Errorf("selfplay: first game index %d is negative", opts.FirstGame)
	}
	if opts.Worker < 0 {
		return nil, fmt.Errorf("selfplay: worker id %d is negative", opts.Worker)
	}
	if cfg.SparringFraction > 0 && opts.Sparring == nil {
		return nil, fmt.Errorf("selfplay: sparring_fraction %v with no way to build the sparring partner %q", cfg.SparringFraction, cfg.SparringAgent)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	maxMoves := cfg.MaxMoves
	if maxMoves == 0 {
		maxMoves = game.MaxGameLength()
	}
	var table env.Tablebase
	if cfg.TableEnds {
		var err error
		if table, err = EndTable(game); err != nil {
			return nil, err
		}
	}
	return &Generator{
		game:     game,
		cfg:      cfg,
		opts:     opts,
		maxMoves: maxMoves,
		fwd:      &forwarder{},
		table:    table,
		next:     opts.FirstGame,
	}, nil
}

// EndTable returns the table that ends game's games (Config.TableEnds), or
// an error when game, with its options, has none.
func EndTable(game env.Game) (env.Tablebase, error) {
	if tg, ok := game.(env.TablebaseGame); ok {
		if tb := tg.Tablebase(); tb != nil {
			return tb, nil
		}
	}
	return nil, fmt.Errorf("selfplay: table_ends: %s has no table with these options (Watch Your Back! has one without a turn limit)", game.Name())
}

// SetSparring changes the sparring partner (agent, its share fraction of
// the games, and build, its builder; see Config.SparringAgent) for the
// games started from now on; games in flight keep the opponent they have.
// A training recipe's stage changes it during a run. Not to be called
// while Run runs.
func (g *Generator) SetSparring(agent string, fraction float64, build func(seed uint64) (Opponent, error)) error {
	c := g.cfg
	c.SparringAgent, c.SparringFraction = agent, fraction
	if err := c.Validate(); err != nil {
		return err
	}
	if fraction > 0 && build == nil {
		return fmt.Errorf("selfplay: sparring_fraction %v with no way to build the sparring partner %q", fraction, agent)
	}
	g.cfg, g.opts.Sparring = c, build
	return nil
}

// NextGame is the index the next new game will get.
func (g *Generator) NextGame() int64 { return g.next }

// InFlight is the number of paused unfinished games.
func (g *Generator) InFlight() int { return len(g.paused) }

// Run plays games with eval, played by the network of training step
// networkStep (recorded in Meta.NetworkStep), until stop is met, handing each
// finished game to sink. Paused games resume first; when the network step
// differs from the previous Run's, their search trees are discarded, since
// they hold the old network's evaluations.
//
// A cancelled ctx, an evaluator error or a sink error ends the run with that
// error; the games in flight are kept (at their last completed move) for a
// later Run. The returned Stats cover the work done either way.
func (g *Generator) Run(ctx context.Context, eval mcts.Evaluator, networkStep int64, stop Stop, sink Sink) (Stats, error) {
	if eval == nil || sink == nil {
		return Stats{}, errors.New("selfplay: run: nil evaluator or sink")
	}
	set := 0
	for _, v := range []int64{stop.Moves, int64(stop.Games), stop.Positions} {
		if v < 0 {
			return Stats{}, fmt.Errorf("selfplay: run: stop %+v: negative limit", stop)
		}
		if v > 0 {
			set++
		}
	}
	if set != 1 {
		return Stats{}, fmt.Errorf("selfplay: run: stop %+v: set exactly one of Moves, Games and Positions", stop)
	}
	if !g.running.CompareAndSwap(false, true) {
		return Stats{}, errors.New("selfplay: run: another Run is in progress")
	}
	defer g.running.Store(false)

	if g.stepSet && g.step != networkStep {
		for _, gs := range g.paused {
			gs.search.Reset()
		}
	}
	g.step, g.stepSet = networkStep, true
	g.fwd.set(eval)
	defer g.fwd.set(nil)

	se, hasStats := eval.(StatsEvaluator)
	var evalBefore mcts.EvalStats
	if hasStats {
		evalBefore = se.EvalStats()
	}
	start := time.Now()

	r := &run{g: g, stop: stop, sink: sink}
	r.ctx, r.cancel = context.WithCancel(ctx)
	defer r.cancel()
	var wg sync.WaitGroup
	for range g.cfg.ParallelGames {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.work(networkStep)
		}()
	}
	wg.Wait()

	// Keep paused games in index order so that resumption is deterministic.
	sort.Slice(g.paused, func(i, j int) bool { return g.paused[i].index < g.paused[j].index })
	st := r.stats
	st.Elapsed = time.Since(start)
	if hasStats {
		st.Eval = se.EvalStats().Sub(evalBefore)
	}
	if r.err != nil {
		if ctx.Err() != nil {
			return st, fmt.Errorf("selfplay: %w", ctx.Err())
		}
		return st, r.err
	}
	return st, nil
}

// run is the shared state of one Run's workers.
type run struct {
	g      *Generator
	stop   Stop
	sink   Sink
	ctx    context.Context
	cancel context.CancelFunc

	stopping atomic.Bool

	mu    sync.Mutex // guards everything below and the generator's queue
	taken int
	stats Stats
	err   error
}

// take returns the next game to play, or nil when the run must end.
func (r *run) take() *gameSlot {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopping.Load() || r.err != nil {
		return nil
	}
	if r.stop.Games > 0 && r.taken >= r.stop.Games {
		return nil
	}
	r.taken++
	g := r.g
	if len(g.paused) > 0 {
		gs := g.paused[0]
		g.paused = g.paused[1:]
		return gs
	}
	idx := g.next
	g.next++
	seed := GameSeed(g.opts.Seed, idx)
	// Validated by NewGenerator, so NewSearch cannot fail here.
	search, err := mcts.NewSearch(g.opts.Search, g.fwd, seed)
	if err != nil {
		r.fail(err)
		return nil
	}
	if g.table != nil {
		search.SetTablebase(g.table)
	}
	gs := &gameSlot{
		index:  idx,
		seed:   seed,
		state:  g.game.NewInitialState(),
		search: search,
		rec: data.Record{
			Game:            g.game.Name(),
			EncodingVersion: g.game.EncodingVersion(),
		},
	}
	if sparring, partner := Sparring(seed, g.cfg.SparringFraction); sparring {
		if gs.partner, err = g.opts.Sparring(seed); err != nil {
			r.fail(fmt.Errorf("selfplay: game %d: sparring partner: %w", idx, err))
			return nil
		}
		gs.partnerPlayer = partner
	}
	return gs
}

// park puts an unfinished game back in the generator's queue.
func (r *run) park(gs *gameSlot) {
	r.mu.Lock()
	r.g.paused = append(r.g.paused, gs)
	r.mu.Unlock()
}

// fail records the first error and stops the other workers; r.mu is held.
func (r *run) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.stopping.Store(true)
	r.cancel()
}

func (r *run) work(networkStep int64) {
	for {
		gs := r.take()
		if gs == nil {
			return
		}
		for {
			if r.over(gs) {
				// A game kept finished by a failed run.
				r.finish(gs, networkStep)
				break
			}
			if r.stopping.Load() {
				r.park(gs)
				return
			}
			done, err := r.move(gs)
			if err != nil {
				r.park(gs)
				r.mu.Lock()
				r.fail(fmt.Errorf("selfplay: game %d, move %d: %w", gs.index, len(gs.rec.Actions), err))
				r.mu.Unlock()
				return
			}
			if done {
				r.finish(gs, networkStep)
				break
			}
		}
	}
}

// move searches the game's position and plays the chosen action. It
// reports whether the game is over (or reached the move limit).
func (r *run) move(gs *gameSlot) (bool, error) {
	if gs.partner != nil && gs.state.CurrentPlayer() == gs.partnerPlayer {
		return r.partnerMove(gs)
	}
	res, err := gs.search.Run(r.ctx, gs.state)
	if err != nil {
		return false, err
	}
	mv := data.Move{Full: res.Full, HasRootValue: true, RootValue: clamp1(res.Value)}
	if res.Full {
		mv.Policy = make([]data.ActionProb, 0, len(res.Actions))
		for i, a := range res.Actions {
			if p := res.Policy[i]; p > 0 {
				mv.Policy = append(mv.Policy, data.ActionProb{Action: int32(a), Prob: p})
			}
		}
	}
	action := res.Action
	random := false
	if gs.state.MoveNumber() < r.g.cfg.RandomMoves {
		gs.legal = gs.state.LegalActions(gs.legal)
		var i int
		if i, random = RandomAction(gs.seed, gs.state.MoveNumber(), r.g.cfg.RandomMoves, r.g.cfg.RandomProbability, len(gs.legal)); random {
			action = gs.legal[i]
		}
	}
	if err := gs.play(action, mv); err != nil {
		if random {
			return false, fmt.Errorf("random opening action %d: %w", action, err)
		}
		return false, fmt.Errorf("search chose an illegal action: %w", err)
	}

	r.mu.Lock()
	r.stats.Searches++
	if random {
		r.stats.RandomMoves++
	}
	r.stats.Simulations += int64(res.Simulations)
	if res.Fallback {
		r.stats.Fallbacks++
	}
	if r.stop.Moves > 0 && r.stats.Searches >= r.stop.Moves {
		r.stopping.Store(true)
	}
	if r.g.opts.OnMove != nil {
		r.g.opts.OnMove(r.stats.Searches)
	}
	r.mu.Unlock()

	return r.over(gs), nil
}

// partnerMove plays the sparring partner's move, recorded with neither a
// policy target nor a root value. The search keeps the subtree of the
// partner's move, if it has one.
func (r *run) partnerMove(gs *gameSlot) (bool, error) {
	a, err := gs.partner.Act(r.ctx, gs.state)
	if err != nil {
		return false, fmt.Errorf("sparring partner: %w", err)
	}
	if err := gs.play(a, data.Move{}); err != nil {
		return false, fmt.Errorf("sparring partner chose an illegal action: %w", err)
	}
	r.mu.Lock()
	r.stats.PartnerMoves++
	r.mu.Unlock()
	return r.over(gs), nil
}

// play applies action a, records it with mv and moves the search's tree
// to the position reached.
func (gs *gameSlot) play(a int, mv data.Move) error {
	if err := gs.state.ApplyAction(a); err != nil {
		return err
	}
	gs.rec.Actions = append(gs.rec.Actions, a)
	gs.rec.Moves = append(gs.rec.Moves, mv)
	gs.search.Advance(a)
	return nil
}

// over reports whether the game has ended, reached the table (when it
// ends games) or reached the move limit.
func (r *run) over(gs *gameSlot) bool {
	if gs.state.IsTerminal() {
		return true
	}
	if _, ok := r.g.tableResult(gs.state); ok {
		return true
	}
	return r.g.maxMoves > 0 && len(gs.rec.Actions) >= r.g.maxMoves
}

// tableResult returns the returns of both players at s by the table, when
// the generator ends games there and s is in it.
func (g *Generator) tableResult(s env.State) ([2]float32, bool) {
	if g.table == nil {
		return [2]float32{}, false
	}
	v, _, ok := g.table.Probe(s)
	if !ok {
		return [2]float32{}, false
	}
	var ret [2]float32
	p := s.CurrentPlayer()
	ret[p], ret[1-p] = v, -v
	return ret, true
}

// finish hands a finished game to the sink and counts it.
func (r *run) finish(gs *gameSlot, networkStep int64) {
	rec := &gs.rec
	end := endRules
	switch ret, inTable := r.g.tableResult(gs.state); {
	case gs.state.IsTerminal():
		rec.Returns = gs.state.Returns()
	case inTable:
		rec.Returns, end = ret, endTable
	default:
		end = endTruncated
	}
	rec.Meta = data.Meta{
		NetworkStep: networkStep,
		Seed:        gs.seed,
		Worker:      r.g.opts.Worker,
		Time:        r.g.opts.Now().UTC(),
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		// Another worker failed: keep the game for a later run rather than
		// handing it to a sink that may be broken. It is complete, so the
		// next Run finishes it at once.
		r.g.paused = append(r.g.paused, gs)
		return
	}
	if err := r.sink(gs.index, rec); err != nil {
		r.g.paused = append(r.g.paused, gs)
		r.fail(fmt.Errorf("selfplay: game %d: sink: %w", gs.index, err))
		return
	}
	partner := -1
	if gs.partner != nil {
		partner = gs.partnerPlayer
	}
	r.stats.add(rec, end, partner)
	if r.stop.Positions > 0 && r.stats.Positions >= r.stop.Positions {
		r.stopping.Store(true)
	}
}

func clamp1(v float32) float32 {
	return min(max(v, -1), 1)
}

// forwarder is the evaluator every search holds; it forwards to the
// evaluator of the current Run, so that paused games continue with a new
// network.
type forwarder struct {
	cur atomic.Pointer[evalBox]
}

type evalBox struct{ e mcts.Evaluator }

func (f *forwarder) set(e mcts.Evaluator) {
	if e == nil {
		f.cur.Store(nil)
		return
	}
	f.cur.Store(&evalBox{e})
}

// Evaluate implements mcts.Evaluator with the current Run's evaluator.
func (f *forwarder) Evaluate(ctx context.Context, s env.State, legal []int, priors []float32) (float32, error) {
	b := f.cur.Load()
	if b == nil {
		return 0, errors.New("selfplay: evaluation outside Run")
	}
	return b.e.Evaluate(ctx, s, legal, priors)
}

// Generate plays exactly games games (indices opts.FirstGame onwards) with
// eval and hands each record to sink. With a deterministic evaluator the
// records (apart from Meta.Time) depend only on opts and games, not on
// cfg.ParallelGames or scheduling.
func Generate(ctx context.Context, cfg Config, opts Options, game env.Game, eval mcts.Evaluator, networkStep int64, games int, sink Sink) (Stats, error) {
	g, err := NewGenerator(game, cfg, opts)
	if err != nil {
		return Stats{}, err
	}
	return g.Run(ctx, eval, networkStep, Stop{Games: games}, sink)
}
