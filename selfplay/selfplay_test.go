package selfplay

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/tictactoe"
	"github.com/zerokit/zerokit/env/wyb"
	"github.com/zerokit/zerokit/mcts"
)

// fakeNet is a deterministic mcts.Network: each row's outputs depend only on
// that row's observation, so batching cannot change results.
type fakeNet struct {
	obsSize, actions int
	delay            time.Duration
	calls, rows      atomic.Int64
	fail             atomic.Bool
}

func newFakeNet(g env.Game, delay time.Duration) *fakeNet {
	return &fakeNet{obsSize: g.ObservationShape().Size(), actions: g.NumActions(), delay: delay}
}

func (f *fakeNet) Forward(obs []float32, n int, logits, values []float32) error {
	if f.fail.Load() {
		return errors.New("fake network failure")
	}
	f.calls.Add(1)
	f.rows.Add(int64(n))
	if f.delay > 0 {
		time.Sleep(f.delay)
	}
	for i := range n {
		o := obs[i*f.obsSize : (i+1)*f.obsSize]
		var h float32
		for j, x := range o {
			h += x * float32(j%7+1)
		}
		for a := range f.actions {
			logits[i*f.actions+a] = float32((a*int(h+1))%5) * 0.5
		}
		values[i] = float32(math.Tanh(float64(h)/10 - 1))
	}
	return nil
}

func fixedNow() time.Time { return time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC) }

func testSearch(mode mcts.Mode) mcts.Config {
	c := mcts.DefaultConfig()
	c.Mode = mode
	c.Simulations = 16
	c.LeavesInFlight = 2
	c.Gumbel.MaxConsideredActions = 4
	return c
}

// collect is a Sink that keeps copies of the records.
type collect struct {
	mu   sync.Mutex
	recs []data.Record
}

func (c *collect) sink(_ int64, rec *data.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recs = append(c.recs, *rec)
	return nil
}

func (c *collect) sorted() []data.Record {
	out := append([]data.Record(nil), c.recs...)
	sort.Slice(out, func(i, j int) bool { return out[i].Meta.Seed < out[j].Meta.Seed })
	return out
}

