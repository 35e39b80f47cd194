package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/squatter"
)

// squatterUI is the terminal notation of Squatter: x,y (column, row) and
// the board of squatter.State.String (B Black, W White, territory owners in
// lower case). Black moves first.
type squatterUI struct{}

func (squatterUI) title() string { return "Squatter." }

func (squatterUI) player(colour string) (int, error) {
	switch colour {
	case "", "black", "b", "first":
		return 0, nil
	case "white", "w", "second":
		return 1, nil
	}
	return 0, errors.New("want black or white")
}

func (squatterUI) colour(player int) string {
	if player == 0 {
		return "Black (B)"
	}
	return "White (W)"
}

func (squatterUI) board(s env.State) string {
	b := s.String()
	if !strings.HasSuffix(b, "\n") {
		b += "\n"
	}
	return b
}

func (squatterUI) status(env.State, func(int) string) string { return "" }

// parse reads "x,y", "x y" or "(x, y)".
func (squatterUI) parse(s env.State, line string) (int, error) {
	f := strings.FieldsFunc(line, func(r rune) bool { return strings.ContainsRune(" \t,()[]", r) })
	if len(f) != 2 {
		return 0, fmt.Errorf("%q: write x,y (column, row)", strings.TrimSpace(line))
	}
	a, err := s.ParseAction(f[0] + "," + f[1])
	if err != nil {
		return 0, err
	}
	if !s.IsLegal(a) {
		return 0, fmt.Errorf("cell %s is not free", s.ActionString(a))
	}
	return a, nil
}

func (squatterUI) format(s env.State, a int) string { return s.ActionString(a) }

func (squatterUI) mustPass(env.State) bool { return false }

func (squatterUI) outcome(s env.State) string {
	ss := s.(*squatter.State)
	return fmt.Sprintf(" (Black %d, White %d captured cells)", ss.Score(0), ss.Score(1))
}
