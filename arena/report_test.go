package arena

import (
	"strings"
	"testing"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/tictactoe"
	"github.com/zerokit/zerokit/env/wyb"
)

func TestGameLines(t *testing.T) {
	for _, tc := range []struct {
		name    string
		game    env.Game
		actions []int
		want    string
	}{
		// Tic-tac-toe has no referee: action strings.
		{"action strings", tictactoe.New(), []int{4, 0}, `["1,1", "0,0"]` + "\n"},
		// Watch Your Back! has one (env.Refereed): its action form.
		{"referee form", wyb.New(wyb.Options{}), []int{wyb.PlaceAction(3, 4)}, "[[3, 4]]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := GameLines(tc.game, []GameRecord{{Actions: tc.actions}})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("GameLines = %q, want %q", got, tc.want)
			}
		})
	}
	if _, err := GameLines(tictactoe.New(), []GameRecord{{Actions: []int{4, 4}}}); err == nil || !strings.Contains(err.Error(), "action 1") {
		t.Errorf("illegal action: error %v, want one naming action 1", err)
	}
}
