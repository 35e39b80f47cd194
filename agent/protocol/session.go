package protocol

import (
	"context"
	"errors"
	"fmt"
)

// Session is one session of the line protocol driven by calls rather than
// by a reader and a writer: each Handle is one request line and returns
// its response. It keeps the replica of the game, the agent, its fallback
// and the game's Clock, exactly as Serve does (Serve runs one). Programs
// that speak another protocol to the outside world (package wubpp's
// network client, a server seating an agent in-process) translate their
// messages to requests and get the same validation and time management.
// A Session is not safe for concurrent use.
type Session struct {
	s session
}

// NewSession checks cfg and returns a session that builds its agents with
// newAgent.
func NewSession(newAgent NewAgentFunc, cfg Config) (*Session, error) {
	if cfg.Game == nil || cfg.Codec == nil || newAgent == nil {
		return nil, errors.New("protocol: a session needs a game, a codec and an agent constructor")
	}
	if err := cfg.Budget.Validate(); err != nil {
		return nil, fmt.Errorf("protocol: %w", err)
	}
	return &Session{s: session{cfg: cfg, newAgent: newAgent}}, nil
}

// Handle answers one request line (see ParseRequest): the response
// without its newline, or the error Serve would send as "error <reason>".
// quit reports a quit request ("bye").
func (s *Session) Handle(ctx context.Context, line string) (resp string, quit bool, err error) {
	return s.s.handle(ctx, line)
}

// Close ends the session: a game in progress is reported to
// Config.OnGameEnd as unfinished. It is safe to call more than once.
func (s *Session) Close() { s.s.endGame() }
