package wubpp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/zerokit/zerokit/agent/protocol"
	"github.com/zerokit/zerokit/env/wyb"
)

// seat is one player of a game: a client connection or the house agent.
type seat interface {
	playerName() string
	// send delivers a message; the seat's answer, if any, comes on recv.
	send(m Message) error
	recv() <-chan line
	// finish delivers the game's last message and releases the seat.
	finish(m Message, wg *sync.WaitGroup)
	// unread reports whether the seat sent anything not yet received.
	unread() bool
}

// houseSeat is the house agent, answering through a protocol.Session.
type houseSeat struct {
	name    string
	sess    *protocol.Session
	ctx     context.Context
	replies chan line // buffer 1: each message has at most one answer
}

func (h *houseSeat) playerName() string { return h.name }
func (h *houseSeat) unread() bool       { return false } // it only answers
func (h *houseSeat) recv() <-chan line  { return h.replies }

func (h *houseSeat) send(m Message) error {
	reply, err := h.answer(m)
	if reply == "" && err == nil {
		return nil
	}
	l := line{text: reply, at: time.Now()}
	if err != nil {
		l = line{err: fmt.Errorf("house agent %s failed: %w", h.name, err), at: l.at}
	}
	select {
	case h.replies <- l:
	default: // an answer is still unread: the game is broken anyway
	}
	return nil
}

// answer runs the agent's side of one message.
func (h *houseSeat) answer(m Message) (string, error) {
	ok := Message{Head: Okay}.String()
	switch m.Head {
	case Game:
		return ok, nil
	case Init:
		_, _, err := h.sess.Handle(h.ctx, "init "+m.Colour)
		return ok, err
	case Upd8:
		_, _, err := h.sess.Handle(h.ctx, "update "+m.Action.Referee())
		return ok, err
	case Turn:
		resp, _, err := h.sess.Handle(h.ctx, "action "+strconv.Itoa(m.Turns))
		if err != nil {
			return "", err
		}
		a, err := FromReferee(resp)
		if err != nil {
			return "", err
		}
		return Message{Head: Actn, Action: a}.String(), nil
	}
	return "", nil
}

func (h *houseSeat) finish(Message, *sync.WaitGroup) { h.sess.Close() }

// colours names the players by number (0: white, moves first).
var colours = [2]string{White, Black}

// ending is how a game ended: the winner (White, Black, Draw, or "" when
// abandoned) and, for an early end, the reason.
type ending struct {
	winner, reason string
	loser          string // the loser named by ERRO
}

// faultOf is the end of a game lost by player p.
func faultOf(p int, format string, args ...any) *ending {
	return &ending{winner: colours[1-p], loser: colours[p], reason: fmt.Sprintf(format, args...)}
}

// abandoned is the end of a game the server stops.
var abandoned = ending{loser: "none", reason: "server shutting down, game abandoned"}

// play referees one game between two seats (white first), then reports
// the record, sends the last message and releases the seats.
func (s *Server) play(ctx context.Context, seats [2]seat, key string) {
	rec := Record{
		ID:      s.games.Add(1),
		Start:   time.Now().UTC(),
		White:   seats[0].playerName(),
		Black:   seats[1].playerName(),
		Key:     key,
		Actions: []json.RawMessage{},
	}
	x := &exchange{seats: seats}
	end := s.referee(ctx, x, &rec)
	last := Message{Head: Over, Winner: end.winner}
	if end.reason != "" {
		last = Message{Head: Erro, Loser: end.loser, Reason: end.reason}
		// The course's client reads INIT after GAME whatever comes (an
		// ERRO instead crashes it): a player the game ended for before
		// its INIT gets it first, then the ERRO, which the client shows.
		for p, st := range seats {
			if !x.inited[p] {
				st.send(Message{Head: Init, Colour: colours[p]})
			}
		}
	}
	rec.Winner, rec.Reason = end.winner, end.reason
	s.logf("game %d: %s (white) vs %s (black): %s after %d actions", rec.ID, rec.White, rec.Black, last, len(rec.Actions))
	// Recorded before the players hear of it: a client that got OVER
	// finds its game in the log and the table.
	if s.cfg.OnGame != nil {
		s.cfg.OnGame(rec)
	}
	for _, st := range seats {
		st.finish(last, &s.wg)
	}
}

// exchange is the state of a game's conversation: when the server last
// asked each seat for an answer. Only a line read after that can be the
// answer; an earlier one was sent unasked.
type exchange struct {
	seats  [2]seat
	asked  [2]time.Time
	inited [2]bool // INIT sent
}

// ask sends player p a message that it must answer, unless p already
// sent something the server has not received: that was sent unasked.
func (x *exchange) ask(p int, m Message) *ending {
	if x.seats[p].unread() {
		return faultOf(p, "unexpected message from %s, sent before the server asked for an answer", colours[p])
	}
	x.asked[p] = time.Now()
	if err := x.seats[p].send(m); err != nil {
		return faultOf(p, "disconnected: %v", err)
	}
	if m.Head == Init {
		x.inited[p] = true
	}
	return nil
}

