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
		{"white wins", game(35, 1, 1), "", result{winner: 1, moves: 35, reason: "game over"}},
		{"black wins", game(36, 2, 2), "", result{winner: 2, moves: 36, reason: "game over"}},
		{"a draw", game(36, 3, 3), "", result{winner: 3, moves: 36, reason: "game over"}},
		{"the players disagree", game(36, 1, 2), "", result{winner: 0, moves: 36, reason: "the players disagree: White claims 1, Black 2", claims: [2]int{1, 2}}},
		{"black rejects white's move", placed(7) + "Exception: Player 2 rejected the move of player 1.\n", "", result{winner: 2, moves: 7, reason: "Black rejected the move of White", rejected: 1}},
		{"white rejects black's move", placed(8) + "Exception: Player 1 rejected the move of player 2.\n", "", result{winner: 1, moves: 8, reason: "White rejected the move of Black", rejected: 2}},
		{"white's player fails", placed(5), "zerokit_player white: the agent used 2.00 s of CPU\nException in thread \"main\" zerokit.ZerokitPlayer$ZerokitException: zerokit player white: the agent used 2.00 s of CPU, over the limit of 1 s per game\n\tat zerokit.ZerokitPlayer.fail(ZerokitPlayer.java:1)\nzerokit_opponent black: 0.1 s CPU\n",
			result{winner: 2, moves: 5, reason: "white's player failed: the agent used 2.00 s of CPU, over the limit of 1 s per game"}},
		{"black cannot start", game(0, 0, -1), "zerokit_opponent black: cannot start: the zerokit server answered init\n", result{winner: 1, moves: 0, reason: "Black's player failed (it claims -1): cannot start: the zerokit server answered init"}},
		{"the referee cannot load a class", "Referee started !\nError no.such.Player\n", "", result{winner: 0, moves: 0, reason: "the referee did not finish"}},
		{"java fails", "", "Error: Could not find or load main class aiproj.squatter.Referee\n", result{winner: 0, moves: 0, reason: "the referee did not finish: Error: Could not find or load main class aiproj.squatter.Referee"}},
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
		{result{winner: 1, moves: 35, reason: "game over"}, "white", refbench.Win},
		{result{winner: 1, moves: 35, reason: "game over"}, "black", refbench.Loss},
		{result{winner: 2, moves: 36, reason: "game over"}, "black", refbench.Win},
		{result{winner: 3, moves: 36, reason: "game over"}, "white", refbench.Draw},
		{result{winner: 0, moves: 36, reason: "the players disagree"}, "white", refbench.Failed},
		{result{winner: 2, moves: 7, reason: "Black rejected the move of White", rejected: 1}, "white", refbench.Loss},
		{result{winner: 1, moves: 0, reason: "Black's player failed (it claims -1)"}, "white", refbench.Failed},
		{result{winner: 1, moves: 12, reason: "black's player failed: over the limit"}, "black", refbench.Loss},
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

// placings writes the referee's placing lines of moves, each "Row:Col"
// with the mover's piece code (White 1 first, then Black 2).
func placings(moves ...string) string {
	var b strings.Builder
	for i, m := range moves {
		b.WriteString("Placing to. " + m + " by " + itoa(1+i%2) + "\n+ + +\n")
	}
	return b.String()
}

// fullGame is a 6x6 game played row by row, 36 moves: White fills the even
// cells, Black the odd ones, so that no loop closes (0-0).
func fullGame() []string {
	var moves []string
	for r := range 6 {
		for c := range 6 {
			moves = append(moves, itoa(r)+":"+itoa(c))
		}
	}
	return moves
}

func TestJudgeByReplay(t *testing.T) {
	full := placings(fullGame()...)
	// White surrounds (1,1) with (0,1), (1,0), (1,2) and (2,1) while Black
	// plays far away: White captures the cell, and Black's next move there
	// is illegal.
	capture := placings("0:1", "5:5", "1:0", "5:4", "1:2", "5:3", "2:1", "5:2")
	tests := []struct {
		name         string
		out          string
		colour       string
		want         refbench.Outcome
		score        *[2]int
		reasonSuffix string
	}{
		{"a finished 0-0 draw", full + "Player one (White) indicate winner as: 3\nPlayer two (Black) indicate winner as: 3\n", "white", refbench.Draw, &[2]int{0, 0}, "game over"},
		{"the players disagree and the replay sides with the agent", full + "Player one (White) indicate winner as: 2\nPlayer two (Black) indicate winner as: 3\n", "black", refbench.Draw, &[2]int{0, 0}, "Black's claim stands)"},
		{"the players disagree and neither is right", full + "Player one (White) indicate winner as: 1\nPlayer two (Black) indicate winner as: 2\n", "white", refbench.Failed, &[2]int{0, 0}, "Black 2"},
		{"the opponent rejects a legal move of the agent", capture + "Exception: Player 1 rejected the move of player 2.\n", "black", refbench.Failed, nil, "left out of the score)"},
		{"the opponent rejects an illegal move of the agent", placings("0:1", "5:5", "1:0", "5:4", "1:2", "5:3", "2:1", "1:1") + "Exception: Player 1 rejected the move of player 2.\n", "black", refbench.Loss, nil, "captured territory)"},
		{"the agent rejects the opponent's legal move", capture + "Exception: Player 1 rejected the move of player 2.\n", "white", refbench.Win, nil, "Black"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := parseReferee(tc.out, "")
			g := refbench.Game{AgentColour: tc.colour, Reason: r.reason, Outcome: outcome(r, tc.colour)}
			judgeByReplay(&g, r, 6, tc.out)
			if g.Outcome != tc.want {
				t.Errorf("outcome %s (%s), want %s", g.Outcome, g.Reason, tc.want)
			}
			if (g.FinalScore == nil) != (tc.score == nil) || (g.FinalScore != nil && *g.FinalScore != *tc.score) {
				t.Errorf("final score %v, want %v", g.FinalScore, tc.score)
			}
			if !strings.HasSuffix(g.Reason, tc.reasonSuffix) {
				t.Errorf("reason %q, want it to end with %q", g.Reason, tc.reasonSuffix)
			}
			if got := g.ZeroZero(); got != (tc.score != nil && *tc.score == [2]int{}) {
				t.Errorf("ZeroZero = %v", got)
			}
		})
	}
}

func TestReplayScores(t *testing.T) {
	// White closes a loop around (1,1) and Black's piece on it: White
	// scores that cell; the game is not over.
	out := placings("0:1", "1:1", "1:0", "5:4", "1:2", "5:3", "2:1")
	rp, err := replay(6, out)
	if err != nil {
		t.Fatal(err)
	}
	if rp.moves != 7 || rp.illegal != -1 || rp.final || rp.scores != [2]int{1, 0} {
		t.Errorf("replay = %+v, want 7 moves, none illegal, not final, scores [1 0]", rp)
	}
	if rp, err := replay(6, "Placing to. 9:9 by 1\n"); err != nil || rp.illegal != 0 || rp.moves != 1 {
		t.Errorf("replay of a move off the board = %+v, %v; want it illegal", rp, err)
	}
	if _, err := replay(5, ""); err == nil {
		t.Error("replay on a 5x5 board: no error")
	}
}
