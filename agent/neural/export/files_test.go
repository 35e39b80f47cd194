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
