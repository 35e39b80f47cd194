package games_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/env/squatter"
	"github.com/zerokit/zerokit/env/tictactoe"
	"github.com/zerokit/zerokit/env/wyb"
	"github.com/zerokit/zerokit/internal/strictyaml"
)

// section is a configuration with a game section, decoded as train's
// configuration is.
type section struct {
	Game games.Config `yaml:"game"`
}

func TestConfigYAML(t *testing.T) {
	wybDefault := games.DefaultConfig("wyb")
	squatter8 := games.Config{Name: "squatter", Params: squatter.Params{Size: 8}}
	tests := []struct {
		name    string
		base    games.Config // the defaults decoded onto
		text    string
		want    games.Config
		wantErr []string
	}{
		{name: "turn limit", base: wybDefault, text: "game:\n  name: wyb\n  turn_limit: 64\n",
			want: games.Config{Name: "wyb", Params: wyb.Options{TurnLimit: 64}}},
		{name: "name kept", base: wybDefault, text: "game:\n  turn_limit: 0\n",
			want: games.Config{Name: "wyb", Params: wyb.Options{}}},
		{name: "empty section", base: wybDefault, text: "game:\n", want: wybDefault},
		{name: "other family's defaults", base: wybDefault, text: "game:\n  name: squatter\n",
			want: games.Config{Name: "squatter", Params: squatter.Params{Size: 6}}},
		{name: "name after parameters", base: wybDefault, text: "game:\n  size: 8\n  name: squatter\n", want: squatter8},
		{name: "same family keeps values", base: squatter8, text: "game:\n  name: squatter\n", want: squatter8},
		{name: "no parameters", base: wybDefault, text: "game: {name: tictactoe}\n",
			want: games.Config{Name: "tictactoe", Params: tictactoe.Params{}}},
		// Configurations written before the registry carry every game's
		// parameters.
		{name: "old tictactoe", base: wybDefault, text: "game:\n  name: tictactoe\n  turn_limit: 256\n  size: 6\n",
			want: games.Config{Name: "tictactoe", Params: tictactoe.Params{}}},
		{name: "old wyb", base: wybDefault, text: "game:\n  name: wyb\n  turn_limit: 100\n  size: 6\n",
			want: games.Config{Name: "wyb", Params: wyb.Options{TurnLimit: 100}}},
		{name: "old squatter", base: wybDefault, text: "game:\n  name: squatter\n  turn_limit: 256\n  size: 7\n",
			want: games.Config{Name: "squatter", Params: squatter.Params{Size: 7}}},

		{name: "unknown parameter", base: wybDefault, text: "game:\n  name: squatter\n  rows: 4\n",
			wantErr: []string{"line 3", "game.rows", "not a parameter of squatter", "its parameters: size"}},
		{name: "parameter of none", base: wybDefault, text: "game:\n  name: tictactoe\n  depth: 4\n",
			wantErr: []string{"line 3", "game.depth", "it has none"}},
		{name: "unknown game", base: wybDefault, text: "seed: 1\ngame:\n  name: chess\n",
			wantErr: []string{"line 3", `unknown game "chess"`, "squatter, tictactoe, wyb"}},
		{name: "empty name", base: wybDefault, text: "game:\n  name: ''\n",
			wantErr: []string{"game.name: missing", "squatter, tictactoe, wyb"}},
		{name: "bad type", base: wybDefault, text: "game:\n  name: wyb\n  turn_limit: many\n",
			wantErr: []string{"line 3", "many"}},
		{name: "given twice", base: wybDefault, text: "game:\n  name: wyb\n  name: squatter\n",
			wantErr: []string{"line 3", "game.name", "twice"}},
		{name: "not a mapping", base: wybDefault, text: "game: [wyb]\n", wantErr: []string{"line 1", "mapping"}},
		{name: "name not a string", base: wybDefault, text: "game:\n  name: [wyb]\n", wantErr: []string{"line 2", "game.name"}},
		{name: "key not a string", base: wybDefault, text: "game:\n  [a]: 1\n", wantErr: []string{"line 2", "not a plain string"}},
		{name: "bad value", base: wybDefault, text: "game:\n  name: squatter\n  size: 3\n", wantErr: []string{"game.size", "out of range"}},
		{name: "negative turn limit", base: wybDefault, text: "game:\n  turn_limit: -1\n", wantErr: []string{"game.turn_limit", "negative"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := section{Game: tc.base}
			err := strictyaml.Decode("t.yaml", []byte(tc.text), &got)
			if err == nil {
				err = got.Game.Validate()
			}
			if tc.wantErr != nil {
				if err == nil {
					t.Fatalf("decoded %+v, want an error containing %q", got.Game, tc.wantErr)
				}
				for _, s := range tc.wantErr {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not contain %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Game != tc.want {
				t.Fatalf("decoded %+v, want %+v", got.Game, tc.want)
			}
			// The encoded section has the name and the family's
			// parameters only, and decodes to the same configuration
			// whatever the defaults.
			enc, err := strictyaml.Encode(got)
			if err != nil {
				t.Fatal(err)
			}
			back := section{Game: games.DefaultConfig("tictactoe")}
			if err := strictyaml.Decode("enc.yaml", enc, &back); err != nil || back.Game != got.Game {
				t.Fatalf("round trip of\n%s= %+v, %v", enc, back.Game, err)
			}
		})
	}
}

func TestConfigEncoding(t *testing.T) {
	for _, tc := range []struct {
		cfg  games.Config
		want string
	}{
		{games.DefaultConfig("wyb"), "game:\n  name: wyb\n  turn_limit: 256\n"},
		{games.Config{Name: "squatter", Params: squatter.Params{Size: 9}}, "game:\n  name: squatter\n  size: 9\n"},
		{games.Config{Name: "squatter"}, "game:\n  name: squatter\n  size: 6\n"}, // nil Params: the defaults
		{games.DefaultConfig("tictactoe"), "game:\n  name: tictactoe\n"},
	} {
		b, err := strictyaml.Encode(section{Game: tc.cfg})
		if err != nil || string(b) != tc.want {
			t.Errorf("Encode(%+v) = %q, %v; want %q", tc.cfg, b, err, tc.want)
		}
	}
}

func TestWith(t *testing.T) {
	c, err := games.DefaultConfig("wyb").With("turn_limit", 0)
	if err != nil {
		t.Fatal(err)
	}
	if g, err := games.New(c); err != nil || g.Name() != "wyb-nolimit" {
		t.Fatalf("wyb with turn_limit 0 builds %v, %v", g, err)
	}
	for _, tc := range []struct {
		cfg   games.Config
		key   string
		value any
		want  []string
	}{
		{games.DefaultConfig("squatter"), "turn_limit", 5, []string{"game.turn_limit", "not a parameter of squatter", "size"}},
		{games.DefaultConfig("tictactoe"), "size", 4, []string{"game.size", "it has none"}},
		{games.DefaultConfig("wyb"), "turn_limit", "soon", []string{"game", "soon"}},
		{games.Config{Name: "chess"}, "size", 8, []string{`unknown game "chess"`}},
	} {
		_, err := tc.cfg.With(tc.key, tc.value)
		for _, s := range tc.want {
			if err == nil || !strings.Contains(err.Error(), s) {
				t.Errorf("%s.With(%q, %v) = %v, want an error containing %q", tc.cfg.Name, tc.key, tc.value, err, s)
			}
		}
	}
}

func TestLookup(t *testing.T) {
	for _, tc := range []struct{ name, want, wantErr string }{
		{name: "wyb", want: "wyb"},
		{name: "wyb-nolimit", want: "wyb-nolimit"},
		{name: "squatter", want: "squatter6"}, // the family's default
		{name: "squatter8", want: "squatter8"},
		{name: "tictactoe", want: "tictactoe"},
		{name: "squatter3", wantErr: "game.size"},
		{name: "chess", wantErr: "unknown game"},
		{name: "", wantErr: "unknown game"},
	} {
		g, err := games.ByName(tc.name)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "squatterN") {
				t.Errorf("ByName(%q) = %v, %v; want an error containing %q and the registered names", tc.name, g, err, tc.wantErr)
			}
		case err != nil || g.Name() != tc.want:
			t.Errorf("ByName(%q) = %v, %v; want %s", tc.name, g, err, tc.want)
		}
	}
}

