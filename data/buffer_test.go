package data

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/zerokit/zerokit/env"
	"gopkg.in/yaml.v3"
)

func testBuffer(t testing.TB, g env.Game, modify func(c *BufferConfig)) *Buffer {
	t.Helper()
	cfg := DefaultBufferConfig()
	cfg.Window = WindowConfig{MinPositions: 1 << 30, MaxPositions: 1 << 30, Alpha: 0.75, Beta: 0.4}
	if modify != nil {
		modify(&cfg)
	}
	b, err := NewBuffer(g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newBatch(g env.Game, n int, mask bool) *Batch {
	na := g.NumActions()
	b := &Batch{
		Obs:    make([]float32, n*g.ObservationShape().Size()),
		Policy: make([]float32, n*na),
		Value:  make([]float32, n),
	}
	if mask {
		b.Mask = make([]float32, n*na)
	}
	return b
}

func TestBufferWindowSlides(t *testing.T) {
	g := newMNK(3, 3)
	win := WindowConfig{MinPositions: 50, MaxPositions: 200, Alpha: 0.75, Beta: 0.4}
	b := testBuffer(t, g, func(c *BufferConfig) { c.Window = win; c.SnapshotEvery = 3 })
	rng := rand.New(rand.NewPCG(21, 0))
	var sizes []int64 // sampleable positions of each game added
	var total int64
	for i := range 400 {
		rec := playRandom(t, g, rng, 0.75)
		if err := b.Add(rec); err != nil {
			t.Fatal(err)
		}
		n := int64(rec.FullMoves())
		sizes = append(sizes, n)
		total += n
		window := win.Size(total)
		// Expected: the shortest suffix of non-empty games holding at least
		// window positions (or everything).
		var games int
		var kept int64
		for j := len(sizes) - 1; j >= 0 && kept < window; j-- {
			if sizes[j] > 0 {
				games++
				kept += sizes[j]
			}
		}
		st := b.Stats()
		want := BufferStats{Games: games, Positions: kept, TotalPositions: total, TotalGames: int64(i + 1), Window: window}
		if st != want {
			t.Fatalf("after game %d: stats %+v, want %+v", i, st, want)
		}
	}
	if b.Stats().Window != 200 {
		t.Fatalf("window %d after %d positions, want the cap 200", b.Stats().Window, total)
	}
}

func TestSampleUniform(t *testing.T) {
	g := newMNK(3, 3)
	b := testBuffer(t, g, nil)
	rng := rand.New(rand.NewPCG(22, 0))
	counts := map[[2]int]int{} // (game, move) -> draws
	index := map[*storedGame]int{}
	for range 30 {
		if err := b.Add(playRandom(t, g, rng, 0.6)); err != nil {
			t.Fatal(err)
		}
	}
	for j, sg := range b.games {
		index[sg] = j
	}
	cells := 0
	for _, sg := range b.games {
		for m := range sg.full {
			if sg.full[m] {
				counts[[2]int{index[sg], m}] = 0
				cells++
			}
		}
	}
	const draws = 100_000
	picks, err := b.pickN(draws)
	if err != nil {
		t.Fatal(err)
	}
	symCounts := make([]int, len(g.Symmetries()))
	for _, p := range picks {
		key := [2]int{index[p.g], p.move}
		if _, ok := counts[key]; !ok || !p.g.full[p.move] {
			t.Fatalf("drew game %d move %d, which is not a full-search position", key[0], key[1])
		}
		counts[key]++
		symCounts[p.sym]++
	}
	chi2 := func(obs []int, expected float64) float64 {
		s := 0.0
		for _, o := range obs {
			d := float64(o) - expected
			s += d * d / expected
		}
		return s
	}
	var obs []int
	for _, c := range counts {
		obs = append(obs, c)
	}
	// Under uniformity chi² has mean df and sd sqrt(2 df); allow 5 sd.
	check := func(name string, obs []int) {
		df := float64(len(obs) - 1)
		x := chi2(obs, float64(draws)/float64(len(obs)))
		if limit := df + 5*math.Sqrt(2*df); x > limit {
			t.Errorf("%s: chi² = %.1f over %d cells, above %.1f: not uniform", name, x, len(obs), limit)
		}
	}
	check("positions", obs)
	check("symmetries", symCounts)
	if cells != int(b.Len()) {
		t.Fatalf("%d full positions, Len() = %d", cells, b.Len())
	}
}

// expectedRow computes, from first principles, the row Sample must produce
// for a position under symmetry sym.
func expectedRow(g env.Game, p Position, sym env.Symmetry, rootWeight float64) (obs, pol, mask []float32, value float32) {
	shape := g.ObservationShape()
	raw := make([]float32, shape.Size())
	p.State.Observation(raw)
	obs = make([]float32, shape.Size())
	sym.TransformObservation(shape, raw, obs)
	dense := make([]float32, g.NumActions())
	if p.Move.Full {
		for _, e := range p.Move.Policy {
			dense[e.Action] = e.Prob
		}
	}
	pol = make([]float32, g.NumActions())
	sym.TransformPolicy(dense, pol)
	m := make([]bool, g.NumActions())
	env.LegalMask(p.State, m, nil)
	denseMask := make([]float32, g.NumActions())
	for a, ok := range m {
		if ok {
			denseMask[a] = 1
		}
	}
	mask = make([]float32, g.NumActions())
	sym.TransformPolicy(denseMask, mask)
	value = p.Value
	if rootWeight > 0 && p.Move.HasRootValue {
		value = float32((1-rootWeight)*float64(p.Value) + rootWeight*float64(p.Move.RootValue))
	}
	return obs, pol, mask, value
}

func TestFillMatchesDefinition(t *testing.T) {
	g := newMNK(3, 3)
	for _, every := range []int{1, 2, 4} {
		t.Run(fmt.Sprint("snapshot_every=", every), func(t *testing.T) {
			b := testBuffer(t, g, func(c *BufferConfig) { c.SnapshotEvery = every; c.RootValueWeight = 0.25 })
			rng := rand.New(rand.NewPCG(23, uint64(every)))
			var recs []*Record
			for range 5 {
				rec := playRandom(t, g, rng, 0.7)
				if err := b.Add(rec); err != nil {
					t.Fatal(err)
				}
				if rec.FullMoves() > 0 {
					recs = append(recs, rec)
				}
			}
			out := newBatch(g, 1, true)
			sc := newScratch(g.ObservationShape().Size(), g.NumActions())
			for gi, rec := range recs {
				pos, err := Replay(g, rec)
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range pos {
					if !p.Move.Full {
						continue
					}
					for si, sym := range g.Symmetries() {
						if err := b.fill(out, 0, pick{g: b.games[gi], move: p.Index, sym: si}, sc); err != nil {
							t.Fatal(err)
						}
						obs, pol, mask, v := expectedRow(g, p, sym, 0.25)
						if !reflect.DeepEqual(out.Obs, obs) || !reflect.DeepEqual(out.Policy, pol) || !reflect.DeepEqual(out.Mask, mask) || out.Value[0] != v {
							t.Fatalf("game %d move %d symmetry %s: row differs from definition", gi, p.Index, sym.Name)
						}
					}
				}
			}
		})
	}
}

// addRandomGames adds n random games of g to b, every move a full search,
// and returns each game's record and its replayed positions.
func addRandomGames(t *testing.T, b *Buffer, g env.Game, rng *rand.Rand, n int) (recs []*Record, positions [][]Position) {
	t.Helper()
	for range n {
		rec := playRandom(t, g, rng, 1)
		if err := b.Add(rec); err != nil {
			t.Fatal(err)
		}
		pos, err := Replay(g, rec)
		if err != nil {
			t.Fatal(err)
		}
		recs, positions = append(recs, rec), append(positions, pos)
	}
	return recs, positions
}

// sampledAs reports whether row i of out is position p under sym (its
// observation, policy, mask and value, without root-value mixing), and
// returns the observation that row would have.
func sampledAs(g env.Game, out *Batch, i int, p Position, sym env.Symmetry) (obs []float32, ok bool) {
	obsSize, na := g.ObservationShape().Size(), g.NumActions()
	row := func(s []float32, per int) []float32 { return s[i*per : (i+1)*per] }
	obs, pol, mask, v := expectedRow(g, p, sym, 0)
	return obs, reflect.DeepEqual(row(out.Obs, obsSize), obs) && reflect.DeepEqual(row(out.Policy, na), pol) &&
		reflect.DeepEqual(row(out.Mask, na), mask) && out.Value[i] == v
}

func TestSampleAugmentsConsistently(t *testing.T) {
	g := newMNK(3, 3)
	b := testBuffer(t, g, nil)
	rng := rand.New(rand.NewPCG(24, 0))
	var cands []Position
	_, games := addRandomGames(t, b, g, rng, 6)
	for _, pos := range games {
		cands = append(cands, pos...)
	}
	const n = 128
	out := newBatch(g, n, true)
	if err := b.Sample(n, out); err != nil {
		t.Fatal(err)
	}
	moved := 0
	for i := range n {
		found := false
		for _, p := range cands {
			for si, sym := range g.Symmetries() {
				if obs, ok := sampledAs(g, out, i, p, sym); ok {
					found = true
					if si != 0 {
						raw, _, _, _ := expectedRow(g, p, g.Symmetries()[0], 0)
						if !reflect.DeepEqual(raw, obs) {
							moved++
						}
					}
				}
			}
		}
		if !found {
			t.Fatalf("row %d is no buffered position under one symmetry applied to observation, policy and mask alike", i)
		}
	}
	if moved < n/2 {
		t.Fatalf("only %d of %d rows were transformed by a non-identity symmetry", moved, n)
	}
}

func TestValueOnlyPositions(t *testing.T) {
	g := newMNK(3, 3)
	b := testBuffer(t, g, func(c *BufferConfig) { c.ValueOnlyPositions = true })
	rng := rand.New(rand.NewPCG(25, 0))
	var moves int64
	for range 20 {
		rec := playRandom(t, g, rng, 0.5)
		moves += int64(len(rec.Moves))
		if err := b.Add(rec); err != nil {
			t.Fatal(err)
		}
	}
	if b.Len() != moves {
		t.Fatalf("Len() = %d, want all %d moves", b.Len(), moves)
	}
	const n = 200
	out := newBatch(g, n, false)
	if err := b.Sample(n, out); err == nil || !strings.Contains(err.Error(), "Batch.PolicyWeight has length 0") {
		t.Fatalf("Sample without PolicyWeight = %v, want an error", err)
	}
	out.PolicyWeight = make([]float32, n)
	if err := b.Sample(n, out); err != nil {
		t.Fatal(err)
	}
	na := g.NumActions()
	var weights [2]int
	for i, w := range out.PolicyWeight {
		sum := float32(0)
		for _, p := range out.Policy[i*na : (i+1)*na] {
			sum += p
		}
		switch {
		case w == 0 && sum == 0, w == 1 && math.Abs(float64(sum)-1) < 1e-3:
			weights[int(w)]++
		default:
			t.Fatalf("row %d: policy weight %v with policy sum %v", i, w, sum)
		}
	}
	if weights[0] == 0 || weights[1] == 0 {
		t.Fatalf("weights %v: want both value-only and full positions", weights)
	}
}

func TestSampleErrors(t *testing.T) {
	g := newMNK(3, 3)
	b := testBuffer(t, g, nil)
	if err := b.Sample(4, newBatch(g, 4, false)); !errors.Is(err, ErrEmpty) {
		t.Fatalf("Sample on empty buffer = %v, want ErrEmpty", err)
	}
	if err := b.Add(playRandom(t, g, rand.New(rand.NewPCG(26, 0)), 1)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		n      int
		modify func(out *Batch)
		want   string
	}{
		{"zero batch", 0, func(*Batch) {}, "batch size 0"},
		{"obs", 4, func(o *Batch) { o.Obs = o.Obs[:10] }, "Batch.Obs has length 10, want 108 (4 × 27)"},
		{"policy", 4, func(o *Batch) { o.Policy = nil }, "Batch.Policy has length 0, want 36"},
		{"value", 4, func(o *Batch) { o.Value = make([]float32, 5) }, "Batch.Value has length 5, want 4"},
		{"mask", 4, func(o *Batch) { o.Mask = make([]float32, 3) }, "Batch.Mask has length 3"},
		{"weight", 4, func(o *Batch) { o.PolicyWeight = make([]float32, 1) }, "Batch.PolicyWeight has length 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := newBatch(g, 4, false)
			tt.modify(out)
			if err := b.Sample(tt.n, out); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Sample = %v, want error containing %q", err, tt.want)
			}
		})
	}
}

