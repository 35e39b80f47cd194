package wyb

// This file holds every rule of Watch Your Back!, as played by the official
// course referee (COMP30024, v1.2, May 2018), plus the one documented rule
// extension (the turn limit). Nothing outside this file decides what is legal
// or what happens on the board; the other files only encode, format and
// parse.
//
// The rules, in the order the referee applies them:
//
//  1. Board. 8x8 squares (x, y) = (column, row), (0,0) top-left; the bit of a
//     square in a bitboard is y*8+x. The four squares (0,0), (7,0), (0,7),
//     (7,7) start as corners. A corner is not a piece: it cannot be placed on,
//     moved onto or jumped over, but it takes part in eliminations as an enemy
//     of both colours.
//
//  2. Turns. White (player 0) moves first in both phases; the player to move
//     is White when the turn counter of the current phase is even. A game has
//     a placing phase of exactly 24 turns (12 each, however many pieces are
//     eliminated meanwhile), after which the counter restarts at 0 for the
//     moving phase.
//
//  3. Placing. The mover puts a new piece on an empty non-corner square of
//     their starting zone: rows 0-5 for White, rows 2-7 for Black. Forfeiting
//     is not allowed in the placing phase.
//
//  4. Moving. The mover moves one of their pieces either one square up, down,
//     left or right onto an empty square (a step), or over an orthogonally
//     adjacent piece of either colour onto the empty square directly beyond it
//     (a jump). Corners and removed squares are never destinations and are
//     never jumped over. A mover with no step and no jump must forfeit (pass);
//     forfeiting is illegal otherwise. A forfeit counts as a turn.
//
//  5. Elimination. After a piece arrives on a square (by placing or moving):
//     first, each of the 4 orthogonal neighbours that holds an enemy piece is
//     eliminated if the square beyond it (seen from the arriving piece) holds
//     a piece of the arriving piece's colour or a corner; only then is the
//     arriving piece itself eliminated if it is sandwiched horizontally
//     (left and right) or vertically (up and down) by enemy pieces or
//     corners. Diagonals never count; the edge of the board and removed
//     squares never count as enemies.
//
//  6. End check. Right after the 24th placement and after every moving-phase
//     turn: a side with fewer than 2 pieces loses; if both have fewer than 2
//     the game is a draw. During the placing phase there is no end check: a
//     side may have 0 pieces on the board and keep placing.
//
//  7. Shrinking. After moving turn 128 and after moving turn 192, unless the
//     game ended on that turn: the outer ring of the live board is removed
//     (pieces on it are eliminated, its corners disappear), then four new
//     corners are placed at the corners of the remaining board in the order
//     top-left, bottom-left, bottom-right, top-right. A piece standing on a
//     new corner square is eliminated; then that corner eliminates each
//     orthogonally neighbouring piece whose square beyond (seen from the
//     corner) holds an enemy of that piece or a corner, exactly as an
//     arriving piece that is the enemy of both colours would (a corner is
//     never eliminated itself). The order matters: each corner sees the
//     board left by the previous one. The end check (rule 6) then runs again.
//
//  8. Turn limit (rule extension, not in the referee). Options.TurnLimit = L
//     > 0: after moving turn L, if the game has not ended (after the end
//     check and any shrink of that turn), the side with more pieces on the
//     board wins and equal counts are a draw. L = 0 disables the limit: the
//     referee has none, and its games can cycle forever (for example both
//     sides forced to forfeit on a full shrunken board). Replay of referee
//     games must use 0; training uses DefaultTurnLimit.

import (
	"fmt"
	"math/bits"
)

