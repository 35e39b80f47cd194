package wyb

import (
	"math/bits"
	"slices"
	"sync"

	"github.com/zerokit/zerokit/env"
)

// Endgame is the solved last phase of Watch Your Back! without a turn limit
// (the official referee's rules): the game-theoretic value of every
// position after the second shrink, found by retrograde analysis with this
// package's rules. From then on the board is the inner 4x4 square, whose
// 12 playable squares hold at most 3^12 piece arrangements, and nothing but
// the pieces and the player to move matters (see RepetitionKey), so the
// whole phase fits in a table of 948,508 entries (2 MB), built in about a
// third of a second the first time it is probed.
//
// A position is won for the player to move if some move wins (leaves the
// opponent fewer than 2 pieces with 2 or more of its own) or leads to a
// position lost for the opponent; lost if every move leads to a position
// won for the opponent; otherwise drawn: both sides can keep the game from
// ending, and under the referee's rules it goes on until a player runs out
// of time. Endgame implements env.Tablebase; it is safe for concurrent
// use.
type Endgame struct {
	once sync.Once
	// squares are the 12 playable squares, in increasing order.
	squares [endgameSquares]int
	// corners and live are the board's corners and live squares after the
	// second shrink.
	corners, live uint64
	// offset is the index of the first entry of the positions with w
	// White and b Black pieces (w, b >= 2, w+b <= 12).
	offset [endgameSquares + 1][endgameSquares + 1]int32
	// rank is the rank of a 12-bit mask among the masks with as many bits
	// in increasing order (the combinatorial number system).
	rank [1 << endgameSquares]uint16
	// entries holds one entry per position, two per arrangement of pieces
	// (White to move, then Black): 0 for a draw, else the outcome for the
	// player to move (entryWin or entryLoss) ORed with the number of
	// actions to the end.
	entries []uint16
}

// endgameSquares is the number of playable squares after the second shrink.
const endgameSquares = 12

// Entry outcomes.
const (
	entryWin   uint16 = 1 << 14
	entryLoss  uint16 = 2 << 14
	entryMoves uint16 = 1<<14 - 1
)

var _ env.Tablebase = (*Endgame)(nil)

// NewEndgame returns the table, unbuilt: the first Probe of a position in
// it builds it.
func NewEndgame() *Endgame { return &Endgame{} }

// Tablebase implements env.TablebaseGame: the game's Endgame, shared by
// everything that plays with g, or nil when g has a turn limit. The table
// holds the positions of games without a turn limit (the referee's): with
// a limit the turn counter matters to the end, and Probe reports such
// positions as not in the table.
func (g *Game) Tablebase() env.Tablebase {
	if g.opts.TurnLimit != 0 {
		return nil
	}
	return g.endgame
}

// Probe implements env.Tablebase for the positions of a game without a turn
// limit after the second shrink that are not over; others are not in the
// table.
func (e *Endgame) Probe(s env.State) (value float32, actions int, ok bool) {
	st, isWYB := s.(*State)
	if !isWYB || !st.inEndgame() {
		return 0, 0, false
	}
	value, actions = e.lookup(st.b.pieces, st.mover())
	return value, actions, true
}

// lookup is the table's value of the position with pieces, mover to move,
// for mover, and the actions to the end (0 for a draw); it builds the
// table on first use.
func (e *Endgame) lookup(pieces [2]uint64, mover int) (value float32, actions int) {
	e.once.Do(e.build)
	v := e.entries[e.index(pieces, mover)]
	switch v &^ entryMoves {
	case entryWin:
		return 1, int(v & entryMoves)
	case entryLoss:
		return -1, int(v & entryMoves)
	}
	return 0, 0
}

// compact maps a bitboard of pieces on the playable squares to a 12-bit
// mask (bit k for squares[k]).
func (e *Endgame) compact(m uint64) uint {
	var c uint
	for k, sq := range e.squares {
		c |= uint(m>>uint(sq)&1) << k
	}
	return c
}

// spread is the inverse of compact.
func (e *Endgame) spread(c uint) uint64 {
	var m uint64
	for ; c != 0; c &= c - 1 {
		m |= bit(e.squares[bits.TrailingZeros(c)])
	}
	return m
}

// index is the entry of the position with pieces to move for mover.
func (e *Endgame) index(pieces [2]uint64, mover int) int {
	w, b := e.compact(pieces[WhitePlayer]), e.compact(pieces[BlackPlayer])
	nw, nb := bits.OnesCount(w), bits.OnesCount(b)
	free := packFree(b, w)
	return int(e.offset[nw][nb]) + (int(e.rank[w])*binomial(endgameSquares-nw, nb)+int(e.rank[free]))*2 + mover
}

