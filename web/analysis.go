package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/mcts"
)

// networkAnalysis is the network's look at s: its value and its prior
// over the legal moves, best first.
func networkAnalysis(ctx context.Context, b *board, eval mcts.Evaluator, s env.State) (*Analysis, error) {
	player := s.CurrentPlayer()
	an := &Analysis{Source: "network", Player: player, Top: []Candidate{}}
	if s.IsTerminal() {
		return an, nil
	}
	legal := s.LegalActions(nil)
	priors := make([]float32, len(legal))
	v, err := eval.Evaluate(ctx, s, legal, priors)
	if err != nil {
		return nil, err
	}
	an.Value, an.Win = v, (v+1)/2
	for i, a := range legal {
		an.Top = append(an.Top, Candidate{Move: b.move(s, a), Share: priors[i], Prior: priors[i]})
	}
	sortTop(an)
	return an, nil
}

// evaluator returns the evaluator of the network that spec names for b
// ("" for the default), or nil when the server has none. Failures are
// reported by evaluatorFor.
func (s *Server) evaluator(b *board, spec string) mcts.Evaluator {
	e, _ := s.evaluatorFor(b, spec)
	return e
}

func (s *Server) evaluatorFor(b *board, spec string) (mcts.Evaluator, error) {
	if s.cfg.Networks == nil {
		return nil, badRequest("this server analyses no positions (started without a network)")
	}
	if spec = strings.TrimSpace(spec); spec == "" {
		spec = s.cfg.DefaultNetwork
	}
	e, err := s.cfg.Networks(b.Game, spec)
	if err != nil {
		return nil, badRequest("network %q: %v", spec, err)
	}
	return e, nil
}

// AnalyseRequest asks for the network's analysis of every position of a
// game.
type AnalyseRequest struct {
	Game    string `json:"game"`
	Actions []int  `json:"actions"`
	// Network is the network's spec ("" for the server's default).
	Network string `json:"network"`
}

// PositionAnalysis is the network's look at one position, with the full
// policy for the heat map. Value and Win are from the point of view of
// Player; WinFirst is player 0's win probability, for the value graph.
type PositionAnalysis struct {
	Analysis
	WinFirst float32 `json:"win_first"`
	// Turning marks the turning point of the game: the position after
	// the move that changed the estimate most (see turningPoint).
	Turning bool `json:"turning,omitempty"`
}

func (s *Server) handleAnalyse(w http.ResponseWriter, r *http.Request) {
	var req AnalyseRequest
	if err := decode(r, &req); err != nil {
		answer(w, nil, err)
		return
	}
	res, err := s.analyse(r.Context(), req)
	answer(w, res, err)
}

// maxAnalysedActions bounds the length of a game to analyse.
const maxAnalysedActions = 4096

func (s *Server) analyse(ctx context.Context, req AnalyseRequest) ([]PositionAnalysis, error) {
	b, err := newBoard(req.Game)
	if err != nil {
		return nil, badRequest("%v", err)
	}
	if len(req.Actions) > maxAnalysedActions {
		return nil, badRequest("%d actions: at most %d", len(req.Actions), maxAnalysedActions)
	}
	states, err := replayActions(b, req.Actions)
	if err != nil {
		return nil, badRequest("%v", err)
	}
	eval, err := s.evaluatorFor(b, req.Network)
	if err != nil {
		return nil, err
	}
	out := make([]PositionAnalysis, len(states))
	errs := make([]error, len(states))
	// The evaluator batches concurrent requests: a few in flight at once.
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i, st := range states {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			an, err := networkAnalysis(ctx, b, eval, st)
			if err != nil {
				errs[i] = fmt.Errorf("position %d: %w", i, err)
				return
			}
			pa := PositionAnalysis{Analysis: *an}
			switch {
			case st.IsTerminal():
				ret := st.Returns()
				pa.WinFirst = (ret[0] + 1) / 2
			case an.Player == 0:
				pa.WinFirst = an.Win
			default:
				pa.WinFirst = 1 - an.Win
			}
			out[i] = pa
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	win, side := make([]float32, len(out)), make([]int, len(out))
	for i, pa := range out {
		win[i], side[i] = pa.WinFirst, states[i].CurrentPlayer()
	}
	if t := turningPoint(win, side); t > 0 {
		out[t].Turning = true
	}
	return out, nil
}

// turningPoint returns the position after the move that changed the
// first player's win probability most, or 0 when no move changed it.
//
// A network's estimate zig-zags with the side to move (in Watch Your
// Back!'s placing phase by several points), so the change across a move
// is measured between positions with the same side to move: the mean of
// the change the side to move after the move sees (since its previous
// position) and the change the mover sees (from before its move to its
// next turn). A zig-zag cancels in both, and a step in the estimate at
// position k counts fully only at k, half at k-1 and k+1. toMove holds
// each position's player to move, -1 once the game is over.
func turningPoint(win []float32, toMove []int) int {
	n := len(win)
	side := make([]int, n)
	for i := range side {
		side[i] = toMove[i]
		if side[i] < 0 && i > 0 { // over: the turn would have passed
			side[i] = 1 - side[i-1]
		}
	}
	best, at := float32(1e-6), 0
	for i := 1; i < n; i++ {
		var sum float32
		k := 0
		for j := i - 1; j >= 0; j-- { // the side to move at i
			if side[j] == side[i] {
				sum, k = sum+win[i]-win[j], k+1
				break
			}
		}
		for j := i; j < n; j++ { // the mover, side[i-1]
			if side[j] == side[i-1] {
				sum, k = sum+win[j]-win[i-1], k+1
				break
			}
		}
		if k == 0 {
			sum, k = win[i]-win[i-1], 1
		}
		if d := abs32(sum / float32(k)); d > best {
			best, at = d, i
		}
	}
	return at
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// replayActions applies actions from the initial position and returns
// every position, the initial one first.
func replayActions(b *board, actions []int) ([]env.State, error) {
	s := b.NewInitialState()
	states := []env.State{s}
	for i, a := range actions {
		if s.IsTerminal() {
			return nil, fmt.Errorf("action %d (%d): the game is already over", i, a)
		}
		if a < 0 || a >= b.NumActions() {
			return nil, fmt.Errorf("action %d: %d is outside the game's %d actions", i, a, b.NumActions())
		}
		next := s.Clone()
		if err := next.ApplyAction(a); err != nil {
			return nil, fmt.Errorf("action %d (%s): %w", i, b.ui.FormatMove(s, a), err)
		}
		s = next
		states = append(states, s)
	}
	return states, nil
}
