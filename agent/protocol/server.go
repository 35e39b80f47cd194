package protocol

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/env"
)

// NewAgentFunc builds the agent for one game, in which it plays player (0
// moves first).
type NewAgentFunc func(player int) (agent.Agent, error)

// DefaultMaxLine is the longest request line, in bytes, that a server
// accepts when Config.MaxLine is 0.
const DefaultMaxLine = 4096

// Config is what Serve needs besides the agent constructor.
type Config struct {
	// Game is the game played.
	Game env.Game
	// Codec translates actions to and from the referee's text form.
	Codec Codec
	// Budget bounds the agent's thinking time.
	Budget Budget
	// CPU, if not nil, returns the process's CPU time so far; see NewClock.
	CPU func() time.Duration
	// MaxLine is the longest accepted request line in bytes (0:
	// DefaultMaxLine). Longer lines are answered with an error.
	MaxLine int
	// NewFallback, if not nil, builds a second agent for each game that
	// answers instead when the main agent fails by running past its
	// deadline (an agent whose search cannot stop early returns
	// context.DeadlineExceeded): a fast fallback move is better than an
	// error, which loses the game under a referee. It should be fast and
	// ignore deadlines (greedy, random).
	NewFallback NewAgentFunc
	// OnGameEnd, if not nil, is called with each game's statistics when
	// the game reaches a terminal state, or when a new init or the end of
	// the session abandons it.
	OnGameEnd func(GameStats)
}

// GameStats summarises one game of a session.
type GameStats struct {
	// Agent is the agent's name and Colour the colour it played.
	Agent, Colour string
	// Moves is the number of actions the agent chose, Fallbacks the
	// number of those not chosen by a completed search: by the fallback
	// agent instead (after a deadline passed, or because the game budget
	// was spent), or by the agent's own fallback when its deadline passed
	// before its search had a result (agent.FallbackCounter).
	Moves, Fallbacks int
	// TreeFull is the number of the agent's searches stopped by their
	// tree's size or memory budget (agent.TreeFullCounter).
	TreeFull int
	// Used is the time charged to the game's clock and MaxMove the longest
	// single action request.
	Used, MaxMove time.Duration
	// Terminal reports whether the game ended; Returns are then the
	// players' results.
	Terminal bool
	Returns  [2]float32
	// Actions is the number of actions played by both sides.
	Actions int
}

