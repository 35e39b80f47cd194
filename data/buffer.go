package data

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync"

	"github.com/zerokit/zerokit/env"
)

// BufferConfig configures a replay Buffer. Start from DefaultBufferConfig
// and override fields (yaml.Unmarshal into the default keeps the fields a
// file leaves out).
type BufferConfig struct {
	// Window sizes the sliding window.
	Window WindowConfig `yaml:"window"`
	// RootValueWeight mixes the search's root value into the value target:
	// target = (1-w)·z + w·root, where z is the final return of the player
	// to move. Positions without a root value use z. Default 0.
	RootValueWeight float64 `yaml:"root_value_weight"`
	// Augment applies a random exact symmetry of the game (drawn uniformly
	// from Game.Symmetries, identity included) to each sampled position.
	Augment bool `yaml:"augment"`
	// ValueOnlyPositions also samples the positions whose move came from a
	// cheap search (playout cap randomization), for their value target
	// only: their policy row is zero and Batch.PolicyWeight, which is then
	// required, is 0. By default only full-search positions are sampled and
	// counted.
	ValueOnlyPositions bool `yaml:"value_only_positions"`
	// SnapshotEvery keeps a copy of every SnapshotEvery-th state of each
	// game; sampling a position clones the nearest earlier snapshot and
	// replays at most SnapshotEvery-1 actions. 1 stores every state
	// (fastest sampling, most memory).
	SnapshotEvery int `yaml:"snapshot_every"`
	// Seed seeds the sampler.
	Seed uint64 `yaml:"seed"`
}

// DefaultBufferConfig returns the default configuration.
func DefaultBufferConfig() BufferConfig {
	return BufferConfig{Window: DefaultWindowConfig(), Augment: true, SnapshotEvery: 4, Seed: 1}
}

// Validate reports a configuration error naming the field.
func (c BufferConfig) Validate() error {
	if err := c.Window.Validate(); err != nil {
		return err
	}
	if !(c.RootValueWeight >= 0 && c.RootValueWeight <= 1) {
		return fmt.Errorf("data: buffer: root_value_weight is %v, want a value in [0, 1]", c.RootValueWeight)
	}
	if c.SnapshotEvery < 1 {
		return fmt.Errorf("data: buffer: snapshot_every is %d, want at least 1", c.SnapshotEvery)
	}
	return nil
}

// Batch holds caller-provided flat buffers that Sample fills, row i
// describing sampled position i.
type Batch struct {
	// Obs holds n observations of ObservationShape().Size() values each,
	// from the point of view of the player to move.
	Obs []float32
	// Policy holds n dense policy targets of NumActions() values each.
	Policy []float32
	// Value holds n value targets in [-1, 1] for the player to move.
	Value []float32
	// Mask, if non-nil, receives n legal-action masks of NumActions()
	// values each: 1 for a legal action, 0 otherwise.
	Mask []float32
	// PolicyWeight, if non-nil, receives n weights: 1 when the policy row is
	// a target, 0 for a value-only position. Required when
	// ValueOnlyPositions is set.
	PolicyWeight []float32
	// Ownership, if non-nil, receives n ownership targets of
	// ObservationShape().Cells() values each: for every cell, +1 when the
	// player to move holds it at the end of the game, -1 when the opponent
	// does, 0 when nobody does (env.CellOwner), under the same symmetry as
	// the observation. The game's states must implement env.CellOwner.
	Ownership []float32
}

// ErrEmpty is returned by Sample when the buffer holds no positions.
var ErrEmpty = errors.New("data: replay buffer is empty")

// Buffer is a replay buffer over the most recent positions of self-play
// games. Add and Sample are safe for concurrent use; sampling is
// reproducible for a given seed and sequence of calls.
type Buffer struct {
	game       env.Game
	cfg        BufferConfig
	shape      env.Shape
	numActions int
	syms       []env.Symmetry
	// owners reports that the game's states implement env.CellOwner, so
	// that stored games keep their final holders.
	owners bool

	mu    sync.Mutex
	rng   *rand.Rand
	games []*storedGame // oldest first; games[head:] are live
	head  int
	seen  int64 // sampleable positions ever added (or found on disk)
	next  int64 // global index the next game's first position gets
	added int64 // games ever added (or found on disk)
}

