package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/agent/spec"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/env/wyb"
)

// testDiagram is a moving-phase position, White to move.
var testDiagram = strings.Join([]string{
	"X - - - - - - X",
	"- - - - - - - -",
	"- - - - - - - -",
	"- - - O O - - -",
	"- - - @ - - - -",
	"- - - - - - - -",
	"- - - - - - @ -",
	"X - - - - - - X",
}, "\n")

func TestParseHumanAction(t *testing.T) {
	placing := wyb.New(wyb.Options{}).NewState()
	moving, err := wyb.NewPosition(wyb.Options{}, testDiagram, wyb.Moving, 0)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		s       *wyb.State
		in      string
		want    int
		wantErr string
	}{
		{placing, "3 4", wyb.PlaceAction(3, 4), ""},
		{placing, "3,4", wyb.PlaceAction(3, 4), ""},
		{placing, " (3, 4) ", wyb.PlaceAction(3, 4), ""},
		{placing, "[3,4]", wyb.PlaceAction(3, 4), ""},
		{placing, "0,0", 0, "corner"},
		{placing, "3 6", 0, "starting zone"},
		{placing, "9 9", 0, "off the board"},
		{placing, "-1 2", 0, "not negative"},
		{placing, "3", 0, "1 numbers"},
		{placing, "3 4 5", 0, "3 numbers"},
		{placing, "3a4", 0, "unexpected \"a\""},
		{placing, "pass", 0, "forfeit in the placing phase"},
		{placing, "3,4-3,5", 0, "invalid place action representation"},
		{placing, "99999999999999999999 1", 0, "off the board"},
		{moving, "3,3-3,2", wyb.MoveAction(3, 3, wyb.Up, false), ""},
		{moving, "3,3 3,2", wyb.MoveAction(3, 3, wyb.Up, false), ""},
		{moving, "3 3 3 2", wyb.MoveAction(3, 3, wyb.Up, false), ""},
		{moving, "(3, 3) -> (3, 2)", wyb.MoveAction(3, 3, wyb.Up, false), ""},
		{moving, "[[3, 3], [3, 5]]", wyb.MoveAction(3, 3, wyb.Down, true), ""},
		{moving, "3,4-3,5", 0, "opponent"},
		{moving, "3,3-5,5", 0, "diagonal"},
		{moving, "pass", 0, "has a legal move"},
		{moving, "3 4", 0, "invalid move action representation"},
	}
	for _, tc := range tests {
		got, err := wyb.ParseHumanAction(tc.s, tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("wyb.ParseHumanAction(%q) = %d, %v; want error containing %q", tc.in, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("wyb.ParseHumanAction(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

// notations writes action a in several of the accepted notations, chosen
// by i.
func notation(a, i int) string {
	kind, fx, fy, tx, ty := wyb.DecodeAction(a)
	switch kind {
	case wyb.PassKind:
		return "pass"
	case wyb.PlaceKind:
		return []string{"%d %d", "%d,%d", "(%d, %d)", "[%d,%d]"}[i%4]
	}
	f := []string{"%d,%d-%d,%d", "%d,%d %d,%d", "%d %d %d %d", "(%d,%d)->(%d,%d)"}[i%4]
	return fmt.Sprintf(f, fx, fy, tx, ty)
}

func humanLine(a, i int) string {
	kind, fx, fy, _, _ := wyb.DecodeAction(a)
	if kind == wyb.PlaceKind {
		return fmt.Sprintf(notation(a, i), fx, fy)
	}
	return notation(a, i)
}

// TestPlayFullGame scripts a whole game: the person's moves come from a
// random agent and the opponent is a seeded random agent, whose moves the
// test predicts by running the same agent on a replica. Wrong inputs are
// mixed in and must be refused with a reason.
// playAgents returns the agent "random:seed=5" play builds as the opponent
// (to predict its moves) and a random agent that plays the person's moves.
func playAgents(t *testing.T, game env.Game) (bot, person agent.Agent) {
	t.Helper()
	built, err := spec.Default().Build(game, "random:seed=5")
	if err != nil {
		t.Fatal(err)
	}
	if bot, err = built.NewAgent(0); err != nil {
		t.Fatal(err)
	}
	return bot, agent.NewRandom(99)
}

// scriptGame plays s to its end, human's moves by person and the others by
// bot (the replica of play's agent), and returns play's input: type's
// lines for each move (called before the move, empty for bot's).
func scriptGame(t *testing.T, bot, person agent.Agent, s env.State, human int, typed func(i int, s env.State, a int, mine bool) string) string {
	t.Helper()
	var in strings.Builder
	for i := 0; !s.IsTerminal(); i++ {
		mine := s.CurrentPlayer() == human
		var a int
		var err error
		if mine {
			a, err = person.Act(context.Background(), s)
		} else {
			a, err = bot.Act(context.Background(), s.Clone())
		}
		if err != nil {
			t.Fatal(err)
		}
		in.WriteString(typed(i, s, a, mine))
		if err := s.ApplyAction(a); err != nil {
			t.Fatal(err)
		}
	}
	return in.String()
}

func TestPlayFullGame(t *testing.T) {
	for _, colour := range []string{"white", "black"} {
		t.Run(colour, func(t *testing.T) {
			const limit = 60
			game := wyb.New(wyb.Options{TurnLimit: limit})
			human := wyb.WhitePlayer
			if colour == "black" {
				human = wyb.BlackPlayer
			}
			bot, person := playAgents(t, game)
			s := game.NewState()
			in := scriptGame(t, bot, person, s, human, func(i int, _ env.State, a int, mine bool) string {
				switch {
				case !mine:
					return ""
				case i%7 == 0:
					return "help\n\n9 9\n" + humanLine(a, i) + "\n"
				}
				return humanLine(a, i) + "\n"
			})
			var out, errb strings.Builder
			args := []string{"-agent", "random:seed=5", "-colour", colour, "-turn-limit", fmt.Sprint(limit), "-move-time", "1s"}
			if err := runPlay(context.Background(), args, strings.NewReader(in), &out, &errb); err != nil {
				t.Fatalf("play: %v\n%s", err, errb.String())
			}
			o := out.String()
			wantEnd := "Game over: " + result(s, human) + wyb.New(wyb.Options{}).Outcome(s) + "\n"
			if !strings.HasSuffix(o, wantEnd) {
				t.Errorf("output ends %q, want %q", o[max(0, len(o)-300):], wantEnd)
			}
			if i := strings.LastIndex(o, "     0 1 2 3 4 5 6 7\n   +"); i < 0 || !strings.HasPrefix(o[i:], wyb.DrawBoard(s)) {
				t.Errorf("final board differs from the replica's:\n%s", wyb.DrawBoard(s))
			}
			for _, want := range []string{"Not a legal move: place (9, 9) is off the board", "legal moves:", "random played"} {
				if !strings.Contains(o, want) {
					t.Errorf("output lacks %q", want)
				}
			}
		})
	}
}

// TestPlayCellGames scripts whole games of Squatter on a 6x6 board and of
// tic-tac-toe (which plays through its env.TextUI alone) as
// TestPlayFullGame does, with malformed and illegal inputs mixed in.
func TestPlayCellGames(t *testing.T) {
	for _, tc := range []struct {
		game    string
		colours [2]string
		want    []string
	}{
		{"squatter6", [2]string{"black", "white"}, []string{"Squatter.", "off the 6x6 board", "is not free"}},
		{"tictactoe", [2]string{"x", "o"}, []string{"Tic-tac-toe.", "coordinates must be in 0..2"}},
	} {
		for human, colour := range tc.colours {
			t.Run(tc.game+"/"+colour, func(t *testing.T) {
				playCellGame(t, tc.game, colour, human, tc.want)
			})
		}
	}
}

// playCellGame plays game (whose moves are x,y cells) as human with the
// given colour against a random agent and checks the output.
func playCellGame(t *testing.T, name, colour string, human int, wants []string) {
	t.Helper()
	game, err := games.ByName(name)
	if err != nil {
		t.Fatal(err)
	}
	bot, person := playAgents(t, game)
	s := game.NewInitialState()
	var taken string
	in := scriptGame(t, bot, person, s, human, func(i int, s env.State, a int, mine bool) string {
		var line strings.Builder
		if mine {
			if i%5 == 0 {
				line.WriteString("help\n9,9\nx\n")
				if taken != "" {
					line.WriteString(taken + "\n")
				}
			}
			x, y, _ := strings.Cut(s.ActionString(a), ",")
			line.WriteString("(" + x + ", " + y + ")\n")
		}
		taken = s.ActionString(a)
		return line.String()
	})
	var out, errb strings.Builder
	args := []string{"-game", name, "-agent", "random:seed=5", "-colour", colour, "-move-time", "1s"}
	if err := runPlay(context.Background(), args, strings.NewReader(in), &out, &errb); err != nil {
		t.Fatalf("play: %v\n%s", err, errb.String())
	}
	o := out.String()
	wantEnd := game.(env.TextUI).Board(s)
	if !strings.HasSuffix(o, "Game over: "+result(s, human)+game.(env.TextUI).Outcome(s)+"\n") || !strings.Contains(o, wantEnd) {
		t.Errorf("output ends %q, want the replica's final board and result", o[max(0, len(o)-400):])
	}
	for _, want := range append(wants, "write x,y", "legal moves:", "random played") {
		if !strings.Contains(o, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestPlayTurnLimitIsWYBOnly(t *testing.T) {
	var out, errb strings.Builder
	err := runPlay(context.Background(), []string{"-game", "squatter", "-turn-limit", "5"}, strings.NewReader(""), &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "-turn-limit: game.turn_limit: not a parameter of squatter") {
		t.Errorf("-turn-limit with squatter: %v", err)
	}
}

// The game play builds for each -game and -turn-limit: a bare wyb plays
// as the referee (no turn limit) unless -turn-limit is given.
func TestPlayGame(t *testing.T) {
	for _, tc := range []struct {
		name      string
		turnLimit int
		want      string
	}{
		{"wyb", 0, "wyb-nolimit"},
		{"wyb", 100, "wyb-limit100"},
		{"wyb-limit50", 0, "wyb-limit50"},
		{"wyb-limit50", 256, "wyb"},
		{"squatter", 0, "squatter6"},
		{"squatter8", 0, "squatter8"},
		{"tictactoe", 0, "tictactoe"},
		{"chess", 0, "error: -game: game name \"chess\": unknown game (want "},
		{"tictactoe", 3, "error: -turn-limit: game.turn_limit: not a parameter of tictactoe"},
	} {
		g, err := playGame(tc.name, tc.turnLimit)
		got := ""
		if err != nil {
			got = "error: " + err.Error()
		} else {
			got = g.Name()
		}
		if !strings.HasPrefix(got, tc.want) || (err == nil) != !strings.HasPrefix(tc.want, "error") {
			t.Errorf("playGame(%q, %d) = %s, want %s", tc.name, tc.turnLimit, got, tc.want)
		}
	}
}

func TestPlayLeavesEarly(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"3 4\nquit\n", "You resign. Black (@), random wins.\n"},
		{"3 4\n", "Input ended: game abandoned.\n"},
		{"", "Input ended: game abandoned.\n"},
	}
	for _, tc := range tests {
		var out, errb strings.Builder
		if err := runPlay(context.Background(), []string{"-agent", "random"}, strings.NewReader(tc.in), &out, &errb); err != nil {
			t.Fatalf("play: %v", err)
		}
		if !strings.HasSuffix(out.String(), tc.want) {
			t.Errorf("input %q: output ends %q, want %q", tc.in, out.String()[max(0, out.Len()-100):], tc.want)
		}
	}
}

func TestPlayBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-colour", "red"}, {"-agent", "nope"}, {"-move-time", "-1s"}, {"extra"}, {"-agent", "alphabeta:depth=x"},
	} {
		var out, errb strings.Builder
		if err := runPlay(context.Background(), args, strings.NewReader(""), &out, &errb); err == nil {
			t.Errorf("play %q succeeded", args)
		}
	}
}

func TestDrawBoard(t *testing.T) {
	s, err := wyb.NewPosition(wyb.Options{}, testDiagram, wyb.Moving, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := `     0 1 2 3 4 5 6 7
   +-----------------+
 0 | X . . . . . . X | 0
 1 | . . . . . . . . | 1
 2 | . . . . . . . . | 2
 3 | . . . O O . . . | 3
 4 | . . . @ . . . . | 4
 5 | . . . . . . . . | 5
 6 | . . . . . . @ . | 6
 7 | X . . . . . . X | 7
   +-----------------+
     0 1 2 3 4 5 6 7
`
	if got := wyb.DrawBoard(s); got != want {
		t.Errorf("drawBoard =\n%s\nwant\n%s", got, want)
	}
}