// Serve runs one session of the line protocol (see the package
// documentation): it reads requests from r and writes one response line per
// request to w, until quit, the end of r, a write error or the cancellation
// of ctx. Malformed or out-of-place requests are answered with an error line
// and the session goes on. Serve returns nil after quit or at the end of r,
// ctx.Err() when cancelled (the caller should then close r to release the
// goroutine blocked reading it), and otherwise the I/O error.
func Serve(ctx context.Context, r io.Reader, w io.Writer, newAgent NewAgentFunc, cfg Config) error {
	sess, err := NewSession(newAgent, cfg)
	if err != nil {
		return err
	}
	defer sess.Close()
	maxLine := cfg.MaxLine
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	lines := make(chan lineResult)
	done := make(chan struct{})
	defer close(done)
	go readLines(r, maxLine, lines, done)

	bw := bufio.NewWriter(w)
	for {
		var l lineResult
		select {
		case <-ctx.Done():
			return ctx.Err()
		case l = <-lines:
		}
		if l.err != nil {
			if errors.Is(l.err, io.EOF) {
				return nil
			}
			return fmt.Errorf("protocol: reading request: %w", l.err)
		}
		var resp string
		quit := false
		if l.tooLong {
			resp = fmt.Sprintf("error request line longer than %d bytes", maxLine)
		} else {
			var err error
			resp, quit, err = sess.Handle(ctx, l.line)
			if err != nil {
				resp = "error " + oneLine(err.Error())
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if _, err := bw.WriteString(resp + "\n"); err != nil {
			return fmt.Errorf("protocol: writing response: %w", err)
		}
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("protocol: writing response: %w", err)
		}
		if quit {
			return nil
		}
	}
}

// session is the state of one connection: the current game, if any.
type session struct {
	cfg      Config
	newAgent NewAgentFunc

	state    env.State // nil before init
	me       int
	agent    agent.Agent
	fallback agent.Agent // nil without Config.NewFallback
	clock    *Clock
	stats    GameStats
	ended    bool // stats already reported
}

// handle answers one request line. A non-nil error becomes an error
// response; quit reports that the session ends after the response.
func (s *session) handle(ctx context.Context, line string) (resp string, quit bool, err error) {
	req, err := ParseRequest(line)
	if err != nil {
		return "", false, err
	}
	defer func() {
		// Never let a bug in an agent or codec take the server down: the
		// game is abandoned, the session goes on.
		if p := recover(); p != nil {
			s.state = nil
			resp, quit, err = "", false, fmt.Errorf("internal failure handling %s, game abandoned (send init): %v", req.Cmd, p)
		}
	}()
	switch req.Cmd {
	case CmdInit:
		return s.init(req.Colour)
	case CmdAction:
		return s.action(ctx, req.Turns)
	case CmdUpdate:
		return s.update(req.Action)
	case CmdQuit:
		return "bye", true, nil
	case CmdStatus:
		return s.status()
	case CmdLocked:
		return s.locked()
	}
	return "", false, fmt.Errorf("unhandled command %v", req.Cmd)
}

func (s *session) init(colour string) (string, bool, error) {
	player, err := s.cfg.Codec.Player(colour)
	if err != nil {
		return "", false, err
	}
	s.endGame()
	s.state = nil
	clock := NewClock(s.cfg.Budget, s.cfg.CPU)
	stop := clock.Start()
	a, err := s.newAgent(player)
	var fb agent.Agent
	if err == nil && s.cfg.NewFallback != nil {
		if fb, err = s.cfg.NewFallback(player); err != nil {
			err = fmt.Errorf("fallback: %w", err)
		}
	}
	stop()
	if err != nil {
		return "", false, fmt.Errorf("cannot create agent: %w", err)
	}
	s.state = s.cfg.Game.NewInitialState()
	s.me, s.agent, s.fallback, s.clock, s.ended = player, a, fb, clock, false
	s.stats = GameStats{Agent: a.Name(), Colour: s.cfg.Codec.Colour(player)}
	return "ok", false, nil
}

// ready checks that a game is in progress.
func (s *session) ready() error {
	if s.state == nil {
		return errors.New("no game in progress; send init white|black first")
	}
	if s.state.IsTerminal() {
		return errors.New("the game is over; send init to start another")
	}
	return nil
}

func (s *session) action(ctx context.Context, turns int) (string, bool, error) {
	if err := s.ready(); err != nil {
		return "", false, err
	}
	st := s.state
	if p := st.CurrentPlayer(); p != s.me {
		return "", false, fmt.Errorf("not my turn: %s to move, I play %s (send update with the opponent's action)",
			s.cfg.Codec.Colour(p), s.cfg.Codec.Colour(s.me))
	}
	if want := s.cfg.Codec.Turns(st); turns != want {
		return "", false, fmt.Errorf("turn counter mismatch: referee says %d, my replica is at turn %d (an update was missed or repeated?)", turns, want)
	}
	stop := s.clock.Start()
	var a int
	var err error
	// Once the game budget is spent but the game goes on (the course
	// referee has no turn limit), even a short search per move would add
	// up past the limit over a long game: the fallback, which answers at
	// once, plays the rest.
	spent := s.fallback != nil && s.clock.Spent()
	if !spent {
		moveCtx := ctx
		weight, toGo := 1.0, 0.0
		if w, ok := st.(env.TimeWeighter); ok && !s.cfg.Budget.Unweighted {
			weight, toGo = w.TimeWeight(), w.TimeWeightToGo()
		}
		if t := s.clock.AllotWeighted(st.MoveNumber(), s.cfg.Game.MaxGameLength(), weight, toGo); t > 0 {
			var cancel context.CancelFunc
			moveCtx, cancel = context.WithTimeout(ctx, t)
			defer cancel()
		}
		// The agent gets a copy: whatever it does to it, the replica
		// stays right.
		fc, counts := s.agent.(agent.FallbackCounter)
		tc, countsFull := s.agent.(agent.TreeFullCounter)
		var before, fullBefore int
		if counts {
			before = fc.Fallbacks()
		}
		if countsFull {
			fullBefore = tc.TreeFulls()
		}
		a, err = s.agent.Act(moveCtx, st.Clone())
		if counts {
			s.stats.Fallbacks += fc.Fallbacks() - before
		}
		if countsFull {
			s.stats.TreeFull += tc.TreeFulls() - fullBefore
		}
	}
	if spent || (s.fallback != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil) {
		why := "ran out of time"
		if spent {
			why = "out of time for the game"
		}
		s.stats.Fallbacks++
		if a, err = s.fallback.Act(ctx, st.Clone()); err != nil {
			err = fmt.Errorf("%s, and the fallback %s failed: %w", why, s.fallback.Name(), err)
		}
	}
	d := stop()
	s.stats.Moves++
	s.stats.MaxMove = max(s.stats.MaxMove, d)
	if err != nil {
		return "", false, fmt.Errorf("agent %s failed to choose an action: %w", s.agent.Name(), err)
	}
	if !st.IsLegal(a) {
		return "", false, fmt.Errorf("agent %s chose an illegal action (%d)", s.agent.Name(), a)
	}
	text, err := s.cfg.Codec.FormatAction(st, a)
	if err != nil {
		return "", false, fmt.Errorf("cannot format agent's action %s: %w", st.ActionString(a), err)
	}
	if err := st.ApplyAction(a); err != nil {
		return "", false, fmt.Errorf("agent's action %s rejected by the rules: %w", text, err)
	}
	s.afterAction()
	return text, false, nil
}

func (s *session) update(text string) (string, bool, error) {
	if err := s.ready(); err != nil {
		return "", false, err
	}
	st := s.state
	if p := st.CurrentPlayer(); p == s.me {
		return "", false, fmt.Errorf("it is my turn (%s to move): expected action, not update", s.cfg.Codec.Colour(p))
	}
	stop := s.clock.Start()
	defer stop()
	a, err := s.cfg.Codec.ParseAction(st, text)
	if err != nil {
		return "", false, fmt.Errorf("bad action %q: %w", clip(text, 80), err)
	}
	if err := st.ApplyAction(a); err != nil {
		return "", false, fmt.Errorf("illegal action %s for %s: %w", clip(text, 80), s.cfg.Codec.Colour(st.CurrentPlayer()), err)
	}
	s.afterAction()
	return "ok", false, nil
}

// status answers the codec's judgement of the game, which may be over.
func (s *session) status() (string, bool, error) {
	j, ok := s.cfg.Codec.(env.RefereeJudge)
	if !ok {
		return "", false, errors.New("status is not part of this game's referee protocol (its referee judges the game itself)")
	}
	if s.state == nil {
		return "", false, errors.New("no game in progress; send init first")
	}
	line, err := j.Judge(s.state)
	if err != nil {
		return "", false, err
	}
	return line, false, nil
}

// locked answers "yes" when the game in progress is locked (env.Locker):
// nothing but forfeits, by both players, ever again. A client may then
// answer the referee's requests itself, at no cost (the Python adapter
// does).
func (s *session) locked() (string, bool, error) {
	if err := s.ready(); err != nil {
		return "", false, err
	}
	if l, ok := s.state.(env.Locker); ok && l.Locked() {
		return "yes", false, nil
	}
	return "no", false, nil
}

func (s *session) afterAction() {
	if s.state.IsTerminal() {
		s.endGame()
	}
}

// endGame reports the current game's statistics once.
func (s *session) endGame() {
	if s.state == nil || s.ended {
		return
	}
	s.ended = true
	s.stats.Used = s.clock.Used()
	s.stats.Actions = s.state.MoveNumber()
	s.stats.Terminal = s.state.IsTerminal()
	s.stats.Returns = s.state.Returns()
	if s.cfg.OnGameEnd != nil {
		s.cfg.OnGameEnd(s.stats)
	}
}

// oneLine flattens a message onto one line.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// lineResult is one line read by readLines, or the error ending the input.
type lineResult struct {
	line    string
	tooLong bool
	err     error
}

// readLines sends each line of r (without its newline) on out until the
// end of r or done is closed. Lines longer than maxLine bytes are skipped
// and reported as tooLong. A last line without a newline counts.
func readLines(r io.Reader, maxLine int, out chan<- lineResult, done <-chan struct{}) {
	br := bufio.NewReaderSize(r, maxLine+1)
	send := func(l lineResult) bool {
		select {
		case out <- l:
			return true
		case <-done:
			return false
		}
	}
	for {
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if !send(lineResult{tooLong: true}) {
				return
			}
			if err != nil {
				send(lineResult{err: err})
				return
			}
			continue
		}
		if len(b) > 0 {
			line := strings.TrimSuffix(string(b), "\n")
			if len(line) > maxLine {
				if !send(lineResult{tooLong: true}) {
					return
				}
			} else if !send(lineResult{line: line}) {
				return
			}
		}
		if err != nil {
			send(lineResult{err: err})
			return
		}
	}
}
