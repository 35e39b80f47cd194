package games

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zerokit/zerokit/env/wyb"
)

// ConfigFromName returns the configuration of the game whose Name is name
// ("wyb", "wyb-nolimit", "wyb-limit100", "squatter6", "tictactoe"), so
// that a checkpoint, which records its game by name, can rebuild it. The
// Config's Name is the game's family, the same for every rule variant.
func ConfigFromName(name string) (Config, error) {
	bad := func(why string) (Config, error) {
		return Config{}, fmt.Errorf("game name %q: %s (want wyb, wyb-nolimit, wyb-limitN, squatterN or tictactoe)", name, why)
	}
	c := Config{}
	switch {
	case name == "wyb":
		c = DefaultConfig("wyb")
	case name == "wyb-nolimit":
		c = Config{Name: "wyb", TurnLimit: 0}
	case strings.HasPrefix(name, "wyb-limit"):
		n, err := strconv.Atoi(strings.TrimPrefix(name, "wyb-limit"))
		if err != nil || n <= 0 || n > wyb.MaxTurnLimit {
			return bad("the turn limit is not a positive integer")
		}
		c = Config{Name: "wyb", TurnLimit: n}
	case strings.HasPrefix(name, "squatter"):
		n, err := strconv.Atoi(strings.TrimPrefix(name, "squatter"))
		if err != nil {
			return bad("the board size is not an integer")
		}
		c = Config{Name: "squatter", Size: n}
	case name == "tictactoe":
		c = DefaultConfig("tictactoe")
	default:
		return bad("unknown game")
	}
	g, err := New(c)
	if err != nil {
		return bad(err.Error())
	}
	if g.Name() != name {
		// Non-canonical spellings such as "wyb-limit0256" or "squatter06".
		return bad(fmt.Sprintf("not the canonical name %q", g.Name()))
	}
	return c, nil
}
