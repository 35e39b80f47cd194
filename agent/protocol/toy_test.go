package protocol

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/env"
)

// race is a toy game for testing the server without a real game engine:
// players alternately add 1 or 2 (actions 0 and 1) to a counter starting at
// 0; whoever brings it to raceTarget or beyond wins.
type race struct{}

const raceTarget = 7

func (race) Name() string                    { return "race" }
func (race) NumActions() int                 { return 2 }
func (race) ObservationShape() env.Shape     { return env.Shape{Planes: 1, Height: 1, Width: 1} }
func (race) EncodingVersion() int            { return 1 }
func (race) MaxGameLength() int              { return raceTarget }
func (race) NewInitialState() env.State      { return &raceState{} }
func (race) Symmetries() []env.Symmetry      { return []env.Symmetry{env.Identity(1, 2)} }
func (s *raceState) Clone() env.State        { c := *s; return &c }
func (s *raceState) IsTerminal() bool        { return s.total >= raceTarget }
func (s *raceState) Hash() uint64            { return uint64(s.total*2 + s.moves%2) }
func (s *raceState) MoveNumber() int         { return s.moves }
func (s *raceState) Observation(d []float32) { d[0] = float32(s.total) }
func (s *raceState) String() string          { return fmt.Sprintf("total %d", s.total) }

type raceState struct{ total, moves int }

func (s *raceState) CurrentPlayer() int {
	if s.IsTerminal() {
		return -1
	}
	return s.moves % 2
}

func (s *raceState) LegalActions(dst []int) []int {
	dst = dst[:0]
	if s.IsTerminal() {
		return dst
	}
	return append(dst, 0, 1)
}

func (s *raceState) IsLegal(a int) bool { return !s.IsTerminal() && (a == 0 || a == 1) }

func (s *raceState) ApplyAction(a int) error {
	if !s.IsLegal(a) {
		return fmt.Errorf("race: action %d is not legal at total %d", a, s.total)
	}
	s.total += a + 1
	s.moves++
	return nil
}

func (s *raceState) Returns() [2]float32 {
	if !s.IsTerminal() {
		return [2]float32{}
	}
	winner := (s.moves - 1) % 2
	var r [2]float32
	r[winner], r[1-winner] = 1, -1
	return r
}

func (s *raceState) ActionString(a int) string { return strconv.Itoa(a + 1) }

func (s *raceState) ParseAction(t string) (int, error) {
	n, err := strconv.Atoi(t)
	if err != nil || n < 1 || n > 2 {
		return 0, fmt.Errorf("race: %q is not 1 or 2", t)
	}
	return n - 1, nil
}

// raceCodec speaks "1"/"2" for actions, white/black for players and counts
// turns from the start of the game.
type raceCodec struct{}

func (raceCodec) Player(c string) (int, error) {
	switch c {
	case "white":
		return 0, nil
	case "black":
		return 1, nil
	}
	return 0, fmt.Errorf("colour %q is not white or black", c)
}

func (raceCodec) Colour(p int) string {
	if p == 0 {
		return "white"
	}
	return "black"
}

func (raceCodec) Turns(s env.State) int { return s.MoveNumber() }

func (raceCodec) ParseAction(s env.State, t string) (int, error) { return s.ParseAction(t) }

func (raceCodec) FormatAction(s env.State, a int) (string, error) {
	if a < 0 || a > 1 {
		return "", fmt.Errorf("action %d out of range", a)
	}
	return s.ActionString(a), nil
}

// scripted plays the actions returned by pick.
type scripted struct {
	name string
	pick func(ctx context.Context, s env.State) (int, error)
}

func (a scripted) Name() string { return a.name }
func (a scripted) Act(ctx context.Context, s env.State) (int, error) {
	return a.pick(ctx, s)
}

// firstLegal always adds 1.
func firstLegal() agent.Agent {
	return scripted{"first", func(_ context.Context, s env.State) (int, error) {
		if s.IsTerminal() {
			return 0, agent.ErrTerminal
		}
		return 0, nil
	}}
}

// waiter thinks until its deadline, then adds 2; without a deadline it
// fails.
func waiter(seen *[]time.Duration) agent.Agent {
	return scripted{"waiter", func(ctx context.Context, s env.State) (int, error) {
		dl, ok := ctx.Deadline()
		if !ok {
			return 0, errors.New("no deadline")
		}
		*seen = append(*seen, time.Until(dl))
		<-ctx.Done()
		return 1, nil
	}}
}

// heavyRace is race whose moves from a total of 2 on deserve heavyWeight
// times an ordinary move's time (env.TimeWeighter).
// Its states' TimeWeightToGo is toGo.
type heavyRace struct {
	race
	toGo float64
}

const heavyWeight = 3

func (g heavyRace) NewInitialState() env.State { return &heavyState{toGo: g.toGo} }

type heavyState struct {
	raceState
	toGo float64
}

func (s *heavyState) Clone() env.State { c := *s; return &c }

func (s *heavyState) TimeWeight() float64 {
	if s.total >= 2 {
		return heavyWeight
	}
	return 1
}

func (s *heavyState) TimeWeightToGo() float64 { return s.toGo }
