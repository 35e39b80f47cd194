package tictactoe

import (
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
)

func init() {
	games.Register(games.Registration{Name: "tictactoe", Title: "tic-tac-toe", Defaults: Params{}})
}

// Params are tic-tac-toe's rule parameters (a games.Params): none.
type Params struct{}

// Game implements games.Params.
func (Params) Game() (env.Game, error) { return New(), nil }
