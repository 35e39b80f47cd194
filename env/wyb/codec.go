package wyb

import (
	"fmt"

	"github.com/zerokit/zerokit/env"
)

// Codec is the env.RefereeCodec of the Watch Your Back! course referee (COMP30024,
// 2018): colours "white" (player 0) and "black", the referee's turn counter
// (turns since the start of the current phase), and actions in the
// referee's form written as JSON: [x, y] to place, [[xa, ya], [xb, yb]] to
// move, null to forfeit. Serve it with New(Options{TurnLimit: 0}) (see
// Game.Referee): the referee applies no turn limit.
type Codec struct{}

var _ env.RefereeCodec = Codec{}

// Referee is the game as the course referee plays it (no turn limit) and
// its Codec (env.Refereed).
func (g *Game) Referee() (env.Game, env.RefereeCodec) {
	return New(Options{TurnLimit: 0}), Codec{}
}

// Player maps "white" to 0 and "black" to 1.
func (Codec) Player(colour string) (int, error) {
	switch colour {
	case "white":
		return WhitePlayer, nil
	case "black":
		return BlackPlayer, nil
	}
	return 0, fmt.Errorf("colour %.40q is not white or black", colour)
}

// Colour maps 0 to "white" and 1 to "black".
func (Codec) Colour(player int) string {
	if player == WhitePlayer {
		return "white"
	}
	return "black"
}

// Turns is the referee's counter: turns played in the current phase.
func (Codec) Turns(s env.State) int {
	if ws, ok := s.(*State); ok {
		return ws.Turn()
	}
	return -1
}

// ParseAction validates text against s exactly as the referee does (see
// State.RefereeAction), so the error names the referee's reason.
func (Codec) ParseAction(s env.State, text string) (int, error) {
	ws, ok := s.(*State)
	if !ok {
		return 0, fmt.Errorf("state %T is not a Watch Your Back! state", s)
	}
	return ws.RefereeAction([]byte(text))
}

// FormatAction writes action in the referee's form.
func (Codec) FormatAction(_ env.State, action int) (string, error) {
	t := RefereeAction(action)
	if t == "" {
		return "", fmt.Errorf("action %d has no referee form", action)
	}
	return t, nil
}
