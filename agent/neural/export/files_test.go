package export

import (
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/tictactoe"
)

// The README offers "zerokit play" for exactly the games a person can play
// in a terminal (env.TextUI), whatever their name.
func TestReadmePlayLine(t *testing.T) {
	m := neural.Manifest{Game: "tictactoe"}
	for _, tc := range []struct {
		name string
		game env.Game
		want bool
	}{
		{"text UI", tictactoe.New(), true},
		{"none", struct{ env.Game }{tictactoe.New()}, false}, // hides env.TextUI
	} {
		got := string(readme(m, "net:path=DIR", "/bin/zerokit", Budget{}, nil, tc.game))
		if has := strings.Contains(got, "/bin/zerokit play -game tictactoe -agent net:path=DIR"); has != tc.want {
			t.Errorf("%s: README offers play: %v, want %v:\n%s", tc.name, has, tc.want, got)
		}
	}
}

// A game no course referee plays gets no referee adapter: its README says
// how to play it through zerokit serve, and names no adapter file.
func TestReadmeWithoutCourse(t *testing.T) {
	got := string(readme(neural.Manifest{Game: "tictactoe"}, "default", "", Budget{}, nil, tictactoe.New()))
	for _, want := range []string{"zerokit serve -game tictactoe -agent default", "No course referee plays tictactoe"} {
		if !strings.Contains(got, want) {
			t.Errorf("README lacks %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"referee.py", AdapterModule, AdapterConfig, PackageInit, "60 s of CPU"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("README names %q:\n%s", unwanted, got)
		}
	}
	if CourseGame("tictactoe") || CourseGame("connect4") || !CourseGame("wyb-nolimit") || !CourseGame("squatter7") {
		t.Error("CourseGame: want wyb* and squatter* only")
	}
}
