// Package env defines the contract between a game's rules engine and the
// rest of the toolkit (search, training, evaluation, play).
//
// The contract follows OpenSpiel's game API: a Game describes the static
// properties of a game (action space, observation shape, exact symmetries)
// and creates States; a State knows the player to move, its legal actions,
// how to apply one, how to copy itself, whether it is terminal and what each
// player receives at the end, and how to encode itself as a tensor from the
// point of view of the player to move.
//
// Players are numbered 0 (the side that moves first) and 1. Actions are
// integers in [0, Game.NumActions()). Returns are +1 for a win, -1 for a loss
// and 0 for a draw.
//
// Package env knows nothing of search, networks or training. Concrete games
// live in packages of their own, which register themselves with package
// env/games; it lists them and builds one by name or configuration.
package env

import "fmt"

// Shape is the shape of an observation tensor: Planes feature planes of
// Height x Width cells, stored plane-major (plane, row, column).
type Shape struct {
	Planes, Height, Width int
}

// Size is the number of float32 values in one observation.
func (s Shape) Size() int { return s.Planes * s.Height * s.Width }

// Cells is the number of cells in one plane.
func (s Shape) Cells() int { return s.Height * s.Width }

// String formats the shape as PxHxW.
func (s Shape) String() string { return fmt.Sprintf("%dx%dx%d", s.Planes, s.Height, s.Width) }

// Game describes a game: its action space, its observation encoding and its
// exact symmetries, and it creates initial states.
type Game interface {
	// Name identifies the game and its parameters, e.g. "wyb" or "squatter6".
	Name() string
	// NumActions is the size of the fixed action space.
	NumActions() int
	// ObservationShape is the shape of State.Observation's output.
	ObservationShape() Shape
	// EncodingVersion changes whenever the observation or action encoding
	// changes, so that checkpoints trained on another encoding are rejected.
	EncodingVersion() int
	// MaxGameLength bounds the number of actions in one game, or is 0 when
	// the rules set no bound.
	MaxGameLength() int
	// NewInitialState returns the position before the first action.
	NewInitialState() State
	// Symmetries lists the board symmetries under which the rules are
	// exactly invariant; element 0 is always the identity. Training augments
	// data only with these.
	Symmetries() []Symmetry
}

// State is a position of a game together with everything that determines
// its future (player to move, counters, phase).
type State interface {
	// CurrentPlayer is 0 or 1, or -1 when the state is terminal.
	CurrentPlayer() int
	// LegalActions appends the legal actions in increasing order to dst[:0]
	// and returns it. It is empty exactly when the state is terminal.
	LegalActions(dst []int) []int
	// IsLegal reports whether action may be applied now.
	IsLegal(action int) bool
	// ApplyAction plays action for the player to move. An illegal action
	// returns an error that names the reason and leaves the state unchanged.
	ApplyAction(action int) error
	// Clone returns an independent copy.
	Clone() State
	// IsTerminal reports whether the game is over.
	IsTerminal() bool
	// Returns gives each player's result (+1 win, -1 loss, 0 draw) once the
	// state is terminal, and zeros before.
	Returns() [2]float32
	// Hash is a Zobrist hash of everything that determines the future.
	Hash() uint64
	// MoveNumber is the number of actions applied since the initial state.
	MoveNumber() int
	// Observation writes the encoding of the state, from the point of view
	// of the player to move, into dst (length Game.ObservationShape().Size()).
	Observation(dst []float32)
	// ActionString formats an action in the game's human notation.
	ActionString(action int) string
	// ParseAction reads an action in the notation ActionString writes.
	ParseAction(s string) (int, error)
	// String draws the board.
	String() string
}

// ApproximateSymmetries is implemented by games whose board has
// transformations that keep the rules in all but a few positions (Watch
// Your Back!'s left-right mirror: see wyb.Game.Symmetries). Training must
// not augment with them; a search may average a network's outputs over
// them (mcts.SymmetryAverage), where an error is only a noisier estimate.
type ApproximateSymmetries interface {
	// ApproximateSymmetries lists the transformations, not including the
	// identity or the exact ones of Game.Symmetries.
	ApproximateSymmetries() []Symmetry
}

