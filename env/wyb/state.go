package wyb

import (
	"math/bits"
	"slices"

	"github.com/zerokit/zerokit/env"
)

// Phase is the phase of the game.
type Phase uint8

// Phases.
const (
	// Placing is the placing phase (24 turns).
	Placing Phase = iota
	// Moving is the moving phase; finished games are in this phase too.
	Moving
)

// String is the referee's name of the phase.
func (p Phase) String() string {
	if p == Placing {
		return "placing"
	}
	return "moving"
}

// Cell is the content of one square.
type Cell uint8

// Cell contents.
const (
	// Empty is a live square with no piece and no corner.
	Empty Cell = iota
	// White is a White piece.
	White
	// Black is a Black piece.
	Black
	// Corner is a corner square.
	Corner
	// Removed is a square removed by shrinking.
	Removed
)

// Bitboards is the raw board: one bit per square, bit y*8+x.
type Bitboards struct {
	// White and Black are the squares holding each side's pieces.
	White, Black uint64
	// Corners are the corner squares.
	Corners uint64
	// Live are the squares not removed by shrinking.
	Live uint64
}

// State is a position of Watch Your Back!. It is a plain value: copying it
// (or Clone) gives an independent state. The zero value is not a valid
// state; use Game.NewState or Game.NewInitialState.
type State struct {
	b         board
	turn      int32   // turn within the current phase
	moves     int32   // actions applied since the initial state
	turnLimit int32   // rule 8; 0 = no limit
	phase     Phase   // Placing or Moving
	outcome   Outcome // Ongoing until the game ends
}

var _ env.State = (*State)(nil)

func newState(opts Options) *State {
	return &State{b: newBoard(), turnLimit: int32(opts.TurnLimit)}
}

// mover is the player to move (also defined when the game is over).
func (s *State) mover() int { return int(s.turn & 1) }

// CurrentPlayer is 0 (White) or 1 (Black), or -1 once the game is over.
func (s *State) CurrentPlayer() int {
	if s.outcome != Ongoing {
		return -1
	}
	return s.mover()
}

// LegalActions appends the legal actions in increasing order to dst[:0].
func (s *State) LegalActions(dst []int) []int {
	dst = dst[:0]
	if s.outcome != Ongoing {
		return dst
	}
	p := s.mover()
	if s.phase == Placing {
		m := s.b.placeable(p)
		dst = slices.Grow(dst, bits.OnesCount64(m))
		for ; m != 0; m &= m - 1 {
			dst = append(dst, bits.TrailingZeros64(m))
		}
		return dst
	}
	// Move action 64 + sq*8 + k (k = dir*2 + kind) is bit (sq%8)*8 + k of
	// word sq/8 of a 512-bit set, one word per board row. For row y, the
	// row bytes of the 8 masks form an 8x8 bit matrix (byte k = mask k);
	// its transpose is that word, and reading its bits gives the actions
	// in increasing order.
	f := s.b.moveSources(p)
	u := f[0] | f[1] | f[2] | f[3] | f[4] | f[5] | f[6] | f[7]
	if u == 0 {
		return append(dst, PassAction)
	}
	for y := 0; y < Size; y++ {
		sh := uint(y * 8)
		if (u>>sh)&0xff == 0 {
			continue
		}
		w := transpose8(f[0]>>sh&0xff | (f[1]>>sh&0xff)<<8 | (f[2]>>sh&0xff)<<16 | (f[3]>>sh&0xff)<<24 |
			(f[4]>>sh&0xff)<<32 | (f[5]>>sh&0xff)<<40 | (f[6]>>sh&0xff)<<48 | (f[7]>>sh&0xff)<<56)
		base := firstMove + y<<6
		for ; w != 0; w &= w - 1 {
			dst = append(dst, base+bits.TrailingZeros64(w))
		}
	}
	return dst
}

