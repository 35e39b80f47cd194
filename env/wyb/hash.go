package wyb

import "math/bits"

// zobristPiece[p][sq] is the key of a piece of player p on square sq. The
// table is generated once from a fixed seed and never modified.
var zobristPiece = makeZobrist()

func makeZobrist() (z [2][NumSquares]uint64) {
	x := uint64(0x5742_6f6e_6547_616d) // fixed seed: the hash is reproducible
	for p := range z {
		for sq := range z[p] {
			x += 0x9e3779b97f4a7c15
			z[p][sq] = mix64(x)
		}
	}
	return z
}

// mix64 is the SplitMix64 finaliser, a bijective 64-bit mixer.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Hash is a Zobrist hash of everything that determines the future of the
// game: the pieces (incremental Zobrist keys), the number of shrinks (which
// fixes the corners and removed squares), the phase, the turn counter (which
// fixes the player to move, the pieces placed so far and the time to the
// next shrink), the turn limit and the outcome.
func (s *State) Hash() uint64 {
	return s.b.hash ^ s.metaKey()
}

// metaKey mixes the non-piece fields into one key.
func (s *State) metaKey() uint64 {
	k := uint64(uint32(s.turn)) | uint64(s.phase)<<32 | uint64(s.b.shrinks)<<34 | uint64(s.outcome)<<36
	return mix64(k^0x3c6ef372fe94f82b) ^ mix64(uint64(uint32(s.turnLimit))+0xa54ff53a5f1d36f1)
}

// recomputeHash computes Hash from scratch (used by tests to check the
// incremental updates).
func (s *State) recomputeHash() uint64 {
	var h uint64
	for p := 0; p < 2; p++ {
		for m := s.b.pieces[p]; m != 0; m &= m - 1 {
			h ^= zobristPiece[p][bits.TrailingZeros64(m)]
		}
	}
	return h ^ s.metaKey()
}

// RepetitionKey implements env.RepetitionKeyer. Without a turn limit (rule
// 8) and once the second shrink is done, nothing in the rules depends on
// the turn counter any more: the future is fixed by the pieces and the
// player to move, so a position can recur, and a referee game can cycle
// forever. Before that, or with a limit, ok is false.
func (s *State) RepetitionKey() (key uint64, ok bool) {
	if !s.inEndgame() {
		return 0, false
	}
	return s.b.hash ^ mix64(uint64(s.mover())+0x7265706574697469), true
}

// Locked reports whether s is locked (env.Locker): a game without a turn
// limit after the second shrink in which neither player has a move, so both
// can only forfeit and the board never changes again (a full 4x4 board,
// say); the referee's game then goes on until a clock runs out.
func (s *State) Locked() bool {
	return s.inEndgame() && !s.b.hasMove(0) && !s.b.hasMove(1)
}

// TableDistance implements env.TableDistancer for a game without a turn
// limit (the table's): in the moving phase every line reaches the solved
// endgame at the second shrink, moving turn SecondShrink, if the game has
// not ended before.
func (s *State) TableDistance() (actions int, ok bool) {
	if s.turnLimit != 0 || s.phase != Moving {
		return 0, false
	}
	return max(0, SecondShrink-int(s.turn)), true
}

// Thinking-time weights (TimeWeight).
const (
	// SecondShrinkWeight is the time weight of the moves of the last
	// ShrinkWindow moving turns before the second shrink, where the exact
	// search before the table runs and Black's games were lost.
	SecondShrinkWeight = 3
	// FirstShrinkWeight is that of the last ShrinkWindow/2 turns before
	// the first.
	FirstShrinkWeight = 2
	// ShrinkWindow is the number of moving turns before the second shrink
	// that get SecondShrinkWeight.
	ShrinkWindow = 16
	// EarlyWeight is the time weight of the placing phase and of the
	// moving turns before EarlyTurns, where the shape of the game is set
	// (docs/results.md: the games not won are mostly decided in the
	// placing phase). It gives them about the search's whole simulation
	// budget, as the time manager did before the moves were weighed
	// (with weights 1 they got a fifth less time).
	EarlyWeight = 1.5
	// EarlyTurns is the first moving turn that is not early.
	EarlyTurns = 96
)

// TimeWeight implements env.TimeWeighter: the moves just before a shrink,
// whose squares and new corners decide material, get more time
// (SecondShrinkWeight, FirstShrinkWeight), the placing phase and the
// early moving phase EarlyWeight; every other move 1.
func (s *State) TimeWeight() float64 {
	return movingWeight(s.movingTurn())
}

// movingTurn is the moving turn of s, negative in the placing phase
// (placing turn PlacingTurns+t of the same player precedes moving turn t).
func (s *State) movingTurn() int {
	if s.phase != Moving {
		return int(s.turn) - PlacingTurns
	}
	return int(s.turn)
}

// movingWeight is TimeWeight at moving turn t (negative: placing).
func movingWeight(t int) float64 {
	switch {
	case t >= SecondShrink-ShrinkWindow && t < SecondShrink:
		return SecondShrinkWeight
	case t >= FirstShrink-ShrinkWindow/2 && t < FirstShrink:
		return FirstShrinkWeight
	case t < EarlyTurns:
		return EarlyWeight
	}
	return 1
}

// TimeWeightToGo implements env.TimeWeighter: the weights of the player
// to move's turns from this one up to the second shrink in a game without
// a turn limit (then the table plays: Endgame), up to the turn limit
// otherwise; 0 from the shrink or the limit on, or when the game is over.
func (s *State) TimeWeightToGo() float64 {
	if s.outcome != Ongoing {
		return 0
	}
	end := SecondShrink
	if s.turnLimit != 0 {
		end = int(s.turnLimit)
	}
	// A player's turns are every other one in both phases, and the
	// placing phase's turn count is even.
	var sum float64
	for t := s.movingTurn(); t < end; t += 2 {
		sum += movingWeight(t)
	}
	return sum
}

// inEndgame reports whether s is a game without a turn limit, not over,
// after the second shrink: its future is fixed by the pieces and the
// player to move (RepetitionKey, Endgame).
func (s *State) inEndgame() bool {
	return s.turnLimit == 0 && s.outcome == Ongoing && s.phase == Moving && s.b.shrinks >= 2
}
