package wyb

import (
	"math/bits"

	"github.com/zerokit/zerokit/env"
)

// Watch Your Back! heuristics. Squares are bits y*8+x of Bitboards.

// Material is the greedy player's evaluation (env.Heuristics): the
// function Material.
func (g *Game) Material() env.Heuristic { return env.HeuristicFunc(Material) }

// ShrinkMaterial is Material minus up to DefaultWeights.Shrink per piece
// the next shrink eliminates, rising over the last
// DefaultWeights.ShrinkHorizon turns before it (Weights.Evaluate with every
// other weight 0).
func (g *Game) ShrinkMaterial() env.Heuristic {
	return Weights{Shrink: DefaultWeights.Shrink, ShrinkHorizon: DefaultWeights.ShrinkHorizon}
}

// FinalMaterial is Material plus DefaultFinal per piece on the board the
// second shrink leaves, while that shrink is still to come
// (Weights.Evaluate with every other weight 0): a piece there is worth
// more than one that still has to get there. It implements
// env.FinalHeuristic.
func (g *Game) FinalMaterial() env.Heuristic { return Weights{Final: DefaultFinal} }

// DefaultFinal is FinalMaterial's weight: a piece on the final board
// counts 1.5.
const DefaultFinal = 0.5

// TableMaterial is FinalMaterial plus TablePieces times the solved
// endgame's value, for the player asked, of the pieces as they would stand
// if the second shrink came now (Endgame.ShrinkNow), between the first
// shrink and the second: a side whose pieces would lose the endgame if
// the board shrank now is TablePieces worse off. Before Black's move at
// action 171 (moving turn 147) that value already called 9 of the 17 table
// losses of 194 refereed Black games, and 5 of the other 177
// (docs/results.md, session 26). In a game with a turn limit, or before
// the first shrink, it is FinalMaterial. It implements env.FinalHeuristic.
func (g *Game) TableMaterial() env.Heuristic {
	final := g.FinalMaterial()
	if g.opts.TurnLimit != 0 {
		return final
	}
	e := g.endgame
	return env.HeuristicFunc(func(st env.State, player int) float64 {
		v := final.Evaluate(st, player)
		if s, ok := st.(*State); ok && s.b.shrinks == 1 {
			if t, ok := e.ShrinkNow(s, player); ok {
				v += TablePieces * float64(t)
			}
		}
		return v
	})
}

// TablePieces is what TableMaterial counts the table's win (or loss) of
// the pieces as they stand as: two pieces.
const TablePieces = 2

// Evaluation is the alpha-beta player's evaluation: Tactical with
// DefaultWeights, so the search adds a quiescence search over captures.
func (g *Game) Evaluation() env.Heuristic { return Tactical{Weights: DefaultWeights} }

// Bitboard masks and shifts. up(b) moves every square one row up (y-1),
// and so on; shifts drop squares that would leave the board.
const (
	wybFileA uint64 = 0x0101010101010101 // x == 0
	wybFileH uint64 = 0x8080808080808080 // x == 7
)

func wybUp(b uint64) uint64    { return b >> 8 }
func wybDown(b uint64) uint64  { return b << 8 }
func wybLeft(b uint64) uint64  { return (b &^ wybFileA) >> 1 }
func wybRight(b uint64) uint64 { return (b &^ wybFileH) << 1 }

// wybRings[r] holds the squares at distance r from the board's edge.
var wybRings = func() (r [4]uint64) {
	for y := range 8 {
		for x := range 8 {
			r[min(x, y, 7-x, 7-y)] |= 1 << uint(y*8+x)
		}
	}
	return r
}()

// wybDoomed[k] holds the squares whose pieces the shrink number k+1
// eliminates outright: ring k and the four corners of ring k+1.
var wybDoomed = func() (d [2]uint64) {
	for k := range d {
		lo, hi := k+1, 6-k
		d[k] = wybRings[k]
		for _, c := range [4][2]int{{lo, lo}, {lo, hi}, {hi, hi}, {hi, lo}} {
			d[k] |= 1 << uint(c[1]*8+c[0])
		}
	}
	return d
}()

// wybFinal holds the 12 squares of the board the second shrink leaves: the
// central 4x4 but its corners.
var wybFinal = (wybRings[2] | wybRings[3]) &^ wybDoomed[1]

