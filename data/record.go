package data

import (
	"fmt"
	"math"
	"time"
)

// MaxAction bounds the actions a Record may hold; game action spaces are far
// smaller.
const MaxAction = math.MaxInt32

// policySumTolerance is how far from 1 a non-empty policy target may sum.
const policySumTolerance = 1e-3

// ActionProb is one entry of a sparse policy target: the probability the
// search assigned to Action.
type ActionProb struct {
	// Action is in the game's action space; Prob is in [0, 1].
	Action int32
	Prob   float32
}

// Move is the search output recorded for one move of a game.
type Move struct {
	// Policy is the search policy target (the root visit distribution or
	// the Gumbel completed-Q target) over the legal actions of the position,
	// in strictly increasing action order. Actions it omits have
	// probability 0. It may be empty only when Full is false.
	Policy []ActionProb
	// Full reports that the move was chosen by a full search, so Policy is
	// usable as a policy training target. Under playout cap randomization
	// the cheap searches leave it false.
	Full bool
	// HasRootValue reports whether RootValue is set.
	HasRootValue bool
	// RootValue is the search's value estimate of the position, in [-1, 1]
	// from the point of view of the player to move there.
	RootValue float32
}

// Meta describes where a game came from.
type Meta struct {
	// NetworkStep is the training step (version) of the network that played
	// the game.
	NetworkStep int64
	// Seed is the seed of the random source that played the game.
	Seed uint64
	// Worker identifies the self-play worker.
	Worker int
	// Time is when the game finished. It is stored to the nanosecond, in
	// UTC.
	Time time.Time
}

// Record is one finished self-play game.
type Record struct {
	// Game is the game's name (env.Game.Name) and EncodingVersion its
	// encoding version (env.Game.EncodingVersion) when the game was played.
	Game            string
	EncodingVersion int
	// Actions are the actions played, from the initial state, in the
	// game's action space.
	Actions []int
	// Moves holds the search output of each move; Moves[i] belongs to the
	// position before Actions[i], so len(Moves) == len(Actions).
	Moves []Move
	// Returns are the final results of players 0 and 1 (+1 win, -1 loss,
	// 0 draw). The value target of a position is the return of the player
	// to move there.
	Returns [2]float32
	// Meta describes how the game was produced.
	Meta Meta
}

// FullMoves counts the moves whose policy target comes from a full search.
func (r *Record) FullMoves() int {
	n := 0
	for i := range r.Moves {
		if r.Moves[i].Full {
			n++
		}
	}
	return n
}

// Validate checks the record's internal consistency (it does not need the
// game; see Replay for the rules). Errors name the offending move and field.
func (r *Record) Validate() error {
	if r.Game == "" {
		return fmt.Errorf("data: record: empty game name")
	}
	if len(r.Game) > maxGameName {
		return fmt.Errorf("data: record: game name of %d bytes, at most %d allowed", len(r.Game), maxGameName)
	}
	if sec := r.Meta.Time.Unix(); sec < -maxUnixSeconds || sec > maxUnixSeconds {
		return fmt.Errorf("data: record: time %v out of range", r.Meta.Time)
	}
	if r.EncodingVersion < 0 || int64(r.EncodingVersion) > math.MaxInt32 {
		return fmt.Errorf("data: record: encoding version %d out of range", r.EncodingVersion)
	}
	if len(r.Moves) != len(r.Actions) {
		return fmt.Errorf("data: record: %d moves but %d actions", len(r.Moves), len(r.Actions))
	}
	if r.Meta.Worker < 0 {
		return fmt.Errorf("data: record: negative worker id %d", r.Meta.Worker)
	}
	for p, v := range r.Returns {
		if !finite(v) || v < -1 || v > 1 {
			return fmt.Errorf("data: record: returns[%d] = %v, want a value in [-1, 1]", p, v)
		}
	}
	for i, a := range r.Actions {
		if a < 0 || a > MaxAction {
			return fmt.Errorf("data: record: move %d: action %d out of range", i, a)
		}
		if err := r.Moves[i].validate(); err != nil {
			return fmt.Errorf("data: record: move %d: %w", i, err)
		}
	}
	return nil
}

func (m *Move) validate() error {
	if m.HasRootValue {
		if !finite(m.RootValue) || m.RootValue < -1 || m.RootValue > 1 {
			return fmt.Errorf("root value %v, want a value in [-1, 1]", m.RootValue)
		}
	} else if m.RootValue != 0 {
		return fmt.Errorf("root value %v set but HasRootValue is false", m.RootValue)
	}
	if len(m.Policy) == 0 {
		if m.Full {
			return fmt.Errorf("full search with an empty policy target")
		}
		return nil
	}
	var sum float64
	prev := int32(-1)
	for j, e := range m.Policy {
		if e.Action < 0 {
			return fmt.Errorf("policy entry %d: negative action %d", j, e.Action)
		}
		if e.Action <= prev {
			return fmt.Errorf("policy entry %d: action %d not above previous action %d (entries must be strictly increasing)", j, e.Action, prev)
		}
		prev = e.Action
		if !finite(e.Prob) || e.Prob < 0 || e.Prob > 1 {
			return fmt.Errorf("policy entry %d (action %d): probability %v, want a value in [0, 1]", j, e.Action, e.Prob)
		}
		sum += float64(e.Prob)
	}
	if math.Abs(sum-1) > policySumTolerance {
		return fmt.Errorf("policy target sums to %v, want 1", sum)
	}
	return nil
}

func finite(v float32) bool {
	return !math.IsNaN(float64(v)) && !math.IsInf(float64(v), 0)
}
