package web

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/mcts"
)

// NewGame is the request that starts a game against an agent.
type NewGame struct {
	// Game names the game ("wyb-nolimit", "squatter6", ...).
	Game string `json:"game"`
	// Agent is the opponent's agent spec ("" for Config.DefaultAgent).
	Agent string `json:"agent"`
	// Colour is the person's colour ("white", "black", "first",
	// "second"; "" the first mover's).
	Colour string `json:"colour"`
	// MoveTimeMS caps the agent's thinking time per move in milliseconds
	// (0: Config.MoveTime).
	MoveTimeMS int64 `json:"move_time_ms"`
	// Seed seeds the agent's random choices.
	Seed uint64 `json:"seed"`
	// Actions, if any, are played from the initial position first: the
	// game goes on from where they lead (a replay's position).
	Actions []int `json:"actions"`
}

// Analysis is what an agent or a network thinks of a position.
type Analysis struct {
	// Source is "search" (the agent's search: so far while Game.Thinking,
	// else the one that chose its last move) or "network" (the network's
	// first look, before the search reports).
	Source string `json:"source"`
	// Value is the expected result for the player to move, in [-1, 1],
	// and Win the matching win probability, (Value+1)/2.
	Value float32 `json:"value"`
	Win   float32 `json:"win"`
	// Player is the player to move in the analysed position.
	Player int `json:"player"`
	// Simulations is the number of simulations the search ran.
	Simulations int `json:"simulations,omitempty"`
	// Top lists the legal moves, best first: Share is the visit share (a
	// search) or the prior (a network).
	Top []Candidate `json:"top"`
}

// Candidate is one move of an Analysis.
type Candidate struct {
	Move
	Share  float32 `json:"share"`
	Visits int     `json:"visits,omitempty"`
	Prior  float32 `json:"prior"`
}

// Game is the state of a game against an agent, as the page sees it.
type Game struct {
	ID       string    `json:"id"`
	Game     string    `json:"game"`
	Title    string    `json:"title"`
	Width    int       `json:"width"`
	Height   int       `json:"height"`
	Colours  [2]string `json:"colours"`
	Human    int       `json:"human"`
	Agent    string    `json:"agent"`
	Thinking bool      `json:"thinking"`
	// Resigned is set when the person resigned.
	Resigned bool `json:"resigned,omitempty"`
	// Error is the agent's failure, if it failed to move.
	Error     string    `json:"error,omitempty"`
	Position  Position  `json:"position"`
	Moves     []string  `json:"moves"`
	Actions   []int     `json:"actions"`
	Analysis  *Analysis `json:"analysis,omitempty"`
	CanUndo   bool      `json:"can_undo"`
	MoveTime  float64   `json:"move_time_s"`
	LastThink float64   `json:"last_think_s,omitempty"`
}

// session is one game between a person and an agent.
type session struct {
	id       string
	b        *board
	human    int
	bot      agent.Agent
	spec     string
	moveTime time.Duration
	analyst  func(context.Context, env.State) (*Analysis, error) // nil: none

	mu        sync.Mutex
	states    []env.State // states[i] is the position before actions[i]
	actions   []int
	thinking  bool
	cancel    context.CancelFunc
	gen       int // bumped by undo and resign, so a stale search is dropped
	analysis  *Analysis
	resigned  bool
	err       string
	lastThink time.Duration
	used      time.Time
}

func newID() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand never fails on supported systems
	}
	return hex.EncodeToString(b[:])
}

func (s *session) current() env.State { return s.states[len(s.states)-1] }

func (s *session) name(p int) string {
	c := s.b.ui.Colour(p)
	if p == s.human {
		return c + ", you"
	}
	return c + ", " + s.bot.Name()
}

// view is the page's picture of the game. s.mu must be held.
func (s *session) view() Game {
	cur := s.current()
	var prev env.State
	last := -1
	if n := len(s.actions); n > 0 {
		prev, last = s.states[n-1], s.actions[n-1]
	}
	w, h := s.b.grid.GridSize()
	g := Game{ID: s.id, Game: s.b.Name(), Title: s.b.ui.Title(), Width: w, Height: h, Colours: s.b.colours(),
		Human: s.human, Agent: s.bot.Name(), Thinking: s.thinking, Resigned: s.resigned, Error: s.err,
		Position: s.b.position(cur, prev, last, s.name), Actions: slices.Clone(s.actions), Analysis: s.analysis,
		MoveTime: s.moveTime.Seconds(), LastThink: s.lastThink.Seconds(), Moves: []string{}}
	if g.Actions == nil {
		g.Actions = []int{}
	}
	for i, a := range s.actions {
		g.Moves = append(g.Moves, s.b.ui.FormatMove(s.states[i], a))
	}
	if s.resigned {
		g.Position.Legal = []Move{}
		g.Position.Result = s.name(1-s.human) + " wins: you resigned"
	}
	g.CanUndo = !s.thinking && !s.resigned && s.undoTarget() >= 0
	return g
}

// over reports whether the game has ended. s.mu must be held.
func (s *session) over() bool { return s.resigned || s.current().IsTerminal() }

// errBadMove is the error class of moves the rules refuse.
var errBadMove = errors.New("illegal move")

// play applies the person's action and starts the agent's reply.
func (s *session) play(ctx context.Context, a int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.current()
	switch {
	case s.over():
		return fmt.Errorf("%w: the game is over", errBadMove)
	case s.thinking || cur.CurrentPlayer() != s.human:
		return fmt.Errorf("%w: it is not your turn (%s is thinking)", errBadMove, s.bot.Name())
	case a < 0 || a >= s.b.NumActions():
		return fmt.Errorf("%w: action %d is outside the game's %d actions", errBadMove, a, s.b.NumActions())
	}
	if err := s.apply(a); err != nil {
		return err
	}
	s.analysis = nil
	s.startAgent(ctx)
	return nil
}

