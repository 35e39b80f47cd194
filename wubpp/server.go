package wubpp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zerokit/zerokit/agent/protocol"
	"github.com/zerokit/zerokit/env/wyb"
)

// Defaults of ServerConfig's zero fields.
const (
	// DefaultGameTime is the course's thinking time per player per game.
	DefaultGameTime = 60 * time.Second
	// DefaultReplyTimeout bounds the wait for PLAY after connecting and
	// for every OKAY.
	DefaultReplyTimeout = 30 * time.Second
	// DefaultWriteTimeout bounds each message sent.
	DefaultWriteTimeout = 10 * time.Second
	// DefaultMaxLine is the longest message line accepted, in bytes.
	DefaultMaxLine = 1024
	// DefaultMaxClients bounds the connections open at once.
	DefaultMaxClients = 1024
	// lingerTime is how long a finished client may keep sending before
	// its connection is closed (see remote.linger).
	lingerTime = time.Second
)

// ServerConfig configures a Server. The zero value serves with the
// defaults above and no house agent.
type ServerConfig struct {
	// GameTime is each player's thinking time per game, measured by the
	// server from sending TURN to receiving the answer (0:
	// DefaultGameTime). A player who runs out loses.
	GameTime time.Duration
	// ReplyTimeout bounds the wait for a client's PLAY after it connects
	// and for each OKAY (0: DefaultReplyTimeout).
	ReplyTimeout time.Duration
	// WaitTimeout bounds the time a client waits for an opponent (0: no
	// bound; the client may leave at any time).
	WaitTimeout time.Duration
	// WriteTimeout bounds the sending of each message (0:
	// DefaultWriteTimeout).
	WriteTimeout time.Duration
	// MaxLine is the longest line a client may send, in bytes (0:
	// DefaultMaxLine). A longer line drops the client.
	MaxLine int
	// MaxClients bounds the connections open at once (0:
	// DefaultMaxClients); clients beyond it are disconnected at once.
	MaxClients int
	// House, if not nil, seats an agent against the clients it matches.
	House *House
	// FirstID numbers the games after it: the first game is FirstID+1
	// (the largest id of the games log, see LastID).
	FirstID uint64
	// OnGame, if not nil, is called with the record of every game once it
	// ended, before the players get OVER or ERRO (concurrently from
	// several games: it must be safe for that).
	OnGame func(Record)
	// Logf, if not nil, receives one line per connection problem and per
	// game.
	Logf func(format string, args ...any)
}

// House is an agent the server seats as the opponent of some clients,
// playing in-process through a protocol.Session (so with its Clock and
// fallback).
type House struct {
	// Name is the agent's player name in GAME and the records.
	Name string
	// Match reports whether a client who sent key plays the house agent
	// (nil: every client does); the others are paired with each other.
	Match func(key string) bool
	// NewAgent builds the agent of one game and NewFallback, if not nil,
	// its fallback (see protocol.Config).
	NewAgent, NewFallback protocol.NewAgentFunc
	// Budget bounds the agent's thinking (zero: GameTime of the server
	// for the whole game, which the server also enforces).
	Budget protocol.Budget
}

// Record is one finished game, as the server writes it to its games log.
// Its JSON form is one line that "zerokit replay" reads: the actions are
// in the referee's form, and an action the server rejected is the last
// one (so the replay reports the same verdict).
type Record struct {
	// ID numbers the server's games from ServerConfig.FirstID+1.
	ID uint64 `json:"id"`
	// Start is when the game was announced (GAME).
	Start time.Time `json:"start"`
	// White and Black are the players' names, Key the matchmaking key.
	White string `json:"white"`
	Black string `json:"black"`
	Key   string `json:"key,omitempty"`
	// Winner is White, Black or Draw, or "" when the game was abandoned
	// (the server shut down).
	Winner string `json:"winner"`
	// Reason says why the game ended early (an ERRO's reason), "" when it
	// was played out.
	Reason string `json:"reason,omitempty"`
	// Actions are the actions played, in the referee's JSON form; an
	// unreadable ACTN is the JSON string of its text.
	Actions []json.RawMessage `json:"actions"`
	// Seconds is each player's (white, black) thinking time in seconds.
	Seconds [2]float64 `json:"seconds"`
}

