package wyb

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"
)

// Referee format. The official referee exchanges actions as Python values,
// written here in JSON: [x, y] places a piece, [[xa, ya], [xb, yb]] moves
// one, null forfeits. Like the referee (where isinstance(True, int) holds),
// JSON true and false count as the integers 1 and 0; numbers written with a
// fraction or an exponent (2.0, 2e0) are floats and make the action
// malformed, as do arrays of the wrong length and any other JSON value.

// refKind is the shape of a referee-form action.
type refKind uint8

const (
	refMalformed refKind = iota
	refNull
	refPlace
	refMove
)

// refCoord is one coordinate: an integer, possibly far outside int range.
type refCoord struct {
	v   int
	big bool // outside [-1<<30, 1<<30]: certainly off the board
}

// refAction is a parsed referee-form action.
type refAction struct {
	kind refKind
	c    [4]refCoord // x, y (place) or xa, ya, xb, yb (move)
	text string      // compact JSON of the action, for messages
}

var intLiteral = regexp.MustCompile(`^-?(0|[1-9][0-9]*)$`)

// parseRef classifies a referee-form action. It never fails: anything that
// is not one of the three shapes is refMalformed.
func parseRef(raw []byte) refAction {
	var buf bytes.Buffer
	text := strings.TrimSpace(string(raw))
	if json.Compact(&buf, raw) == nil {
		text = buf.String()
	}
	r := refAction{text: text}
	if !json.Valid(raw) {
		return r
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return r
	}
	if v == nil {
		r.kind = refNull
		return r
	}
	if x, y, ok := pair(v); ok {
		r.kind, r.c[0], r.c[1] = refPlace, x, y
		return r
	}
	arr, ok := v.([]any)
	if !ok || len(arr) != 2 {
		return r
	}
	xa, ya, ok1 := pair(arr[0])
	xb, yb, ok2 := pair(arr[1])
	if !ok1 || !ok2 {
		return r
	}
	r.kind, r.c = refMove, [4]refCoord{xa, ya, xb, yb}
	return r
}

// pair reads [int, int].
func pair(v any) (x, y refCoord, ok bool) {
	arr, isArr := v.([]any)
	if !isArr || len(arr) != 2 {
		return x, y, false
	}
	x, okx := coord(arr[0])
	y, oky := coord(arr[1])
	return x, y, okx && oky
}

// coord reads a Python int from a decoded JSON value.
func coord(v any) (refCoord, bool) {
	switch t := v.(type) {
	case bool:
		if t {
			return refCoord{v: 1}, true
		}
		return refCoord{v: 0}, true
	case json.Number:
		s := string(t)
		if !intLiteral.MatchString(s) {
			return refCoord{}, false
		}
		n, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return refCoord{}, false
		}
		if n.IsInt64() && n.Int64() >= -1<<30 && n.Int64() <= 1<<30 {
			return refCoord{v: int(n.Int64())}, true
		}
		return refCoord{v: -1, big: true}, true
	}
	return refCoord{}, false
}

// ParseRefereeAction converts a referee-form action (JSON [x, y],
// [[xa, ya], [xb, yb]] or null) to an engine action without looking at any
// position: null is PassAction, a place must be on the 8x8 board, and a move
// must join two squares of the board by a step or a straight two-square
// jump. Errors are *ActionError with reason ReasonMalformed,
// ReasonPlaceOffBoard, ReasonMoveOffBoard, ReasonMoveDiagonal,
// ReasonMoveTooFar or ReasonMoveToDistantSquare. Whether the action is legal
// in a position is for State.ApplyAction (or State.RefereeAction) to decide.
func ParseRefereeAction(raw []byte) (int, error) {
	r := parseRef(raw)
	switch r.kind {
	case refNull:
		return PassAction, nil
	case refPlace:
		x, y := r.c[0].v, r.c[1].v
		if r.c[0].big || r.c[1].big || !onBoard(x, y) {
			return 0, illegal(ReasonPlaceOffBoard, "place %s is off the board", r.text)
		}
		return PlaceAction(x, y), nil
	case refMove:
		for _, c := range r.c {
			if c.big {
				return 0, illegal(ReasonMoveOffBoard, "move %s leaves the board", r.text)
			}
		}
		xa, ya, xb, yb := r.c[0].v, r.c[1].v, r.c[2].v, r.c[3].v
		if !onBoard(xa, ya) || !onBoard(xb, yb) {
			return 0, illegal(ReasonMoveOffBoard, "move %s leaves the board", r.text)
		}
		if a, ok := moveFromSquares(xa, ya, xb, yb); ok {
			return a, nil
		}
		dx, dy := abs(xb-xa), abs(yb-ya)
		switch {
		case dx == dy && dx != 0:
			return 0, illegal(ReasonMoveDiagonal, "move %s is diagonal", r.text)
		case dx == 0 && dy == 0:
			return 0, illegal(ReasonMoveOntoOccupied, "move %s does not leave its square", r.text)
		case dx == 0 || dy == 0:
			return 0, illegal(ReasonMoveTooFar, "move %s goes %d squares (at most 2)", r.text, dx+dy)
		}
		return 0, illegal(ReasonMoveToDistantSquare, "move %s is neither a step nor a jump", r.text)
	}
	return 0, illegal(ReasonMalformed, "malformed action %s: want [x, y], [[xa, ya], [xb, yb]] or null", r.text)
}

