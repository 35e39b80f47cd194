package wyb

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// diag turns 8 compact rows ('-' empty, 'O' White, '@' Black, 'X' corner,
// '.' removed) into the referee's diagram format.
func diag(rows ...string) string {
	if len(rows) != 8 {
		panic("diag: want 8 rows")
	}
	out := make([]string, 8)
	for y, r := range rows {
		if len(r) != 8 {
			panic("diag: row " + r + " is not 8 wide")
		}
		cells := make([]string, 8)
		for x := range 8 {
			c := string(r[x])
			if c == "." {
				c = " "
			}
			cells[x] = c
		}
		out[y] = strings.Join(cells, " ")
	}
	return strings.Join(out, "\n")
}

func mustPosition(t *testing.T, opts Options, board string, phase Phase, turn int) *State {
	t.Helper()
	s, err := NewPosition(opts, board, phase, turn)
	if err != nil {
		t.Fatalf("NewPosition: %v", err)
	}
	return s
}

func mustParse(t *testing.T, s string) int {
	t.Helper()
	a, err := ParseNotation(s)
	if err != nil {
		t.Fatalf("ParseNotation(%q): %v", s, err)
	}
	return a
}

// An 8x8 board with only the initial corners, for building positions.
const emptyRow = "--------"

// TestRules plays one action in a set-up position and checks the board,
// the progress line and the outcome afterwards. Each case names the rule
// (and the figure of the rules document) it exercises.
func TestRules(t *testing.T) {
	type tc struct {
		name     string
		opts     Options
		before   []string
		phase    Phase
		turn     int
		actions  []string
		after    []string
		progress string
		outcome  Outcome
	}
	cases := []tc{
		{
			name: "fig3a black sandwiched vertically by two whites is eliminated",
			before: []string{
				"X------X", emptyRow,
				"---O----",
				"---@----",
				emptyRow, emptyRow, emptyRow, "X------X"},
			phase: Placing, turn: 2, actions: []string{"3,4"},
			after: []string{
				"X------X", emptyRow,
				"---O----",
				"--------",
				"---O----",
				emptyRow, emptyRow, "X------X"},
			progress: "3 turns into the placing phase",
		},
		{
			name: "fig3b white sandwiched horizontally by two blacks is eliminated",
			before: []string{
				"X------X", emptyRow, emptyRow,
				"--@O----",
				emptyRow, emptyRow, emptyRow, "X------X"},
			phase: Placing, turn: 3, actions: []string{"4,3"},
			after: []string{
				"X------X", emptyRow, emptyRow,
				"--@-@---",
				emptyRow, emptyRow, emptyRow, "X------X"},
			progress: "4 turns into the placing phase",
		},
		{
			name: "fig3c black between a white and a corner is eliminated",
			before: []string{
				"X------X", emptyRow, emptyRow, emptyRow, emptyRow, emptyRow,
				"@-------",
				"X------X"},
			phase: Placing, turn: 2, actions: []string{"0,5"},
			after: []string{
				"X------X", emptyRow, emptyRow, emptyRow, emptyRow,
				"O-------",
				"--------",
				"X------X"},
			progress: "3 turns into the placing phase",
		},
		{
			name: "fig4a diagonal whites do not eliminate",
			before: []string{
				"X------X", emptyRow,
				"--O-----",
				"---@----",
				emptyRow, emptyRow, emptyRow, "X------X"},
			phase: Placing, turn: 2, actions: []string{"4,4"},
			after: []string{
				"X------X", emptyRow,
				"--O-----",
				"---@----",
				"----O---",
				emptyRow, emptyRow, "X------X"},
			progress: "3 turns into the placing phase",
		},
		{
			name: "fig4b blacks above and to the left do not eliminate",
			before: []string{
				"X------X", emptyRow,
				"---@----",
				"---O----",
				emptyRow, emptyRow, emptyRow, "X------X"},
			phase: Placing, turn: 3, actions: []string{"2,3"},
			after: []string{
				"X------X", emptyRow,
				"---@----",
				"--@O----",
				emptyRow, emptyRow, emptyRow, "X------X"},
			progress: "4 turns into the placing phase",
		},
		{
			name: "fig4c a friendly piece does not sandwich",
			before: []string{
				"X------X", emptyRow, emptyRow,
				"--@@----",
				emptyRow, emptyRow, emptyRow, "X------X"},
			phase: Placing, turn: 4, actions: []string{"4,3"},
			after: []string{
				"X------X", emptyRow, emptyRow,
				"--@@O---",
				emptyRow, emptyRow, emptyRow, "X------X"},
			progress: "5 turns into the placing phase",
		},
		{
			name: "fig5a one place eliminates two blacks",
			before: []string{
				"X------X",
				"--O-----",
				"--@-----",
				"---@O---",
				emptyRow, emptyRow, emptyRow, "X------X"},
			phase: Placing, turn: 6, actions: []string{"2,3"},
			after: []string{
				"X------X",
				"--O-----",
				"--------",
				"--O-O---",
				emptyRow, emptyRow, emptyRow, "X------X"},
			progress: "7 turns into the placing phase",
		},
		{
			name: "fig5b square 2: placing between two enemies is suicide",
			before: []string{
				"X------X", emptyRow,
				"-----O--",
				"--------",
				"-----O--",
				emptyRow, emptyRow, "X------X"},
			phase: Placing, turn: 3, actions: []string{"5,3"},
			after: []string{
				"X------X", emptyRow,
				"-----O--",
				"--------",
				"-----O--",
				emptyRow, emptyRow, "X------X"},
			progress: "4 turns into the placing phase",
		},
		{
			name: "fig5b square 3: the arriving piece eliminates first and survives",
			before: []string{
				"X------X", emptyRow, emptyRow, emptyRow, emptyRow,
				"-@O-O---",
				emptyRow, "X------X"},
			phase: Placing, turn: 5, actions: []string{"3,5"},
			after: []string{
				"X------X", emptyRow, emptyRow, emptyRow, emptyRow,
				"-@-@O---",
				emptyRow, "X------X"},
			progress: "6 turns into the placing phase",
		},
		{
			name: "arriving piece eliminates horizontally but is still sandwiched vertically",
			before: []string{
				"X------X", emptyRow,
				"---O----",
				"-@O-----",
				"---O----",
				emptyRow, emptyRow, "X------X"},
			phase: Placing, turn: 7, actions: []string{"3,3"},
			after: []string{
				"X------X", emptyRow,
				"---O----",
				"-@------",
				"---O----",
				emptyRow, emptyRow, "X------X"},
			progress: "8 turns into the placing phase",
		},
		{
			name: "the edge of the board does not sandwich",
			before: []string{
				"X------X", emptyRow, emptyRow,
				"-@------",
				emptyRow, emptyRow, emptyRow, "X------X"},
			phase: Placing, turn: 2, actions: []string{"0,3"},
			after: []string{
				"X------X", emptyRow, emptyRow,
				"O@------",
				emptyRow, emptyRow, emptyRow, "X------X"},
			progress: "3 turns into the placing phase",
		},
		{
			name: "a side may have no pieces during the placing phase",
			before: []string{
				"X------X", emptyRow, emptyRow, emptyRow, emptyRow, emptyRow,
				"-@------",
				"X------X"},
			phase: Placing, turn: 20, actions: []string{"3,3", "4,4"},
			after: []string{
				"X------X", emptyRow, emptyRow,
				"---O----",
				"----@---",
				emptyRow,
				"-@------",
				"X------X"},
			progress: "22 turns into the placing phase",
		},
		{
			name: "the end check runs right after the 24th placement",
			before: []string{
				"X------X", emptyRow,
				"------O-",
				"--@O----",
				emptyRow, emptyRow, emptyRow, "X------X"},
			phase: Placing, turn: 23, actions: []string{"4,3"},
			after: []string{
				"X------X", emptyRow,
				"------O-",
				"--@-@---",
				emptyRow, emptyRow, emptyRow, "X------X"},
			progress: "game over!", outcome: BlackWins,
		},
		{
			name: "the moving phase starts at turn 0 with White to move",
			before: []string{
				"X------X", emptyRow,
				"-O----O-",
				"--@-----",
				emptyRow, "-----@--", emptyRow, "X------X"},
			phase: Placing, turn: 23, actions: []string{"4,6", "1,2-1,3"},
			after: []string{
				"X------X", emptyRow,
				"------O-",
				"-O@-----",
				emptyRow, "-----@--", "----@---", "X------X"},
			progress: "1 turns into the moving phase",
		},
		{
			name: "moving next to a corner and an enemy is suicide",
			before: []string{
				"X-@----X",
				"-O------",
				"--@--O--",
				emptyRow, emptyRow, emptyRow, emptyRow, "X------X"},
			phase: Moving, turn: 10, actions: []string{"1,1-1,0"},
			after: []string{
				"X-@----X",
				emptyRow,
				"--@--O--",
				emptyRow, emptyRow, emptyRow, emptyRow, "X------X"},
			progress: "game over!", outcome: BlackWins,
		},
		{
			name: "a jump eliminates on arrival",
			before: []string{
				"X------X",
				"---O----",
				"---@----",
				"--------",
				"---@----",
				"---O----",
				"--@-----",
				"X------X"},
			phase: Moving, turn: 4, actions: []string{"3,5-3,3"},
			after: []string{
				"X------X",
				"---O----",
				"--------",
				"---O----",
				"---@----",
				"--------",
				"--@-----",
				"X------X"},
			progress: "5 turns into the moving phase",
		},
		{
			name: "a forfeit is a turn",
			before: []string{
				"X------X", emptyRow, emptyRow, emptyRow, emptyRow,
				"-OO-----",
				"-OO-----",
				"X@@OO--X"},
			phase: Moving, turn: 41, actions: []string{"pass"},
			after: []string{
				"X------X", emptyRow, emptyRow, emptyRow, emptyRow,
				"-OO-----",
				"-OO-----",
				"X@@OO--X"},
			progress: "42 turns into the moving phase",
		},
		{
			name: "removed squares do not sandwich",
			before: []string{
				"........",
				".X----X.",
				".------.",
				".-@----.",
				".O-----.",
				".----@-.",
				".X-O--X.",
				"........"},
			phase: Moving, turn: 130, actions: []string{"1,4-1,3"},
			after: []string{
				"........",
				".X----X.",
				".------.",
				".O@----.",
				".------.",
				".----@-.",
				".X-O--X.",
				"........"},
			progress: "131 turns into the moving phase",
		},
		{
			name: "fig7a first shrink after moving turn 128: ring removed, new corners eliminate",
			before: []string{
				"X-O----X",
				"-OO@---@",
				"@--@-@--",
				"---@----",
				"-O-O--@-",
				"----O-O-",
				"------@O",
				"X---O--X"},
			phase: Moving, turn: 127, actions: []string{"3,3-4,3"},
			after: []string{
				"........",
				".X-@--X.",
				".--@-@-.",
				".---@--.",
				".O-O--@.",
				".---O--.",
				".X----X.",
				"........"},
			progress: "128 turns into the moving phase",
		},
		{
			name: "fig7b second shrink after moving turn 192; corners act top-left first",
			before: []string{
				"........",
				".X----X.",
				".------.",
				".OO-O--.",
				".-@@O-@.",
				".------.",
				".X----X.",
				"........"},
			phase: Moving, turn: 191, actions: []string{"6,4-6,3"},
			after: []string{
				"........",
				"........",
				"..X--X..",
				"..--O-..",
				"..@@O-..",
				"..X--X..",
				"........",
				"........"},
			progress: "192 turns into the moving phase",
		},
		{
			name: "mirror of the previous case: the later corner decides, so mirroring is not exact",
			before: []string{
				"........",
				".X----X.",
				".------.",
				".--O-OO.",
				".@-O@@-.",
				".------.",
				".X----X.",
				"........"},
			phase: Moving, turn: 191, actions: []string{"1,4-1,3"},
			after: []string{
				"........",
				"........",
				"..X--X..",
				"..-O-O..",
				"..-O@-..",
				"..X--X..",
				"........",
				"........"},
			progress: "game over!", outcome: WhiteWins,
		},
		{
			name: "no shrink when the game ends on turn 128",
			before: []string{
				"X------X",
				"--------",
				"--@O----",
				"----@---",
				"--------",
				"--------",
				"--------",
				"X---O--X"},
			phase: Moving, turn: 127, actions: []string{"4,3-4,2"},
			after: []string{
				"X------X",
				"--------",
				"--@-@---",
				"--------",
				"--------",
				"--------",
				"--------",
				"X---O--X"},
			progress: "game over!", outcome: BlackWins,
		},
		{
			name: "the end check runs after the shrink",
			before: []string{
				"X-O----X",
				"--------",
				"--@-----",
				"----O---",
				"--------",
				"--@-----",
				"--------",
				"X------X"},
			phase: Moving, turn: 127, actions: []string{"2,5-3,5"},
			after: []string{
				"........",
				".X----X.",
				".-@----.",
				".---O--.",
				".------.",
				".--@---.",
				".X----X.",
				"........"},
			progress: "game over!", outcome: BlackWins,
		},
		{
			name: "turn limit: more pieces wins",
			opts: Options{TurnLimit: 10},
			before: []string{
				"X------X", emptyRow,
				"-O--O---",
				"--------",
				"--@--O--",
				"------@-",
				emptyRow, "X------X"},
			phase: Moving, turn: 9, actions: []string{"6,5-6,6"},
			after: []string{
				"X------X", emptyRow,
				"-O--O---",
				"--------",
				"--@--O--",
				"--------",
				"------@-", "X------X"},
			progress: "game over!", outcome: WhiteWins,
		},
		{
			name: "turn limit: equal counts draw",
			opts: Options{TurnLimit: 10},
			before: []string{
				"X------X", emptyRow,
				"-O--O---",
				"--------",
				"--@-----",
				"------@-",
				emptyRow, "X------X"},
			phase: Moving, turn: 9, actions: []string{"6,5-6,6"},
			after: []string{
				"X------X", emptyRow,
				"-O--O---",
				"--------",
				"--@-----",
				"--------",
				"------@-", "X------X"},
			progress: "game over!", outcome: Draw,
		},
		{
			name: "no turn limit: the game goes on",
			before: []string{
				"........",
				"........",
				"..X--X..",
				"..O-O-..",
				"..@-O@..",
				"..X-@X..",
				"........",
				"........"},
			phase: Moving, turn: 255, actions: []string{"5,4-5,3", "2,3-3,3"},
			after: []string{
				"........",
				"........",
				"..X--X..",
				"..-OO@..",
				"..@-O-..",
				"..X-@X..",
				"........",
				"........"},
			progress: "257 turns into the moving phase",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := mustPosition(t, c.opts, diag(c.before...), c.phase, c.turn)
			for _, a := range c.actions {
				if err := s.ApplyAction(mustParse(t, a)); err != nil {
					t.Fatalf("action %s: %v\n%s", a, err, s.RefereeString())
				}
			}
			if got, want := s.String(), diag(c.after...); got != want {
				t.Errorf("board after %v:\n%s\nwant:\n%s", c.actions, got, want)
			}
			if got := s.Progress(); got != c.progress {
				t.Errorf("progress %q, want %q", got, c.progress)
			}
			if s.Outcome() != c.outcome {
				t.Errorf("outcome %v, want %v", s.Outcome(), c.outcome)
			}
			if s.Hash() != s.recomputeHash() {
				t.Errorf("incremental hash differs from the recomputed one")
			}
		})
	}
}