// Server is a WUBPP matchmaking server: clients connect, send PLAY, and
// are paired with the next client who sent the same key (or with the house
// agent); the server then referees their game with the rules of env/wyb
// (identical to the course referee's). See the package documentation for
// the protocol and what happens on errors. A Server's methods are safe for
// concurrent use.
type Server struct {
	cfg  ServerConfig
	game *wyb.Game

	mu      sync.Mutex
	waiting map[string]*remote // key -> the client waiting with it
	clients int

	games atomic.Uint64
	wg    sync.WaitGroup
}

// NewServer checks cfg and returns a server.
func NewServer(cfg ServerConfig) (*Server, error) {
	if cfg.GameTime < 0 || cfg.ReplyTimeout < 0 || cfg.WaitTimeout < 0 || cfg.WriteTimeout < 0 || cfg.MaxLine < 0 || cfg.MaxClients < 0 {
		return nil, errors.New("wubpp: negative server limit")
	}
	setDefault(&cfg.GameTime, DefaultGameTime)
	setDefault(&cfg.ReplyTimeout, DefaultReplyTimeout)
	setDefault(&cfg.WriteTimeout, DefaultWriteTimeout)
	setDefault(&cfg.MaxLine, DefaultMaxLine)
	setDefault(&cfg.MaxClients, DefaultMaxClients)
	if h := cfg.House; h != nil {
		if h.NewAgent == nil || h.Name == "" {
			return nil, errors.New("wubpp: a house agent needs a name and an agent constructor")
		}
		if err := h.Budget.Validate(); err != nil {
			return nil, fmt.Errorf("wubpp: house agent: %w", err)
		}
	}
	s := &Server{cfg: cfg, game: wyb.New(wyb.Options{TurnLimit: 0}), waiting: map[string]*remote{}}
	s.games.Store(cfg.FirstID)
	return s, nil
}

func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

func (s *Server) logf(format string, args ...any) {
	if s.cfg.Logf != nil {
		s.cfg.Logf(format, args...)
	}
}

// Serve accepts clients on ln until ctx is cancelled, then closes ln,
// abandons the games in progress (their clients get ERRO), waits for every
// connection to close and returns nil. It returns the error of an accept
// that fails for another reason, after the same clean-up.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	defer s.wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return fmt.Errorf("wubpp: accepting clients: %w", err)
		}
		s.mu.Lock()
		full := s.clients >= s.cfg.MaxClients
		if !full {
			s.clients++
		}
		s.mu.Unlock()
		r := newRemote(c, s.cfg.MaxLine, s.cfg.WriteTimeout)
		if !full {
			// Counted until the connection closes, in a game or not.
			r.onClose = func() {
				s.mu.Lock()
				s.clients--
				s.mu.Unlock()
			}
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if full {
				s.drop(r, "server full")
				return
			}
			s.handle(ctx, r)
		}()
	}
}

// drop disconnects a client that is in no game, without a message, and
// logs why. Before its game the course's client reads only the OKAY that
// answers its PLAY and then GAME: anything else crashes it (it looks up
// GAME's names in an ERRO, a KeyError), while the end of the connection
// makes it print "connection lost---try again" and exit cleanly.
func (s *Server) drop(r *remote, reason string) {
	s.logf("%s: dropped: %s", r.conn.RemoteAddr(), reason)
	r.linger(lingerTime)
}