// Help and the errors list every registered family, and every family's
// default game is reachable by its name.
func TestRegisteredFamilies(t *testing.T) {
	fams := games.Families()
	var names []string
	for _, r := range fams {
		names = append(names, r.Name)
	}
	if want := []string{"connect4", "squatter", "tictactoe", "wyb"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("families %v, want %v", names, want)
	}
	help := games.Help(nil)
	for _, want := range []string{"Watch Your Back!: wyb (turn limit 256), wyb-nolimit, wyb-limitN", "Squatter: squatterN (", "tic-tac-toe: tictactoe", "Connect Four: connect4 (7 columns x 6 rows)"} {
		if !strings.Contains(help, want) {
			t.Errorf("Help = %q, missing %q", help, want)
		}
	}
	for _, r := range fams {
		g, err := games.New(games.DefaultConfig(r.Name))
		if err != nil {
			t.Fatalf("%s: %v", r.Name, err)
		}
		c, err := games.ConfigFromName(g.Name())
		if err != nil || c != games.DefaultConfig(r.Name) {
			t.Errorf("ConfigFromName(%q) = %+v, %v; want the defaults of %s", g.Name(), c, err, r.Name)
		}
	}
	refereed := games.Help(func(g env.Game) bool { _, ok := g.(env.Refereed); return ok })
	if !strings.Contains(refereed, "wyb") || !strings.Contains(refereed, "squatterN") || strings.Contains(refereed, "tictactoe") {
		t.Errorf("Help(refereed) = %q, want wyb and squatter only", refereed)
	}
	if got := games.Help(func(env.Game) bool { return false }); got != "none" {
		t.Errorf("Help(none) = %q", got)
	}
}

