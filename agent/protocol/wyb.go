package protocol

import (
	"fmt"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/wyb"
)

// WYB is the Codec of the Watch Your Back! course referee (COMP30024,
// 2018): colours "white" (player 0) and "black", the referee's turn counter
// (turns since the start of the current phase), and actions in the
// referee's form written as JSON: [x, y] to place, [[xa, ya], [xb, yb]] to
// move, null to forfeit. Serve it with wyb.New(wyb.Options{TurnLimit: 0}):
// the referee applies no turn limit.
type WYB struct{}

var _ Codec = WYB{}

// Player maps "white" to 0 and "black" to 1.
func (WYB) Player(colour string) (int, error) {
	switch colour {
	case "white":
		return wyb.WhitePlayer, nil
	case "black":
		return wyb.BlackPlayer, nil
	}
	return 0, fmt.Errorf("colour %q is not white or black", clip(colour, 40))
}

// Colour maps 0 to "white" and 1 to "black".
func (WYB) Colour(player int) string {
	if player == wyb.WhitePlayer {
		return "white"
	}
	return "black"
}

// Turns is the referee's counter: turns played in the current phase.
func (WYB) Turns(s env.State) int {
	if ws, ok := s.(*wyb.State); ok {
		return ws.Turn()
	}
	return -1
}

// ParseAction validates text against s exactly as the referee does (see
// wyb.State.RefereeAction), so the error names the referee's reason.
func (WYB) ParseAction(s env.State, text string) (int, error) {
	ws, ok := s.(*wyb.State)
	if !ok {
		return 0, fmt.Errorf("state %T is not a Watch Your Back! state", s)
	}
	return ws.RefereeAction([]byte(text))
}

// FormatAction writes action in the referee's form.
func (WYB) FormatAction(_ env.State, action int) (string, error) {
	t := wyb.RefereeAction(action)
	if t == "" {
		return "", fmt.Errorf("action %d has no referee form", action)
	}
	return t, nil
}