// Board geometry and phase lengths.
const (
	// Size is the side of the board.
	Size = 8
	// NumSquares is the number of squares.
	NumSquares = Size * Size
	// PiecesPerPlayer is the number of pieces each player places.
	PiecesPerPlayer = 12
	// PlacingTurns is the length of the placing phase.
	PlacingTurns = 2 * PiecesPerPlayer
	// FirstShrink is the moving-phase turn after which the board first
	// shrinks (to 6x6).
	FirstShrink = 128
	// SecondShrink is the moving-phase turn after which it shrinks again
	// (to 4x4).
	SecondShrink = 192
	// DefaultTurnLimit is the turn limit (rule 8, in moving-phase turns)
	// for training: New(Options{TurnLimit: DefaultTurnLimit}).
	DefaultTurnLimit = 256
)

// Players.
const (
	// WhitePlayer is player 0; White moves first in both phases.
	WhitePlayer = 0
	// BlackPlayer is player 1.
	BlackPlayer = 1
)

// Directions of a move, in the order used by the action encoding.
const (
	// Up is towards row y-1.
	Up = 0
	// Down is towards row y+1.
	Down = 1
	// Left is towards column x-1.
	Left = 2
	// Right is towards column x+1.
	Right = 3
)

// dirDX and dirDY give the displacement of each direction.
var (
	dirDX = [4]int{0, 0, -1, 1}
	dirDY = [4]int{-1, 1, 0, 0}
)

// Bitboard masks (read-only).
const (
	fileA   uint64 = 0x0101010101010101 // x == 0
	fileH   uint64 = 0x8080808080808080 // x == 7
	allBits uint64 = ^uint64(0)

	// initialCorners are (0,0), (7,0), (0,7), (7,7).
	initialCorners uint64 = 1<<0 | 1<<7 | 1<<56 | 1<<63
	// whiteZone is rows 0-5 without the corners; blackZone rows 2-7.
	whiteZone uint64 = (1<<48 - 1) &^ initialCorners
	blackZone uint64 = 0xffffffffffff0000 &^ initialCorners
)

// bit returns the bitboard of square sq.
func bit(sq int) uint64 { return 1 << uint(sq) }

// square returns the index of (x, y).
func square(x, y int) int { return y*Size + x }

// onBoard reports whether (x, y) is one of the 64 squares (removed or not).
func onBoard(x, y int) bool { return x >= 0 && x < Size && y >= 0 && y < Size }

// The whole-board shifts move every square of m one square in a direction;
// squares that would leave the 8x8 board are dropped (no wrap-around from
// one row to the next). They apply a rule to all squares at once: for
// example shiftDown(empty) is the set of squares whose neighbour above is
// empty.

func shiftUp(m uint64) uint64    { return m >> 8 }
func shiftDown(m uint64) uint64  { return m << 8 }
func shiftLeft(m uint64) uint64  { return (m &^ fileA) >> 1 }
func shiftRight(m uint64) uint64 { return (m &^ fileH) << 1 }

// geometry holds per-square neighbour tables, computed once and never
// modified.
type geometry struct {
	// n1[sq][d] is the bit of the neighbour of sq in direction d, n2 the
	// bit two squares away (0 when off the board).
	n1, n2 [NumSquares][4]uint64
	// ring[s] is the set of squares at distance s from the edge.
	ring [4]uint64
}

var geo = newGeometry()

func newGeometry() *geometry {
	g := &geometry{}
	for y := 0; y < Size; y++ {
		for x := 0; x < Size; x++ {
			sq := square(x, y)
			for d := 0; d < 4; d++ {
				if x1, y1 := x+dirDX[d], y+dirDY[d]; onBoard(x1, y1) {
					g.n1[sq][d] = bit(square(x1, y1))
				}
				if x2, y2 := x+2*dirDX[d], y+2*dirDY[d]; onBoard(x2, y2) {
					g.n2[sq][d] = bit(square(x2, y2))
				}
			}
			s := min(x, y, Size-1-x, Size-1-y)
			g.ring[s] |= bit(sq)
		}
	}
	return g
}

// zone returns the starting zone of player p (rule 3).
func zone(p int) uint64 {
	if p == WhitePlayer {
		return whiteZone
	}
	return blackZone
}

