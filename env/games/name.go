package games

import (
	"fmt"
	"strings"

	"github.com/zerokit/zerokit/env"
)

// ConfigFromName returns the configuration of the game whose Name is name
// ("wyb", "wyb-nolimit", "wyb-limit100", "squatter6", "tictactoe"), so
// that a checkpoint, which records its game by name, can rebuild it. The
// Config's Name is the game's family, the same for every rule variant.
// Only canonical names are accepted: New(ConfigFromName(name)) builds a
// game whose Name is name.
func ConfigFromName(name string) (Config, error) {
	bad := func(why string) (Config, error) {
		return Config{}, fmt.Errorf("game name %q: %s (want %s)", name, why, Help(nil))
	}
	r, ok := familyOf(name)
	if !ok {
		return bad("unknown game")
	}
	p := r.Defaults
	if r.Parse != nil {
		var err error
		if p, err = r.Parse(name); err != nil {
			return bad(err.Error())
		}
		if p == nil {
			return bad("unknown game")
		}
	}
	c := Config{Name: r.Name, Params: p}
	g, err := New(c)
	if err != nil {
		return bad(err.Error())
	}
	if g.Name() != name {
		// Non-canonical spellings such as "wyb-limit0256" or "squatter06",
		// or a family without Parse given another name than its game's.
		if r.Parse == nil {
			return bad("unknown game")
		}
		return bad(fmt.Sprintf("not the canonical name %q", g.Name()))
	}
	return c, nil
}

// familyOf returns the family whose Name is the longest prefix of name.
func familyOf(name string) (Registration, bool) {
	var best Registration
	found := false
	for _, r := range Families() {
		if strings.HasPrefix(name, r.Name) && (!found || len(r.Name) > len(best.Name)) {
			best, found = r, true
		}
	}
	return best, found
}

// Lookup returns the configuration a command's -game flag means: the game
// of that canonical name ("wyb-nolimit", "squatter8"), or a family's
// default game ("squatter" is squatter6).
func Lookup(name string) (Config, error) {
	c, err := ConfigFromName(name)
	if err == nil {
		return c, nil
	}
	if r, ok := family(name); ok {
		return Config{Name: r.Name, Params: r.Defaults}, nil
	}
	return Config{}, err
}

// ByName builds the game Lookup(name) configures.
func ByName(name string) (env.Game, error) {
	c, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return New(c)
}
