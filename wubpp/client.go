package wubpp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"

	"github.com/zerokit/zerokit/agent/protocol"
)

// Player configures Join.
type Player struct {
	// Name is sent with PLAY (one word), Key too if not empty.
	Name, Key string
	// Session plays the agent: Join relays INIT as "init <colour>", TURN
	// as "action <n>" and UPD8 as "update <action>", so the session's
	// Clock manages the agent's time and its replica checks the server's
	// updates.
	Session *protocol.Session
	// MaxLine is the longest line accepted from the server (0:
	// DefaultMaxLine).
	MaxLine int
	// OnMessage, if not nil, sees every message received.
	OnMessage func(Message)
}

// Result is the end of a game played by Join.
type Result struct {
	// White and Black are the players' names (GAME), Colour the one
	// played (INIT).
	White, Black, Colour string
	// Winner is OVER's winner (White, Black, Draw), or "" if the game
	// ended with ERRO.
	Winner string
	// Loser and Reason are ERRO's.
	Loser, Reason string
	// Actions counts the actions played (TURN answered and UPD8
	// received).
	Actions int
}

// Outcome is the result from the player's side: "won", "lost", "draw",
// or "error" when ERRO named no player's colour.
func (r Result) Outcome() string {
	switch {
	case r.Winner == Draw:
		return "draw"
	case r.Winner == r.Colour, r.Winner == "" && r.Loser != r.Colour && (r.Loser == White || r.Loser == Black):
		return "won"
	case r.Winner != "", r.Loser == r.Colour:
		return "lost"
	}
	return "error"
}

// ErrNoGame is returned by Join when the server closes the connection
// before the game begins: it was full, rejected the PLAY, found no
// opponent within its wait limit or is shutting down (its log says
// which). Before a game the protocol has no message for these.
var ErrNoGame = errors.New("wubpp: the server closed the connection before the game began (full, no opponent in time, or shutting down)")

// Join joins a WUBPP server on conn and plays one game as p: PLAY, then
// the game the server pairs it into, until OVER or ERRO. Cancelling ctx
// closes conn. It returns an error for an I/O failure, a message out of
// place, or a failure of the agent (the caller then closes conn, which
// the server sees as a disconnection).
func Join(ctx context.Context, conn net.Conn, p Player) (Result, error) {
	if p.Session == nil {
		return Result{}, errors.New("wubpp: Join needs a session")
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	c := &client{conn: conn, p: p, br: bufio.NewReaderSize(conn, max(p.MaxLine, DefaultMaxLine)+1)}
	res, err := c.play(ctx)
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("wubpp: %w", ctx.Err())
	}
	return res, err
}

type client struct {
	conn net.Conn
	p    Player
	br   *bufio.Reader
	res  Result
}

func (c *client) send(m Message) error {
	if _, err := c.conn.Write([]byte(m.String() + "\n")); err != nil {
		return fmt.Errorf("wubpp: sending %s: %w", m.Head, err)
	}
	return nil
}

// recv reads the next message; ERRO and OVER end the game (done).
func (c *client) recv() (m Message, done bool, err error) {
	b, err := c.br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return Message{}, false, errors.New("wubpp: server sent a line too long")
		}
		return Message{}, false, fmt.Errorf("wubpp: reading from the server: %w", err)
	}
	m, err = Parse(string(b))
	if err != nil {
		return Message{}, false, fmt.Errorf("wubpp: server sent %q: %w", clip(string(b)), err)
	}
	if c.p.OnMessage != nil {
		c.p.OnMessage(m)
	}
	switch m.Head {
	case Erro:
		c.res.Loser, c.res.Reason = m.Loser, m.Reason
		return m, true, nil
	case Over:
		c.res.Winner = m.Winner
		return m, true, nil
	}
	return m, false, nil
}

// expect reads a message of head h (or the end of the game).
func (c *client) expect(h Head) (Message, bool, error) {
	m, done, err := c.recv()
	if err == nil && !done && m.Head != h {
		err = fmt.Errorf("wubpp: expected %s from the server, got %s", h, m.Head)
	}
	return m, done, err
}

func (c *client) play(ctx context.Context) (Result, error) {
	if err := c.send(Message{Head: Play, Name: c.p.Name, Key: c.p.Key}); err != nil {
		return c.res, err
	}
	if _, done, err := c.expect(Okay); err != nil || done {
		return c.res, noGame(err)
	}
	m, done, err := c.expect(Game)
	if err != nil || done {
		return c.res, noGame(err)
	}
	c.res.White, c.res.Black = m.White, m.Black
	if err := c.send(Message{Head: Okay}); err != nil {
		return c.res, err
	}
	if m, done, err = c.expect(Init); err != nil || done {
		return c.res, err
	}
	c.res.Colour = m.Colour
	if _, _, err := c.p.Session.Handle(ctx, "init "+m.Colour); err != nil {
		return c.res, fmt.Errorf("wubpp: INIT %s: %w", m.Colour, err)
	}
	if err := c.send(Message{Head: Okay}); err != nil {
		return c.res, err
	}
	for {
		m, done, err := c.recv()
		if err != nil || done {
			return c.res, err
		}
		switch m.Head {
		case Turn:
			resp, _, err := c.p.Session.Handle(ctx, "action "+strconv.Itoa(m.Turns))
			if err != nil {
				return c.res, fmt.Errorf("wubpp: TURN %d: %w", m.Turns, err)
			}
			a, err := FromReferee(resp)
			if err != nil {
				return c.res, fmt.Errorf("wubpp: agent's action %s: %w", resp, err)
			}
			if err := c.send(Message{Head: Actn, Action: a}); err != nil {
				return c.res, err
			}
		case Upd8:
			if _, _, err := c.p.Session.Handle(ctx, "update "+m.Action.Referee()); err != nil {
				return c.res, fmt.Errorf("wubpp: UPD8 %s: %w", m.Action, err)
			}
			if err := c.send(Message{Head: Okay}); err != nil {
				return c.res, err
			}
		default:
			return c.res, fmt.Errorf("wubpp: unexpected %s from the server during the game", m.Head)
		}
		c.res.Actions++
	}
}

// noGame turns the end of the connection before GAME into ErrNoGame.
func noGame(err error) error {
	if errors.Is(err, io.EOF) {
		return ErrNoGame
	}
	return err
}
