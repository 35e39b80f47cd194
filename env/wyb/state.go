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

// maxLegal bounds the number of legal actions: at most 46 places (a
// starting zone has 46 squares), at most 48 moves (12 pieces with at most
// one move per direction), or the single forfeit.
const maxLegal = 48

// LegalActions appends the legal actions in increasing order to dst[:0].
func (s *State) LegalActions(dst []int) []int {
	dst = dst[:0]
	if s.outcome != Ongoing {
		return dst
	}
	p := s.mover()
	if s.phase == Placing {
		m := s.b.placeable(p)
		dst = slices.Grow(dst, bits.OnesCount64(m))[:bits.OnesCount64(m)]
		for i := range dst {
			dst[i] = bits.TrailingZeros64(m)
			m &= m - 1
		}
		return dst
	}
	var ms moveSet
	s.b.moves(p, &ms)
	u := ms.any()
	if u == 0 {
		return append(dst, PassAction)
	}
	// Move action 64 + sq*8 + dir*2 + kind: listing the pieces in order
	// of squares and each piece's moves in order of directions gives the
	// actions in increasing order. Each direction's action is written
	// unconditionally and kept (n advanced) only when legal, which avoids
	// unpredictable branches.
	buf := (*[maxLegal + 1]int)(slices.Grow(dst, maxLegal+1)[:maxLegal+1])
	n := 0
	for ; u != 0; u &= u - 1 {
		sq := bits.TrailingZeros64(u)
		a := firstMove + sq*8
		buf[n] = a + 2*Up + bitAt(ms.jump[Up], sq)
		n += bitAt(ms.has[Up], sq)
		buf[n] = a + 2*Down + bitAt(ms.jump[Down], sq)
		n += bitAt(ms.has[Down], sq)
		buf[n] = a + 2*Left + bitAt(ms.jump[Left], sq)
		n += bitAt(ms.has[Left], sq)
		buf[n] = a + 2*Right + bitAt(ms.jump[Right], sq)
		n += bitAt(ms.has[Right], sq)
	}
	return buf[:n]
}

// bitAt returns bit sq of m (sq in [0, 64)) as 0 or 1.
func bitAt(m uint64, sq int) int { return int(m >> (uint(sq) & 63) & 1) }

// moveAction is the action moving the piece on sq in direction dir, a
// jump when bit sq of jump is set and a step otherwise.
func moveAction(sq, dir int, jump uint64) int {
	return firstMove + sq*8 + 2*dir + bitAt(jump, sq)
}

// NthLegal returns LegalActions()[k] without listing the actions, or -1
// when k is outside [0, NumLegal()). (To pick a random action, RandomLegal
// is faster.)
func (s *State) NthLegal(k int) int {
	if s.outcome != Ongoing || k < 0 {
		return -1
	}
	p := s.mover()
	if s.phase == Placing {
		m := s.b.placeable(p)
		if k >= bits.OnesCount64(m) {
			return -1
		}
		return selectBit(m, k)
	}
	var ms moveSet
	s.b.moves(p, &ms)
	u := ms.any()
	if u == 0 {
		if k == 0 {
			return PassAction
		}
		return -1
	}
	// Skip whole pieces (in order of squares) until the one holding the
	// k-th action, then pick among its directions.
	for ; u != 0; u &= u - 1 {
		sq := bits.TrailingZeros64(u)
		dirs := bitAt(ms.has[Up], sq) | bitAt(ms.has[Down], sq)<<1 |
			bitAt(ms.has[Left], sq)<<2 | bitAt(ms.has[Right], sq)<<3
		if c := bits.OnesCount8(uint8(dirs)); k >= c {
			k -= c
			continue
		}
		dir := int(selectInByte[dirs][k&7])
		return moveAction(sq, dir, ms.jump[dir&3])
	}
	return -1
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
	var ms moveSet
	s.b.moves(p, &ms)
	n := bits.OnesCount64(ms.has[Up]) + bits.OnesCount64(ms.has[Down]) +
		bits.OnesCount64(ms.has[Left]) + bits.OnesCount64(ms.has[Right])
	if n == 0 {
		return 1 // the forfeit
	}
	return n
}

