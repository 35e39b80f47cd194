package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/wyb"
)

// wybUI is the terminal notation of Watch Your Back!: the referee's
// coordinates, O White and @ Black.
type wybUI struct{}

func (wybUI) title() string { return "Watch Your Back!" }

func (wybUI) player(colour string) (int, error) {
	switch colour {
	case "", "white", "w", "first":
		return wyb.WhitePlayer, nil
	case "black", "b", "second":
		return wyb.BlackPlayer, nil
	}
	return 0, errors.New("want white or black")
}

func (wybUI) colour(player int) string {
	if player == wyb.BlackPlayer {
		return "Black (@)"
	}
	return "White (O)"
}

func (wybUI) board(s env.State) string { return drawBoard(s.(*wyb.State)) }

func (wybUI) parse(s env.State, line string) (int, error) {
	return parseHumanAction(s.(*wyb.State), line)
}

func (wybUI) format(_ env.State, a int) string { return wyb.FormatAction(a) }

func (wybUI) mustPass(s env.State) bool {
	ws := s.(*wyb.State)
	return ws.NumLegal() == 1 && ws.IsLegal(wyb.PassAction)
}

func (wybUI) outcome(s env.State) string {
	ws := s.(*wyb.State)
	return fmt.Sprintf(" (White %d, Black %d pieces)", ws.Pieces(wyb.WhitePlayer), ws.Pieces(wyb.BlackPlayer))
}

// status describes the phase and the pieces of each side.
func (wybUI) status(st env.State, name func(int) string) string {
	s := st.(*wyb.State)
	var sb strings.Builder
	if s.Phase() == wyb.Placing {
		fmt.Fprintf(&sb, "Placing phase, turn %d of %d.\n", s.Turn()+1, wyb.PlacingTurns)
	} else {
		fmt.Fprintf(&sb, "Moving phase, turn %d", s.Turn()+1)
		if n := s.TurnsToShrink(); n > 0 {
			fmt.Fprintf(&sb, "; the board shrinks in %d turns", n)
		}
		if l := s.TurnLimit(); l > 0 {
			fmt.Fprintf(&sb, "; the game ends after turn %d", l)
		}
		sb.WriteString(".\n")
	}
	for p := 0; p < 2; p++ {
		fmt.Fprintf(&sb, "  %s: %d on the board", name(p), s.Pieces(p))
		if s.Phase() == wyb.Placing {
			fmt.Fprintf(&sb, ", %d to place", s.ToPlace(p))
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// parseHumanAction reads "3 4", "3,4", "(3, 4)" (place), "3,4 3,5",
// "3,4-3,5", "3 4 3 5" (move) or "pass", and validates it against s with
// the referee's checks, whose reason the error gives.
func parseHumanAction(s *wyb.State, line string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(line))
	if t == "pass" || t == "forfeit" {
		return s.RefereeAction([]byte("null"))
	}
	var nums []int
	prev := byte(' ') // previous non-blank character
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c >= '0' && c <= '9':
			n := 0
			for ; i < len(t) && t[i] >= '0' && t[i] <= '9'; i++ {
				if n < 1000 {
					n = n*10 + int(t[i]-'0')
				}
			}
			i--
			nums = append(nums, n)
			prev = '0'
		case c == '-' && i+1 < len(t) && t[i+1] >= '0' && t[i+1] <= '9' && prev != '0' && prev != ')' && prev != ']':
			return 0, errors.New("coordinates are 0 to 7, not negative")
		case strings.IndexByte(" \t,()[]->", c) >= 0:
			if c != ' ' && c != '\t' {
				prev = c
			}
		default:
			return 0, fmt.Errorf("unexpected %q: write x y to place, xa,ya xb,yb to move, or pass", t[i:i+1])
		}
	}
	var ref string
	switch len(nums) {
	case 2:
		ref = fmt.Sprintf("[%d, %d]", nums[0], nums[1])
	case 4:
		ref = fmt.Sprintf("[[%d, %d], [%d, %d]]", nums[0], nums[1], nums[2], nums[3])
	default:
		return 0, fmt.Errorf("%d numbers: write x y to place, xa,ya xb,yb to move, or pass", len(nums))
	}
	return s.RefereeAction([]byte(ref))
}

// drawBoard draws s with column numbers across and row numbers down:
// O White, @ Black, X corner, . empty, blank for squares removed by
// shrinking.
func drawBoard(s *wyb.State) string {
	var sb strings.Builder
	sb.WriteString("     0 1 2 3 4 5 6 7\n")
	sb.WriteString("   +-----------------+\n")
	for y := 0; y < wyb.Size; y++ {
		fmt.Fprintf(&sb, " %d | ", y)
		for x := 0; x < wyb.Size; x++ {
			sb.WriteByte(".O@X "[s.At(x, y)])
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "| %d\n", y)
	}
	sb.WriteString("   +-----------------+\n")
	sb.WriteString("     0 1 2 3 4 5 6 7\n")
	return sb.String()
}
