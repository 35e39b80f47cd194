package env

import (
	"errors"
	"fmt"
)

// Env is a gym-style wrapper around a Game for two-player, alternating,
// zero-sum play: Reset starts a game, Step applies the player to move's
// action and returns the next observation (for the next player to move),
// the reward earned by the player who acted, and whether the game ended.
//
// Env owns its observation and mask buffers: the slices it returns are
// overwritten by the next call to Reset or Step.
type Env struct {
	game  Game
	state State
	seed  int64
	obs   []float32
	mask  []bool
	legal []int
}

// Info is the side information returned with each observation.
type Info struct {
	// Player is the player to move (or -1 when the game is over).
	Player int
	// LegalMask marks the legal actions of Player.
	LegalMask []bool
	// NumLegal is the number of true entries in LegalMask.
	NumLegal int
	// Returns are both players' results once the game is over.
	Returns [2]float32
	// Seed is the seed given to the last Reset.
	Seed int64
	// MoveNumber is the number of actions played so far.
	MoveNumber int
}

// ErrGameOver is returned by Step after the game has ended.
var ErrGameOver = errors.New("env: game is over; call Reset")

// NewEnv wraps game. Call Reset before Step.
func NewEnv(game Game) *Env {
	return &Env{
		game: game,
		obs:  make([]float32, game.ObservationShape().Size()),
		mask: make([]bool, game.NumActions()),
	}
}

// Game returns the wrapped game.
func (e *Env) Game() Game { return e.game }

// State returns the current state. Callers must not modify it; Clone it
// for search.
func (e *Env) State() State { return e.state }

// Reset starts a new game. The rules of the games here are deterministic;
// the seed is recorded in Info so runs can report it.
func (e *Env) Reset(seed int64) ([]float32, Info) {
	e.seed = seed
	e.state = e.game.NewInitialState()
	return e.observe()
}

// Step plays action for the player to move. reward is the acting player's
// return if the action ended the game and 0 otherwise. An illegal action is
// an error and leaves the game unchanged.
func (e *Env) Step(action int) (obs []float32, reward float32, done bool, info Info, err error) {
	if e.state == nil {
		return nil, 0, false, Info{}, errors.New("env: Step before Reset")
	}
	if e.state.IsTerminal() {
		return nil, 0, true, Info{}, ErrGameOver
	}
	mover := e.state.CurrentPlayer()
	if err := e.state.ApplyAction(action); err != nil {
		return nil, 0, false, Info{}, fmt.Errorf("env: step %d: %w", e.state.MoveNumber(), err)
	}
	obs, info = e.observe()
	done = e.state.IsTerminal()
	if done {
		reward = info.Returns[mover]
	}
	return obs, reward, done, info, nil
}

func (e *Env) observe() ([]float32, Info) {
	info := Info{Player: e.state.CurrentPlayer(), LegalMask: e.mask, Seed: e.seed, MoveNumber: e.state.MoveNumber()}
	info.NumLegal = LegalMask(e.state, e.mask, e.legal)
	if e.state.IsTerminal() {
		info.Returns = e.state.Returns()
	}
	e.state.Observation(e.obs)
	return e.obs, info
}
