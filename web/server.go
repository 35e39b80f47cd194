// Package web serves zerokit's browser front end: a board to play an agent
// on, a replay and analysis view of recorded games, and a live dashboard of
// training runs. The page (static/) is plain JavaScript embedded in the
// binary, with no build step and nothing fetched from elsewhere; it talks to
// the server through a small JSON API:
//
//	GET  /api/info                     games, agent kinds, defaults, runs
//	POST /api/play                     start a game (NewGame) -> Game
//	GET  /api/play/{id}                the game, while the agent thinks too
//	POST /api/play/{id}/move           {"action": N} or {"move": "3,4-3,5"}
//	POST /api/play/{id}/undo           back to the person's previous turn
//	POST /api/play/{id}/resign
//	POST /api/replay?game=NAME         a game file in the body -> []Replay
//	POST /api/replay/actions           {"game", "actions"} -> Replay
//	POST /api/analyse                  {"game", "actions", "network"} -> []Analysis
//	GET  /api/runs/{run}/metrics?offset=N   new lines of metrics.jsonl
//	GET  /api/runs/{run}/games         the newest self-play games
//	GET  /api/runs/{run}/game?ref=R    one self-play game, with the run's network -> Replay
//
// Errors are a JSON object {"error": "..."} with a 4xx status for bad
// requests and 5xx for failures of the server's own.
package web

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/zerokit/zerokit/agent/spec"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/env/games"
	"github.com/zerokit/zerokit/mcts"
)

//go:embed static
var static embed.FS

// Networks returns the evaluator of the network that a spec names for a
// game (e.g. "default", the shipped agent's network, or
// "net:path=runs/x"), for the policy heat maps and value graphs; the
// command line wires it to its pool of loaded networks.
type Networks func(game env.Game, spec string) (mcts.Evaluator, error)

// Config configures a Server.
type Config struct {
	// Agents builds the opponents from their specs.
	Agents *spec.Registry
	// DefaultAgent is the opponent's spec when a request gives none.
	DefaultAgent string
	// Networks evaluates positions for the analysis, with DefaultNetwork
	// unless a request names another; nil disables the analysis.
	Networks       Networks
	DefaultNetwork string
	// MoveTime caps the agent's thinking time per move when a request
	// gives none; MaxMoveTime caps what a request may ask.
	MoveTime, MaxMoveTime time.Duration
	// Runs are the training run directories of the dashboard; each must
	// exist (New says which does not).
	Runs []string
	// MaxGames bounds the games kept in memory; the least recently used
	// goes first. 0 means 64.
	MaxGames int
	// MaxUpload bounds the size of an uploaded game file. 0 means 64 MiB.
	MaxUpload int64
}

// Server serves the page and its API. Close it to stop the agents still
// thinking.
type Server struct {
	cfg    Config
	ctx    context.Context
	cancel context.CancelFunc
	mux    *http.ServeMux

	mu       sync.Mutex
	sessions map[string]*session
}

// New returns a server with cfg.
func New(cfg Config) (*Server, error) {
	if cfg.Agents == nil {
		return nil, errors.New("web: no agent registry")
	}
	if cfg.DefaultAgent == "" {
		cfg.DefaultAgent = "random"
	}
	if cfg.MoveTime <= 0 {
		cfg.MoveTime = 2 * time.Second
	}
	if cfg.MaxMoveTime <= 0 {
		cfg.MaxMoveTime = time.Minute
	}
	if cfg.MaxGames <= 0 {
		cfg.MaxGames = 64
	}
	if cfg.MaxUpload <= 0 {
		cfg.MaxUpload = 64 << 20
	}
	if err := checkRuns(cfg.Runs); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{cfg: cfg, ctx: ctx, cancel: cancel, sessions: map[string]*session{}}
	s.routes()
	return s, nil
}

// Close stops the agents that are thinking.
func (s *Server) Close() error {
	s.cancel()
	return nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

func (s *Server) routes() {
	m := http.NewServeMux()
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree always has static/
	}
	m.Handle("/", http.FileServerFS(sub))
	m.HandleFunc("GET /api/info", s.handleInfo)
	m.HandleFunc("POST /api/play", s.handleNewGame)
	m.HandleFunc("GET /api/play/{id}", s.handleGame)
	m.HandleFunc("POST /api/play/{id}/move", s.handleMove)
	m.HandleFunc("POST /api/play/{id}/undo", s.handleUndo)
	m.HandleFunc("POST /api/play/{id}/resign", s.handleResign)
	m.HandleFunc("POST /api/replay", s.handleReplay)
	m.HandleFunc("POST /api/replay/actions", s.handleReplayActions)
	m.HandleFunc("POST /api/analyse", s.handleAnalyse)
	m.HandleFunc("GET /api/runs/{run}/metrics", s.runHandler(metricsOf))
	m.HandleFunc("GET /api/runs/{run}/games", s.runHandler(gamesOf))
	m.HandleFunc("GET /api/runs/{run}/game", s.runHandler(gameOf))
	m.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Errorf("no API endpoint %s %s", r.Method, r.URL.Path))
	})
	s.mux = m
}

