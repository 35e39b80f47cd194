package wyb

import (
	"fmt"
	"strconv"
	"strings"
)

// The action space is fixed, NumActions = 577 entries:
//
//	0 .. 63     place on square sq = y*8 + x             PlaceAction(x, y)
//	64 .. 575   move from square sq in direction dir:     MoveAction(x, y, dir, jump)
//	            64 + (sq*4 + dir)*2 + kind, dir Up(y-1)=0, Down(y+1)=1,
//	            Left(x-1)=2, Right(x+1)=3, kind 0 = step (one square),
//	            1 = jump (two squares, over an adjacent piece)
//	576         forfeit (pass)                           PassAction
//
// Some move actions point off the board (e.g. Left from x = 0); they exist
// in the space but are never legal.
const (
	// NumActions is the size of the action space.
	NumActions = 577
	// PassAction is the forfeit ("pass") of a player with no legal move.
	PassAction = 576
	// firstMove is the index of the first move action.
	firstMove = 64
)

// ActionKind classifies an action index.
type ActionKind uint8

// Action kinds.
const (
	// InvalidKind: an index outside [0, NumActions).
	InvalidKind ActionKind = iota
	// PlaceKind: placing a piece.
	PlaceKind
	// StepKind: moving one square.
	StepKind
	// JumpKind: jumping two squares over an adjacent piece.
	JumpKind
	// PassKind: forfeiting the turn.
	PassKind
)

// PlaceAction is the action placing a piece on (x, y). It panics if (x, y)
// is off the board (a programming error).
func PlaceAction(x, y int) int {
	if !onBoard(x, y) {
		panic(fmt.Sprintf("wyb.PlaceAction(%d, %d): off the board", x, y))
	}
	return square(x, y)
}

// MoveAction is the action moving the piece on (x, y) in direction dir (Up,
// Down, Left, Right) by one square, or by two squares when jump is set. It
// panics if (x, y) is off the board or dir is not a direction.
func MoveAction(x, y, dir int, jump bool) int {
	if !onBoard(x, y) || dir < 0 || dir > 3 {
		panic(fmt.Sprintf("wyb.MoveAction(%d, %d, %d): bad square or direction", x, y, dir))
	}
	a := firstMove + (square(x, y)*4+dir)*2
	if jump {
		a++
	}
	return a
}

// DecodeAction returns the kind of action a and its squares: (fromX, fromY)
// is the placed square for a place and the start of a move, (toX, toY) the
// destination of a move (possibly off the board) and equal to the from
// square for a place. For passes and invalid indices the squares are -1.
func DecodeAction(a int) (kind ActionKind, fromX, fromY, toX, toY int) {
	switch {
	case a < 0 || a >= NumActions:
		return InvalidKind, -1, -1, -1, -1
	case a < firstMove:
		return PlaceKind, a % Size, a / Size, a % Size, a / Size
	case a == PassAction:
		return PassKind, -1, -1, -1, -1
	}
	m := a - firstMove
	sq, dir, dist := m/8, (m/2)%4, 1+m%2
	kind = StepKind
	if dist == 2 {
		kind = JumpKind
	}
	x, y := sq%Size, sq/Size
	return kind, x, y, x + dist*dirDX[dir], y + dist*dirDY[dir]
}

// moveFromSquares returns the engine action for moving (xa, ya) -> (xb, yb)
// when that is a step or a straight two-square jump between squares of the
// board, and false otherwise.
func moveFromSquares(xa, ya, xb, yb int) (int, bool) {
	if !onBoard(xa, ya) || !onBoard(xb, yb) {
		return 0, false
	}
	dx, dy := xb-xa, yb-ya
	for dir := 0; dir < 4; dir++ {
		for dist := 1; dist <= 2; dist++ {
			if dx == dist*dirDX[dir] && dy == dist*dirDY[dir] {
				return MoveAction(xa, ya, dir, dist == 2), true
			}
		}
	}
	return 0, false
}

// FormatAction writes a in the human notation: "x,y" for a place,
// "xa,ya-xb,yb" for a move (step or jump alike, e.g. "3,4-3,5" and
// "3,4-3,6"), "pass" for a forfeit.
func FormatAction(a int) string {
	kind, fx, fy, tx, ty := DecodeAction(a)
	switch kind {
	case PlaceKind:
		return fmt.Sprintf("%d,%d", fx, fy)
	case StepKind, JumpKind:
		return fmt.Sprintf("%d,%d-%d,%d", fx, fy, tx, ty)
	case PassKind:
		return "pass"
	}
	return fmt.Sprintf("invalid(%d)", a)
}

// ParseNotation reads an action written by FormatAction. Spaces around the
// numbers are allowed. A move must be a step or a straight two-square jump
// between squares of the board (its legality in a position is checked when
// it is applied).
func ParseNotation(s string) (int, error) {
	t := strings.TrimSpace(s)
	if strings.EqualFold(t, "pass") {
		return PassAction, nil
	}
	from, to, isMove := strings.Cut(t, "-")
	xa, ya, err := parseSquare(from)
	if err != nil {
		return 0, fmt.Errorf("wyb: action %q: %w", s, err)
	}
	if !isMove {
		if !onBoard(xa, ya) {
			return 0, fmt.Errorf("wyb: action %q: square (%d, %d) is off the board", s, xa, ya)
		}
		return PlaceAction(xa, ya), nil
	}
	xb, yb, err := parseSquare(to)
	if err != nil {
		return 0, fmt.Errorf("wyb: action %q: %w", s, err)
	}
	a, ok := moveFromSquares(xa, ya, xb, yb)
	if !ok {
		return 0, fmt.Errorf("wyb: action %q: (%d, %d) -> (%d, %d) is not a step or a straight jump on the board", s, xa, ya, xb, yb)
	}
	return a, nil
}

func parseSquare(s string) (x, y int, err error) {
	xs, ys, ok := strings.Cut(s, ",")
	if !ok {
		return 0, 0, fmt.Errorf("square %q: want x,y", strings.TrimSpace(s))
	}
	x, err = strconv.Atoi(strings.TrimSpace(xs))
	if err != nil {
		return 0, 0, fmt.Errorf("square %q: column: %w", strings.TrimSpace(s), err)
	}
	y, err = strconv.Atoi(strings.TrimSpace(ys))
	if err != nil {
		return 0, 0, fmt.Errorf("square %q: row: %w", strings.TrimSpace(s), err)
	}
	return x, y, nil
}