// inZoneRow reports whether row y is in player p's starting zone.
func inZoneRow(p, y int) bool {
	if p == WhitePlayer {
		return y <= 5
	}
	return y >= 2
}

// board is the part of a position that rules 1-7 act on.
type board struct {
	pieces  [2]uint64 // pieces of White and Black
	corners uint64    // corner squares
	live    uint64    // squares not removed by shrinking
	hash    uint64    // Zobrist hash of the pieces (incremental)
	shrinks uint8     // number of shrinks so far (0..2)
}

func newBoard() board {
	return board{corners: initialCorners, live: allBits}
}

// empty is the set of squares a piece may be placed or moved onto.
func (b *board) empty() uint64 {
	return b.live &^ (b.pieces[0] | b.pieces[1] | b.corners)
}

// removeSet eliminates player p's pieces on the squares of m (which must
// all hold one).
func (b *board) removeSet(p int, m uint64) {
	b.pieces[p] &^= m
	for ; m != 0; m &= m - 1 {
		b.hash ^= zobristPiece[p][bits.TrailingZeros64(m)]
	}
}

// captured returns the pieces of victims orthogonally next to the square t
// (one bit) whose square beyond, seen from t, is in stabbers (rule 5). The
// four directions are independent: a victim is never the stabber of
// another, so capturing them all at once is the same as one by one.
func captured(t, victims, stabbers uint64) uint64 {
	return victims & (shiftUp(t)&shiftDown(stabbers) |
		shiftDown(t)&shiftUp(stabbers) |
		shiftLeft(t)&shiftRight(stabbers) |
		shiftRight(t)&shiftLeft(stabbers))
}

// sandwiched reports whether the square t (one bit) has enemies on both
// sides horizontally or on both sides vertically (rule 5). The edge of the
// board is never an enemy.
func sandwiched(t, enemies uint64) bool {
	return t&(shiftLeft(enemies)&shiftRight(enemies)|shiftUp(enemies)&shiftDown(enemies)) != 0
}

// arrive applies rule 5 to a piece of player p that has just arrived on
// the square t (one bit): first its captures, then its own elimination.
func (b *board) arrive(p int, t uint64) {
	q := 1 - p
	b.removeSet(q, captured(t, b.pieces[q], b.pieces[p]|b.corners))
	if sandwiched(t, b.pieces[q]|b.corners) {
		b.removeSet(p, t)
	}
}

// cornerArrive applies the corner elimination of rule 7 for a new corner on
// the square c (one bit, already in b.corners): each neighbouring piece is
// eliminated if the square beyond it holds its enemy or a corner. The
// victims of both colours can be found at once: they stand next to the
// corner, never beyond a neighbour.
func (b *board) cornerArrive(c uint64) {
	white := captured(c, b.pieces[WhitePlayer], b.pieces[BlackPlayer]|b.corners)
	black := captured(c, b.pieces[BlackPlayer], b.pieces[WhitePlayer]|b.corners)
	b.removeSet(WhitePlayer, white)
	b.removeSet(BlackPlayer, black)
}

// shrink applies rule 7 (ring removal and new corners, without the end
// check).
func (b *board) shrink() {
	ring := geo.ring[b.shrinks]
	b.removeSet(WhitePlayer, b.pieces[WhitePlayer]&ring)
	b.removeSet(BlackPlayer, b.pieces[BlackPlayer]&ring)
	b.live &^= ring
	b.corners &^= ring
	b.shrinks++
	lo, hi := int(b.shrinks), Size-1-int(b.shrinks)
	for _, c := range [4][2]int{{lo, lo}, {lo, hi}, {hi, hi}, {hi, lo}} { // TL, BL, BR, TR
		m := bit(square(c[0], c[1]))
		b.removeSet(WhitePlayer, b.pieces[WhitePlayer]&m)
		b.removeSet(BlackPlayer, b.pieces[BlackPlayer]&m)
		b.corners |= m
		b.cornerArrive(m)
	}
}