// apply plays a in the current position. s.mu must be held.
func (s *session) apply(a int) error {
	cur := s.current()
	next := cur.Clone()
	if err := next.ApplyAction(a); err != nil { // the rules say why not
		return fmt.Errorf("%w: %s: %v", errBadMove, s.b.ui.FormatMove(cur, a), err)
	}
	s.states = append(s.states, next)
	s.actions = append(s.actions, a)
	return nil
}

// startAgent lets the agent think if it is its turn. s.mu must be held;
// ctx bounds the server's life.
func (s *session) startAgent(ctx context.Context) {
	cur := s.current()
	if s.over() || cur.CurrentPlayer() == s.human || s.thinking {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	s.thinking, s.cancel, s.err = true, cancel, ""
	gen := s.gen
	st := cur.Clone()
	go func() {
		defer cancel()
		if s.analyst != nil {
			if an, err := s.analyst(ctx, st); err == nil {
				an.Source = "network"
				s.mu.Lock()
				if s.gen == gen && s.thinking {
					s.analysis = an
				}
				s.mu.Unlock()
			}
		}
		if p, ok := s.bot.(interface {
			SetProgress(int, func(mcts.Progress))
		}); ok {
			// The search's visit shares so far, while it thinks.
			p.SetProgress(progressEvery, func(pr mcts.Progress) {
				an := rootAnalysis(s.b, st, pr, nil)
				s.mu.Lock()
				if s.gen == gen && s.thinking {
					s.analysis = an
				}
				s.mu.Unlock()
			})
		}
		actx := ctx
		if s.moveTime > 0 {
			var c context.CancelFunc
			actx, c = context.WithTimeout(ctx, s.moveTime)
			defer c()
		}
		start := time.Now()
		a, err := s.bot.Act(actx, st.Clone())
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.gen != gen {
			return // undone or resigned meanwhile
		}
		s.thinking, s.cancel = false, nil
		s.lastThink = time.Since(start)
		if err == nil && !st.IsLegal(a) {
			err = fmt.Errorf("it chose the illegal action %s", st.ActionString(a))
		}
		if err != nil {
			s.err = fmt.Sprintf("agent %s failed to move: %v", s.bot.Name(), err)
			return
		}
		if r, ok := s.bot.(interface{ LastResult() mcts.Result }); ok {
			s.analysis = searchAnalysis(s.b, st, r.LastResult())
		}
		if err := s.apply(a); err != nil {
			s.err = fmt.Sprintf("agent %s: %v", s.bot.Name(), err)
		}
	}()
}

// undoTarget is the number of actions to keep when undoing: back to the
// person's previous turn, or -1 when there is none. s.mu must be held.
func (s *session) undoTarget() int {
	for n := len(s.actions) - 1; n >= 0; n-- {
		if s.states[n].CurrentPlayer() == s.human {
			return n
		}
	}
	return -1
}

// undo takes back the person's last move and the agent's reply.
func (s *session) undo() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.resigned:
		return fmt.Errorf("%w: you resigned; start a new game", errBadMove)
	case s.thinking:
		return fmt.Errorf("%w: wait until %s has moved", errBadMove, s.bot.Name())
	}
	n := s.undoTarget()
	if n < 0 {
		return fmt.Errorf("%w: nothing to undo", errBadMove)
	}
	s.states, s.actions = s.states[:n+1], s.actions[:n]
	s.gen++
	s.analysis, s.err = nil, ""
	return nil
}

// resign ends the game as a loss for the person.
func (s *session) resign() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.over() {
		return fmt.Errorf("%w: the game is over", errBadMove)
	}
	s.resigned = true
	s.gen++
	if s.cancel != nil {
		s.cancel()
	}
	s.thinking, s.cancel = false, nil
	return nil
}

// searchAnalysis turns a search result in s into the page's analysis.
func searchAnalysis(b *board, s env.State, r mcts.Result) *Analysis {
	return rootAnalysis(b, s, mcts.Progress{Player: r.Player, Actions: r.Actions, Visits: r.Visits, Priors: r.Priors,
		Value: r.Value, Simulations: r.Simulations}, r.Policy)
}

// rootAnalysis turns the root of a search in s into the page's analysis;
// policy, if any, gives the shares when no move has visits (a forced
// move).
func rootAnalysis(b *board, s env.State, p mcts.Progress, policy []float32) *Analysis {
	an := &Analysis{Source: "search", Value: p.Value, Win: (p.Value + 1) / 2, Player: p.Player, Simulations: p.Simulations}
	total := 0
	for _, v := range p.Visits {
		total += v
	}
	for i, a := range p.Actions {
		c := Candidate{Move: b.move(s, a), Visits: p.Visits[i]}
		if i < len(p.Priors) {
			c.Prior = p.Priors[i]
		}
		if total > 0 {
			c.Share = float32(p.Visits[i]) / float32(total)
		} else if i < len(policy) {
			c.Share = policy[i]
		}
		an.Top = append(an.Top, c)
	}
	sortTop(an)
	return an
}

// progressEvery is how many simulations apart an agent's search reports
// its progress while the person waits.
const progressEvery = 64

// sortTop orders an's candidates best first.
func sortTop(an *Analysis) {
	slices.SortStableFunc(an.Top, func(x, y Candidate) int {
		switch {
		case x.Share > y.Share:
			return -1
		case x.Share < y.Share:
			return 1
		}
		return 0
	})
}
