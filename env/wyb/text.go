package wyb

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zerokit/zerokit/env"
)

// The terminal notation of Watch Your Back! (env.TextUI): the referee's
// coordinates, O White and @ Black.

// Title names the game.
func (g *Game) Title() string { return "Watch Your Back!" }

// Player maps "white" (or "w", "first", "") and "black" (or "b",
// "second") to a player.
func (g *Game) Player(colour string) (int, error) {
	switch colour {
	case "", "white", "w", "first":
		return WhitePlayer, nil
	case "black", "b", "second":
		return BlackPlayer, nil
	}
	return 0, errors.New("want white or black")
}

// Colour names a player with its board symbol.
func (g *Game) Colour(player int) string {
	if player == BlackPlayer {
		return "Black (@)"
	}
	return "White (O)"
}

// Board draws s (DrawBoard).
func (g *Game) Board(s env.State) string { return DrawBoard(s.(*State)) }

// ParseMove reads a person's action (ParseHumanAction).
func (g *Game) ParseMove(s env.State, line string) (int, error) {
	return ParseHumanAction(s.(*State), line)
}

// FormatMove writes a as FormatAction does.
func (g *Game) FormatMove(_ env.State, a int) string { return FormatAction(a) }

// MustPass reports that the player to move can only pass.
func (g *Game) MustPass(s env.State) bool {
	ws := s.(*State)
	return ws.NumLegal() == 1 && ws.IsLegal(PassAction)
}

// Outcome gives the pieces left on each side.
func (g *Game) Outcome(s env.State) string {
	ws := s.(*State)
	return fmt.Sprintf(" (White %d, Black %d pieces)", ws.Pieces(WhitePlayer), ws.Pieces(BlackPlayer))
}

// Status describes the phase and the pieces of each side.
func (g *Game) Status(st env.State, name func(int) string) string {
	s := st.(*State)
	var sb strings.Builder
	if s.Phase() == Placing {
		fmt.Fprintf(&sb, "Placing phase, turn %d of %d.\n", s.Turn()+1, PlacingTurns)
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
		if s.Phase() == Placing {
			fmt.Fprintf(&sb, ", %d to place", s.ToPlace(p))
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// ParseHumanAction reads "3 4", "3,4", "(3, 4)" (place), "3,4 3,5",
// "3,4-3,5", "3 4 3 5" (move) or "pass", and validates it against s with
// the referee's checks, whose reason the error gives.
func ParseHumanAction(s *State, line string) (int, error) {
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

// DrawBoard draws s with column numbers across and row numbers down:
// O White, @ Black, X corner, . empty, blank for squares removed by
// shrinking.
func DrawBoard(s *State) string {
	var sb strings.Builder
	sb.WriteString("     0 1 2 3 4 5 6 7\n")
	sb.WriteString("   +-----------------+\n")
	for y := 0; y < Size; y++ {
		fmt.Fprintf(&sb, " %d | ", y)
		for x := 0; x < Size; x++ {
			sb.WriteByte(".O@X "[s.At(x, y)])
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "| %d\n", y)
	}
	sb.WriteString("   +-----------------+\n")
	sb.WriteString("     0 1 2 3 4 5 6 7\n")
	return sb.String()
}