// noCompare has a slice, so == on Configs holding it would panic.
type noCompare struct{ Cells []int }

func (noCompare) Game() (env.Game, error) { return tictactoe.New(), nil }

type emptyParams struct{}

func (emptyParams) Game() (env.Game, error) { return tictactoe.New(), nil }

// Register refuses what would break the registry, before changing it.
func TestRegisterPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    games.Registration
		want string
	}{
		{"duplicate", games.Registration{Name: "wyb", Defaults: emptyParams{}}, "twice"},
		{"no name", games.Registration{Defaults: emptyParams{}}, "no Name"},
		{"no defaults", games.Registration{Name: "x-nodefaults"}, "no Defaults"},
		{"not comparable", games.Registration{Name: "x-slice", Defaults: noCompare{}}, "comparable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(games.Families())
			defer func() {
				p := recover()
				if s, _ := p.(string); !strings.Contains(s, tc.want) {
					t.Errorf("Register panicked with %v, want %q", p, tc.want)
				}
				if n := len(games.Families()); n != before {
					t.Errorf("%d families after a refused Register, want %d", n, before)
				}
			}()
			games.Register(tc.r)
		})
	}
}

func FuzzConfigYAML(f *testing.F) {
	for _, s := range []string{
		"game:\n  name: wyb\n  turn_limit: 64\n", "game:\n  name: squatter\n  size: 8\n",
		"game: {name: tictactoe, turn_limit: 3, size: 2}\n", "game:\n  size: 7\n  name: squatter\n",
		"game: [1]\n", "game:\n  name: &a wyb\n  turn_limit: *a\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		var s section
		s.Game = games.DefaultConfig("wyb")
		if err := strictyaml.Decode("fuzz.yaml", []byte(text), &s); err != nil {
			return
		}
		if s.Game.Validate() != nil {
			return
		}
		enc, err := strictyaml.Encode(s)
		if err != nil {
			t.Fatal(err)
		}
		var back section
		if err := strictyaml.Decode("enc.yaml", enc, &back); err != nil || back.Game != s.Game {
			t.Fatalf("%q decodes to %+v, whose encoding\n%s decodes to %+v, %v", text, s.Game, enc, back.Game, err)
		}
	})
}