// nextShrink is the set of squares the next shrink (rule 7) takes away
// from play: the ring it removes and the squares that become corners. It is
// empty after the second shrink.
func (b *board) nextShrink() uint64 {
	if b.shrinks >= 2 {
		return 0
	}
	m := geo.ring[b.shrinks]
	lo, hi := int(b.shrinks)+1, Size-2-int(b.shrinks)
	for _, c := range [4][2]int{{lo, lo}, {lo, hi}, {hi, hi}, {hi, lo}} {
		m |= bit(square(c[0], c[1]))
	}
	return m
}

// threats is the set of player q = 1-p's pieces that player p could
// eliminate with one action on this board were it p's turn (rules 3-5): a
// placement when placing is set (and p has a piece to place), else a step or
// a jump. A moving piece never stands behind its own victim: a jump over the
// victim leaves the square beyond it empty.
func (b *board) threats(p int, placing bool) uint64 {
	q := 1 - p
	if placing {
		return captured(b.placeable(p), b.pieces[q], b.pieces[p]|b.corners)
	}
	var ms moveSet
	b.moves(p, &ms)
	var out uint64
	for dir := range 4 {
		for m := ms.has[dir]; m != 0; m &= m - 1 {
			sq := bits.TrailingZeros64(m)
			kind := bitAt(ms.jump[dir], sq)
			to := bit(sq + moveDelta[dir*2+kind])
			out |= captured(to, b.pieces[q], b.pieces[p]&^bit(sq)|b.corners)
		}
	}
	return out
}

// shrinkThreats is threats(p, false) on a board whose next action the
// shrink follows (rule 7): besides what p's step or jump eliminates on
// arrival, the pieces of q = 1-p that the shrink after it eliminates, by a
// new corner and a piece of p on either side, for instance. The pieces on
// the squares the shrink takes away (nextShrink) go whatever p does and are
// left out, unless p's move itself eliminates them. A player without a
// step or jump passes; the shrink alone may still eliminate.
func (b *board) shrinkThreats(p int) uint64 {
	q := 1 - p
	doomed := b.nextShrink()
	var ms moveSet
	b.moves(p, &ms)
	var out uint64
	if ms.any() == 0 {
		c := *b
		c.shrink()
		return b.pieces[q] &^ c.pieces[q] &^ doomed
	}
	for dir := range 4 {
		for m := ms.has[dir]; m != 0; m &= m - 1 {
			sq := bits.TrailingZeros64(m)
			kind := bitAt(ms.jump[dir], sq)
			c := *b
			c.move(p, sq, dir*2+kind)
			out |= b.pieces[q] &^ c.pieces[q]
			if endCheck(&c) != Ongoing {
				continue // the game ends before the shrink (rule 6)
			}
			c.shrink()
			out |= b.pieces[q] &^ c.pieces[q] &^ doomed
		}
	}
	return out
}

// placeable is the set of squares where player p may place (rule 3).
func (b *board) placeable(p int) uint64 { return zone(p) & b.empty() }

// canMove reports whether player p may move the piece on sq in direction
// dir by a step, or by a jump when jump is set (rule 4).
func (b *board) canMove(p, sq, dir int, jump bool) bool {
	if b.pieces[p]&bit(sq) == 0 {
		return false
	}
	if !jump {
		return b.empty()&geo.n1[sq][dir] != 0
	}
	return (b.pieces[0]|b.pieces[1])&geo.n1[sq][dir] != 0 && b.empty()&geo.n2[sq][dir] != 0
}

// place puts a new piece of player p on sq and applies rule 5.
func (b *board) place(p, sq int) {
	b.pieces[p] |= bit(sq)
	b.hash ^= zobristPiece[p][sq]
	b.arrive(p, bit(sq))
}

