package javareferee

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/zerokit/zerokit/env/squatter"
)

// replayed is a referee run's moves replayed on zerokit's Squatter board.
type replayed struct {
	// moves is the number of placing lines replayed, and illegal the index
	// of the first one zerokit's rules reject (-1 when none), with why.
	moves   int
	illegal int
	why     string
	// final reports whether the board filled (the game's end), and scores
	// are White's and Black's captured cells where the replay stopped.
	final  bool
	scores [2]int
}

// replay replays the "Placing to. Row:Col by P" lines of a referee run's
// stdout on an N x N board, by zerokit's rules, up to the first move they
// reject. The referee prints each move before the opponent judges it, so a
// rejected move is the last line replayed.
func replay(n int, out string) (replayed, error) {
	r := replayed{illegal: -1}
	g, err := squatter.New(n)
	if err != nil {
		return r, err
	}
	s := g.NewState()
	var c squatter.Codec
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !placingLine.MatchString(line) {
			continue
		}
		var row, col, p int
		if _, err := fmt.Sscanf(line, "Placing to. %d:%d by %d", &row, &col, &p); err != nil {
			return r, fmt.Errorf("javareferee: placing line %q: %w", line, err)
		}
		a, err := c.ParseAction(s, fmt.Sprintf("%d %d %d", p, row, col))
		if err != nil {
			r.illegal, r.why = r.moves, err.Error()
			r.moves++
			break
		}
		if err := s.ApplyAction(a); err != nil {
			return r, fmt.Errorf("javareferee: move %d: %w", r.moves+1, err)
		}
		r.moves++
	}
	if err := sc.Err(); err != nil {
		return r, err
	}
	r.final = s.IsTerminal()
	r.scores = [2]int{s.Score(0), s.Score(1)}
	return r, nil
}