// referee plays the game out and says how it ended.
func (s *Server) referee(ctx context.Context, x *exchange, rec *Record) ending {
	seats := x.seats
	// Announce the game, then the colours; both answer OKAY.
	for _, step := range []func(p int) Message{
		func(int) Message { return Message{Head: Game, White: rec.White, Black: rec.Black} },
		func(p int) Message { return Message{Head: Init, Colour: colours[p]} },
	} {
		for p := range seats {
			if end := x.ask(p, step(p)); end != nil {
				return *end
			}
		}
		if _, end := s.await(ctx, x, [2]Head{Okay, Okay}, s.cfg.ReplyTimeout); end != nil {
			return *end
		}
	}
	st := s.game.NewState()
	var used [2]time.Duration
	defer func() {
		for p := range used {
			rec.Seconds[p] = used[p].Seconds()
		}
	}()
	for !st.IsTerminal() {
		p := st.CurrentPlayer()
		left := s.cfg.GameTime - used[p]
		start := time.Now()
		if end := x.ask(p, Message{Head: Turn, Turns: st.Turn()}); end != nil {
			return *end
		}
		var want [2]Head
		want[p] = Actn
		got, end := s.await(ctx, x, want, left)
		used[p] += time.Since(start)
		if end != nil {
			return *end
		}
		if used[p] > s.cfg.GameTime {
			return *faultOf(p, "ran out of time: used %.3f s of %v", used[p].Seconds(), s.cfg.GameTime)
		}
		a, end := s.action(st, p, got[p], rec)
		if end != nil {
			return *end
		}
		if err := st.ApplyAction(a); err != nil {
			// Cannot happen: RefereeAction validated it.
			return *faultOf(p, "invalid action: %v", err)
		}
		q := 1 - p
		ua, _ := FromEngine(a)
		end = x.ask(q, Message{Head: Upd8, Action: ua})
		if end == nil {
			var want [2]Head
			want[q] = Okay
			_, end = s.await(ctx, x, want, s.cfg.ReplyTimeout)
		}
		// After the last action the result stands, as in the referee.
		if end != nil && !st.IsTerminal() {
			return *end
		}
	}
	switch st.RefereeWinner() {
	case "W":
		return ending{winner: White}
	case "B":
		return ending{winner: Black}
	}
	return ending{winner: Draw}
}

// action reads player p's answer to TURN, records it and validates it
// exactly as the referee does.
func (s *Server) action(st *wyb.State, p int, text string, rec *Record) (int, *ending) {
	m, err := Parse(text)
	if err == nil && m.Head != Actn {
		return 0, faultOf(p, "expected ACTN, got %s", m.Head)
	}
	if err != nil {
		raw, _ := json.Marshal(text)
		rec.Actions = append(rec.Actions, raw)
		return 0, faultOf(p, "invalid action: %v", err)
	}
	ref := m.Action.Referee()
	rec.Actions = append(rec.Actions, json.RawMessage(ref))
	a, err := st.RefereeAction([]byte(ref))
	if err != nil {
		return 0, faultOf(p, "invalid action: %v", err)
	}
	return a, nil
}

// await waits up to timeout for the answers of the seats whose want is
// not empty (raw lines, in any order). A message from a seat that owes
// none, or that it sent before it was asked (x.asked), a wrong answer, a
// disconnection or the timeout ends the game against that seat. A seat's
// unasked message is found whether it came in one packet with an answer
// or on its own: a line read before the question is never an answer, and
// a line of a seat that owes nothing waiting beside an answer is seen
// first.
func (s *Server) await(ctx context.Context, x *exchange, want [2]Head, timeout time.Duration) ([2]string, *ending) {
	seats := x.seats
	var got [2]string
	var done [2]bool
	t := time.NewTimer(max(timeout, 0))
	defer t.Stop()
	for p := range want {
		done[p] = want[p] == ""
	}
	for !done[0] || !done[1] {
		var l line
		var p int
		select {
		case l = <-seats[0].recv():
			p = 0
		case l = <-seats[1].recv():
			p = 1
		case <-t.C:
			p = 0
			if done[0] {
				p = 1
			}
			if want[p] == Actn {
				return got, faultOf(p, "ran out of time (%v per game)", s.cfg.GameTime)
			}
			return got, faultOf(p, "no %s within %v", want[p], timeout)
		case <-ctx.Done():
			return got, &abandoned
		}
		if end := s.judge(ctx, x, p, l, done[p]); end != nil {
			return got, end
		}
		if q := 1 - p; done[q] {
			// Whatever the seat that owes nothing sent before this
			// answer was taken goes first.
			select {
			case l := <-seats[q].recv():
				return got, s.judge(ctx, x, q, l, true)
			default:
				if seats[q].unread() {
					return got, faultOf(q, "unexpected message from %s: not its turn to send", colours[q])
				}
			}
		}
		if want[p] == Okay {
			if m, err := Parse(l.text); err != nil {
				return got, faultOf(p, "expected OKAY: %v", err)
			} else if m.Head != Okay {
				return got, faultOf(p, "expected OKAY, got %s", m.Head)
			}
		}
		got[p], done[p] = l.text, true
	}
	return got, nil
}

// judge says how a line read from seat p ends the game, or nil if it may
// be p's answer: an error ends it against p (or abandons it when the
// server is stopping), and so does any message when p owes none
// (owesNothing) or was not yet asked when it was read.
func (s *Server) judge(ctx context.Context, x *exchange, p int, l line, owesNothing bool) *ending {
	switch {
	case l.err != nil && ctx.Err() != nil:
		return &abandoned
	case l.err != nil && errors.Is(l.err, io.EOF):
		return faultOf(p, "disconnected")
	case errors.Is(l.err, errLineTooLong):
		return faultOf(p, "sent a %v", l.err)
	case l.err != nil:
		return faultOf(p, "connection failed: %v", l.err)
	case owesNothing:
		return faultOf(p, "unexpected message %q: not %s's turn to send", clip(l.text), colours[p])
	case l.at.Before(x.asked[p]):
		return faultOf(p, "unexpected message %q from %s, sent before the server asked for an answer", clip(l.text), colours[p])
	}
	return nil
}
