package env

import (
	"fmt"
	"strings"
)

// Optional interfaces a Game may implement beside Game, so that what only
// one game knows stays in its package: search agents, commands and the
// arena ask the game through these and never switch on concrete types.

// Heuristic scores a non-terminal state from the point of view of player.
// Implementations must be antisymmetric, Evaluate(s, p) == -Evaluate(s, 1-p),
// since negamax search relies on it, and must stay well inside the search's
// win score. The unit is game-specific ("one piece or one cell = 1" in the
// games here).
type Heuristic interface {
	Evaluate(s State, player int) float64
}

// HeuristicFunc adapts a function to the Heuristic interface.
type HeuristicFunc func(s State, player int) float64

// Evaluate calls f(s, player).
func (f HeuristicFunc) Evaluate(s State, player int) float64 { return f(s, player) }

// Heuristics is implemented by a Game with hand-written evaluations, used by
// the agents that search without a network and to blend material into a
// network's search.
type Heuristics interface {
	// Material is own material minus the opponent's (the greedy player's
	// evaluation).
	Material() Heuristic
	// ShrinkMaterial is Material with the danger of a shrinking board, or
	// Material for a game whose board does not shrink.
	ShrinkMaterial() Heuristic
	// Evaluation is the alpha-beta player's evaluation.
	Evaluation() Heuristic
}

// FinalHeuristic is implemented by a Game whose board shrinks to a final
// board: FinalMaterial is Material with pieces already on that board
// worth more than pieces that still have to reach it; TableMaterial adds,
// once the last shrink is near, the solved endgame's value of the pieces
// as they would stand if it came now. Games without them use Material in
// their place.
type FinalHeuristic interface {
	FinalMaterial() Heuristic
	TableMaterial() Heuristic
}

// TextUI is implemented by a Game that a person can play in a terminal:
// how to draw its positions and to read and write its moves.
type TextUI interface {
	// Title names the game, as a sentence.
	Title() string
	// Player maps a colour a person asks for ("" for the default, which
	// is the first mover's) to a player.
	Player(colour string) (int, error)
	// Colour names a player with its board symbol.
	Colour(player int) string
	// Board draws s, ending with a newline.
	Board(s State) string
	// Status describes the phase and the counters of s in lines that end
	// with a newline (or is empty); name names a player.
	Status(s State, name func(player int) string) string
	// ParseMove reads a person's move and checks it is legal in s; the
	// error says why not.
	ParseMove(s State, line string) (int, error)
	// FormatMove writes action a of s in the notation ParseMove reads.
	FormatMove(s State, a int) string
	// MustPass reports that the player to move in s can only pass.
	MustPass(s State) bool
	// Outcome describes the final material or score of s (after the
	// result), starting with a space, or is empty.
	Outcome(s State) string
}

// RefereeCodec reads and writes a game's colours, turn counter and actions
// in the text form of an external referee (package agent/protocol serves
// agents through it).
type RefereeCodec interface {
	// Player maps a colour name given to init (e.g. "white") to a player
	// number (0 moves first), or returns an error naming the valid colours.
	Player(colour string) (int, error)
	// Colour is the inverse of Player.
	Colour(player int) string
	// Turns returns the turn counter the referee passes to action when s is
	// the current position.
	Turns(s State) int
	// ParseAction reads an action in the referee's text form for the player
	// to move in s. The action need not be legal; the server checks that.
	ParseAction(s State, text string) (int, error)
	// FormatAction writes an action of the player to move in s in the
	// referee's text form, on one line.
	FormatAction(s State, action int) (string, error)
}

// Refereed is implemented by a Game that an external referee plays through
// a text protocol (zerokit serve).
type Refereed interface {
	// Referee returns the game with the referee's rule options and the
	// codec of its actions.
	Referee() (Game, RefereeCodec)
}

// RefereeJudge is implemented by a RefereeCodec whose referee leaves judging
// the game to the players: the 2015 Squatter referee has no rules engine,
// asks each player who has won and has each print its own board.
type RefereeJudge interface {
	// Judge describes s on one line in the referee's terms: the result a
	// player reports and the board (the codec's documentation gives the
	// form).
	Judge(s State) (string, error)
}

// ParseCellMove is TextUI.ParseMove for a game whose actions are cells that
// State.ParseAction reads as "x,y" (column, row): it reads "x,y", "x y" or
// "(x, y)" and checks that the cell is free.
func ParseCellMove(s State, line string) (int, error) {
	f := strings.FieldsFunc(line, func(r rune) bool { return strings.ContainsRune(" \t,()[]", r) })
	if len(f) != 2 {
		return 0, fmt.Errorf("%q: write x,y (column, row)", strings.TrimSpace(line))
	}
	a, err := s.ParseAction(f[0] + "," + f[1])
	if err != nil {
		return 0, err
	}
	if !s.IsLegal(a) {
		return 0, fmt.Errorf("cell %s is not free", s.ActionString(a))
	}
	return a, nil
}

// Tablebase knows the exact game-theoretic value of some positions of a
// game, as a chess endgame tablebase does: values proven by solving that
// part of the game backwards from its ends, not estimated.
type Tablebase interface {
	// Probe returns the value of s for the player to move under perfect
	// play by both sides (+1 a win, 0 a draw, -1 a loss) and the number of
	// actions to the end of the game when both sides play the table's
	// moves (the winner the fastest win, the loser the longest
	// resistance; 0 for a draw), or ok false when s is not in the table.
	// It must be safe for concurrent use.
	Probe(s State) (value float32, actions int, ok bool)
}

// TableDistancer is implemented by states that know how soon every line
// of play reaches their game's Tablebase (or the game's end).
type TableDistancer interface {
	// TableDistance returns the most actions from the state to a position
	// in the table or an end of the game, whatever both sides play; ok is
	// false when there is no such bound.
	TableDistance() (actions int, ok bool)
}

// TimeWeighter is implemented by states of games whose turning points are
// known in advance (Watch Your Back!'s shrinks): a time manager gives the
// move from such a state TimeWeight times an ordinary move's share of the
// time left.
type TimeWeighter interface {
	// TimeWeight returns the thinking time the move from this state
	// deserves relative to an ordinary move (1).
	TimeWeight() float64
	// TimeWeightToGo returns the sum of TimeWeight over the moves the
	// player to move has left, this one included, until thinking stops
	// paying (in Watch Your Back! without a turn limit, the second
	// shrink, after which the table plays), or 0 when the state cannot
	// tell: the time manager then assumes its horizon of ordinary moves.
	TimeWeightToGo() float64
}

// TablebaseGame is implemented by games that have a Tablebase.
type TablebaseGame interface {
	// Tablebase returns the game's table, or nil if the game (with its
	// options) has none.
	Tablebase() Tablebase
}

// CellOwner is implemented by a State that can say which player holds each
// cell of its board: the square a Watch Your Back! piece stands on, a
// Squatter cell in a player's territory or under a live piece. The holders
// at the end of a game are an auxiliary training target (KataGo's
// ownership): a network that must predict where each side's pieces end up
// learns where to stand.
type CellOwner interface {
	// CellOwners writes to dst, one value per cell of the observation's
	// board (ObservationShape().Cells(), in observation order), the player
	// who holds the cell (0 or 1), or -1 for nobody. dst has at least that
	// many values.
	CellOwners(dst []int8)
}