// httpError is an error with the status it is answered with.
type httpError struct {
	status int
	err    error
}

func (e *httpError) Error() string { return e.err.Error() }
func (e *httpError) Unwrap() error { return e.err }

func badRequest(format string, args ...any) error {
	return &httpError{http.StatusBadRequest, fmt.Errorf(format, args...)}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		// The client went away; nothing else to tell it.
		return
	}
}

func writeError(w http.ResponseWriter, status int, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": err.Error()})
}

// answer writes v, or err with its status: an httpError's, 409 for an
// illegal move, else 500.
func answer(w http.ResponseWriter, v any, err error) {
	if err == nil {
		writeJSON(w, v)
		return
	}
	var he *httpError
	switch {
	case errors.As(err, &he):
		writeError(w, he.status, err)
	case errors.Is(err, errBadMove):
		writeError(w, http.StatusConflict, err)
	default:
		writeError(w, http.StatusInternalServerError, err)
	}
}

// decode reads a JSON request body of at most 1 MiB into v, rejecting
// unknown fields.
func decode(r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return badRequest("empty request body: want a JSON object")
		}
		return badRequest("malformed request: %v", err)
	}
	return nil
}

// Info is what the page learns at start-up.
type Info struct {
	Games          []GameChoice `json:"games"`
	Agents         []string     `json:"agents"`
	DefaultAgent   string       `json:"default_agent"`
	DefaultNetwork string       `json:"default_network,omitempty"`
	MoveTime       float64      `json:"move_time_s"`
	Runs           []string     `json:"runs"`
}

// GameChoice is a game the page offers, with its players' colours. A
// sized game's name takes the board size after it ("squatter" + "7").
type GameChoice struct {
	Name    string    `json:"name"`
	Title   string    `json:"title"`
	Sized   bool      `json:"sized,omitempty"`
	Colours [2]string `json:"colours"`
}

func (s *Server) handleInfo(w http.ResponseWriter, r *http.Request) {
	info := Info{DefaultAgent: s.cfg.DefaultAgent, MoveTime: s.cfg.MoveTime.Seconds(), Runs: runNames(s.cfg.Runs),
		Games: []GameChoice{
			{Name: "wyb-nolimit", Title: "Watch Your Back! (the referee's rules)"},
			{Name: "wyb", Title: "Watch Your Back! (ends after moving turn 256)"},
			{Name: "squatter", Title: "Squatter (N x N)", Sized: true},
			{Name: "tictactoe", Title: "Tic-tac-toe"},
		}}
	offered := map[string]bool{} // the families above
	kept := info.Games[:0]       // those the program registers
	for _, g := range info.Games {
		name := g.Name
		if g.Sized {
			name += "6"
		}
		b, err := newBoard(name)
		if err != nil {
			continue
		}
		g.Colours = b.colours()
		kept = append(kept, g)
		if c, err := games.Lookup(name); err == nil {
			offered[c.Name] = true
		}
	}
	info.Games = kept
	// Any other registered game the page can draw, as its default.
	for _, r := range games.Families() {
		if offered[r.Name] {
			continue
		}
		if g, err := games.New(games.DefaultConfig(r.Name)); err == nil {
			if b, err := boardOf(g); err == nil {
				info.Games = append(info.Games, GameChoice{Name: g.Name(), Title: r.Title, Colours: b.colours()})
			}
		}
	}
	if s.cfg.Networks != nil {
		info.DefaultNetwork = s.cfg.DefaultNetwork
	}
	info.Agents = s.cfg.Agents.Names()
	writeJSON(w, info)
}

func (s *Server) handleNewGame(w http.ResponseWriter, r *http.Request) {
	var req NewGame
	if err := decode(r, &req); err != nil {
		answer(w, nil, err)
		return
	}
	g, err := s.newGame(req)
	answer(w, g, err)
}