// storedGame is one game in compact form. Positions are re-derived from the
// snapshots and the actions.
type storedGame struct {
	start     int64   // global index of the first sampleable position
	n         int     // number of sampleable positions
	positions []int32 // move index of each sampleable position; nil if all are
	actions   []int32
	policyOff []int32 // Policy of move i is policy[policyOff[i]:policyOff[i+1]]
	policy    []ActionProb
	full      []bool
	rootValue []float32 // NaN where absent; nil when no move has one
	returns   [2]float32
	snaps     []env.State // snaps[j] is the state after j*SnapshotEvery moves
	// final holds the holder of each cell (env.CellOwner) after the last
	// move; nil when the game's states cannot tell.
	final []int8
}

// NewBuffer returns an empty buffer for game.
func NewBuffer(game env.Game, cfg BufferConfig) (*Buffer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	shape, na := game.ObservationShape(), game.NumActions()
	syms := game.Symmetries()
	if len(syms) == 0 {
		syms = []env.Symmetry{env.Identity(shape.Cells(), na)}
	}
	if err := checkSymmetries(syms, shape.Cells(), na); err != nil {
		return nil, fmt.Errorf("data: buffer: game %s: %w", game.Name(), err)
	}
	_, owners := game.NewInitialState().(env.CellOwner)
	return &Buffer{
		game:       game,
		cfg:        cfg,
		shape:      shape,
		numActions: na,
		syms:       syms,
		owners:     owners,
		rng:        rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
	}, nil
}

// checkSymmetries checks that each symmetry permutes the cells and the
// actions, and that the first one is the identity (Sample relies on it).
func checkSymmetries(syms []env.Symmetry, cells, actions int) error {
	for k, s := range syms {
		if err := checkPermutation(s.Cells, cells, k == 0); err != nil {
			return fmt.Errorf("symmetry %d (%s): cells: %w", k, s.Name, err)
		}
		if err := checkPermutation(s.Actions, actions, k == 0); err != nil {
			return fmt.Errorf("symmetry %d (%s): actions: %w", k, s.Name, err)
		}
	}
	return nil
}

func checkPermutation(p []int, n int, identity bool) error {
	if len(p) != n {
		return fmt.Errorf("length %d, want %d", len(p), n)
	}
	seen := make([]bool, n)
	for i, v := range p {
		if v < 0 || v >= n || seen[v] {
			return fmt.Errorf("not a permutation of [0, %d) at index %d", n, i)
		}
		if identity && v != i {
			return fmt.Errorf("symmetry 0 must be the identity, maps %d to %d", i, v)
		}
		seen[v] = true
	}
	return nil
}

// Add replays rec through the engine (rejecting it with an error if it is
// not a legal game of the buffer's game), stores it, and slides the window.
func (b *Buffer) Add(rec *Record) error {
	g, err := b.build(rec)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.appendLocked(g)
	b.seen += int64(g.n)
	b.trimLocked()
	return nil
}

