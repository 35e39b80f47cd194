package web

import (
	"fmt"
	"io"
	"net/http"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/gamefile"
)

// Replay is a game ready to step through: every position, the initial one
// first.
type Replay struct {
	gamefile.Game
	Title     string     `json:"title"`
	Width     int        `json:"width"`
	Height    int        `json:"height"`
	Colours   [2]string  `json:"colours"`
	Moves     []string   `json:"moves"`
	Positions []Position `json:"positions"`
	// Network, for a run's self-play game, is the spec of the run's
	// network to analyse it with, and NetworkTitle says which it is.
	Network      string `json:"network,omitempty"`
	NetworkTitle string `json:"network_title,omitempty"`
}

func (s *Server) handleReplay(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxUpload))
	if err != nil {
		answer(w, nil, &httpError{http.StatusRequestEntityTooLarge, fmt.Errorf("reading the game file: %w (at most %d bytes)", err, s.cfg.MaxUpload)})
		return
	}
	games, err := gamefile.Parse(body, r.URL.Query().Get("game"), r.URL.Query().Get("name"))
	if err != nil {
		answer(w, nil, badRequest("%v", err))
		return
	}
	// The page draws each game's board: check each game named once.
	drawable := map[string]bool{}
	for _, g := range games {
		if drawable[g.Game] {
			continue
		}
		if _, err := newBoard(g.Game); err != nil {
			answer(w, nil, badRequest("%s: %v", g.Label, err))
			return
		}
		drawable[g.Game] = true
	}
	writeJSON(w, map[string]any{"games": games})
}

func (s *Server) handleReplayActions(w http.ResponseWriter, r *http.Request) {
	var g gamefile.Game
	if err := decode(r, &g); err != nil {
		answer(w, nil, err)
		return
	}
	rep, err := NewReplay(g)
	if err != nil {
		answer(w, nil, badRequest("%v", err))
		return
	}
	writeJSON(w, rep)
}

// NewReplay computes every position of g.
func NewReplay(g gamefile.Game) (Replay, error) {
	b, err := newBoard(g.Game)
	if err != nil {
		return Replay{}, err
	}
	if len(g.Actions) > maxAnalysedActions {
		return Replay{}, fmt.Errorf("%d actions: at most %d", len(g.Actions), maxAnalysedActions)
	}
	states, err := replayActions(b, g.Actions)
	if err != nil {
		return Replay{}, err
	}
	w, h := b.grid.GridSize()
	rep := Replay{Game: g, Title: b.ui.Title(), Width: w, Height: h, Colours: b.colours(), Moves: []string{}}
	if rep.Actions == nil {
		rep.Actions = []int{}
	}
	names := func(p int) string {
		if n := g.Players[p]; n != "" {
			return rep.Colours[p] + ", " + n
		}
		return rep.Colours[p]
	}
	for i, st := range states {
		var prev env.State
		last := -1
		if i > 0 {
			prev, last = states[i-1], g.Actions[i-1]
			rep.Moves = append(rep.Moves, b.ui.FormatMove(prev, last))
		}
		rep.Positions = append(rep.Positions, b.position(st, prev, last, names))
	}
	return rep, nil
}