func (s *Server) newGame(req NewGame) (Game, error) {
	b, err := newBoard(req.Game)
	if err != nil {
		return Game{}, badRequest("%v", err)
	}
	human, err := b.ui.Player(strings.ToLower(strings.TrimSpace(req.Colour)))
	if err != nil {
		return Game{}, badRequest("colour %q: %v", req.Colour, err)
	}
	moveTime := s.cfg.MoveTime
	if req.MoveTimeMS != 0 {
		moveTime = time.Duration(req.MoveTimeMS) * time.Millisecond
	}
	if moveTime <= 0 || moveTime > s.cfg.MaxMoveTime {
		return Game{}, badRequest("move time %v: want more than 0 and at most %v", moveTime, s.cfg.MaxMoveTime)
	}
	specText := strings.TrimSpace(req.Agent)
	if specText == "" {
		specText = s.cfg.DefaultAgent
	}
	built, err := s.cfg.Agents.Build(b.Game, specText)
	if err != nil {
		return Game{}, badRequest("%v", err)
	}
	bot, err := built.NewAgent(req.Seed)
	if err != nil {
		return Game{}, badRequest("agent %q: %v", specText, err)
	}
	if len(req.Actions) > maxAnalysedActions {
		return Game{}, badRequest("%d actions: at most %d", len(req.Actions), maxAnalysedActions)
	}
	states, err := replayActions(b, req.Actions)
	if err != nil {
		return Game{}, badRequest("%v", err)
	}
	sess := &session{id: newID(), b: b, human: human, bot: bot, spec: specText, moveTime: moveTime,
		states: states, actions: append([]int{}, req.Actions...), used: time.Now()}
	if eval := s.evaluator(b, ""); eval != nil {
		sess.analyst = func(ctx context.Context, st env.State) (*Analysis, error) {
			return networkAnalysis(ctx, b, eval, st)
		}
	}
	s.mu.Lock()
	s.evict()
	s.sessions[sess.id] = sess
	s.mu.Unlock()
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sess.startAgent(s.ctx)
	return sess.view(), nil
}

// evict drops the least recently used games beyond MaxGames-1. s.mu must
// be held.
func (s *Server) evict() {
	for len(s.sessions) >= s.cfg.MaxGames {
		var oldest *session
		for _, ss := range s.sessions {
			ss.mu.Lock()
			if oldest == nil || ss.used.Before(oldest.used) {
				oldest = ss
			}
			ss.mu.Unlock()
		}
		oldest.mu.Lock()
		if oldest.cancel != nil {
			oldest.cancel()
		}
		oldest.gen++
		oldest.mu.Unlock()
		delete(s.sessions, oldest.id)
	}
}

// session finds the game of the request's {id}.
func (s *Server) session(r *http.Request) (*session, error) {
	id := r.PathValue("id")
	s.mu.Lock()
	sess, ok := s.sessions[id]
	s.mu.Unlock()
	if !ok {
		return nil, &httpError{http.StatusNotFound, fmt.Errorf("no game %q (games are kept in memory: it may have ended with a restart of the server; start a new one)", id)}
	}
	sess.mu.Lock()
	sess.used = time.Now()
	sess.mu.Unlock()
	return sess, nil
}

func (s *Server) handleGame(w http.ResponseWriter, r *http.Request) {
	sess, err := s.session(r)
	s.answerSession(w, sess, err)
}

// MoveRequest is a move by index or in the game's notation.
type MoveRequest struct {
	Action *int   `json:"action"`
	Move   string `json:"move"`
}

func (s *Server) handleMove(w http.ResponseWriter, r *http.Request) {
	sess, err := s.session(r)
	if err != nil {
		answer(w, nil, err)
		return
	}
	var req MoveRequest
	if err := decode(r, &req); err != nil {
		answer(w, nil, err)
		return
	}
	var a int
	switch {
	case req.Action != nil && req.Move != "":
		err = badRequest("give action or move, not both")
	case req.Action != nil:
		a = *req.Action
	case req.Move != "":
		sess.mu.Lock()
		a, err = sess.b.ui.ParseMove(sess.current(), req.Move)
		sess.mu.Unlock()
		if err != nil {
			err = fmt.Errorf("%w: %q: %v", errBadMove, req.Move, err)
		}
	default:
		err = badRequest("no move given: want {\"action\": N} or {\"move\": \"notation\"}")
	}
	if err == nil {
		err = sess.play(s.ctx, a)
	}
	s.answerSession(w, sess, err)
}

func (s *Server) answerSession(w http.ResponseWriter, sess *session, err error) {
	if err != nil {
		answer(w, nil, err)
		return
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	writeJSON(w, sess.view())
}

func (s *Server) handleUndo(w http.ResponseWriter, r *http.Request) {
	sess, err := s.session(r)
	if err == nil {
		err = sess.undo()
	}
	if err == nil {
		sess.mu.Lock()
		sess.startAgent(s.ctx)
		sess.mu.Unlock()
	}
	s.answerSession(w, sess, err)
}

func (s *Server) handleResign(w http.ResponseWriter, r *http.Request) {
	sess, err := s.session(r)
	if err == nil {
		err = sess.resign()
	}
	s.answerSession(w, sess, err)
}