// RandomLegal returns a legal action chosen by the random word r, or -1
// when the game is over: with r uniform on [0, 2^64), every legal action
// has probability 1/NumLegal() (up to a bias below 2^-58). It is the fast
// way to pick a random action: it lists nothing and needs one random word.
// The choice is action number ⌊r·NumLegal()/2^64⌋ of an internal order
// (not LegalActions' order while moving).
func (s *State) RandomLegal(r uint64) int {
	if s.outcome != Ongoing {
		return -1
	}
	p := s.mover()
	if s.phase == Placing {
		m := s.b.placeable(p)
		k, _ := bits.Mul64(r, uint64(bits.OnesCount64(m)))
		return selectBit(m, int(k))
	}
	var ms moveSet
	s.b.moves(p, &ms)
	// The internal order: the moves up, then down, left and right, each
	// in order of squares. c[d] counts the moves before direction d.
	var c [5]int
	c[1] = bits.OnesCount64(ms.has[Up])
	c[2] = c[1] + bits.OnesCount64(ms.has[Down])
	c[3] = c[2] + bits.OnesCount64(ms.has[Left])
	c[4] = c[3] + bits.OnesCount64(ms.has[Right])
	if c[4] == 0 {
		return PassAction
	}
	hi, _ := bits.Mul64(r, uint64(c[4]))
	k := int(hi)
	dir := b2i(k >= c[1]) + b2i(k >= c[2]) + b2i(k >= c[3])
	sq := selectBit(ms.has[dir], k-c[dir])
	return moveAction(sq, dir, ms.jump[dir])
}

// b2i is 1 for true and 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// PlayRandom plays the action RandomLegal(r) and returns it, or returns -1
// and changes nothing when the game is over. A random playout is
// `for !s.IsTerminal() { s.PlayRandom(rng.Uint64()) }`.
func (s *State) PlayRandom(r uint64) int {
	a := s.RandomLegal(r)
	if a >= 0 {
		s.apply(a)
	}
	return a
}

// selectInByte[b][k] is the index of the k-th (from 0) set bit of the byte
// b, or 8 when b has at most k set bits. Computed once, never modified.
var selectInByte = func() (t [256][8]uint8) {
	for b := range t {
		k := 0
		for i := 0; i < 8; i++ {
			t[b][i] = 8
			if b>>i&1 == 1 {
				t[b][k] = uint8(i)
				k++
			}
		}
	}
	return t
}()

// selectBit returns the index of the k-th (from 0) set bit of w, where
// 0 <= k < bits.OnesCount64(w).
func selectBit(w uint64, k int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	// c: the number of set bits of each byte of w; prefix: byte i holds
	// the number of set bits in bytes 0..i (at most 64, so no carries).
	c := w - (w>>1)&0x5555555555555555
	c = c&0x3333333333333333 + (c>>2)&0x3333333333333333
	c = (c + c>>4) & 0x0f0f0f0f0f0f0f0f
	prefix := c * ones
	// The k-th bit is in the first byte whose prefix exceeds k: adding
	// 127-k to each byte sets its high bit exactly there and after (at
	// most 64+127, so no carries between bytes).
	// (The masks & 63 and & 7 change nothing for valid input; they only
	// spare bounds and shift-range checks.)
	i := uint(bits.TrailingZeros64((prefix+(0x7f-uint64(k&63))*ones)&highs)-7) & 63
	before := int(prefix << 8 >> i & 0xff)
	return int(i) + int(selectInByte[w>>i&0xff][(k-before)&7])
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
	case a < PassAction:
		m := a - firstMove
		s.b.move(p, m>>3, m&7)
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