func TestBufferConfigValidate(t *testing.T) {
	if err := DefaultBufferConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		modify func(c *BufferConfig)
		want   string
	}{
		{"window", func(c *BufferConfig) { c.Window.MinPositions = -1 }, "min_positions is -1"},
		{"root weight", func(c *BufferConfig) { c.RootValueWeight = 1.5 }, "root_value_weight is 1.5"},
		{"snapshots", func(c *BufferConfig) { c.SnapshotEvery = 0 }, "snapshot_every is 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultBufferConfig()
			tt.modify(&c)
			if _, err := NewBuffer(newMNK(3, 3), c); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("NewBuffer = %v, want %q", err, tt.want)
			}
		})
	}
}

// badSymGame is the test game with a broken symmetry list.
type badSymGame struct {
	*mnkGame
	syms []env.Symmetry
}

func (g badSymGame) Symmetries() []env.Symmetry { return g.syms }

func TestBufferRejectsBadSymmetries(t *testing.T) {
	g := newMNK(3, 3)
	good := g.Symmetries()
	dup := env.Identity(9, 9)
	dup.Name = "dup"
	dup.Actions[3] = 4
	tests := []struct {
		name string
		syms []env.Symmetry
		want string
	}{
		{"identity not first", []env.Symmetry{good[1], good[0]}, "symmetry 0 must be the identity"},
		{"short cells", []env.Symmetry{good[0], {Name: "short", Cells: []int{0}, Actions: good[0].Actions}}, "symmetry 1 (short): cells: length 1, want 9"},
		{"not a permutation", []env.Symmetry{good[0], dup}, "symmetry 1 (dup): actions: not a permutation of [0, 9) at index 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewBuffer(badSymGame{g, tt.syms}, DefaultBufferConfig())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("NewBuffer = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestBufferDeterministic(t *testing.T) {
	g := newMNK(4, 3)
	sample := func(seed uint64) *Batch {
		b := testBuffer(t, g, func(c *BufferConfig) { c.Seed = seed })
		rng := rand.New(rand.NewPCG(27, 0))
		for range 20 {
			if err := b.Add(playRandom(t, g, rng, 0.8)); err != nil {
				t.Fatal(err)
			}
		}
		out := newBatch(g, 64, true)
		if err := b.Sample(64, out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if !reflect.DeepEqual(sample(5), sample(5)) {
		t.Fatal("same seed, different samples")
	}
	if reflect.DeepEqual(sample(5), sample(6)) {
		t.Fatal("different seeds, same samples")
	}
}

func TestBufferAddRejects(t *testing.T) {
	g := newMNK(3, 3)
	b := testBuffer(t, g, nil)
	rec := playRandom(t, g, rand.New(rand.NewPCG(28, 0)), 1)
	other := *rec
	other.Game = "wyb"
	illegal := *rec
	illegal.Actions = append([]int{}, rec.Actions...)
	illegal.Actions[1] = illegal.Actions[0]
	for _, r := range []*Record{&other, &illegal} {
		if err := b.Add(r); err == nil {
			t.Fatalf("Add accepted %+v", r)
		}
	}
	if st := b.Stats(); st.TotalGames != 0 || st.TotalPositions != 0 {
		t.Fatalf("rejected records counted: %+v", st)
	}
}

func TestBufferConcurrent(t *testing.T) {
	g := newMNK(4, 3)
	b := testBuffer(t, g, func(c *BufferConfig) {
		c.Window = WindowConfig{MinPositions: 100, MaxPositions: 300, Alpha: 0.75, Beta: 0.4}
	})
	if err := b.Add(playRandom(t, g, rand.New(rand.NewPCG(29, 99)), 1)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 3 {
		rng := rand.New(rand.NewPCG(29, uint64(w)))
		recs := make([]*Record, 40)
		for i := range recs {
			recs[i] = playRandom(t, g, rng, 0.7)
		}
		wg.Go(func() {
			for _, r := range recs {
				if err := b.Add(r); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for range 2 {
		wg.Go(func() {
			out := newBatch(g, 16, true)
			for range 40 {
				if err := b.Sample(16, out); err != nil {
					errs <- err
					return
				}
				_ = b.Stats()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if st := b.Stats(); st.TotalGames != 121 {
		t.Fatalf("%d games added, want 121", st.TotalGames)
	}
}

func TestBufferLoad(t *testing.T) {
	g := newMNK(4, 3)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(30, 0))
	var recs []*Record
	var total int64
	for range 60 {
		r := playRandom(t, g, rng, 0.7)
		recs = append(recs, r)
		total += int64(r.FullMoves())
	}
	writeGames(t, dir, 5, recs)
	// A fixed window of a third of the data: the buffer fed game by game
	// and the one loaded from disk must agree exactly.
	cfg := func(c *BufferConfig) {
		c.Window = WindowConfig{MinPositions: total / 3, MaxPositions: total, Alpha: 1, Beta: 0}
		c.Seed = 77
	}
	live := testBuffer(t, g, cfg)
	for _, r := range recs {
		if err := live.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	loaded := testBuffer(t, g, cfg)
	st, err := loaded.Load(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Shards != 12 || st.ShardsRead >= st.Shards || st.TotalPositions != total || st.TotalGames != 60 {
		t.Fatalf("load stats %+v: want 12 shards, fewer read, %d total positions, 60 games", st, total)
	}
	ls, ll := live.Stats(), loaded.Stats()
	if ls.Games != ll.Games || ls.Positions != ll.Positions || ls.TotalPositions != ll.TotalPositions || ls.TotalGames != ll.TotalGames {
		t.Fatalf("loaded %+v, live %+v", ll, ls)
	}
	a, b := newBatch(g, 32, true), newBatch(g, 32, true)
	if err := live.Sample(32, a); err != nil {
		t.Fatal(err)
	}
	if err := loaded.Sample(32, b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatal("loaded buffer samples differ from the live one")
	}

	if _, err := loaded.Load(context.Background(), dir); err == nil {
		t.Fatal("Load into a non-empty buffer succeeded")
	}
	empty := testBuffer(t, g, cfg)
	if st, err := empty.Load(context.Background(), filepath.Join(dir, "missing")); err != nil || st.Games != 0 {
		t.Fatalf("Load of a missing directory = %+v, %v", st, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := testBuffer(t, g, cfg).Load(ctx, dir); !errors.Is(err, context.Canceled) {
		t.Fatalf("Load with a cancelled context = %v", err)
	}

	// A corrupt recent shard is reported by name.
	last := ShardPath(dir, 12)
	b12, err := os.ReadFile(last)
	if err != nil {
		t.Fatal(err)
	}
	b12[len(b12)/2] ^= 0x40
	if err := os.WriteFile(last, b12, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := testBuffer(t, g, cfg).Load(context.Background(), dir); err == nil || !strings.Contains(err.Error(), last) || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Load with a corrupt shard = %v, want an error naming %s", err, last)
	}
}

func TestBufferConfigYAML(t *testing.T) {
	cfg := DefaultBufferConfig()
	src := `
window:
  min_positions: 1000
  beta: 0.5
root_value_weight: 0.2
augment: false
value_only_positions: true
snapshot_every: 8
seed: 42
`
	if err := yaml.Unmarshal([]byte(src), &cfg); err != nil {
		t.Fatal(err)
	}
	want := DefaultBufferConfig()
	want.Window.MinPositions, want.Window.Beta = 1000, 0.5
	want.RootValueWeight, want.Augment, want.ValueOnlyPositions, want.SnapshotEvery, want.Seed = 0.2, false, true, 8, 42
	if cfg != want {
		t.Fatalf("parsed %+v, want %+v (fields left out keep their defaults)", cfg, want)
	}
}
