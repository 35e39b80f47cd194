package javareferee

import (
	"strings"
	"testing"

	"github.com/zerokit/zerokit/arena/refbench"
)

// game writes the referee's stdout of a game of moves moves that ended
// with the claims white and black.
func game(moves, white, black int) string {
	var b strings.Builder
	b.WriteString("Referee started !\n")
	for i := range moves {
		b.WriteString("Placing to. 1:2 by " + string(rune('1'+i%2)) + "\n+ + W\n")
	}
	b.WriteString("--------------------------------------\nP2 Board is :\nW B\nP1 Board is :\nW B\n")
	b.WriteString("Player one (White) indicate winner as: " + itoa(white) + "\n")
	b.WriteString("Player two (Black) indicate winner as: " + itoa(black) + "\n")
	b.WriteString("Total Number of Moves Played in the Game: " + itoa(moves) + "\nReferee Finished !\n")
	return b.String()
}

func itoa(v int) string {
	if v < 0 {
		return "-" + itoa(-v)
	}
	if v < 10 {
		return string(rune('0' + v))
	}
	return itoa(v/10) + itoa(v%10)
}

func TestParseReferee(t *testing.T) {
	placed := func(k int) string {
		return strings.Repeat("Placing to. 0:0 by 1\n+ +\n", k)
	}
	tests := []struct {
		name, out, err string
		want           result
	}{
		{"white wins", game(35, 1, 1), "", result{1, 35, "game over"}},
		{"black wins", game(36, 2, 2), "", result{2, 36, "game over"}},
		{"a draw", game(36, 3, 3), "", result{3, 36, "game over"}},
		{"the players disagree", game(36, 1, 2), "", result{0, 36, "the players disagree: White claims 1, Black 2"}},
		{"black rejects white's move", placed(7) + "Exception: Player 2 rejected the move of player 1.\n", "", result{2, 7, "Black rejected the move of White"}},
		{"white rejects black's move", placed(8) + "Exception: Player 1 rejected the move of player 2.\n", "", result{1, 8, "White rejected the move of Black"}},
		{"white's player fails", placed(5), "zerokit_player white: the agent used 2.00 s of CPU\nException in thread \"main\" zerokit.ZerokitPlayer$ZerokitException: zerokit player white: the agent used 2.00 s of CPU, over the limit of 1 s per game\n\tat zerokit.ZerokitPlayer.fail(ZerokitPlayer.java:1)\nzerokit_opponent black: 0.1 s CPU\n",
			result{2, 5, "white's player failed: the agent used 2.00 s of CPU, over the limit of 1 s per game"}},
		{"black cannot start", game(0, 0, -1), "zerokit_opponent black: cannot start: the zerokit server answered init\n", result{1, 0, "Black's player failed (it claims -1): cannot start: the zerokit server answered init"}},
		{"the referee cannot load a class", "Referee started !\nError no.such.Player\n", "", result{0, 0, "the referee did not finish"}},
		{"java fails", "", "Error: Could not find or load main class aiproj.squatter.Referee\n", result{0, 0, "the referee did not finish: Error: Could not find or load main class aiproj.squatter.Referee"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseReferee(tc.out, tc.err); got != tc.want {
				t.Errorf("parseReferee = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestOutcome(t *testing.T) {
	for _, tc := range []struct {
		r      result
		colour string
		want   refbench.Outcome
	}{
		{result{1, 35, "game over"}, "white", refbench.Win},
		{result{1, 35, "game over"}, "black", refbench.Loss},
		{result{2, 36, "game over"}, "black", refbench.Win},
		{result{3, 36, "game over"}, "white", refbench.Draw},
		{result{0, 36, "the players disagree"}, "white", refbench.Failed},
		{result{2, 7, "Black rejected the move of White"}, "white", refbench.Loss},
		{result{1, 0, "Black's player failed (it claims -1)"}, "white", refbench.Failed},
		{result{1, 12, "black's player failed: over the limit"}, "black", refbench.Loss},
	} {
		if got := outcome(tc.r, tc.colour); got != tc.want {
			t.Errorf("outcome(%+v, %s) = %s, want %s", tc.r, tc.colour, got, tc.want)
		}
	}
}

func TestPrepareChecksOpponents(t *testing.T) {
	tab := &Table{N: 6}
	for _, tc := range []struct {
		opp  refbench.Opponent
		bin  string
		want string
	}{
		{refbench.Opponent{Module: "x.py"}, "zk", "a Python module cannot play"},
		{refbench.Opponent{}, "zk", "want a spec or a class"},
		{refbench.Opponent{Spec: "random"}, "", "no zerokit binary"},
		{refbench.Opponent{Class: "zerokit.ZerokitPlayer"}, "zk", "is the agent's"},
	} {
		err := tab.Prepare(&refbench.Options{Opponents: []refbench.Opponent{tc.opp}, Binary: tc.bin})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Prepare(%+v) = %v, want an error with %q", tc.opp, err, tc.want)
		}
	}
	if err := tab.Prepare(&refbench.Options{Opponents: []refbench.Opponent{{Spec: "random"}, {Class: "their.Player"}}, Binary: "zk"}); err != nil {
		t.Errorf("Prepare of a spec and a class: %v", err)
	}
}
