package squatter

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
)

// Registration describes Squatter and its variants for games.Register.
// Importing this package registers nothing (libraries import it for its
// rules); programs register it, as package env/games/all does for every
// game of zerokit.
func Registration() games.Registration {
	return games.Registration{
		Name:     "squatter",
		Title:    "Squatter",
		Names:    fmt.Sprintf("squatterN (N x N, %d <= N <= %d; squatter is squatter%d)", MinN, MaxN, MinN),
		Defaults: Params{Size: MinN},
		Parse:    parseName,
	}
}

// Params are Squatter's rule parameters (a games.Params): the board size
// N, size in a configuration's game section.
type Params struct {
	Size int `yaml:"size"`
}

// Game implements games.Params.
func (p Params) Game() (env.Game, error) {
	g, err := New(p.Size)
	if err != nil {
		return nil, fmt.Errorf("size: %w", err)
	}
	return g, nil
}

// parseName returns the parameters of the game named "squatterN".
func parseName(name string) (games.Params, error) {
	n, err := strconv.Atoi(strings.TrimPrefix(name, "squatter"))
	if err != nil {
		return nil, errors.New("the board size is not an integer")
	}
	return Params{Size: n}, nil
}
