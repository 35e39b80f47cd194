package protocol

import "github.com/zerokit/zerokit/env"

// Codec translates between a game's actions and a referee's text forms: the
// part of the protocol that is specific to one game and one referee. The
// server is otherwise game-independent.
type Codec interface {
	// Player maps a colour name given to init (e.g. "white") to a player
	// number (0 moves first), or returns an error naming the valid colours.
	Player(colour string) (int, error)
	// Colour is the inverse of Player.
	Colour(player int) string
	// Turns returns the turn counter the referee passes to action when s is
	// the current position.
	Turns(s env.State) int
	// ParseAction reads an action in the referee's text form for the player
	// to move in s. The action need not be legal; the server checks that.
	ParseAction(s env.State, text string) (int, error)
	// FormatAction writes an action of the player to move in s in the
	// referee's text form, on one line.
	FormatAction(s env.State, action int) (string, error)
}
