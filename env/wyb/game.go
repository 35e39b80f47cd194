// Package wyb is the rules engine and environment encoding of Watch Your
// Back! (COMP30024, 2018), identical to the official referee (v1.2): the
// rules are in rules.go, the action space in actions.go, the observation in
// observation.go and the referee's action and board formats in referee.go.
//
// The engine keeps the board in 64-bit bitboards and applies the rules to
// whole bitboards at once (moves and captures by shifting them, rules.go);
// a State is a small plain value (Clone is a copy) with an incremental
// Zobrist hash. For random playouts, RandomLegal and PlayRandom pick a
// uniformly random legal action from one random word without listing the
// legal actions.
package wyb

import (
	"fmt"

	"github.com/zerokit/zerokit/env"
)

// Options are the rule options of a game.
type Options struct {
	// TurnLimit is the rule extension of rules.go (rule 8): after moving
	// turn TurnLimit, a game not yet over is won by the side with more
	// pieces (equal counts draw). 0 disables it, as in the official referee
	// (replay of referee games must use 0); training uses DefaultTurnLimit.
	// In a configuration's game section it is turn_limit.
	TurnLimit int `yaml:"turn_limit"`
}

// Game is Watch Your Back! with fixed options. It implements env.Game.
type Game struct {
	opts Options
	// endgame is the solved endgame (Tablebase), built on first use.
	endgame *Endgame
}

var _ env.Game = (*Game)(nil)

// MaxTurnLimit is the largest TurnLimit New accepts; larger values are
// lowered to it.
const MaxTurnLimit = 1 << 30

// New returns the game with the given options. A negative TurnLimit is
// treated as 0 (no limit) and one above MaxTurnLimit as MaxTurnLimit; New
// with Options{TurnLimit: DefaultTurnLimit} is the training game.
func New(opts Options) *Game {
	opts.TurnLimit = max(0, min(opts.TurnLimit, MaxTurnLimit))
	return &Game{opts: opts, endgame: NewEndgame()}
}

// Options returns the game's options.
func (g *Game) Options() Options { return g.opts }

// Name is "wyb", or "wyb-limitN" for a turn limit N other than the default,
// or "wyb-nolimit" without a limit.
func (g *Game) Name() string {
	switch g.opts.TurnLimit {
	case DefaultTurnLimit:
		return "wyb"
	case 0:
		return "wyb-nolimit"
	}
	return fmt.Sprintf("wyb-limit%d", g.opts.TurnLimit)
}

// NumActions is 577 (see actions.go).
func (g *Game) NumActions() int { return NumActions }

// ObservationShape is NumPlanes x 8 x 8 (see observation.go).
func (g *Game) ObservationShape() env.Shape {
	return env.Shape{Planes: NumPlanes, Height: Size, Width: Size}
}

// EncodingVersion is 2 (version 1 lacked the threat and shrink-square
// planes). Since 2026-11-22 the threat planes of a turn that the shrink
// follows also count the pieces the shrink then eliminates (see
// State.ThreatenedBy); they were blind to them before. The planes keep
// their meaning (the pieces an action eliminates), so networks trained
// earlier read them unchanged; only the two turns before the shrinks
// differ.
func (g *Game) EncodingVersion() int { return 2 }

// MaxGameLength is 24 + TurnLimit, or 0 (unbounded) without a limit.
func (g *Game) MaxGameLength() int {
	if g.opts.TurnLimit == 0 {
		return 0
	}
	return PlacingTurns + g.opts.TurnLimit
}

// NewInitialState returns the empty board before White's first placement,
// as a *State.
func (g *Game) NewInitialState() env.State { return newState(g.opts) }

// NewState is NewInitialState with its concrete type.
func (g *Game) NewState() *State { return newState(g.opts) }

// Symmetries returns only the identity. Watch Your Back! has no exact board
// symmetry:
//   - the vertical flip (y -> 7-y) and the rotations swap or break the
//     starting zones (White rows 0-5, Black rows 2-7) and which colour
//     moves first;
//   - the horizontal mirror (x -> 7-x) keeps the zones, but the shrink
//     places its new corners in the fixed order top-left, bottom-left,
//     bottom-right, top-right, and each corner eliminates pieces on the
//     board left by the previous one; mirrored, the order becomes
//     top-right, bottom-right, bottom-left, top-left, which changes which
//     pieces are eliminated in some positions and so the outcome.
//
// MirrorSymmetry gives the mirror for uses that accept that approximation;
// training must not augment with it.
func (g *Game) Symmetries() []env.Symmetry {
	return []env.Symmetry{env.Identity(NumSquares, NumActions)}
}

// ApproximateSymmetries implements env.ApproximateSymmetries: the mirror
// (MirrorSymmetry), which search may use to average a network's outputs.
func (g *Game) ApproximateSymmetries() []env.Symmetry {
	return []env.Symmetry{MirrorSymmetry()}
}

// MirrorSymmetry is the horizontal mirror x -> 7-x (left and right moves
// swap). It is NOT an exact symmetry of the rules (see Game.Symmetries):
// it differs from the true game only at a shrink where the corner order
// matters.
func MirrorSymmetry() env.Symmetry {
	s := env.Symmetry{Name: "mirror-x (not exact)", Cells: make([]int, NumSquares), Actions: make([]int, NumActions)}
	for sq := 0; sq < NumSquares; sq++ {
		x, y := sq%Size, sq/Size
		s.Cells[sq] = square(Size-1-x, y)
	}
	mirrorDir := [4]int{Up, Down, Right, Left}
	for a := 0; a < NumActions; a++ {
		kind, fx, fy, _, _ := DecodeAction(a)
		switch kind {
		case PlaceKind:
			s.Actions[a] = PlaceAction(Size-1-fx, fy)
		case StepKind, JumpKind:
			dir := ((a - firstMove) / 2) % 4
			s.Actions[a] = MoveAction(Size-1-fx, fy, mirrorDir[dir], kind == JumpKind)
		default:
			s.Actions[a] = a
		}
	}
	return s
}
