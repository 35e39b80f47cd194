package tictactoe

import (
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
)

// Registration describes tic-tac-toe for games.Register. Importing this
// package registers nothing (libraries import it for its rules); programs
// register it, as package env/games/all does for every game of zerokit.
func Registration() games.Registration {
	return games.Registration{Name: "tictactoe", Title: "tic-tac-toe", Defaults: Params{}}
}

// Params are tic-tac-toe's rule parameters (a games.Params): none.
type Params struct{}

// Game implements games.Params.
func (Params) Game() (env.Game, error) { return New(), nil }