// packFree maps the 12-bit mask b to a mask over the squares w leaves free:
// bit k for the k-th square not in w. It is the inverse of unpackFree.
func packFree(b, w uint) uint {
	var f uint
	k := 0
	for i := range endgameSquares {
		if w>>i&1 == 0 {
			f |= (b >> i & 1) << k
			k++
		}
	}
	return f
}

// unpackFree maps f, a mask over the squares w leaves free, back to a
// 12-bit mask.
func unpackFree(f, w uint) uint {
	var b uint
	k := 0
	for i := range endgameSquares {
		if w>>i&1 == 0 {
			b |= (f >> k & 1) << i
			k++
		}
	}
	return b
}

// binomial is n choose k.
func binomial(n, k int) int {
	if k < 0 || k > n {
		return 0
	}
	r := 1
	for i := 1; i <= k; i++ {
		r = r * (n - k + i) / i
	}
	return r
}

// build lays out the table and solves it, from the fewest pieces up: a move
// either keeps the numbers of pieces or lowers their sum, so the positions
// a move leaves a class for are solved before the class.
func (e *Endgame) build() {
	b := newBoard()
	b.shrink()
	b.shrink()
	e.corners, e.live = b.corners, b.live
	playable := b.live &^ b.corners
	for k := range e.squares {
		e.squares[k] = bits.TrailingZeros64(playable)
		playable &= playable - 1
	}
	var seen [endgameSquares + 1]uint16
	for m := range e.rank {
		n := bits.OnesCount(uint(m))
		e.rank[m] = seen[n]
		seen[n]++
	}
	size := int32(0)
	for total := 4; total <= endgameSquares; total++ {
		for w := 2; w <= total-2; w++ {
			e.offset[w][total-w] = size
			size += int32(2 * binomial(endgameSquares, w) * binomial(endgameSquares-w, total-w))
		}
	}
	e.entries = make([]uint16, size)
	var sv endgameSolver
	for total := 4; total <= endgameSquares; total++ {
		for w := 2; w <= total-2; w++ {
			sv.solve(e, w, total-w)
		}
	}
}

// endgameSolver holds the scratch space of one class's retrograde
// analysis, reused from class to class.
type endgameSolver struct {
	first, succ    []int32  // in-class successors of position i: succ[first[i]:first[i+1]]
	pfirst, pred   []int32  // in-class predecessors, the same way
	winAt, lossAt  []uint16 // fastest known win; slowest loss so far
	open           []int16  // moves not yet known to lose
	buckets        [][]int32
	legal          []int
	whites, blacks []uint
	fill           []int32
}

// noWin is winAt's "no winning move known".
const noWin = ^uint16(0)

