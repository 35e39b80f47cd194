package protocol

import (
	"fmt"
	"time"
)

// Budget bounds an agent's thinking time. The zero Budget sets no bound.
type Budget struct {
	// MoveTime caps the time allotted to any one move (0: no cap).
	MoveTime time.Duration
	// GameTime is the time the agent may spend in one game, over all its
	// requests (0: no game budget). The course referee allowed 60 s of CPU
	// time per player per game.
	GameTime time.Duration
	// Horizon is the game length, in actions of both players, that the
	// time manager assumes when it splits GameTime. 0 means the game's
	// MaxGameLength, or DefaultHorizon actions beyond the current move when
	// the game sets no bound; a state's env.TimeWeighter weight to go
	// replaces both, but not a Horizon set here (see AllotWeighted).
	Horizon int
	// Unweighted splits GameTime as if every move deserved the same: a
	// state's env.TimeWeighter is not asked. A baseline opponent's time
	// manager uses it, so that the game's move weights, a part of the
	// agent being measured, do not change the baseline.
	Unweighted bool
}

// Time-manager constants.
const (
	// DefaultHorizon is the number of further actions assumed when neither
	// Budget.Horizon nor the game bounds the game's length.
	DefaultHorizon = 120
	// MinMovesToGo is the fewest own moves the time manager ever assumes
	// remain, so that a game running past its expected length still keeps
	// a reserve.
	MinMovesToGo = 8
	// ReserveFraction of GameTime is never allotted, to cover the time
	// spent outside the agent (request handling, process start-up).
	ReserveFraction = 0.05
	// PanicTime is the allotment once the game budget is spent: agents
	// that honour deadlines then answer almost at once.
	PanicTime = 10 * time.Millisecond
)

// Validate reports a negative duration or horizon.
func (b Budget) Validate() error {
	if b.MoveTime < 0 {
		return fmt.Errorf("move time %v is negative", b.MoveTime)
	}
	if b.GameTime < 0 {
		return fmt.Errorf("game time %v is negative", b.GameTime)
	}
	if b.Horizon < 0 {
		return fmt.Errorf("horizon %d is negative", b.Horizon)
	}
	return nil
}

// Clock is the time manager of one game: it charges the time spent on each
// request against Budget.GameTime and allots each move a share of what
// remains. A Clock is not safe for concurrent use; each session has its
// own.
//
// The allotment for a move is
//
//	min(MoveTime, (GameTime*(1-ReserveFraction) - used) / movesToGo)
//
// where movesToGo = max(MinMovesToGo, ceil((horizon - moveNumber) / 2)) is
// the number of own moves assumed to remain. Time saved on early moves (an
// agent answering before its deadline) is thus spread over later ones. Once
// the budget is spent, each move gets PanicTime.
type Clock struct {
	budget Budget
	// cpu returns the process's CPU time, or is nil to charge wall time
	// only.
	cpu  func() time.Duration
	used time.Duration
}

// NewClock returns a clock for one game. cpu, if not nil, returns the CPU
// time consumed by the process so far; each request is then charged the
// larger of its wall time and its CPU time, which matters for agents that
// search on several threads. Pass nil when several games share the process
// (their CPU time cannot be told apart).
func NewClock(b Budget, cpu func() time.Duration) *Clock {
	return &Clock{budget: b, cpu: cpu}
}

// Spent reports whether a game budget is set and the time charged has
// reached its allotable part, GameTime*(1-ReserveFraction): every further
// move then gets PanicTime.
func (c *Clock) Spent() bool {
	g := c.budget.GameTime
	return g > 0 && c.used >= time.Duration(float64(g)*(1-ReserveFraction))
}

// Used returns the time charged so far.
func (c *Clock) Used() time.Duration { return c.used }

// Budget returns the clock's budget.
func (c *Clock) Budget() Budget { return c.budget }

// Allot returns the thinking time for the move at moveNumber (actions so
// far, both players) of a game of at most maxGameLength actions (0: no
// bound). It returns 0 when the budget sets no bound at all.
func (c *Clock) Allot(moveNumber, maxGameLength int) time.Duration {
	return c.AllotWeighted(moveNumber, maxGameLength, 1, 0)
}

// AllotWeighted is Allot for a move that deserves weight times an ordinary
// move's share (env.TimeWeighter; weights below 1 count as 1). When
// weightToGo, the sum of the weights of the agent's moves left until
// thinking stops paying, this one's included, is positive and the budget
// names no Horizon, the move gets the fraction weight/weightToGo of the
// time left; otherwise weight times the horizon's share, but never more
// than the share of MinMovesToGo moves. weightToGo counts as at least
// MinMovesToGo, so that a reserve always remains. MoveTime still caps the
// allotment.
func (c *Clock) AllotWeighted(moveNumber, maxGameLength int, weight, weightToGo float64) time.Duration {
	b := c.budget
	if b.GameTime <= 0 {
		return b.MoveTime
	}
	weight = max(weight, 1)
	left := time.Duration(float64(b.GameTime)*(1-ReserveFraction)) - c.used
	var t time.Duration
	if weightToGo > 0 && b.Horizon == 0 {
		t = time.Duration(float64(left) * min(1, weight/max(weightToGo, MinMovesToGo)))
	} else {
		horizon := b.Horizon
		if horizon == 0 {
			horizon = maxGameLength
		}
		if horizon <= moveNumber {
			horizon = moveNumber + DefaultHorizon
		}
		togo := max(MinMovesToGo, (horizon-moveNumber+1)/2)
		t = min(time.Duration(float64(left/time.Duration(togo))*weight), left/MinMovesToGo)
	}
	if t < PanicTime {
		t = PanicTime
	}
	if b.MoveTime > 0 && t > b.MoveTime {
		t = b.MoveTime
	}
	return t
}

// Start begins timing one request; call the returned function when it is
// handled to charge its duration.
func (c *Clock) Start() (stop func() time.Duration) {
	wall := time.Now()
	var cpu0 time.Duration
	if c.cpu != nil {
		cpu0 = c.cpu()
	}
	return func() time.Duration {
		d := time.Since(wall)
		if c.cpu != nil {
			if cd := c.cpu() - cpu0; cd > d {
				d = cd
			}
		}
		c.used += d
		return d
	}
}