func newEval(t *testing.T, g env.Game, net mcts.Network, cache int) *mcts.NetEvaluator {
	t.Helper()
	e, err := mcts.NewNetEvaluator([]mcts.Network{net}, g, mcts.NetEvaluatorConfig{Batcher: mcts.BatcherConfig{MaxBatch: 16, MaxWait: time.Millisecond}, CacheSize: cache, Pad: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestGenerateRecordsAreValid(t *testing.T) {
	game := tictactoe.New()
	cases := []struct {
		name   string
		search mcts.Config
		cap    bool
	}{
		{"puct", testSearch(mcts.ModePUCT), false},
		{"gumbel", testSearch(mcts.ModeGumbel), false},
		{"gumbel playout cap", testSearch(mcts.ModeGumbel), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			search := tc.search
			if tc.cap {
				search.PlayoutCap = mcts.PlayoutCapConfig{Enabled: true, FullProbability: 0.3, CheapSimulations: 4}
			}
			cfg := Config{ParallelGames: 6, CacheSize: 1024}
			opts := Options{Search: search, Seed: 7, FirstGame: 100, Worker: 3, Now: fixedNow}
			var c collect
			const games = 12
			st, err := Generate(context.Background(), cfg, opts, game, newEval(t, game, newFakeNet(game, 0), 1024), 42, games, c.sink)
			if err != nil {
				t.Fatal(err)
			}
			if st.Games != games || len(c.recs) != games {
				t.Fatalf("stats report %d games, sink got %d, want %d", st.Games, len(c.recs), games)
			}
			seeds := map[uint64]bool{}
			for i := range int64(games) {
				seeds[GameSeed(7, 100+i)] = true
			}
			var positions, full int64
			wins := [2]int{}
			draws := 0
			cheap := 0
			for i := range c.recs {
				rec := &c.recs[i]
				if err := rec.Validate(); err != nil {
					t.Fatalf("record %d: %v", i, err)
				}
				if _, err := data.Replay(game, rec); err != nil {
					t.Fatalf("record %d does not replay: %v", i, err)
				}
				if !seeds[rec.Meta.Seed] {
					t.Fatalf("record %d has seed %d, not one of games 100..111", i, rec.Meta.Seed)
				}
				delete(seeds, rec.Meta.Seed)
				if rec.Meta.NetworkStep != 42 || rec.Meta.Worker != 3 || !rec.Meta.Time.Equal(fixedNow()) {
					t.Fatalf("record %d meta %+v", i, rec.Meta)
				}
				positions += int64(len(rec.Actions))
				full += int64(rec.FullMoves())
				switch {
				case rec.Returns[0] > 0:
					wins[0]++
				case rec.Returns[1] > 0:
					wins[1]++
				default:
					draws++
				}
				for _, m := range rec.Moves {
					if !m.HasRootValue {
						t.Fatal("move without root value")
					}
					if !m.Full {
						cheap++
					}
				}
			}
			if positions != st.Positions || full != st.FullPositions || wins != st.Wins || draws != st.Draws {
				t.Fatalf("stats %+v disagree with records: positions %d full %d wins %v draws %d", st, positions, full, wins, draws)
			}
			if tc.cap && (cheap == 0 || full == 0) {
				t.Fatalf("playout cap: %d cheap and %d full moves, want both", cheap, full)
			}
			if !tc.cap && cheap != 0 {
				t.Fatalf("%d cheap moves without playout cap", cheap)
			}
			if st.Searches < positions || st.Simulations < st.Searches {
				t.Fatalf("searches %d simulations %d for %d positions", st.Searches, st.Simulations, positions)
			}
			if st.Eval.Positions == 0 || st.Eval.CacheHits+st.Eval.CacheMisses == 0 {
				t.Fatalf("evaluator stats not collected: %+v", st.Eval)
			}
		})
	}
}

func TestGenerateIsReproducible(t *testing.T) {
	game := tictactoe.New()
	run := func(seed uint64, parallel, cache, workers int) []data.Record {
		var c collect
		opts := Options{Search: testSearch(mcts.ModeGumbel), Seed: seed, Now: fixedNow}
		cfg := Config{ParallelGames: parallel, CacheSize: cache}
		nets := make([]mcts.Network, workers)
		for i := range nets {
			nets[i] = newFakeNet(game, 0)
		}
		e, err := mcts.NewNetEvaluator(nets, game, mcts.NetEvaluatorConfig{Batcher: mcts.BatcherConfig{MaxBatch: 16, MaxWait: time.Millisecond}, CacheSize: cache, Pad: true})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if _, err := Generate(context.Background(), cfg, opts, game, e, 0, 10, c.sink); err != nil {
			t.Fatal(err)
		}
		return c.sorted()
	}
	a := run(5, 1, 0, 1)
	for _, tc := range []struct{ parallel, cache, workers int }{{1, 0, 1}, {4, 0, 1}, {10, 512, 1}, {8, 0, 2}, {10, 512, 3}} {
		if b := run(5, tc.parallel, tc.cache, tc.workers); !reflect.DeepEqual(a, b) {
			t.Fatalf("parallel=%d cache=%d workers=%d: records differ from a sequential run with the same seed", tc.parallel, tc.cache, tc.workers)
		}
	}
	if c := run(6, 4, 0, 1); reflect.DeepEqual(a, c) {
		t.Fatal("seeds 5 and 6 produced the same games")
	}
}

// TestPauseResume checks that a run stopped by a position budget keeps its
// unfinished games and that resuming them (same network) gives exactly the
// games an uninterrupted run plays.
func TestPauseResume(t *testing.T) {
	game := tictactoe.New()
	net := newFakeNet(game, 0)
	opts := Options{Search: testSearch(mcts.ModePUCT), Seed: 11, Now: fixedNow}
	cfg := Config{ParallelGames: 5}
	g, err := NewGenerator(game, cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	var c collect
	eval := newEval(t, game, net, 0)
	total := 0
	for i := 0; i < 6; i++ {
		stop := Stop{Positions: 12}
		if i%2 == 1 {
			stop = Stop{Moves: 7}
		}
		st, err := g.Run(context.Background(), eval, 1, stop, c.sink)
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 && st.Positions < 12 {
			t.Fatalf("run %d returned after %d positions, want at least 12", i, st.Positions)
		}
		// Each of the 5 workers finishes the search it is in.
		if i%2 == 1 && (st.Searches < 7 || st.Searches >= 7+5) {
			t.Fatalf("run %d returned after %d moves, want 7 to 11", i, st.Searches)
		}
		total += st.Games
	}
	if g.InFlight() == 0 {
		t.Fatal("no game in flight after a position-limited run with 5 parallel games")
	}
	started := g.NextGame()
	if st, err := g.Run(context.Background(), eval, 1, Stop{Games: g.InFlight()}, c.sink); err != nil {
		t.Fatal(err)
	} else {
		total += st.Games
	}
	if g.InFlight() != 0 || g.NextGame() != started || int64(total) != started || len(c.recs) != total {
		t.Fatalf("after finishing: in flight %d, next %d (was %d), games %d, records %d",
			g.InFlight(), g.NextGame(), started, total, len(c.recs))
	}
	var ref collect
	if _, err := Generate(context.Background(), cfg, opts, game, newEval(t, game, net, 0), 1, int(started), ref.sink); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.sorted(), ref.sorted()) {
		t.Fatal("paused and resumed games differ from an uninterrupted run")
	}
}

func TestBatcherBatchesAcrossGames(t *testing.T) {
	game := tictactoe.New()
	net := newFakeNet(game, 300*time.Microsecond)
	e, err := mcts.NewNetEvaluator([]mcts.Network{net}, game, mcts.NetEvaluatorConfig{Batcher: mcts.BatcherConfig{MaxBatch: 32, MaxWait: 2 * time.Millisecond}, Pad: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var c collect
	opts := Options{Search: testSearch(mcts.ModePUCT), Seed: 1}
	st, err := Generate(context.Background(), Config{ParallelGames: 16}, opts, game, e, 0, 16, c.sink)
	if err != nil {
		t.Fatal(err)
	}
	if mb := st.Eval.MeanBatch(); mb < 3 {
		t.Fatalf("mean batch %.2f with 16 parallel games, want at least 3", mb)
	}
	// The network sees padded batches (mcts.PadBatches).
	if st.Eval.Positions > net.rows.Load() || st.Eval.Positions+15*st.Eval.Batches < net.rows.Load() || st.Eval.Batches != net.calls.Load() {
		t.Fatalf("eval stats %+v, network saw %d calls / %d rows", st.Eval, net.calls.Load(), net.rows.Load())
	}
	if st.ForwardShare() <= 0 || st.ForwardShare() > 1 {
		t.Fatalf("forward share %v", st.ForwardShare())
	}
}

func TestMaxMovesTruncates(t *testing.T) {
	game := tictactoe.New()
	var c collect
	opts := Options{Search: testSearch(mcts.ModePUCT), Seed: 3}
	st, err := Generate(context.Background(), Config{ParallelGames: 2, MaxMoves: 3}, opts, game, mcts.UniformEvaluator{}, 0, 4, c.sink)
	if err != nil {
		t.Fatal(err)
	}
	if st.Truncated != 4 || st.Draws != 4 {
		t.Fatalf("truncated %d draws %d, want 4 and 4", st.Truncated, st.Draws)
	}
	for _, rec := range c.recs {
		if len(rec.Actions) != 3 || rec.Returns != [2]float32{} {
			t.Fatalf("truncated record: %d actions, returns %v", len(rec.Actions), rec.Returns)
		}
		if _, err := data.Replay(game, &rec); err != nil {
			t.Fatal(err)
		}
	}
}

func TestErrorsStopTheRun(t *testing.T) {
	game := tictactoe.New()
	opts := Options{Search: testSearch(mcts.ModePUCT), Seed: 3}
	t.Run("sink", func(t *testing.T) {
		n := 0
		sink := func(int64, *data.Record) error {
			n++
			if n == 2 {
				return errors.New("disk full")
			}
			return nil
		}
		g, err := NewGenerator(game, Config{ParallelGames: 4}, opts)
		if err != nil {
			t.Fatal(err)
		}
		_, err = g.Run(context.Background(), mcts.UniformEvaluator{}, 0, Stop{Games: 20}, sink)
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Fatalf("err = %v, want the sink's error", err)
		}
		if n != 2 {
			t.Fatalf("sink called %d times after failing, want it to stop at 2", n)
		}
		// The failed game is kept: the next run hands it over first.
		var c collect
		if _, err := g.Run(context.Background(), mcts.UniformEvaluator{}, 0, Stop{Games: 1}, c.sink); err != nil {
			t.Fatal(err)
		}
		if len(c.recs) != 1 {
			t.Fatalf("%d records", len(c.recs))
		}
	})
	t.Run("network", func(t *testing.T) {
		net := newFakeNet(game, 0)
		net.fail.Store(true)
		var c collect
		_, err := Generate(context.Background(), Config{ParallelGames: 4}, opts, game, newEval(t, game, net, 0), 0, 8, c.sink)
		if err == nil || !strings.Contains(err.Error(), "fake network failure") {
			t.Fatalf("err = %v, want the network's error", err)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		net := newFakeNet(game, time.Millisecond)
		ctx, cancel := context.WithCancel(context.Background())
		var c collect
		sink := func(i int64, r *data.Record) error {
			cancel()
			return c.sink(i, r)
		}
		g, err := NewGenerator(game, Config{ParallelGames: 4}, opts)
		if err != nil {
			t.Fatal(err)
		}
		_, err = g.Run(ctx, newEval(t, game, net, 0), 0, Stop{Games: 1000}, sink)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if len(c.recs) == 0 || len(c.recs) > 4 {
			t.Fatalf("%d records after cancelling at the first", len(c.recs))
		}
	})
	t.Run("bad stop", func(t *testing.T) {
		g, err := NewGenerator(game, Config{ParallelGames: 1}, opts)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []Stop{{}, {Games: 1, Positions: 1}, {Games: -1}, {Moves: 3, Games: 1}, {Moves: -1}} {
			if _, err := g.Run(context.Background(), mcts.UniformEvaluator{}, 0, s, func(int64, *data.Record) error { return nil }); err == nil {
				t.Fatalf("stop %+v accepted", s)
			}
		}
	})
}

func TestNoGoroutineLeak(t *testing.T) {
	game := tictactoe.New()
	before := runtime.NumGoroutine()
	for i := range 3 {
		e, err := mcts.NewNetEvaluator([]mcts.Network{newFakeNet(game, 0)}, game, mcts.NetEvaluatorConfig{Batcher: mcts.DefaultBatcherConfig(), CacheSize: 64, Pad: true})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		opts := Options{Search: testSearch(mcts.ModeGumbel), Seed: uint64(i)}
		n := 0
		_, err = Generate(ctx, Config{ParallelGames: 8}, opts, game, e, 0, 20, func(int64, *data.Record) error {
			if n++; n == 5 && i == 1 {
				cancel()
			}
			return nil
		})
		if i == 1 && !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled run: %v", err)
		} else if i != 1 && err != nil {
			t.Fatal(err)
		}
		cancel()
		e.Close()
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines before, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{DefaultConfig(), ""},
		{Config{ParallelGames: 0}, "parallel_games"},
		{Config{ParallelGames: 1, MaxMoves: -1}, "max_moves"},
		{Config{ParallelGames: 1, CacheSize: -5}, "cache_size"},
		{Config{ParallelGames: 1, Workers: -1}, "workers"},
		{Config{ParallelGames: 1, Workers: 65}, "workers"},
		{Config{ParallelGames: 1, SparringAgent: "random", SparringFraction: 0.25}, ""},
		{Config{ParallelGames: 1, SparringAgent: "random", SparringFraction: 1.5}, "sparring_fraction"},
		{Config{ParallelGames: 1, SparringAgent: "random", SparringFraction: -0.1}, "sparring_fraction"},
		{Config{ParallelGames: 1, SparringAgent: "random", SparringFraction: math.NaN()}, "sparring_fraction"},
		{Config{ParallelGames: 1, SparringFraction: 0.5}, "no sparring_agent"},
		{Config{ParallelGames: 1, RandomMoves: 8, RandomProbability: 0.1}, ""},
		{Config{ParallelGames: 1, RandomMoves: -1, RandomProbability: 0.1}, "random_moves"},
		{Config{ParallelGames: 1, RandomMoves: 8, RandomProbability: 1.5}, "random_probability"},
		{Config{ParallelGames: 1, RandomMoves: 8, RandomProbability: math.NaN()}, "random_probability"},
		{Config{ParallelGames: 1, RandomMoves: 8}, "set both or neither"},
		{Config{ParallelGames: 1, MaterialWeight: 0.3, MaterialTerm: "table"}, ""},
		{Config{ParallelGames: 1, MaterialWeight: 0.3}, ""},
		{Config{ParallelGames: 1, MaterialWeight: 1}, "material_weight"},
		{Config{ParallelGames: 1, MaterialWeight: -0.1}, "material_weight"},
		{Config{ParallelGames: 1, MaterialWeight: math.NaN()}, "material_weight"},
		{Config{ParallelGames: 1, MaterialTerm: "table"}, "material_term"},
	} {
		err := tc.cfg.Validate()
		if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("Validate(%+v) = %v, want an error naming %q", tc.cfg, err, tc.want)
		}
	}
}

func TestGameSeedDistinct(t *testing.T) {
	for _, run := range []uint64{0, 1, 12345} {
		seen := map[uint64]int64{}
		for i := range int64(20000) {
			s := GameSeed(run, i)
			if j, ok := seen[s]; ok {
				t.Fatalf("run %d: games %d and %d share seed %d", run, j, i, s)
			}
			seen[s] = i
		}
	}
	if GameSeed(1, 0) == GameSeed(2, 0) {
		t.Fatal("runs 1 and 2 share game 0's seed")
	}
}

func ExampleGenerate() {
	game := tictactoe.New()
	search := mcts.DefaultConfig()
	search.Simulations = 8
	opts := Options{Search: search, Seed: 1}
	var games int
	st, err := Generate(context.Background(), DefaultConfig(), opts, game, mcts.UniformEvaluator{}, 0, 4,
		func(int64, *data.Record) error { games++; return nil })
	fmt.Println(games, st.Games, err)
	// Output: 4 4 <nil>
}

// sizeNet records the batch sizes it is asked for.
type sizeNet struct {
	*fakeNet
	sizes map[int]bool
}

func (s *sizeNet) Forward(obs []float32, n int, logits, values []float32) error {
	s.sizes[n] = true
	return s.fakeNet.Forward(obs, n, logits, values)
}

func TestPadBatches(t *testing.T) {
	game := tictactoe.New()
	size, na := game.ObservationShape().Size(), game.NumActions()
	ref := newFakeNet(game, 0)
	sn := &sizeNet{fakeNet: newFakeNet(game, 0), sizes: map[int]bool{}}
	padded := mcts.PadBatches(sn, game)
	const max = 130
	obs := make([]float32, max*size)
	for i := range obs {
		obs[i] = float32((i*7919)%13) / 13
	}
	for n := 1; n <= max; n++ {
		wantL, wantV := make([]float32, n*na), make([]float32, n)
		gotL, gotV := make([]float32, n*na), make([]float32, n)
		if err := ref.Forward(obs[:n*size], n, wantL, wantV); err != nil {
			t.Fatal(err)
		}
		if err := padded.Forward(obs[:n*size], n, gotL, gotV); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotL, wantL) || !reflect.DeepEqual(gotV, wantV) {
			t.Fatalf("batch of %d: padded outputs differ", n)
		}
	}
	if len(sn.sizes) > 4+max/16+1 {
		t.Fatalf("the network saw %d batch sizes for batches 1..%d", len(sn.sizes), max)
	}
	for n := range sn.sizes {
		if n > 8 && n%16 != 0 {
			t.Fatalf("batch size %d is not a bucket", n)
		}
	}
}

func TestSparringChoice(t *testing.T) {
	for _, fraction := range []float64{0, 0.25, 1} {
		n, partner := 0, [2]int{}
		const games = 4000
		for i := range int64(games) {
			sp, p := Sparring(GameSeed(7, i), fraction)
			if sp {
				n++
				partner[p]++
			}
			if again, q := Sparring(GameSeed(7, i), fraction); again != sp || q != p {
				t.Fatalf("game %d: the choice is not a function of the seed", i)
			}
		}
		got := float64(n) / games
		if math.Abs(got-fraction) > 0.03 {
			t.Errorf("fraction %v: %v of the games are sparring games", fraction, got)
		}
		if n > 0 && math.Abs(float64(partner[0]-partner[1])) > 0.1*float64(n) {
			t.Errorf("fraction %v: the partner played player 0 %d times and player 1 %d times", fraction, partner[0], partner[1])
		}
	}
}

// firstLegal is a sparring partner that plays the lowest legal action.
type firstLegal struct{ moves *atomic.Int64 }

func (f firstLegal) Act(_ context.Context, s env.State) (int, error) {
	f.moves.Add(1)
	return s.LegalActions(nil)[0], nil
}

func TestSparringGames(t *testing.T) {
	game := tictactoe.New()
	var moves atomic.Int64
	built := 0
	opts := Options{Search: testSearch(mcts.ModeGumbel), Seed: 3, Now: fixedNow,
		Sparring: func(uint64) (Opponent, error) { built++; return firstLegal{&moves}, nil }}
	cfg := Config{ParallelGames: 1, SparringAgent: "first-legal", SparringFraction: 0.5}
	var c collect
	const games = 40
	st, err := Generate(context.Background(), cfg, opts, game, mcts.UniformEvaluator{}, 0, games, c.sink)
	if err != nil {
		t.Fatal(err)
	}
	if st.Sparring.Games != built || built == 0 || built == games {
		t.Fatalf("%d sparring games counted, %d partners built, of %d games", st.Sparring.Games, built, games)
	}
	sp := st.Sparring
	if sp.Wins+sp.Draws+sp.Losses != sp.Games || st.Wins[0]+st.Wins[1]+st.Draws != games-sp.Games {
		t.Errorf("stats %+v do not add up", st)
	}
	if st.PartnerMoves != moves.Load() {
		t.Errorf("%d partner moves counted, %d played", st.PartnerMoves, moves.Load())
	}
	partnerMoves := int64(0)
	for _, rec := range c.recs {
		sparring, partner := Sparring(rec.Meta.Seed, cfg.SparringFraction)
		s := game.NewInitialState()
		for i, a := range rec.Actions {
			m := rec.Moves[i]
			if sparring && s.CurrentPlayer() == partner {
				partnerMoves++
				if a != s.LegalActions(nil)[0] || m.Full || m.HasRootValue || len(m.Policy) > 0 {
					t.Fatalf("game seed %d, move %d: partner move %d recorded as %+v", rec.Meta.Seed, i, a, m)
				}
			} else if !m.HasRootValue {
				t.Fatalf("game seed %d, move %d: network move without a root value", rec.Meta.Seed, i)
			}
			if err := s.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
		}
	}
	if partnerMoves != moves.Load() {
		t.Errorf("records hold %d partner moves, the partner played %d", partnerMoves, moves.Load())
	}
	if !strings.Contains(st.String(), "vs sparring partner") {
		t.Errorf("summary %q does not report the sparring games", st.String())
	}

	cfg.SparringFraction = 0.5
	if _, err := NewGenerator(game, cfg, Options{Search: testSearch(mcts.ModePUCT)}); err == nil || !strings.Contains(err.Error(), "sparring") {
		t.Errorf("a sparring fraction without Options.Sparring: error %v", err)
	}
}

// TestTableEnds: with Config.TableEnds, a Watch Your Back! game without a
// turn limit ends at its first position in the table, with the table's
// value as its result, and its record replays.
func TestTableEnds(t *testing.T) {
	game := wyb.New(wyb.Options{})
	tb := game.Tablebase()
	search := testSearch(mcts.ModeGumbel)
	search.Simulations = 4
	opts := Options{Search: search, Seed: 5, Now: fixedNow}
	var c collect
	const games = 40
	st, err := Generate(context.Background(), Config{ParallelGames: 3, TableEnds: true}, opts, game, mcts.UniformEvaluator{}, 0, games, c.sink)
	if err != nil {
		t.Fatal(err)
	}
	if st.TableEnds == 0 || st.Truncated != 0 {
		t.Fatalf("%d games ended by the table, %d truncated, of %d: want some by the table and none truncated", st.TableEnds, st.Truncated, games)
	}
	byTable := 0
	for _, rec := range c.recs {
		s := game.NewInitialState()
		for i, a := range rec.Actions {
			if _, _, ok := tb.Probe(s); ok {
				t.Fatalf("game seed %d: move %d is played from a position in the table", rec.Meta.Seed, i)
			}
			if err := s.ApplyAction(a); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := data.Replay(game, &rec); err != nil {
			t.Fatal(err)
		}
		if s.IsTerminal() {
			continue
		}
		v, _, ok := tb.Probe(s)
		if !ok {
			t.Fatalf("game seed %d ended after %d actions in neither a final position nor the table", rec.Meta.Seed, len(rec.Actions))
		}
		byTable++
		p := s.CurrentPlayer()
		if rec.Returns[p] != v || rec.Returns[1-p] != -v {
			t.Errorf("game seed %d: returns %v, the table gives %v to player %d", rec.Meta.Seed, rec.Returns, v, p)
		}
	}
	if byTable != st.TableEnds {
		t.Errorf("%d records end in the table, stats count %d", byTable, st.TableEnds)
	}

	limited := wyb.New(wyb.Options{TurnLimit: 256})
	if _, err := NewGenerator(limited, Config{ParallelGames: 1, TableEnds: true}, opts); err == nil || !strings.Contains(err.Error(), "table") {
		t.Errorf("table_ends with a turn limit: error %v, want one naming the table", err)
	}
	if _, err := NewGenerator(tictactoe.New(), Config{ParallelGames: 1, TableEnds: true}, opts); err == nil {
		t.Error("table_ends for a game without a table: no error")
	}
}

func TestRandomActionChoice(t *testing.T) {
	const games, moves, legal = 20000, 4, 7
	for _, p := range []float64{0, 0.1, 1} {
		random, counts := 0, [legal]int{}
		for i := range int64(games) {
			seed := GameSeed(3, i)
			for m := range moves + 2 {
				a, ok := RandomAction(seed, m, moves, p, legal)
				if b, again := RandomAction(seed, m, moves, p, legal); a != b || ok != again {
					t.Fatalf("game %d move %d: the choice is not a function of its arguments", i, m)
				}
				if !ok {
					continue
				}
				if m >= moves {
					t.Fatalf("p %v: move %d of game %d is random, past the first %d", p, m, i, moves)
				}
				if a < 0 || a >= legal {
					t.Fatalf("p %v: index %d of %d legal actions", p, a, legal)
				}
				random++
				counts[a]++
			}
		}
		if got := float64(random) / (games * moves); math.Abs(got-p) > 0.01 {
			t.Errorf("p %v: %v of the opening moves are random", p, got)
		}
		for a, n := range counts {
			if want := float64(random) / legal; math.Abs(float64(n)-want) > 5*math.Sqrt(want) {
				t.Errorf("p %v: action %d drawn %d times of %d, want about %.0f", p, a, n, random, want)
			}
		}
	}
	if _, ok := RandomAction(1, 0, 4, 1, 0); ok {
		t.Error("a random action with no legal action")
	}
}

func TestRandomOpeningMoves(t *testing.T) {
	game := tictactoe.New()
	const games, moves = 12, 3
	run := func(cfg Config, parallel int) ([]data.Record, Stats) {
		var c collect
		cfg.ParallelGames, cfg.CacheSize = parallel, 1024
		opts := Options{Search: testSearch(mcts.ModeGumbel), Seed: 11, Now: fixedNow}
		st, err := Generate(context.Background(), cfg, opts, game, newEval(t, game, newFakeNet(game, 0), 1024), 0, games, c.sink)
		if err != nil {
			t.Fatal(err)
		}
		return c.sorted(), st
	}
	plain, plainStats := run(Config{}, 4)
	recs, st := run(Config{RandomMoves: moves, RandomProbability: 1}, 4)
	if plainStats.RandomMoves != 0 {
		t.Fatalf("%d random moves without random_moves", plainStats.RandomMoves)
	}
	if st.RandomMoves != games*moves {
		t.Fatalf("%d random moves, want %d (the first %d of each of %d games)", st.RandomMoves, games*moves, moves, games)
	}
	differ := 0
	for i := range recs {
		rec := &recs[i]
		if err := rec.Validate(); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if _, err := data.Replay(game, rec); err != nil {
			t.Fatalf("record %d does not replay: %v", i, err)
		}
		s := game.NewInitialState()
		for m := range moves {
			legal := s.LegalActions(nil)
			k, ok := RandomAction(rec.Meta.Seed, m, moves, 1, len(legal))
			if !ok || rec.Actions[m] != legal[k] {
				t.Fatalf("game %d move %d: played %d, want the random action %d", i, m, rec.Actions[m], legal[k])
			}
			mv := rec.Moves[m]
			if !mv.HasRootValue || !mv.Full || len(mv.Policy) == 0 {
				t.Fatalf("game %d move %d: the search's targets were not kept: %+v", i, m, mv)
			}
			if err := s.ApplyAction(rec.Actions[m]); err != nil {
				t.Fatal(err)
			}
		}
		if !reflect.DeepEqual(rec.Actions, plain[i].Actions) {
			differ++
		}
	}
	if differ == 0 {
		t.Fatal("random opening moves changed no game")
	}
	if again, _ := run(Config{RandomMoves: moves, RandomProbability: 1}, 1); !reflect.DeepEqual(recs, again) {
		t.Fatal("random opening moves depend on the number of parallel games")
	}
}