// moveDelta[dir*2+kind] is the change of square index of a step (kind 0)
// or a jump (kind 1) in direction dir (Up, Down, Left, Right).
var moveDelta = [8]int{-Size, -2 * Size, Size, 2 * Size, -1, -2, 1, 2}

// move moves player p's piece from sq by the move dir*2+kind (a step or a
// jump, see moveDelta) and applies rule 5 at the destination. The move
// must be legal.
func (b *board) move(p, sq, dirKind int) {
	to := sq + moveDelta[dirKind&7]
	b.pieces[p] ^= bit(sq) | bit(to)
	b.hash ^= zobristPiece[p][sq] ^ zobristPiece[p][to]
	b.arrive(p, bit(to))
}

// moveSet is the legal moves of one player (rule 4), by direction: has[d]
// is the set of pieces that can move in direction d and jump[d] those
// among them whose move in that direction is a jump. A step needs an empty
// neighbour and a jump an occupied one, so a piece has at most one move
// per direction.
type moveSet struct {
	has, jump [4]uint64
}

// moves computes player p's legal moves (rule 4) into ms.
func (b *board) moves(p int, ms *moveSet) {
	own := b.pieces[p]
	occ := b.pieces[0] | b.pieces[1]
	e := b.empty()
	// shiftDown(e): squares whose neighbour above is empty;
	// shiftDown(occ & shiftDown(e)): squares whose neighbour above is a
	// piece with an empty square above it. Likewise in the other directions.
	ms.jump[Up] = own & shiftDown(occ&shiftDown(e))
	ms.jump[Down] = own & shiftUp(occ&shiftUp(e))
	ms.jump[Left] = own & shiftRight(occ&shiftRight(e))
	ms.jump[Right] = own & shiftLeft(occ&shiftLeft(e))
	ms.has[Up] = own&shiftDown(e) | ms.jump[Up]
	ms.has[Down] = own&shiftUp(e) | ms.jump[Down]
	ms.has[Left] = own&shiftRight(e) | ms.jump[Left]
	ms.has[Right] = own&shiftLeft(e) | ms.jump[Right]
}

// any is the set of pieces with at least one move.
func (ms *moveSet) any() uint64 {
	return ms.has[Up] | ms.has[Down] | ms.has[Left] | ms.has[Right]
}

// hasMove reports whether player p has at least one step or jump (rule 4).
func (b *board) hasMove(p int) bool {
	var ms moveSet
	b.moves(p, &ms)
	return ms.any() != 0
}

// Outcome is the result of a game.
type Outcome uint8

// Outcomes.
const (
	// Ongoing: the game is not over.
	Ongoing Outcome = iota
	// WhiteWins: Black has fewer than 2 pieces (or fewer pieces at the turn
	// limit).
	WhiteWins
	// BlackWins: White has fewer than 2 pieces (or fewer at the turn limit).
	BlackWins
	// Draw: both have fewer than 2 pieces (or equal counts at the limit).
	Draw
)

// String is the referee's name of the winner: "W", "B" or "draw", and
// "None" while the game is in progress (the referee's winner is None then).
func (o Outcome) String() string {
	switch o {
	case WhiteWins:
		return "W"
	case BlackWins:
		return "B"
	case Draw:
		return "draw"
	}
	return "None"
}

// endCheck applies rule 6.
func endCheck(b *board) Outcome {
	whiteLow, blackLow := fewerThanTwo(b.pieces[0]), fewerThanTwo(b.pieces[1])
	switch {
	case !whiteLow && !blackLow:
		return Ongoing
	case !blackLow:
		return BlackWins
	case !whiteLow:
		return WhiteWins
	}
	return Draw
}

// fewerThanTwo reports whether m has at most one square.
func fewerThanTwo(m uint64) bool { return m&(m-1) == 0 }

