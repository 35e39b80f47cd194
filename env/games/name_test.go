package games_test

import (
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/env/squatter"
	"github.com/zerokit/zerokit/env/wyb"
)

func TestConfigFromName(t *testing.T) {
	tests := []struct {
		name    string
		want    games.Config
		wantErr string
	}{
		{name: "wyb", want: games.DefaultConfig("wyb")},
		{name: "wyb-nolimit", want: games.Config{Name: "wyb", Params: wyb.Options{}}},
		{name: "wyb-limit100", want: games.Config{Name: "wyb", Params: wyb.Options{TurnLimit: 100}}},
		{name: "squatter6", want: games.Config{Name: "squatter", Params: squatter.Params{Size: 6}}},
		{name: "squatter9", want: games.Config{Name: "squatter", Params: squatter.Params{Size: 9}}},
		{name: "tictactoe", want: games.DefaultConfig("tictactoe")},
		{name: "wyb-limit0", wantErr: "not a positive integer"},
		{name: "wyb-limit256", wantErr: `canonical name "wyb"`},
		{name: "wyb-limitx", wantErr: "not a positive integer"},
		{name: "squatter", wantErr: "not an integer"},
		{name: "squatter3", wantErr: "game.size"},
		{name: "squatter06", wantErr: "canonical"},
		{name: "chess", wantErr: "unknown game"},
		{name: "", wantErr: "unknown game"},
	}
	for _, tc := range tests {
		c, err := games.ConfigFromName(tc.name)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("games.ConfigFromName(%q) = %+v, %v; want an error containing %q", tc.name, c, err, tc.wantErr)
			}
			continue
		}
		if err != nil || c != tc.want {
			t.Errorf("games.ConfigFromName(%q) = %+v, %v; want %+v", tc.name, c, err, tc.want)
			continue
		}
		g, err := games.New(c)
		if err != nil || g.Name() != tc.name {
			t.Errorf("games.New(games.ConfigFromName(%q)) named %v (%v)", tc.name, g, err)
		}
	}
}

func FuzzConfigFromName(f *testing.F) {
	for _, s := range []string{"wyb", "wyb-nolimit", "wyb-limit7", "squatter8", "tictactoe", "squatter-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		c, err := games.ConfigFromName(name)
		if err != nil {
			return
		}
		g, err := games.New(c)
		if err != nil {
			t.Fatalf("games.ConfigFromName(%q) = %+v, which New rejects: %v", name, c, err)
		}
		if g.Name() != name {
			t.Fatalf("games.ConfigFromName(%q) builds %q", name, g.Name())
		}
	})
}