// handle reads a client's PLAY and either pairs it (then plays its game
// in this goroutine) or queues it until a later client pairs it.
func (s *Server) handle(ctx context.Context, r *remote) {
	m, err := s.expect(ctx, r, Play, s.cfg.ReplyTimeout)
	if err != nil {
		s.drop(r, err.Error())
		return
	}
	r.name, r.key = m.Name, m.Key
	okay := Message{Head: Okay}
	if h := s.cfg.House; h != nil && (h.Match == nil || h.Match(r.key)) {
		if r.send(okay) == nil {
			s.playHouse(ctx, r)
		} else {
			r.close()
		}
		return
	}
	for {
		// The client is queued before it gets OKAY, so that clients are
		// paired (and colours given) in the order of their PLAYs.
		s.mu.Lock()
		first := s.waiting[r.key]
		if first != nil {
			delete(s.waiting, r.key)
		} else {
			s.waiting[r.key] = r
		}
		s.mu.Unlock()
		if first == nil {
			// A failed OKAY shows in wait as a lost connection.
			r.send(okay)
			s.wait(ctx, r)
			return
		}
		close(first.paired)
		<-first.handedOff
		if first.left() {
			// It left as it was being paired: look again.
			first.close()
			continue
		}
		// First come, white. (A failed OKAY shows in the game.)
		r.send(okay)
		s.play(ctx, [2]seat{first, r}, r.key)
		return
	}
}

// expect reads one message of the given head from a client not in a game.
func (s *Server) expect(ctx context.Context, r *remote, h Head, timeout time.Duration) (Message, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case l := <-r.recv():
		if l.err != nil {
			return Message{}, l.err
		}
		m, err := Parse(l.text)
		if err != nil {
			return Message{}, err
		}
		if m.Head != h {
			return Message{}, fmt.Errorf("expected %s, got %s", h, m.Head)
		}
		return m, nil
	case <-t.C:
		return Message{}, fmt.Errorf("no %s within %v", h, timeout)
	case <-ctx.Done():
		return Message{}, errors.New("server shutting down")
	}
}

// wait keeps a queued client until another client pairs it (then hands it
// over and returns), it leaves or misbehaves, the wait times out, or the
// server shuts down.
func (s *Server) wait(ctx context.Context, r *remote) {
	defer close(r.handedOff)
	var timeout <-chan time.Time
	if s.cfg.WaitTimeout > 0 {
		t := time.NewTimer(s.cfg.WaitTimeout)
		defer t.Stop()
		timeout = t.C
	}
	var reason string
	var got *line
	select {
	case <-r.paired:
		return
	case l := <-r.lines:
		got = &l
		reason = "unexpected message while waiting for an opponent"
		if l.err != nil {
			reason = "left: " + l.err.Error()
		}
	case <-timeout:
		reason = fmt.Sprintf("no opponent within %v", s.cfg.WaitTimeout)
	case <-ctx.Done():
		reason = "server shutting down"
	}
	s.mu.Lock()
	queued := s.waiting[r.key] == r
	if queued {
		delete(s.waiting, r.key)
	}
	s.mu.Unlock()
	if !queued {
		// Paired meanwhile: the game handles what we read.
		<-r.paired
		if got != nil {
			r.back <- *got
		}
		return
	}
	s.drop(r, fmt.Sprintf("%s: %s", r.name, reason))
}

// playHouse plays a client against the house agent: the client is white
// in odd-numbered games.
func (s *Server) playHouse(ctx context.Context, r *remote) {
	h := s.cfg.House
	budget := h.Budget
	if budget == (protocol.Budget{}) {
		budget.GameTime = s.cfg.GameTime
	}
	sess, err := protocol.NewSession(h.NewAgent, protocol.Config{
		Game: s.game, Codec: wyb.Codec{}, Budget: budget, NewFallback: h.NewFallback,
	})
	if err != nil {
		s.drop(r, fmt.Sprintf("%s: house agent unavailable: %v", r.name, err))
		return
	}
	house := &houseSeat{name: h.Name, sess: sess, ctx: ctx, replies: make(chan line, 1)}
	seats := [2]seat{r, house}
	if s.games.Load()%2 == 1 {
		seats = [2]seat{house, r}
	}
	s.play(ctx, seats, r.key)
}