// wybZones are the placing zones: rows 0-5 for White, 2-7 for Black.
var wybZones = [2]uint64{0x0000ffffffffffff, 0xffffffffffff0000}

// Weights are the weights of the Watch Your Back! evaluation, in pieces.
type Weights struct {
	// Capture is the value of having at least one enemy piece capturable
	// with the next move when it is one's turn; ExtraCapture is added for
	// each further capturable piece.
	Capture, ExtraCapture float64
	// Threatened is the penalty, for the side to move, per own piece the
	// opponent could capture if it were its turn (pieces to defend).
	Threatened float64
	// Centre is the value of a piece per ring it stands in from the edge
	// (0 on the outer ring, up to 3 in the central 2x2).
	Centre float64
	// Shrink is the penalty for a piece the next shrink eliminates (on the
	// ring it removes or a square that becomes a corner), scaled from 0 (ShrinkHorizon or more turns away) to 1 (the
	// shrink is next turn).
	Shrink        float64
	ShrinkHorizon int
	// Mobility is the value of each available step (moving phase only).
	Mobility float64
	// Final is the value of a piece standing on the board the second
	// shrink leaves (the central 4x4 but its four corners), while that
	// shrink is still to come: every other piece must reach one of those
	// 12 squares or be eliminated.
	Final float64
}

// DefaultWeights are the weights Evaluation uses. Capture and
// ExtraCapture are 0 because the alpha-beta player resolves captures by
// quiescence search (Tactical), which measured stronger than the static
// capture bonus (+180 Elo at depth 3 over 40 games); set them (for example
// to 0.7 and 0.2) for searches without quiescence.
var DefaultWeights = Weights{
	Capture:       0,
	ExtraCapture:  0,
	Threatened:    0.25,
	Centre:        0.04,
	Shrink:        0.9,
	ShrinkHorizon: 24,
	Mobility:      0.01,
}

// Material is the Watch Your Back! material balance for player: own
// pieces minus enemy pieces, where pieces still to be placed count as well
// as pieces on the board. Counting the pieces in hand makes the balance
// equal to the difference in pieces lost, so it does not swing by one with
// every placement. It panics if s is not a *State.
func Material(s env.State, player int) float64 {
	w := s.(*State)
	q := 1 - player
	return float64(w.Pieces(player) + w.ToPlace(player) - w.Pieces(q) - w.ToPlace(q))
}

// Evaluation is the Watch Your Back! evaluation with DefaultWeights.
func Evaluation(s env.State, player int) float64 {
	return DefaultWeights.Evaluate(s, player)
}