// limitOutcome applies rule 8 at the turn limit.
func limitOutcome(b *board) Outcome {
	nw, nb := bits.OnesCount64(b.pieces[0]), bits.OnesCount64(b.pieces[1])
	switch {
	case nw > nb:
		return WhiteWins
	case nb > nw:
		return BlackWins
	}
	return Draw
}

// advance ends a turn (rules 2, 6, 7 and 8): it counts the turn, switches
// to the moving phase after the 24th placement, and runs the end check, the
// shrinks and the turn limit.
func (s *State) advance() {
	s.turn++
	s.moves++
	if s.phase == Placing {
		if s.turn < PlacingTurns {
			return
		}
		s.phase = Moving
		s.turn = 0
	}
	if s.outcome = endCheck(&s.b); s.outcome != Ongoing {
		return
	}
	if s.turn == FirstShrink || s.turn == SecondShrink {
		s.b.shrink()
		if s.outcome = endCheck(&s.b); s.outcome != Ongoing {
			return
		}
	}
	if s.turnLimit > 0 && s.turn >= s.turnLimit {
		s.outcome = limitOutcome(&s.b)
	}
}

// Reason says why an action is illegal. Its String is the kind name used by
// the oracle's invalid-action vectors where one exists.
type Reason uint8

// Reasons an action can be illegal, grouped by the rule they break.
const (
	// ReasonGameOver: the game has already ended.
	ReasonGameOver Reason = iota + 1
	// ReasonOutOfRange: an action index outside [0, NumActions).
	ReasonOutOfRange
	// ReasonMalformed: a referee-form action that is neither [x, y],
	// [[xa, ya], [xb, yb]] with integer coordinates, nor null; or an action
	// of the wrong form for the phase (a move while placing, a place while
	// moving).
	ReasonMalformed
	// ReasonForfeitInPlacing: a forfeit during the placing phase (rule 3).
	ReasonForfeitInPlacing
	// ReasonPlaceOffBoard: a place outside the 8x8 board.
	ReasonPlaceOffBoard
	// ReasonPlaceOutsideZone: a place outside the mover's starting zone.
	ReasonPlaceOutsideZone
	// ReasonPlaceOnCorner: a place on a corner.
	ReasonPlaceOnCorner
	// ReasonPlaceOnOccupied: a place on a piece.
	ReasonPlaceOnOccupied
	// ReasonMoveOffBoard: a move from or to a square outside the 8x8 board.
	ReasonMoveOffBoard
	// ReasonMoveFromRemoved: a move from a square removed by shrinking.
	ReasonMoveFromRemoved
	// ReasonMoveOntoRemoved: a step onto a removed square.
	ReasonMoveOntoRemoved
	// ReasonJumpOntoRemoved: a jump onto a removed square.
	ReasonJumpOntoRemoved
	// ReasonMoveFromEmpty: a move from an empty square.
	ReasonMoveFromEmpty
	// ReasonMoveFromCorner: a move from a corner square.
	ReasonMoveFromCorner
	// ReasonMoveOpponentPiece: a move of the opponent's piece.
	ReasonMoveOpponentPiece
	// ReasonMoveOntoCorner: a move onto a corner.
	ReasonMoveOntoCorner
	// ReasonMoveOntoOccupied: a step onto a piece (or a move to the square it
	// starts from).
	ReasonMoveOntoOccupied
	// ReasonJumpOntoOccupied: a jump onto a piece.
	ReasonJumpOntoOccupied
	// ReasonJumpOverEmpty: a jump over an empty square.
	ReasonJumpOverEmpty
	// ReasonJumpOverCorner: a jump over a corner.
	ReasonJumpOverCorner
	// ReasonMoveDiagonal: a move along a diagonal.
	ReasonMoveDiagonal
	// ReasonMoveTooFar: a move along a row or column by more than 2.
	ReasonMoveTooFar
	// ReasonMoveToDistantSquare: a move to a square on no shared line.
	ReasonMoveToDistantSquare
	// ReasonForfeitWithMoves: a forfeit while a step or jump is available.
	ReasonForfeitWithMoves
	// ReasonWrongPhase: an engine action of the wrong kind for the phase (a
	// place action while moving, a move or forfeit action while placing).
	ReasonWrongPhase
)