// SetRootValueWeight changes the share of the search's root value in the
// value targets of every sample drawn from now on (see
// BufferConfig.RootValueWeight): a training recipe's stage may change it
// during a run. Not to be called while Sample runs.
func (b *Buffer) SetRootValueWeight(w float64) error {
	if !(w >= 0 && w <= 1) {
		return fmt.Errorf("data: buffer: root_value_weight is %v, want a value in [0, 1]", w)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cfg.RootValueWeight = w
	return nil
}

// sampleable reports whether a move is drawn by Sample.
func (b *Buffer) sampleable(m *Move) bool { return m.Full || b.cfg.ValueOnlyPositions }

// build converts rec to its stored form, validating it by replay.
func (b *Buffer) build(rec *Record) (*storedGame, error) {
	moves := len(rec.Actions)
	k := b.cfg.SnapshotEvery
	g := &storedGame{
		actions:   make([]int32, moves),
		policyOff: make([]int32, moves+1),
		full:      make([]bool, moves),
		returns:   rec.Returns,
		snaps:     make([]env.State, 0, (moves+k-1)/k),
	}
	entries, hasRoot := 0, false
	for i := range rec.Moves {
		m := &rec.Moves[i]
		if b.sampleable(m) {
			g.n++
			if m.Full {
				entries += len(m.Policy)
			}
			hasRoot = hasRoot || m.HasRootValue
		}
	}
	if g.n != moves {
		g.positions = make([]int32, 0, g.n)
	}
	if hasRoot {
		g.rootValue = make([]float32, moves)
	}
	g.policy = make([]ActionProb, 0, entries)
	err := Walk(b.game, rec, func(p Position) error {
		i := p.Index
		if i%k == 0 {
			g.snaps = append(g.snaps, p.State.Clone())
		}
		g.actions[i] = int32(p.Action)
		g.full[i] = p.Move.Full
		if b.sampleable(&p.Move) {
			if g.positions != nil {
				g.positions = append(g.positions, int32(i))
			}
			if p.Move.Full {
				g.policy = append(g.policy, p.Move.Policy...)
			}
			if g.rootValue != nil {
				g.rootValue[i] = float32(math.NaN())
				if p.Move.HasRootValue {
					g.rootValue[i] = p.Move.RootValue
				}
			}
		}
		g.policyOff[i+1] = int32(len(g.policy))
		if i == moves-1 && b.owners {
			end := p.State.Clone()
			if err := end.ApplyAction(p.Action); err != nil {
				return fmt.Errorf("move %d: action %d: %w", i, p.Action, err)
			}
			g.final = make([]int8, b.shape.Cells())
			end.(env.CellOwner).CellOwners(g.final)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("data: buffer: %w", err)
	}
	return g, nil
}

func (b *Buffer) appendLocked(g *storedGame) {
	b.added++
	if g.n == 0 {
		return
	}
	g.start = b.next
	b.next += int64(g.n)
	b.games = append(b.games, g)
}

// trimLocked evicts the oldest games while the rest still fill the window.
func (b *Buffer) trimLocked() {
	window := b.cfg.Window.Size(b.seen)
	for len(b.games)-b.head > 1 {
		oldest := b.games[b.head]
		if b.keptLocked()-int64(oldest.n) < window {
			break
		}
		b.games[b.head] = nil
		b.head++
	}
	if b.head > 64 && b.head*2 > len(b.games) {
		b.games = append(b.games[:0], b.games[b.head:]...)
		clear(b.games[len(b.games):cap(b.games)])
		b.head = 0
	}
}

func (b *Buffer) keptLocked() int64 {
	if b.head == len(b.games) {
		return 0
	}
	return b.next - b.games[b.head].start
}

// BufferStats describes a buffer's contents.
type BufferStats struct {
	// Games and Positions are the games and sampleable positions in the
	// window.
	Games     int
	Positions int64
	// TotalPositions counts the sampleable positions ever added (or found
	// on disk by Load); the window size is a function of it.
	TotalPositions int64
	// TotalGames counts the games ever added (or found on disk by
	// LoadFrom).
	TotalGames int64
	// Window is the current target window size.
	Window int64
}

// Stats returns the buffer's current counts.
func (b *Buffer) Stats() BufferStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return BufferStats{
		Games:          len(b.games) - b.head,
		Positions:      b.keptLocked(),
		TotalPositions: b.seen,
		TotalGames:     b.added,
		Window:         b.cfg.Window.Size(b.seen),
	}
}

// Len is the number of sampleable positions in the window.
func (b *Buffer) Len() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.keptLocked()
}

// pick is one sampled position: a move of a stored game and a symmetry.
type pick struct {
	g    *storedGame
	move int
	sym  int
}

// pickN draws n positions uniformly from the window, and their symmetries.
func (b *Buffer) pickN(n int) ([]pick, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	live := b.games[b.head:]
	if len(live) == 0 {
		return nil, ErrEmpty
	}
	first := live[0].start
	kept := b.next - first
	picks := make([]pick, n)
	for i := range picks {
		r := first + b.rng.Int64N(kept)
		j := sort.Search(len(live), func(j int) bool { return live[j].start+int64(live[j].n) > r })
		g := live[j]
		k := int(r - g.start)
		if g.positions != nil {
			k = int(g.positions[k])
		}
		sym := 0
		if b.cfg.Augment {
			sym = b.rng.IntN(len(b.syms))
		}
		picks[i] = pick{g: g, move: k, sym: sym}
	}
	return picks, nil
}

// Sample draws n positions uniformly from the window and writes their
// encodings and targets into out, whose slices must have exactly the sizes
// Batch documents. Each position gets a random exact symmetry (when Augment
// is set), applied alike to its observation, policy and mask.
func (b *Buffer) Sample(n int, out *Batch) error {
	if n < 1 {
		return fmt.Errorf("data: sample: batch size %d, want at least 1", n)
	}
	obsSize := b.shape.Size()
	if err := checkLen("Obs", out.Obs, n, obsSize, true); err != nil {
		return err
	}
	if err := checkLen("Policy", out.Policy, n, b.numActions, true); err != nil {
		return err
	}
	if err := checkLen("Value", out.Value, n, 1, true); err != nil {
		return err
	}
	if err := checkLen("Mask", out.Mask, n, b.numActions, false); err != nil {
		return err
	}
	if err := checkLen("PolicyWeight", out.PolicyWeight, n, 1, b.cfg.ValueOnlyPositions); err != nil {
		return err
	}
	if err := checkLen("Ownership", out.Ownership, n, b.shape.Cells(), false); err != nil {
		return err
	}
	if out.Ownership != nil && !b.owners {
		return fmt.Errorf("data: sample: Batch.Ownership asked for, but game %s cannot say who holds its cells (env.CellOwner)", b.game.Name())
	}
	picks, err := b.pickN(n)
	if err != nil {
		return err
	}
	sc := newScratch(obsSize, b.numActions)
	for i, p := range picks {
		if err := b.fill(out, i, p, sc); err != nil {
			return err
		}
	}
	return nil
}

func checkLen(field string, s []float32, n, per int, required bool) error {
	if s == nil && !required {
		return nil
	}
	if len(s) != n*per {
		return fmt.Errorf("data: sample: Batch.%s has length %d, want %d (%d × %d)", field, len(s), n*per, n, per)
	}
	return nil
}

// scratch holds per-call buffers for fill.
type scratch struct {
	obs, dense []float32
	legal      []int
}

func newScratch(obsSize, numActions int) *scratch {
	return &scratch{obs: make([]float32, obsSize), dense: make([]float32, numActions), legal: make([]int, 0, numActions)}
}

// state re-derives the state before move m of g.
func (b *Buffer) state(g *storedGame, m int) (env.State, error) {
	k := b.cfg.SnapshotEvery
	s := g.snaps[m/k].Clone()
	for j := m / k * k; j < m; j++ {
		if err := s.ApplyAction(int(g.actions[j])); err != nil {
			return nil, fmt.Errorf("data: sample: re-deriving move %d: %w", m, err)
		}
	}
	return s, nil
}

// fill writes row i of out for pick p.
func (b *Buffer) fill(out *Batch, i int, p pick, sc *scratch) error {
	s, err := b.state(p.g, p.move)
	if err != nil {
		return err
	}
	sym := b.syms[p.sym]
	identity := p.sym == 0
	obsSize, na := b.shape.Size(), b.numActions

	obsRow := out.Obs[i*obsSize : (i+1)*obsSize]
	if identity {
		s.Observation(obsRow)
	} else {
		s.Observation(sc.obs)
		sym.TransformObservation(b.shape, sc.obs, obsRow)
	}

	g, m := p.g, p.move
	polRow := out.Policy[i*na : (i+1)*na]
	if g.full[m] {
		dst := polRow
		if !identity {
			dst = sc.dense
		}
		clear(dst)
		for _, e := range g.policy[g.policyOff[m]:g.policyOff[m+1]] {
			dst[e.Action] = e.Prob
		}
		if !identity {
			sym.TransformPolicy(sc.dense, polRow)
		}
	} else {
		clear(polRow)
	}
	if out.PolicyWeight != nil {
		out.PolicyWeight[i] = 0
		if g.full[m] {
			out.PolicyWeight[i] = 1
		}
	}

	if out.Mask != nil {
		maskRow := out.Mask[i*na : (i+1)*na]
		dst := maskRow
		if !identity {
			dst = sc.dense
		}
		clear(dst)
		sc.legal = s.LegalActions(sc.legal)
		for _, a := range sc.legal {
			dst[a] = 1
		}
		if !identity {
			sym.TransformPolicy(sc.dense, maskRow)
		}
	}

	if out.Ownership != nil {
		b.fillOwnership(out.Ownership[i*b.shape.Cells():(i+1)*b.shape.Cells()], g.final, s.CurrentPlayer(), sym)
	}

	v := g.returns[s.CurrentPlayer()]
	if w := b.cfg.RootValueWeight; w > 0 && g.rootValue != nil && !math.IsNaN(float64(g.rootValue[m])) {
		v = float32((1-w)*float64(v) + w*float64(g.rootValue[m]))
	}
	out.Value[i] = v
	return nil
}

// fillOwnership writes the ownership target of a position where player is
// to move, from the final holders of its game, under sym.
func (b *Buffer) fillOwnership(row []float32, final []int8, player int, sym env.Symmetry) {
	for c, h := range final {
		v := float32(0)
		switch {
		case h < 0:
		case int(h) == player:
			v = 1
		default:
			v = -1
		}
		row[sym.Cells[c]] = v
	}
}