// RefereeAction formats engine action a in the referee's form: "[3, 4]" for
// a place, "[[3, 4], [3, 5]]" for a move, "null" for a pass. Indices outside
// the action space and moves leaving the board give an empty string.
func RefereeAction(a int) string {
	kind, fx, fy, tx, ty := DecodeAction(a)
	switch kind {
	case PlaceKind:
		return fmt.Sprintf("[%d, %d]", fx, fy)
	case StepKind, JumpKind:
		if !onBoard(tx, ty) {
			return ""
		}
		return fmt.Sprintf("[[%d, %d], [%d, %d]]", fx, fy, tx, ty)
	case PassKind:
		return "null"
	}
	return ""
}

// RefereeAction validates a referee-form action against this position
// exactly as the referee does, in the referee's order, and returns the
// engine action to apply. An illegal or malformed action gives an
// *ActionError whose reason and message name the problem precisely; the
// referee rejects exactly the same actions.
func (s *State) RefereeAction(raw []byte) (int, error) {
	if s.outcome != Ongoing {
		return 0, illegal(ReasonGameOver, "the game is over (%s)", s.outcomeText())
	}
	r := parseRef(raw)
	if s.phase == Placing {
		switch r.kind {
		case refNull:
			return 0, illegal(ReasonForfeitInPlacing, "cannot forfeit in the placing phase (invalid place action representation: null)")
		case refPlace:
		default:
			return 0, illegal(ReasonMalformed, "invalid place action representation: %s (want [x, y])", r.text)
		}
		if r.c[0].big || r.c[1].big {
			return 0, illegal(ReasonPlaceOffBoard, "place %s is off the board", r.text)
		}
		x, y := r.c[0].v, r.c[1].v
		if err := s.checkPlace(x, y); err != nil {
			return 0, err
		}
		return PlaceAction(x, y), nil
	}
	switch r.kind {
	case refNull:
		if err := s.checkForfeit(); err != nil {
			return 0, err
		}
		return PassAction, nil
	case refMove:
	default:
		return 0, illegal(ReasonMalformed, "invalid move action representation: %s (want [[xa, ya], [xb, yb]] or null)", r.text)
	}
	for _, c := range r.c {
		if c.big {
			return 0, illegal(ReasonMoveOffBoard, "move %s leaves the board", r.text)
		}
	}
	xa, ya, xb, yb := r.c[0].v, r.c[1].v, r.c[2].v, r.c[3].v
	if err := s.checkMove(xa, ya, xb, yb); err != nil {
		return 0, err
	}
	a, ok := moveFromSquares(xa, ya, xb, yb)
	if !ok {
		return 0, errors.New("wyb: internal error: a checked move has no action")
	}
	return a, nil
}

// String draws the board exactly as the referee's str(game) does, without
// its progress line: 8 lines (joined by "\n", no final newline) of 8
// symbols separated by single spaces: '-' empty, 'O' White, '@' Black,
// 'X' corner, ' ' removed square.
func (s *State) String() string {
	var sb strings.Builder
	sb.Grow(Size * Size * 2)
	for y := 0; y < Size; y++ {
		if y > 0 {
			sb.WriteByte('\n')
		}
		for x := 0; x < Size; x++ {
			if x > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteByte(cellSymbols[s.At(x, y)])
		}
	}
	return sb.String()
}

var cellSymbols = [...]byte{Empty: '-', White: 'O', Black: '@', Corner: 'X', Removed: ' '}

// Progress is the referee's progress line: "T turns into the placing
// phase", "T turns into the moving phase" or "game over!".
func (s *State) Progress() string {
	if s.outcome != Ongoing {
		return "game over!"
	}
	return fmt.Sprintf("%d turns into the %s phase", s.turn, s.phase)
}

// RefereeString is exactly the referee's str(game): String, a newline and
// Progress.
func (s *State) RefereeString() string { return s.String() + "\n" + s.Progress() }

// RefereeWinner is the referee's game.winner: "W", "B", "draw", or "None"
// while the game is in progress.
func (s *State) RefereeWinner() string { return s.outcome.String() }

// RefereeColour is the referee's letter for the player to move ("W" or
// "B"), also defined once the game is over.
func (s *State) RefereeColour() string {
	if s.mover() == WhitePlayer {
		return "W"
	}
	return "B"
}