var reasonNames = [...]string{
	ReasonGameOver:            "game_over",
	ReasonOutOfRange:          "out_of_range",
	ReasonMalformed:           "malformed",
	ReasonForfeitInPlacing:    "forfeit_in_placing",
	ReasonPlaceOffBoard:       "place_off_board",
	ReasonPlaceOutsideZone:    "place_outside_zone",
	ReasonPlaceOnCorner:       "place_on_corner",
	ReasonPlaceOnOccupied:     "place_on_occupied",
	ReasonMoveOffBoard:        "move_off_board",
	ReasonMoveFromRemoved:     "move_from_removed_square",
	ReasonMoveOntoRemoved:     "move_onto_removed_square",
	ReasonJumpOntoRemoved:     "jump_onto_removed_square",
	ReasonMoveFromEmpty:       "move_from_empty_square",
	ReasonMoveFromCorner:      "move_from_corner",
	ReasonMoveOpponentPiece:   "move_opponent_piece",
	ReasonMoveOntoCorner:      "move_onto_corner",
	ReasonMoveOntoOccupied:    "move_onto_occupied",
	ReasonJumpOntoOccupied:    "jump_onto_occupied",
	ReasonJumpOverEmpty:       "jump_over_empty",
	ReasonJumpOverCorner:      "jump_over_corner",
	ReasonMoveDiagonal:        "move_diagonal",
	ReasonMoveTooFar:          "move_too_far",
	ReasonMoveToDistantSquare: "move_to_distant_square",
	ReasonForfeitWithMoves:    "forfeit_with_moves",
	ReasonWrongPhase:          "wrong_phase",
}

// String names the reason (snake_case, as in the oracle's invalid vectors).
func (r Reason) String() string {
	if int(r) < len(reasonNames) && reasonNames[r] != "" {
		return reasonNames[r]
	}
	return fmt.Sprintf("reason(%d)", r)
}

// ActionError is the error returned for an illegal action. It leaves the
// state unchanged.
type ActionError struct {
	// Reason classifies the problem.
	Reason Reason
	// Msg explains it, naming the squares involved.
	Msg string
}

// Error returns Msg.
func (e *ActionError) Error() string { return e.Msg }

func illegal(r Reason, format string, args ...any) *ActionError {
	return &ActionError{Reason: r, Msg: fmt.Sprintf(format, args...)}
}

// checkPlace validates placing at (x, y) for the player to move, in the
// referee's order: on the board, in the zone, on an empty non-corner square.
// (x, y) may be anything; the caller has already checked the phase.
func (s *State) checkPlace(x, y int) *ActionError {
	p := s.mover()
	if !onBoard(x, y) || s.b.live&bit(square(x, y)) == 0 {
		return illegal(ReasonPlaceOffBoard, "place (%d, %d) is off the board", x, y)
	}
	if !inZoneRow(p, y) {
		return illegal(ReasonPlaceOutsideZone,
			"place (%d, %d) is outside %s's starting zone (rows %s)", x, y, playerName(p), zoneRows(p))
	}
	sq := bit(square(x, y))
	if s.b.corners&sq != 0 {
		return illegal(ReasonPlaceOnCorner, "place (%d, %d) is on a corner", x, y)
	}
	if (s.b.pieces[0]|s.b.pieces[1])&sq != 0 {
		return illegal(ReasonPlaceOnOccupied, "place (%d, %d) is on an occupied square", x, y)
	}
	return nil
}

