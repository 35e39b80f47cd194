package data

import (
	"fmt"

	"github.com/zerokit/zerokit/env"
)

// Position is one position of a replayed game together with its training
// targets.
type Position struct {
	// State is the position before Action is played.
	State env.State
	// Index is the move number: State has Index actions applied.
	Index int
	// Player is the player to move in State.
	Player int
	// Action is the action played from State.
	Action int
	// Move is the recorded search output for this position.
	Move Move
	// Value is the final return of Player, the position's value target.
	Value float32
}

// Walk replays rec through game's engine from the initial state and calls fn
// with every position, in order. Position.State is the walker's own state:
// fn must not modify it or keep it past the call (Clone it to keep it).
//
// Walk checks that rec belongs to game (by name; the encoding version is not
// compared, because replaying re-derives positions under the current
// encoding), that every action and every policy entry is legal where it is
// played, and, when the last position is terminal, that the recorded
// returns are the engine's. Errors name the move. An error from fn stops the
// walk and is returned as is.
func Walk(game env.Game, rec *Record, fn func(p Position) error) error {
	if rec.Game != game.Name() {
		return fmt.Errorf("data: replay: record is a %q game, not %q", rec.Game, game.Name())
	}
	if err := rec.Validate(); err != nil {
		return fmt.Errorf("data: replay: %w", err)
	}
	numActions := game.NumActions()
	s := game.NewInitialState()
	for i, a := range rec.Actions {
		if s.IsTerminal() {
			return fmt.Errorf("data: replay: move %d: the game is already over after %d moves", i, i)
		}
		player := s.CurrentPlayer()
		if a >= numActions {
			return fmt.Errorf("data: replay: move %d: action %d outside the action space [0, %d)", i, a, numActions)
		}
		if !s.IsLegal(a) {
			return fmt.Errorf("data: replay: move %d: action %d (%s) is illegal for player %d", i, a, s.ActionString(a), player)
		}
		m := &rec.Moves[i]
		for _, e := range m.Policy {
			pa := int(e.Action)
			if pa >= numActions {
				return fmt.Errorf("data: replay: move %d: policy action %d outside the action space [0, %d)", i, pa, numActions)
			}
			if !s.IsLegal(pa) {
				return fmt.Errorf("data: replay: move %d: policy gives probability %v to illegal action %d (%s)", i, e.Prob, pa, s.ActionString(pa))
			}
		}
		if err := fn(Position{State: s, Index: i, Player: player, Action: a, Move: *m, Value: rec.Returns[player]}); err != nil {
			return err
		}
		if err := s.ApplyAction(a); err != nil {
			return fmt.Errorf("data: replay: move %d: action %d: %w", i, a, err)
		}
	}
	if s.IsTerminal() && s.Returns() != rec.Returns {
		return fmt.Errorf("data: replay: recorded returns %v differ from the final position's %v", rec.Returns, s.Returns())
	}
	return nil
}

// Replay re-derives every position of rec (see Walk for the checks); each
// Position owns a clone of its state.
func Replay(game env.Game, rec *Record) ([]Position, error) {
	out := make([]Position, 0, len(rec.Actions))
	err := Walk(game, rec, func(p Position) error {
		p.State = p.State.Clone()
		out = append(out, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