// TestLegalMoves checks the full list of legal actions in set-up positions,
// including figures 6a and 6b of the rules document.
func TestLegalMoves(t *testing.T) {
	cases := []struct {
		name  string
		board []string
		phase Phase
		turn  int
		want  []string
	}{
		{
			// Figure 6a at the bottom-right corner. The figure discusses
			// steps only; the left White piece can also jump over the
			// Black piece on its left onto the empty (4,6).
			name: "fig6a",
			board: []string{
				"X------X", emptyRow, emptyRow, emptyRow, emptyRow, emptyRow,
				"-----@OO",
				"X-----@X"},
			phase: Moving, turn: 0,
			want: []string{"6,6-6,5", "6,6-4,6", "7,6-7,5"},
		},
		{
			// Figure 6b on the bottom rows: exactly the squares 1-8 of the
			// figure.
			name: "fig6b",
			board: []string{
				"X------X", "--@-----", emptyRow, emptyRow, emptyRow, emptyRow,
				"---OO@--",
				"X----O-X"},
			phase: Moving, turn: 0,
			want: []string{
				"3,6-3,5", "3,6-3,7", "3,6-2,6",
				"4,6-4,5", "4,6-4,7", "4,6-2,6", "4,6-6,6",
				"5,7-5,5", "5,7-4,7", "5,7-6,7"},
		},
		{
			name: "corners and the board edge are never jumped over or moved onto",
			board: []string{
				"XO----OX",
				"O------O",
				emptyRow, emptyRow, emptyRow, emptyRow,
				"@------@",
				"X@----@X"},
			phase: Moving, turn: 2,
			want: []string{
				"1,0-2,0", "1,0-1,1", "6,0-5,0", "6,0-6,1",
				"0,1-1,1", "0,1-0,2", "7,1-6,1", "7,1-7,2"},
		},
		{
			name: "black with no move must forfeit",
			board: []string{
				"X------X", emptyRow, emptyRow, emptyRow, emptyRow,
				"-OO-----",
				"-OO-----",
				"X@@OO--X"},
			phase: Moving, turn: 41,
			want: []string{"pass"},
		},
		{
			name: "white starting zone: rows 0-5 minus corners and occupied squares",
			board: []string{
				"XOOOOOOX",
				"OOOOOOOO",
				"OOOOOOOO",
				"O@@@@@@@",
				"@@@@@@@@",
				"@@@@@@-@",
				"--------",
				"X------X"},
			phase: Placing, turn: 0,
			want: []string{"6,5"},
		},
		{
			name: "black starting zone: rows 2-7 minus corners",
			board: []string{
				"X------X",
				"--------",
				"OOOOOOOO",
				"OOOOOOOO",
				"OOOOOOOO",
				"OOOOOOOO",
				"OOOOOOO-",
				"X------X"},
			phase: Placing, turn: 1,
			want: []string{"7,6", "1,7", "2,7", "3,7", "4,7", "5,7", "6,7"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s *State
			if c.phase == Placing {
				// These boards hold more pieces than the turn allows: set
				// the board directly.
				s = mustPosition(t, Options{}, diag("X------X", emptyRow, emptyRow, emptyRow, emptyRow, emptyRow, emptyRow, "X------X"), c.phase, c.turn)
				b, err := parseDiagram(diag(c.board...))
				if err != nil {
					t.Fatal(err)
				}
				s.b = b
			} else {
				s = mustPosition(t, Options{}, diag(c.board...), c.phase, c.turn)
			}
			var want []int
			for _, w := range c.want {
				want = append(want, mustParse(t, w))
			}
			slices.Sort(want)
			got := s.LegalActions(nil)
			if !slices.Equal(got, want) {
				var names []string
				for _, a := range got {
					names = append(names, FormatAction(a))
				}
				t.Errorf("legal actions %v, want %v", names, c.want)
			}
			if n := s.NumLegal(); n != len(want) {
				t.Errorf("NumLegal %d, want %d", n, len(want))
			}
			for a := 0; a < NumActions; a++ {
				if s.IsLegal(a) != slices.Contains(want, a) {
					t.Errorf("IsLegal(%s) = %v", FormatAction(a), s.IsLegal(a))
				}
			}
		})
	}
}