// RepetitionKeyer is implemented by states of games in which a position
// can recur with the same future, such as Watch Your Back! without a turn
// limit once its board has shrunk for the last time. A search uses it to
// tell a line that returns to a position already on its path, which makes
// no progress and could go on forever, from one that progresses.
type RepetitionKeyer interface {
	// RepetitionKey returns a key that two states of one game share
	// exactly when they are the same position with the same future,
	// whatever the actions that led to them, and ok false while the
	// state's future still depends on how many actions were played (or the
	// game is over). Once ok is true for a state, it is true for every
	// later state of its game that is not over.
	RepetitionKey() (key uint64, ok bool)
}

// Locker is implemented by states of games that can lock: reach a position
// in which no player can do anything but pass, now or ever again, so that
// nothing will change (Watch Your Back! without a turn limit, after its
// last shrink, with no piece able to move). A referee without a turn limit
// plays such a game on until a clock runs out; a player that knows it is
// locked can answer at no cost.
type Locker interface {
	// Locked reports whether the state is such a position (never for a
	// state whose game is over).
	Locked() bool
}

// Symmetry is a transformation of the board that maps observation cells and
// actions to their images. Cells[i] is the image of cell i (row*Width+col)
// and Actions[a] the image of action a.
type Symmetry struct {
	Name    string
	Cells   []int
	Actions []int
}

// TransformObservation writes the image of obs (of the given shape) under s
// into dst. dst and obs must not overlap.
func (s Symmetry) TransformObservation(shape Shape, obs, dst []float32) {
	n := shape.Cells()
	for p := 0; p < shape.Planes; p++ {
		src := obs[p*n : (p+1)*n]
		out := dst[p*n : (p+1)*n]
		for i, v := range src {
			out[s.Cells[i]] = v
		}
	}
}

// TransformPolicy writes the image of a policy over actions into dst. dst
// and policy must not overlap.
func (s Symmetry) TransformPolicy(policy, dst []float32) {
	for a, p := range policy {
		dst[s.Actions[a]] = p
	}
}

// Identity returns the identity symmetry for a game with the given number of
// cells and actions.
func Identity(cells, actions int) Symmetry {
	s := Symmetry{Name: "identity", Cells: make([]int, cells), Actions: make([]int, actions)}
	for i := range s.Cells {
		s.Cells[i] = i
	}
	for a := range s.Actions {
		s.Actions[a] = a
	}
	return s
}

// ZobristKey is key i of a fixed pseudo-random stream (SplitMix64's
// output function of i+1 golden-ratio steps), for games' Zobrist hashes
// without a table.
func ZobristKey(i int) uint64 {
	z := uint64(0x9e3779b97f4a7c15) * uint64(1+i)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// SquareSymmetries returns the eight symmetries of an n x n board (the
// dihedral group D4), identity first, for a game whose actions are its
// cells (cell and action y*n+x for column x, row y): each maps actions as
// it maps cells. Each call returns fresh slices.
func SquareSymmetries(n int) []Symmetry {
	m := n - 1
	ts := []struct {
		name string
		f    func(x, y int) (int, int)
	}{
		{"identity", func(x, y int) (int, int) { return x, y }},
		{"rot90", func(x, y int) (int, int) { return m - y, x }},
		{"rot180", func(x, y int) (int, int) { return m - x, m - y }},
		{"rot270", func(x, y int) (int, int) { return y, m - x }},
		{"flipx", func(x, y int) (int, int) { return m - x, y }},
		{"flipy", func(x, y int) (int, int) { return x, m - y }},
		{"transpose", func(x, y int) (int, int) { return y, x }},
		{"antitranspose", func(x, y int) (int, int) { return m - y, m - x }},
	}
	syms := make([]Symmetry, len(ts))
	for i, t := range ts {
		cells := make([]int, n*n)
		for c := range cells {
			x, y := t.f(c%n, c/n)
			cells[c] = y*n + x
		}
		syms[i] = Symmetry{Name: t.name, Cells: cells, Actions: append([]int(nil), cells...)}
	}
	return syms
}

// LegalMask sets mask[a] to true for each legal action of s and false for the
// others. mask must have length Game.NumActions(). It returns the number of
// legal actions.
func LegalMask(s State, mask []bool, scratch []int) int {
	for i := range mask {
		mask[i] = false
	}
	legal := s.LegalActions(scratch)
	for _, a := range legal {
		mask[a] = true
	}
	return len(legal)
}
