// Package games builds any of the toolkit's games from its configuration, so
// that commands and configuration files can name a game.
package games

import (
	"fmt"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/squatter"
	"github.com/zerokit/zerokit/env/tictactoe"
	"github.com/zerokit/zerokit/env/wyb"
)

// Config names a game and its rule parameters.
type Config struct {
	// Name is "wyb" (Watch Your Back!), "squatter" or "tictactoe".
	Name string `yaml:"name"`
	// TurnLimit is Watch Your Back!'s turn-limit rule extension: after
	// moving turn TurnLimit the side with more pieces wins (equal is a
	// draw); 0 disables it, as in the official referee. Default 256.
	TurnLimit int `yaml:"turn_limit"`
	// Size is Squatter's board size N (N x N, N >= 6). Default 6.
	Size int `yaml:"size"`
}

// DefaultConfig returns the default configuration of the named game.
func DefaultConfig(name string) Config {
	return Config{Name: name, TurnLimit: wyb.DefaultTurnLimit, Size: 6}
}

// Validate reports the first bad field by its YAML name.
func (c Config) Validate() error {
	_, err := New(c)
	return err
}

// New builds the configured game.
func New(c Config) (env.Game, error) {
	switch c.Name {
	case "wyb":
		if c.TurnLimit < 0 {
			return nil, fmt.Errorf("game.turn_limit: %d is negative (0 disables the limit)", c.TurnLimit)
		}
		return wyb.New(wyb.Options{TurnLimit: c.TurnLimit}), nil
	case "squatter":
		g, err := squatter.New(c.Size)
		if err != nil {
			return nil, fmt.Errorf("game.size: %w", err)
		}
		return g, nil
	case "tictactoe":
		return tictactoe.New(), nil
	case "":
		return nil, fmt.Errorf("game.name: missing (want wyb, squatter or tictactoe)")
	default:
		return nil, fmt.Errorf("game.name: unknown game %q (want wyb, squatter or tictactoe)", c.Name)
	}
}