// solve solves the positions with nw White and nb Black pieces.
func (sv *endgameSolver) solve(e *Endgame, nw, nb int) {
	base := int(e.offset[nw][nb])
	// The arrangements in index order: White masks by rank, then Black
	// masks over the free squares by rank.
	sv.whites, sv.blacks = sv.whites[:0], sv.blacks[:0]
	for w := uint(0); w < 1<<endgameSquares; w++ {
		if bits.OnesCount(w) != nw {
			continue
		}
		for f := uint(0); f < 1<<(endgameSquares-nw); f++ {
			if bits.OnesCount(f) != nb {
				continue
			}
			sv.whites = append(sv.whites, w)
			sv.blacks = append(sv.blacks, unpackFree(f, w))
		}
	}
	n := 2 * len(sv.whites)
	sv.first = slices.Grow(sv.first[:0], n+1)[:n+1]
	sv.succ = sv.succ[:0]
	sv.winAt = slices.Grow(sv.winAt[:0], n)[:n]
	sv.lossAt = slices.Grow(sv.lossAt[:0], n)[:n]
	sv.open = slices.Grow(sv.open[:0], n)[:n]
	for i := range n {
		pos := State{
			b: board{
				pieces:  [2]uint64{e.spread(sv.whites[i/2]), e.spread(sv.blacks[i/2])},
				corners: e.corners, live: e.live, shrinks: 2,
			},
			turn:  SecondShrink + 2 + int32(i&1),
			phase: Moving,
		}
		p := pos.mover()
		sv.first[i] = int32(len(sv.succ))
		sv.winAt[i], sv.lossAt[i] = noWin, 0
		sv.legal = pos.LegalActions(sv.legal)
		sv.open[i] = int16(len(sv.legal))
		for _, a := range sv.legal {
			next := pos
			next.apply(a)
			var v uint16 // the entry of next, for its player to move
			switch next.outcome {
			case Ongoing:
				j := e.index(next.b.pieces, next.mover())
				if j-base >= 0 && j-base < n {
					sv.succ = append(sv.succ, int32(j-base))
					continue
				}
				v = e.entries[j]
			case Draw:
				continue
			default:
				v = entryWin // the mover won: its opponent, to move, lost
				if (next.outcome == WhiteWins) == (p == WhitePlayer) {
					v = entryLoss
				}
			}
			d := v&entryMoves + 1
			switch v &^ entryMoves {
			case entryLoss:
				sv.winAt[i] = min(sv.winAt[i], d)
			case entryWin:
				sv.open[i]--
				sv.lossAt[i] = max(sv.lossAt[i], d)
			}
		}
	}
	sv.first[n] = int32(len(sv.succ))
	sv.predecessors(n)

	// Settle the positions in order of their number of actions to the end
	// (a bucket queue): a win in d follows a loss in d-1; a loss in d has
	// every move lead to a win in less than d.
	for d := range sv.buckets {
		sv.buckets[d] = sv.buckets[d][:0]
	}
	push := func(i int32, d uint16) {
		for int(d) >= len(sv.buckets) {
			sv.buckets = append(sv.buckets, nil)
		}
		sv.buckets[d] = append(sv.buckets[d], i)
	}
	for i := range int32(n) {
		switch {
		case sv.winAt[i] != noWin:
			push(i, sv.winAt[i])
		case sv.open[i] == 0:
			push(i, sv.lossAt[i])
		}
	}
	out := e.entries[base : base+n]
	clear(out)
	for d := 0; d < len(sv.buckets); d++ {
		for _, i := range sv.buckets[d] {
			if out[i] != 0 {
				continue
			}
			var won bool
			switch {
			case sv.winAt[i] == uint16(d):
				won = true
			case sv.winAt[i] == noWin && sv.open[i] == 0 && sv.lossAt[i] == uint16(d):
			default:
				continue // pushed earlier with a slower value
			}
			if won {
				out[i] = entryWin | uint16(d)
			} else {
				out[i] = entryLoss | uint16(d)
			}
			for _, j := range sv.pred[sv.pfirst[i]:sv.pfirst[i+1]] {
				if out[j] != 0 {
					continue
				}
				if !won { // j can move to a position lost for the opponent
					if uint16(d+1) < sv.winAt[j] {
						sv.winAt[j] = uint16(d + 1)
						push(j, uint16(d+1))
					}
					continue
				}
				sv.open[j]--
				sv.lossAt[j] = max(sv.lossAt[j], uint16(d+1))
				if sv.open[j] == 0 && sv.winAt[j] == noWin {
					push(j, sv.lossAt[j])
				}
			}
		}
	}
}

// predecessors inverts the successor lists of n positions.
func (sv *endgameSolver) predecessors(n int) {
	sv.pfirst = slices.Grow(sv.pfirst[:0], n+1)[:n+1]
	clear(sv.pfirst)
	for _, j := range sv.succ {
		sv.pfirst[j+1]++
	}
	for i := range n {
		sv.pfirst[i+1] += sv.pfirst[i]
	}
	sv.fill = slices.Grow(sv.fill[:0], n)[:n]
	copy(sv.fill, sv.pfirst[:n])
	sv.pred = slices.Grow(sv.pred[:0], len(sv.succ))[:len(sv.succ)]
	for i := range n {
		for _, j := range sv.succ[sv.first[i]:sv.first[i+1]] {
			sv.pred[sv.fill[j]] = int32(i)
			sv.fill[j]++
		}
	}
}

// ShrinkNow is the table's value, for player, of s's pieces as they would
// stand if the second shrink came now: the shrinks still to come applied
// to s's board (their rings removed, their corners placed and capturing),
// then White to move, as after the real second shrink. It tells what the
// pieces' places are worth at the shrink, and means more the nearer it is.
// ok is false for a state in the placing phase, after the second shrink,
// or over. The turn limit is not looked at: under one the table is not the
// endgame's value (TableMaterial does not use it there).
func (e *Endgame) ShrinkNow(s *State, player int) (value float32, ok bool) {
	if s.phase != Moving || s.outcome != Ongoing || s.b.shrinks >= 2 {
		return 0, false
	}
	b := s.b
	for b.shrinks < 2 {
		b.shrink()
	}
	switch endCheck(&b) {
	case WhiteWins:
		value = 1
	case BlackWins:
		value = -1
	case Draw:
		value = 0
	default:
		value, _ = e.lookup(b.pieces, WhitePlayer)
	}
	if player == BlackPlayer {
		value = -value
	}
	return value, true
}