// TestIllegalActions checks the reason given for each kind of illegal
// action, in engine form and in the referee's form.
func TestIllegalActions(t *testing.T) {
	placing := mustPosition(t, Options{}, diag(
		"X------X",
		"--O-----",
		emptyRow,
		"---@----",
		emptyRow, emptyRow, emptyRow, "X------X"), Placing, 2)
	moving := mustPosition(t, Options{}, diag(
		"X-O---OX",
		"--O-----",
		"--@-----",
		"---@----",
		"--O-----",
		emptyRow, emptyRow, "X------X"), Moving, 0)
	shrunk := mustPosition(t, Options{}, diag(
		"........",
		".X----X.",
		".O-----.",
		".--@---.",
		".-O@---.",
		".------.",
		".X----X.",
		"........"), Moving, 130)
	blocked := mustPosition(t, Options{}, diag(
		"X------X", emptyRow, emptyRow, emptyRow, emptyRow,
		"-OO-----",
		"-OO-----",
		"X@@OO--X"), Moving, 40)
	over := mustPosition(t, Options{}, diag(
		"X------X", emptyRow, "--O-----", emptyRow, emptyRow, emptyRow, "---@@---", "X------X"), Moving, 3)

	cases := []struct {
		name    string
		s       *State
		referee string // referee form, "" to skip
		engine  int    // engine action, -2 to skip
		want    Reason
	}{
		{"place outside white zone", placing, "[3, 6]", PlaceAction(3, 6), ReasonPlaceOutsideZone},
		{"place on corner", placing, "[0, 0]", PlaceAction(0, 0), ReasonPlaceOnCorner},
		{"place on occupied", placing, "[2, 1]", PlaceAction(2, 1), ReasonPlaceOnOccupied},
		{"place off board", placing, "[8, 1]", -2, ReasonPlaceOffBoard},
		{"place huge coordinate", placing, "[1, 100000000000000000000000]", -2, ReasonPlaceOffBoard},
		{"forfeit in placing", placing, "null", PassAction, ReasonForfeitInPlacing},
		{"move in placing", placing, "[[2, 1], [2, 2]]", MoveAction(2, 1, Down, false), ReasonMalformed},
		{"float coordinate", placing, "[2.0, 1]", -2, ReasonMalformed},
		{"exponent coordinate", placing, "[2e0, 1]", -2, ReasonMalformed},
		{"three coordinates", placing, "[1, 2, 3]", -2, ReasonMalformed},
		{"string", placing, `"ab"`, -2, ReasonMalformed},
		{"object", placing, `{"x": 1, "y": 2}`, -2, ReasonMalformed},
		{"place in moving", moving, "[5, 5]", PlaceAction(5, 5), ReasonMalformed},
		{"move off board", moving, "[[2, 0], [2, -1]]", MoveAction(2, 0, Up, false), ReasonMoveOffBoard},
		{"jump onto corner", moving, "[[2, 0], [0, 0]]", MoveAction(2, 0, Left, true), ReasonMoveOntoCorner},
		{"move from empty", moving, "[[5, 5], [5, 4]]", MoveAction(5, 5, Up, false), ReasonMoveFromEmpty},
		{"move from corner", moving, "[[0, 0], [1, 0]]", MoveAction(0, 0, Right, false), ReasonMoveFromCorner},
		{"move opponent piece", moving, "[[2, 2], [1, 2]]", MoveAction(2, 2, Left, false), ReasonMoveOpponentPiece},
		{"move onto corner", moving, "[[6, 0], [7, 0]]", MoveAction(6, 0, Right, false), ReasonMoveOntoCorner},
		{"move onto occupied", moving, "[[2, 1], [2, 2]]", MoveAction(2, 1, Down, false), ReasonMoveOntoOccupied},
		{"jump onto occupied", moving, "[[2, 0], [2, 2]]", MoveAction(2, 0, Down, true), ReasonJumpOntoOccupied},
		{"jump over empty", moving, "[[2, 4], [4, 4]]", MoveAction(2, 4, Right, true), ReasonJumpOverEmpty},
		{"diagonal", moving, "[[2, 4], [3, 5]]", -2, ReasonMoveDiagonal},
		{"too far", moving, "[[2, 4], [2, 7]]", -2, ReasonMoveTooFar},
		{"distant", moving, "[[2, 4], [3, 6]]", -2, ReasonMoveToDistantSquare},
		{"malformed move", moving, "[[2, 4], 3]", -2, ReasonMalformed},
		{"forfeit with moves", moving, "null", PassAction, ReasonForfeitWithMoves},
		{"out of range", moving, "", NumActions, ReasonOutOfRange},
		{"negative action", moving, "", -1, ReasonOutOfRange},
		{"move from removed", shrunk, "[[0, 2], [1, 2]]", MoveAction(0, 2, Right, false), ReasonMoveFromRemoved},
		{"move onto removed", shrunk, "[[1, 2], [0, 2]]", MoveAction(1, 2, Left, false), ReasonMoveOntoRemoved},
		{"move onto new corner", shrunk, "[[1, 2], [1, 1]]", MoveAction(1, 2, Up, false), ReasonMoveOntoCorner},
		{"jump onto removed", shrunk, "[[2, 4], [0, 4]]", MoveAction(2, 4, Left, true), ReasonJumpOntoRemoved},
		{"step onto occupied", blocked, "[[1, 6], [1, 7]]", MoveAction(1, 6, Down, false), ReasonMoveOntoOccupied},
		{"move off board far away", moving, "[[2, 0], [2, -100]]", -2, ReasonMoveOffBoard},
		{"move huge coordinate", moving, "[[2, 0], [2, 1e400]]", -2, ReasonMalformed},
		{"bool coordinates count as integers", moving, "[[6, 0], [7, false]]", -2, ReasonMoveOntoCorner},
		{"game over", over, "[[3, 6], [3, 5]]", MoveAction(3, 6, Up, false), ReasonGameOver},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := *c.s
			if c.referee != "" {
				_, err := c.s.RefereeAction([]byte(c.referee))
				checkReason(t, "RefereeAction("+c.referee+")", err, c.want)
			}
			if c.engine != -2 {
				want := c.want
				if want == ReasonMalformed {
					want = ReasonWrongPhase
				}
				if c.s.IsLegal(c.engine) {
					t.Errorf("IsLegal(%s) = true", FormatAction(c.engine))
				}
				err := c.s.ApplyAction(c.engine)
				checkReason(t, "ApplyAction("+FormatAction(c.engine)+")", err, want)
			}
			if *c.s != before {
				t.Errorf("the state changed after an illegal action")
			}
		})
	}
}