// checkMove validates moving (xa, ya) -> (xb, yb) for the player to move in
// the referee's order: both squares on the live board, a piece of the mover
// on the first, an empty square at the second, then the geometry (a step, or
// a jump over a piece). The caller has already checked the phase.
func (s *State) checkMove(xa, ya, xb, yb int) *ActionError {
	p := s.mover()
	mv := fmt.Sprintf("(%d, %d) -> (%d, %d)", xa, ya, xb, yb)
	dx, dy := abs(xb-xa), abs(yb-ya)
	jumpShape := (dx == 0 && dy == 2) || (dy == 0 && dx == 2)
	if !onBoard(xa, ya) {
		return illegal(ReasonMoveOffBoard, "move %s starts off the board", mv)
	}
	if !onBoard(xb, yb) {
		if jumpShape {
			return illegal(ReasonMoveOffBoard, "jump %s lands off the board", mv)
		}
		return illegal(ReasonMoveOffBoard, "move %s ends off the board", mv)
	}
	a, b := bit(square(xa, ya)), bit(square(xb, yb))
	if s.b.live&a == 0 {
		return illegal(ReasonMoveFromRemoved, "move %s starts on a square removed by shrinking", mv)
	}
	if s.b.live&b == 0 {
		if jumpShape {
			return illegal(ReasonJumpOntoRemoved, "jump %s lands on a square removed by shrinking", mv)
		}
		return illegal(ReasonMoveOntoRemoved, "move %s ends on a square removed by shrinking", mv)
	}
	switch {
	case s.b.pieces[p]&a != 0:
	case s.b.pieces[1-p]&a != 0:
		return illegal(ReasonMoveOpponentPiece, "move %s starts on a piece of %s's opponent", mv, playerName(p))
	case s.b.corners&a != 0:
		return illegal(ReasonMoveFromCorner, "move %s starts on a corner", mv)
	default:
		return illegal(ReasonMoveFromEmpty, "move %s starts on an empty square", mv)
	}
	switch {
	case s.b.corners&b != 0:
		return illegal(ReasonMoveOntoCorner, "move %s ends on a corner", mv)
	case (s.b.pieces[0]|s.b.pieces[1])&b != 0:
		if jumpShape {
			return illegal(ReasonJumpOntoOccupied, "jump %s lands on an occupied square", mv)
		}
		return illegal(ReasonMoveOntoOccupied, "move %s ends on an occupied square", mv)
	}
	switch {
	case dx+dy == 1:
		return nil
	case jumpShape:
		mid := bit(square((xa+xb)/2, (ya+yb)/2))
		switch {
		case (s.b.pieces[0]|s.b.pieces[1])&mid != 0:
			return nil
		case s.b.corners&mid != 0:
			return illegal(ReasonJumpOverCorner, "jump %s is over a corner", mv)
		case s.b.live&mid == 0:
			return illegal(ReasonJumpOverEmpty, "jump %s is over a removed square", mv)
		}
		return illegal(ReasonJumpOverEmpty, "jump %s is over an empty square", mv)
	case dx == dy:
		return illegal(ReasonMoveDiagonal, "move %s is diagonal", mv)
	case dx == 0 || dy == 0:
		return illegal(ReasonMoveTooFar, "move %s goes %d squares (at most 2)", mv, dx+dy)
	}
	return illegal(ReasonMoveToDistantSquare, "move %s is neither a step nor a jump", mv)
}

// checkForfeit validates a forfeit in the moving phase (rule 4).
func (s *State) checkForfeit() *ActionError {
	if s.b.hasMove(s.mover()) {
		return illegal(ReasonForfeitWithMoves, "%s tried to forfeit but has a legal move", playerName(s.mover()))
	}
	return nil
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func playerName(p int) string {
	if p == WhitePlayer {
		return "White"
	}
	return "Black"
}

func zoneRows(p int) string {
	if p == WhitePlayer {
		return "0-5"
	}
	return "2-7"
}