// Evaluate scores s for player:
//
//   - material (Material);
//   - captures: the player to move gets Capture if it can capture an enemy
//     piece with its next action (and ExtraCapture per further threatened
//     enemy piece), and loses Threatened per own piece the opponent could
//     capture were it to move (the mover may be able to defend only one);
//   - centre control: Centre per piece per ring from the edge;
//   - shrink danger: pieces the next shrink eliminates outright (on the
//     ring it removes or on a square that becomes a corner) lose up to
//     Shrink each, rising linearly over the last ShrinkHorizon turns;
//   - mobility: Mobility per available step in the moving phase.
//
// A capture threat is an own piece with an enemy piece or corner on one side
// and, on the opposite side, an empty square the enemy can reach with one
// action (a placement in its zone while it still has pieces to place, else a
// step or jump). It ignores that the arriving piece might itself be the one
// forming the sandwich, so it slightly over-counts.
//
// The score is computed for White and negated for Black, so it is exactly
// antisymmetric. It panics if s is not a *State.
func (wt Weights) Evaluate(s env.State, player int) float64 {
	w := s.(*State)
	b := w.Board()
	pieces := [2]uint64{b.White, b.Black}
	empty := b.Live &^ (b.White | b.Black | b.Corners)
	placing := w.Phase() == Placing
	mover := w.CurrentPlayer()

	score := float64(w.Pieces(0) + w.ToPlace(0) - w.Pieces(1) - w.ToPlace(1))

	// Threats against each side (skipped when they weigh nothing).
	if mover >= 0 && (wt.Capture != 0 || wt.ExtraCapture != 0 || wt.Threatened != 0) {
		threatened := [2]int{wybThreatened(w, 0), wybThreatened(w, 1)}
		opp := 1 - mover
		var m float64
		if n := threatened[opp]; n > 0 {
			m += wt.Capture + wt.ExtraCapture*float64(n-1)
		}
		m -= wt.Threatened * float64(threatened[mover])
		if mover == 0 {
			score += m
		} else {
			score -= m
		}
	}

	// Centre control.
	for r := 1; r < 4; r++ {
		d := bits.OnesCount64(pieces[0]&wybRings[r]) - bits.OnesCount64(pieces[1]&wybRings[r])
		score += wt.Centre * float64(r*d)
	}

	// Shrink danger.
	if tts := w.TurnsToShrink(); tts >= 0 && tts < wt.ShrinkHorizon && w.Shrinks() < 2 {
		urgency := 1 - float64(tts-1)/float64(wt.ShrinkHorizon)
		doomed := wybDoomed[w.Shrinks()]
		d := bits.OnesCount64(pieces[0]&doomed) - bits.OnesCount64(pieces[1]&doomed)
		score -= wt.Shrink * min(urgency, 1) * float64(d)
	}

	// The board left after the second shrink.
	if wt.Final != 0 && w.Shrinks() < 2 {
		d := bits.OnesCount64(pieces[0]&wybFinal) - bits.OnesCount64(pieces[1]&wybFinal)
		score += wt.Final * float64(d)
	}

	// Mobility.
	if !placing && wt.Mobility != 0 {
		score += wt.Mobility * float64(wybSteps(pieces[0], empty)-wybSteps(pieces[1], empty))
	}

	if player == 1 {
		return -score
	}
	return score
}

// wybReach is the set of empty squares the pieces own can reach with one
// step or one jump over an occupied square.
func wybReach(own, occupied, empty uint64) uint64 {
	r := wybUp(own) | wybDown(own) | wybLeft(own) | wybRight(own)
	r |= wybUp(wybUp(own)&occupied) | wybDown(wybDown(own)&occupied) |
		wybLeft(wybLeft(own)&occupied) | wybRight(wybRight(own)&occupied)
	return r & empty
}

// wybSteps counts the one-square steps available to the pieces own.
func wybSteps(own, empty uint64) int {
	return bits.OnesCount64(wybUp(own)&empty) + bits.OnesCount64(wybDown(own)&empty) +
		bits.OnesCount64(wybLeft(own)&empty) + bits.OnesCount64(wybRight(own)&empty)
}

// Tactical is the Watch Your Back! evaluation with the given weights,
// made Tactical: captures are the tactical actions.
type Tactical struct {
	Weights Weights
}

// Evaluate is Weights.Evaluate.
func (t Tactical) Evaluate(s env.State, player int) float64 {
	return t.Weights.Evaluate(s, player)
}

// HasTactical reports whether the player to move threatens a capture (see
// Weights.Evaluate for the threat test).
func (t Tactical) HasTactical(s env.State) bool {
	w := s.(*State)
	mover := w.CurrentPlayer()
	if mover < 0 {
		return false
	}
	return wybThreatened(w, 1-mover) > 0
}

// IsTactical reports whether the action from s to child captured a piece.
func (t Tactical) IsTactical(s, child env.State) bool {
	w, c := s.(*State), child.(*State)
	q := 1 - w.CurrentPlayer()
	return c.Pieces(q) < w.Pieces(q)
}

// wybThreatened counts player v's pieces that the opponent could capture
// with one action.
func wybThreatened(w *State, v int) int {
	b := w.Board()
	pieces := [2]uint64{b.White, b.Black}
	empty := b.Live &^ (b.White | b.Black | b.Corners)
	a := 1 - v
	var dest uint64
	if w.Phase() == Placing && w.ToPlace(a) > 0 {
		dest = empty & wybZones[a]
	} else {
		dest = wybReach(pieces[a], pieces[0]|pieces[1], empty)
	}
	support := pieces[a] | b.Corners
	t := pieces[v] & (wybRight(support)&wybLeft(dest) | wybLeft(support)&wybRight(dest) |
		wybDown(support)&wybUp(dest) | wybUp(support)&wybDown(dest))
	return bits.OnesCount64(t)
}
