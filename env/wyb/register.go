package wyb

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
)

// Registration describes Watch Your Back! and its variants for games.Register.
// Importing this package registers nothing (libraries import it for its
// rules); programs register it, as package env/games/all does for every
// game of zerokit.
func Registration() games.Registration {
	return games.Registration{
		Name:     "wyb",
		Title:    "Watch Your Back!",
		Names:    fmt.Sprintf("wyb (turn limit %d), wyb-nolimit, wyb-limitN", DefaultTurnLimit),
		Defaults: Options{TurnLimit: DefaultTurnLimit},
		Parse:    parseName,
	}
}

// Game implements games.Params: the game with these options, for a
// configuration (game.name wyb); a negative turn_limit is an error there.
func (o Options) Game() (env.Game, error) {
	if o.TurnLimit < 0 {
		return nil, fmt.Errorf("turn_limit: %d is negative (0 disables the limit)", o.TurnLimit)
	}
	return New(o), nil
}

// parseName returns the options of the game named name: "wyb" (the
// default turn limit), "wyb-nolimit" or "wyb-limitN".
func parseName(name string) (games.Params, error) {
	switch {
	case name == "wyb":
		return Options{TurnLimit: DefaultTurnLimit}, nil
	case name == "wyb-nolimit":
		return Options{TurnLimit: 0}, nil
	case strings.HasPrefix(name, "wyb-limit"):
		n, err := strconv.Atoi(strings.TrimPrefix(name, "wyb-limit"))
		if err != nil || n <= 0 || n > MaxTurnLimit {
			return nil, errors.New("the turn limit is not a positive integer")
		}
		return Options{TurnLimit: n}, nil
	}
	return nil, errors.New("unknown game")
}
