package wyb

import (
	"fmt"
	"math/bits"
	"strings"
)

// NewPosition builds a position from a board diagram in the referee's
// format (the output of State.String: 8 lines, the symbol of column x at
// byte 2x, '-' empty, 'O' White, '@' Black, 'X' corner, ' ' removed;
// trailing spaces may be omitted), the phase and the turn counter within
// that phase. The player to move follows from the turn (White on even
// turns).
//
// The diagram must be consistent with the turn: the corners and removed
// squares must be those after the number of shrinks the turn implies
// (none while placing or before moving turn 128, one from turn 128, two
// from turn 192), pieces stand only on live non-corner squares, and while
// placing no side has more pieces than it has placed. In the moving phase
// the end check and the turn limit are applied to the position, so it may
// be terminal.
func NewPosition(opts Options, diagram string, phase Phase, turn int) (*State, error) {
	g := New(opts)
	s := g.NewState()
	switch {
	case phase == Placing && (turn < 0 || turn >= PlacingTurns):
		return nil, fmt.Errorf("wyb: position: placing turn %d outside [0, %d)", turn, PlacingTurns)
	case phase == Moving && turn < 0:
		return nil, fmt.Errorf("wyb: position: negative moving turn %d", turn)
	case phase != Placing && phase != Moving:
		return nil, fmt.Errorf("wyb: position: unknown phase %d", phase)
	}
	b, err := parseDiagram(diagram)
	if err != nil {
		return nil, err
	}
	shrinks := 0
	if phase == Moving {
		switch {
		case turn >= SecondShrink:
			shrinks = 2
		case turn >= FirstShrink:
			shrinks = 1
		}
	}
	want := newBoard()
	for i := 0; i < shrinks; i++ {
		want.shrink()
	}
	if b.live != want.live || b.corners != want.corners {
		return nil, fmt.Errorf("wyb: position: corners and removed squares are not those of %s turn %d (%d shrinks)", phase, turn, shrinks)
	}
	for p := 0; p < 2; p++ {
		n := bits.OnesCount64(b.pieces[p])
		limit := PiecesPerPlayer
		if phase == Placing {
			limit = (turn + 1 - p) / 2
		}
		if n > limit {
			return nil, fmt.Errorf("wyb: position: %s has %d pieces, at most %d possible at %s turn %d", playerName(p), n, limit, phase, turn)
		}
		for m := b.pieces[p]; m != 0; m &= m - 1 {
			b.hash ^= zobristPiece[p][bits.TrailingZeros64(m)]
		}
	}
	b.shrinks = uint8(shrinks)
	s.b = b
	s.phase = phase
	s.turn = int32(turn)
	if phase == Moving {
		s.moves = int32(PlacingTurns + turn)
		s.outcome = endCheck(&s.b)
		if s.outcome == Ongoing && s.turnLimit > 0 && turn >= int(s.turnLimit) {
			s.outcome = limitOutcome(&s.b)
		}
	} else {
		s.moves = int32(turn)
	}
	return s, nil
}

// parseDiagram reads a board diagram in the referee's format (see
// NewPosition) without checking it against any rule.
func parseDiagram(diagram string) (board, error) {
	var b board
	lines := strings.Split(strings.TrimRight(diagram, "\n"), "\n")
	if len(lines) != Size {
		return b, fmt.Errorf("wyb: position: diagram has %d lines, want %d", len(lines), Size)
	}
	for y, line := range lines {
		if len(line) > 2*Size-1 {
			return b, fmt.Errorf("wyb: position: line %d is %d bytes long, want at most %d", y+1, len(line), 2*Size-1)
		}
		line += strings.Repeat(" ", 2*Size-1-len(line))
		for x := 0; x < Size; x++ {
			if x > 0 && line[2*x-1] != ' ' {
				return b, fmt.Errorf("wyb: position: line %d: want a space between columns %d and %d, got %q", y+1, x-1, x, line[2*x-1])
			}
			m := bit(square(x, y))
			switch c := line[2*x]; c {
			case '-':
				b.live |= m
			case 'O':
				b.live |= m
				b.pieces[WhitePlayer] |= m
			case '@':
				b.live |= m
				b.pieces[BlackPlayer] |= m
			case 'X':
				b.live |= m
				b.corners |= m
			case ' ':
			default:
				return b, fmt.Errorf("wyb: position: line %d column %d: unknown symbol %q", y+1, x, c)
			}
		}
	}
	return b, nil
}