// NthLegal returns LegalActions()[k] without listing the actions (a
// uniformly random legal action is NthLegal(rng.IntN(NumLegal()))), or -1
// when k is outside [0, NumLegal()).
func (s *State) NthLegal(k int) int {
	if s.outcome != Ongoing || k < 0 {
		return -1
	}
	p := s.mover()
	if s.phase == Placing {
		return selectBit(s.b.placeable(p), k)
	}
	f := s.b.moveSources(p)
	u := f[0] | f[1] | f[2] | f[3] | f[4] | f[5] | f[6] | f[7]
	if u == 0 {
		if k == 0 {
			return PassAction
		}
		return -1
	}
	for y := 0; y < Size; y++ {
		sh := uint(y * 8)
		if (u>>sh)&0xff == 0 {
			continue
		}
		w := transpose8(f[0]>>sh&0xff | (f[1]>>sh&0xff)<<8 | (f[2]>>sh&0xff)<<16 | (f[3]>>sh&0xff)<<24 |
			(f[4]>>sh&0xff)<<32 | (f[5]>>sh&0xff)<<40 | (f[6]>>sh&0xff)<<48 | (f[7]>>sh&0xff)<<56)
		if c := bits.OnesCount64(w); k >= c {
			k -= c
			continue
		}
		return firstMove + y<<6 + selectBit(w, k)
	}
	return -1
}

// selectBit returns the index of the k-th (from 0) set bit of w, or -1.
func selectBit(w uint64, k int) int {
	for b := uint(0); b < 64; b += 8 {
		c := bits.OnesCount64(w >> b & 0xff)
		if k >= c {
			k -= c
			continue
		}
		m := w >> b & 0xff
		for ; k > 0; k-- {
			m &= m - 1
		}
		return int(b) + bits.TrailingZeros64(m)
	}
	return -1
}

// transpose8 transposes the 8x8 bit matrix whose row i is byte i of x and
// column j bit j of each byte: bit 8i+j moves to bit 8j+i.
func transpose8(x uint64) uint64 {
	t := (x ^ (x >> 7)) & 0x00aa00aa00aa00aa
	x ^= t ^ (t << 7)
	t = (x ^ (x >> 14)) & 0x0000cccc0000cccc
	x ^= t ^ (t << 14)
	t = (x ^ (x >> 28)) & 0x00000000f0f0f0f0
	x ^= t ^ (t << 28)
	return x
}

// NumLegal returns the number of legal actions (len of LegalActions) without
// listing them.
func (s *State) NumLegal() int {
	if s.outcome != Ongoing {
		return 0
	}
	p := s.mover()
	if s.phase == Placing {
		return bits.OnesCount64(s.b.placeable(p))
	}
	f := s.b.moveSources(p)
	n := 0
	for _, m := range f {
		n += bits.OnesCount64(m)
	}
	if n == 0 {
		return 1
	}
	return n
}

// IsLegal reports whether action a may be applied now.
func (s *State) IsLegal(a int) bool {
	if s.outcome != Ongoing || a < 0 || a >= NumActions {
		return false
	}
	p := s.mover()
	switch {
	case a < firstMove:
		return s.phase == Placing && s.b.placeable(p)&bit(a) != 0
	case s.phase == Placing:
		return false
	case a == PassAction:
		return !s.b.hasMove(p)
	}
	m := a - firstMove
	return s.b.canMove(p, m>>3, (m>>1)&3, m&1 == 1)
}

// ApplyAction plays a for the player to move. An illegal action returns an
// *ActionError naming the reason and leaves the state unchanged.
func (s *State) ApplyAction(a int) error {
	if !s.IsLegal(a) {
		return s.whyIllegal(a)
	}
	s.apply(a)
	return nil
}

// apply plays a legal action.
func (s *State) apply(a int) {
	p := s.mover()
	switch {
	case a < firstMove:
		s.b.place(p, a)
	case a == PassAction:
	default:
		m := a - firstMove
		s.b.move(p, m>>3, (m>>1)&3, m&1 == 1)
	}
	s.advance()
}

// whyIllegal explains why a is illegal, using the rules' checks.
func (s *State) whyIllegal(a int) error {
	if s.outcome != Ongoing {
		return illegal(ReasonGameOver, "the game is over (%s)", s.outcomeText())
	}
	kind, fx, fy, tx, ty := DecodeAction(a)
	var err *ActionError
	switch kind {
	case InvalidKind:
		err = illegal(ReasonOutOfRange, "action %d is outside [0, %d)", a, NumActions)
	case PlaceKind:
		if s.phase != Placing {
			err = illegal(ReasonWrongPhase, "cannot place (%d, %d) in the moving phase", fx, fy)
		} else {
			err = s.checkPlace(fx, fy)
		}
	case StepKind, JumpKind:
		if s.phase != Moving {
			err = illegal(ReasonWrongPhase, "cannot move (%d, %d) -> (%d, %d) in the placing phase", fx, fy, tx, ty)
		} else {
			err = s.checkMove(fx, fy, tx, ty)
		}
	case PassKind:
		if s.phase != Moving {
			err = illegal(ReasonForfeitInPlacing, "cannot forfeit in the placing phase")
		} else {
			err = s.checkForfeit()
		}
	}
	if err == nil {
		// IsLegal and the detailed checks disagree: a bug in this package.
		panic("wyb: internal error: action " + FormatAction(a) + " rejected without a reason")
	}
	return err
}

