// Package games builds any registered game from its configuration or its
// name, so that commands, configuration files and checkpoints can name a
// game.
//
// Games are registered by programs, in the style of database/sql's
// drivers: a game's package calls Register from its init function, so
// importing the package makes the game available by name. This
// repository's games are imported by libraries for their rules, so their
// packages only describe themselves (wyb.Registration), and package
// env/games/all registers them all; programs import it or register the
// games they ship. A name or a configuration of a game that is not
// registered is an unknown game, and errors and help texts list the
// registered ones.
//
// The registry is the one piece of package-level mutable state here, the
// accepted exception of database/sql: it is written only by Register from
// init functions, read afterwards, and guarded by a mutex.
package games

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/zerokit/zerokit/env"
)

// Params are one game's rule parameters: a comparable struct whose fields
// carry YAML tags, the keys of a configuration's game section beside name
// (e.g. Watch Your Back!'s turn_limit, Squatter's size). A game without
// parameters uses an empty struct.
type Params interface {
	// Game builds the game. An error names the bad parameter by its YAML
	// key first ("size: ..."); New prefixes it with "game.".
	Game() (env.Game, error)
}

// Registration describes a family of games: one game and its rule
// variants, which share a Name and a Params type.
type Registration struct {
	// Name is the family's name, the value of a configuration's game.name,
	// e.g. "squatter". Every game of the family has a name (env.Game.Name)
	// that begins with it, e.g. "squatter8".
	Name string
	// Title names the game in help texts, e.g. "Squatter".
	Title string
	// Names lists the forms of the family's game names for help texts and
	// errors, e.g. "squatterN (6 <= N <= 13)". Empty: the name of the
	// default game.
	Names string
	// Defaults are the parameters of the family's default game, used where
	// a configuration names the family without parameters.
	Defaults Params
	// Parse returns the parameters of the game named name, a name that
	// begins with Name (ConfigFromName then checks that they build a game
	// of that very name). Nil: the family's only name is its default
	// game's.
	Parse func(name string) (Params, error)
}

// registry holds the registered families by name (see the package doc).
var registry struct {
	sync.RWMutex
	families map[string]Registration
}

// Register makes a family of games available by name. It is meant to be
// called from the init function of the game's package, and panics, like
// database/sql.Register, if r is incomplete, if its Defaults are not a
// comparable struct, or if a family of that name is registered already.
func Register(r Registration) {
	switch {
	case r.Name == "":
		panic("games: Register: no Name")
	case r.Defaults == nil:
		panic("games: Register " + r.Name + ": no Defaults")
	}
	if t := reflect.TypeOf(r.Defaults); t.Kind() != reflect.Struct || !t.Comparable() {
		panic(fmt.Sprintf("games: Register %s: Defaults of type %s are not a comparable struct", r.Name, t))
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.families[r.Name]; dup {
		panic("games: Register called twice for game " + r.Name)
	}
	if registry.families == nil {
		registry.families = map[string]Registration{}
	}
	registry.families[r.Name] = r
}

// Families returns the registered families, sorted by name.
func Families() []Registration {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]Registration, 0, len(registry.families))
	for _, r := range registry.families {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// family returns the registration of the family named name.
func family(name string) (Registration, bool) {
	registry.RLock()
	defer registry.RUnlock()
	r, ok := registry.families[name]
	return r, ok
}

// Help lists the names of the registered games for help texts and errors,
// e.g. "tic-tac-toe: tictactoe; Watch Your Back!: wyb (turn limit 256),
// wyb-nolimit, wyb-limitN". With keep non-nil, only the families whose default game
// keep accepts (e.g. those implementing an interface a command needs).
func Help(keep func(env.Game) bool) string {
	var parts []string
	for _, r := range Families() {
		if keep != nil {
			g, err := r.Defaults.Game()
			if err != nil || !keep(g) {
				continue
			}
		}
		parts = append(parts, r.help())
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// help is one family's part of Help.
func (r Registration) help() string {
	names := r.Names
	if names == "" {
		if g, err := r.Defaults.Game(); err == nil {
			names = g.Name()
		} else {
			names = r.Name
		}
	}
	if r.Title == "" {
		return names
	}
	return r.Title + ": " + names
}

// FamilyNames lists the registered families' names ("squatter, tictactoe,
// wyb"), the values game.name accepts.
func FamilyNames() string {
	var names []string
	for _, r := range Families() {
		names = append(names, r.Name)
	}
	if len(names) == 0 {
		return "none registered"
	}
	return strings.Join(names, ", ")
}

// Config names a game family and its rule parameters. In YAML it is one
// mapping: name and the family's parameters beside it, e.g.
//
//	game:
//	  name: wyb
//	  turn_limit: 256
//
// Configs are comparable with ==.
type Config struct {
	// Name is the family's name, e.g. "wyb" or "squatter".
	Name string
	// Params are the family's parameters; nil means its Defaults.
	Params Params
}

// DefaultConfig returns the default configuration of the family named
// name; for an unregistered name, a Config that New rejects.
func DefaultConfig(name string) Config {
	r, ok := family(name)
	if !ok {
		return Config{Name: name}
	}
	return Config{Name: name, Params: r.Defaults}
}

// Validate reports the first bad field by its YAML name.
func (c Config) Validate() error {
	_, err := New(c)
	return err
}

// New builds the configured game.
func New(c Config) (env.Game, error) {
	r, err := lookupFamily(c.Name)
	if err != nil {
		return nil, err
	}
	p := c.Params
	if p == nil {
		p = r.Defaults
	}
	if reflect.TypeOf(p) != reflect.TypeOf(r.Defaults) {
		return nil, fmt.Errorf("game: parameters of type %T are not %s's (%T)", p, r.Name, r.Defaults)
	}
	g, err := p.Game()
	if err != nil {
		return nil, fmt.Errorf("game.%w", err)
	}
	return g, nil
}

// lookupFamily returns the registration of the family named name, or an
// error that lists the registered families.
func lookupFamily(name string) (Registration, error) {
	if name == "" {
		return Registration{}, fmt.Errorf("game.name: missing (want %s)", FamilyNames())
	}
	r, ok := family(name)
	if !ok {
		return Registration{}, fmt.Errorf("game.name: unknown game %q (want %s)", name, FamilyNames())
	}
	return r, nil
}