func checkReason(t *testing.T, what string, err error, want Reason) {
	t.Helper()
	var ae *ActionError
	if !errors.As(err, &ae) {
		t.Errorf("%s: error %v, want an *ActionError with reason %v", what, err, want)
		return
	}
	if ae.Reason != want {
		t.Errorf("%s: reason %v (%q), want %v", what, ae.Reason, ae.Msg, want)
	}
}

// TestShrinkGeometry checks the corners and removed squares after each
// shrink (figures 7a and 7b).
func TestShrinkGeometry(t *testing.T) {
	b := newBoard()
	b.shrink()
	want1 := board{}
	for y := 0; y < 8; y++ {
		for x := 0; x < 8; x++ {
			if x >= 1 && x <= 6 && y >= 1 && y <= 6 {
				want1.live |= bit(square(x, y))
			}
		}
	}
	want1.corners = bit(square(1, 1)) | bit(square(6, 1)) | bit(square(1, 6)) | bit(square(6, 6))
	if b.live != want1.live || b.corners != want1.corners {
		t.Errorf("after the first shrink: live %#x corners %#x, want %#x %#x", b.live, b.corners, want1.live, want1.corners)
	}
	b.shrink()
	want2 := board{}
	for y := 2; y <= 5; y++ {
		for x := 2; x <= 5; x++ {
			want2.live |= bit(square(x, y))
		}
	}
	want2.corners = bit(square(2, 2)) | bit(square(5, 2)) | bit(square(2, 5)) | bit(square(5, 5))
	if b.live != want2.live || b.corners != want2.corners {
		t.Errorf("after the second shrink: live %#x corners %#x, want %#x %#x", b.live, b.corners, want2.live, want2.corners)
	}
}

// TestTurnsToShrink checks the shrink countdown used by heuristics.
func TestTurnsToShrink(t *testing.T) {
	s := New(Options{}).NewState()
	if got := s.TurnsToShrink(); got != 24+128 {
		t.Errorf("initial TurnsToShrink %d, want %d", got, 24+128)
	}
	cases := []struct{ turn, want int }{{0, 128}, {127, 1}, {128, 64}, {191, 1}, {192, -1}, {300, -1}}
	for _, c := range cases {
		st := &State{phase: Moving, turn: int32(c.turn), b: newBoard()}
		if got := st.TurnsToShrink(); got != c.want {
			t.Errorf("moving turn %d: TurnsToShrink %d, want %d", c.turn, got, c.want)
		}
	}
}