// Clone returns an independent copy.
func (s *State) Clone() env.State {
	c := *s
	return &c
}

// IsTerminal reports whether the game is over.
func (s *State) IsTerminal() bool { return s.outcome != Ongoing }

// Outcome returns the result so far (Ongoing until the game ends).
func (s *State) Outcome() Outcome { return s.outcome }

// Returns gives +1/-1/0 to each player once the game is over.
func (s *State) Returns() [2]float32 {
	switch s.outcome {
	case WhiteWins:
		return [2]float32{1, -1}
	case BlackWins:
		return [2]float32{-1, 1}
	}
	return [2]float32{}
}

// MoveNumber is the number of actions applied since the initial state.
func (s *State) MoveNumber() int { return int(s.moves) }

// Phase is the current phase (Moving once the game is over).
func (s *State) Phase() Phase { return s.phase }

// Turn is the turn counter within the current phase (the referee's
// "turns"): the number of turns already played in this phase.
func (s *State) Turn() int { return int(s.turn) }

// TurnLimit is the state's turn limit (rule 8), 0 for none.
func (s *State) TurnLimit() int { return int(s.turnLimit) }

// Shrinks is the number of times the board has shrunk (0, 1 or 2).
func (s *State) Shrinks() int { return int(s.b.shrinks) }

// TurnsToShrink is the number of turns still to be played before the next
// shrink: in the moving phase 128 or 192 minus Turn(); in the placing phase
// the placing turns left plus 128. It is -1 after the second shrink or when
// the game is over.
func (s *State) TurnsToShrink() int {
	switch {
	case s.outcome != Ongoing:
		return -1
	case s.phase == Placing:
		return PlacingTurns - int(s.turn) + FirstShrink
	case s.turn < FirstShrink:
		return FirstShrink - int(s.turn)
	case s.turn < SecondShrink:
		return SecondShrink - int(s.turn)
	}
	return -1
}

// Pieces is the number of player p's pieces on the board.
func (s *State) Pieces(p int) int { return bits.OnesCount64(s.b.pieces[p&1]) }

// Placed is the number of pieces player p has placed so far (eliminated
// ones included).
func (s *State) Placed(p int) int {
	if s.phase != Placing {
		return PiecesPerPlayer
	}
	// White places on even turns, Black on odd ones.
	if p == WhitePlayer {
		return (int(s.turn) + 1) / 2
	}
	return int(s.turn) / 2
}

// ToPlace is the number of pieces player p has still to place.
func (s *State) ToPlace(p int) int { return PiecesPerPlayer - s.Placed(p) }

// At returns the content of square (x, y); squares off the 8x8 board are
// Removed.
func (s *State) At(x, y int) Cell {
	if !onBoard(x, y) {
		return Removed
	}
	m := bit(square(x, y))
	switch {
	case s.b.live&m == 0:
		return Removed
	case s.b.corners&m != 0:
		return Corner
	case s.b.pieces[0]&m != 0:
		return White
	case s.b.pieces[1]&m != 0:
		return Black
	}
	return Empty
}

// Board returns the bitboards.
func (s *State) Board() Bitboards {
	return Bitboards{White: s.b.pieces[0], Black: s.b.pieces[1], Corners: s.b.corners, Live: s.b.live}
}

// ActionString formats a in the human notation (see FormatAction).
func (s *State) ActionString(a int) string { return FormatAction(a) }

// ParseAction reads an action in the human notation (see ParseNotation).
func (s *State) ParseAction(str string) (int, error) { return ParseNotation(str) }

func (s *State) outcomeText() string {
	switch s.outcome {
	case WhiteWins:
		return "White won"
	case BlackWins:
		return "Black won"
	case Draw:
		return "draw"
	}
	return "in progress"
}
