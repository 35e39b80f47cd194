package arena

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/zerokit/zerokit/env"
)

// A position set is a list of positions of one game with their exact
// values and the actions that keep them, for measuring how often an
// agent's move keeps a position's game-theoretic value (Accuracy). Its
// text form, for games whose actions are written 0..9 (Connect Four's
// columns), is
//
//	# zerokit positions v1
//	# game: connect4
//	# any other comment
//	MOVES VALUE KEEP
//
// one position a line: MOVES the actions from the initial state, one
// digit each ("-" for the initial state itself); VALUE the exact value
// for the player to move, "W" and the number of actions to the end for a
// win ("W13"), "L" and the number for a loss, "D" and the number of
// actions the game can still last for a draw; KEEP the actions that keep
// the value (a won position stays won, a drawn one is not lost; every
// legal action for a lost one), as digits.

// PositionsMagic is the first line of a position set.
const PositionsMagic = "# zerokit positions v1"

// Position is one position of a set with its value.
type Position struct {
	// Moves are the actions from the game's initial state.
	Moves []int
	// Solution is the exact value for the player to move.
	Solution env.Solution
	// Keep are the actions that keep the value, in increasing order.
	Keep []int
}

// Discs is the number of actions played to reach the position (in
// Connect Four, the discs on the board).
func (p Position) Discs() int { return len(p.Moves) }

// State plays p's moves from game's initial state.
func (p Position) State(game env.Game) (env.State, error) {
	s := game.NewInitialState()
	for i, a := range p.Moves {
		if err := s.ApplyAction(a); err != nil {
			return nil, fmt.Errorf("move %d: %w", i+1, err)
		}
	}
	if s.IsTerminal() {
		return nil, errors.New("the game is over")
	}
	return s, nil
}

// PositionSet is a game's positions and the comment lines of their file.
type PositionSet struct {
	Game      string
	Comments  []string // without "# "
	Positions []Position
}

func digitsOK(game env.Game) error {
	if game.NumActions() > 10 {
		return fmt.Errorf("position sets write actions as one digit; %s has %d actions", game.Name(), game.NumActions())
	}
	return nil
}

// ReadPositions reads a position set of game (the text form above),
// checking every line: moves legal and the game not over, a value of the
// right form, the kept actions legal, distinct and not empty. An error
// names the line.
func ReadPositions(r io.Reader, game env.Game) (PositionSet, error) {
	if err := digitsOK(game); err != nil {
		return PositionSet{}, err
	}
	set := PositionSet{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<16)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if line == 1 {
			if t != PositionsMagic {
				return PositionSet{}, fmt.Errorf("line 1: %.40q is not %q: not a position set", t, PositionsMagic)
			}
			continue
		}
		if c, ok := strings.CutPrefix(t, "#"); ok {
			c = strings.TrimSpace(c)
			if g, ok := strings.CutPrefix(c, "game:"); ok {
				set.Game = strings.TrimSpace(g)
				if set.Game != game.Name() {
					return PositionSet{}, fmt.Errorf("line %d: a position set of %q, not %q", line, set.Game, game.Name())
				}
				continue
			}
			set.Comments = append(set.Comments, c)
			continue
		}
		if t == "" {
			continue
		}
		p, err := parsePosition(t, game)
		if err != nil {
			return PositionSet{}, fmt.Errorf("line %d: %w", line, err)
		}
		set.Positions = append(set.Positions, p)
	}
	if err := sc.Err(); err != nil {
		return PositionSet{}, fmt.Errorf("line %d: %w", line+1, err)
	}
	if line == 0 {
		return PositionSet{}, errors.New("empty file: not a position set")
	}
	if set.Game == "" {
		return PositionSet{}, errors.New("no \"# game: NAME\" line")
	}
	return set, nil
}

func parseDigits(s string, game env.Game) ([]int, error) {
	if s == "-" {
		return nil, nil
	}
	out := make([]int, len(s))
	for i := 0; i < len(s); i++ {
		d := int(s[i]) - '0'
		if d < 0 || d > 9 || d >= game.NumActions() {
			return nil, fmt.Errorf("%.40q: character %d is not an action 0..%d", s, i+1, game.NumActions()-1)
		}
		out[i] = d
	}
	return out, nil
}

func parsePosition(t string, game env.Game) (Position, error) {
	f := strings.Fields(t)
	if len(f) != 3 {
		return Position{}, fmt.Errorf("%.60q: want MOVES VALUE KEEP", t)
	}
	moves, err := parseDigits(f[0], game)
	if err != nil {
		return Position{}, fmt.Errorf("moves %w", err)
	}
	p := Position{Moves: moves}
	s, err := p.State(game)
	if err != nil {
		return Position{}, fmt.Errorf("moves %.60s: %w", f[0], err)
	}
	v := f[1]
	n, err := strconv.Atoi(v[1:])
	if err != nil || n < 0 || n > game.MaxGameLength() {
		return Position{}, fmt.Errorf("value %.20q: want W, L or D and a number of actions 0..%d", v, game.MaxGameLength())
	}
	switch v[0] {
	case 'W':
		p.Solution = env.Solution{Value: 1, Actions: n}
	case 'L':
		p.Solution = env.Solution{Value: -1, Actions: n}
	case 'D':
		p.Solution = env.Solution{Value: 0, Actions: n}
	default:
		return Position{}, fmt.Errorf("value %.20q: want W, L or D and a number of actions", v)
	}
	if p.Solution.Value != 0 && n == 0 {
		return Position{}, fmt.Errorf("value %.20q: a win or loss takes at least one action", v)
	}
	keep, err := parseDigits(f[2], game)
	if err != nil {
		return Position{}, fmt.Errorf("keep %w", err)
	}
	if len(keep) == 0 {
		return Position{}, errors.New("keep: no action")
	}
	for i, a := range keep {
		if !s.IsLegal(a) {
			return Position{}, fmt.Errorf("keep: action %d is not legal", a)
		}
		if i > 0 && keep[i-1] >= a {
			return Position{}, fmt.Errorf("keep %.20q: not in increasing order", f[2])
		}
	}
	p.Keep = keep
	return p, nil
}

// WritePositions writes set in the text form (its Game must be game's
// name).
func WritePositions(w io.Writer, game env.Game, set PositionSet) error {
	if err := digitsOK(game); err != nil {
		return err
	}
	if set.Game != game.Name() {
		return fmt.Errorf("a position set of %q written as %q", set.Game, game.Name())
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\n# game: %s\n", PositionsMagic, set.Game)
	for _, c := range set.Comments {
		fmt.Fprintf(bw, "# %s\n", c)
	}
	for _, p := range set.Positions {
		if len(p.Keep) == 0 || !slices.IsSorted(p.Keep) {
			return fmt.Errorf("position %v: kept actions %v not sorted or empty", p.Moves, p.Keep)
		}
		fmt.Fprintf(bw, "%s %s %s\n", digits(p.Moves), valueString(p.Solution), digits(p.Keep))
	}
	return bw.Flush()
}

func digits(a []int) string {
	if len(a) == 0 {
		return "-"
	}
	b := make([]byte, len(a))
	for i, x := range a {
		b[i] = byte('0' + x)
	}
	return string(b)
}

func valueString(s env.Solution) string {
	return fmt.Sprintf("%c%d", "LDW"[s.Value+1], s.Actions)
}
