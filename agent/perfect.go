package agent

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/zerokit/zerokit/env"
)

// perfectStream is the second PCG seed word of the perfect player.
const perfectStream = 0x5045524645435421 // "PERFECT!"

// PerfectConfig configures the perfect player.
type PerfectConfig struct {
	// MoveTime bounds the search of one move (0: only the context's
	// deadline bounds it).
	MoveTime time.Duration
}

// PerfectFactory returns the perfect player of game, which must have a
// solver (env.SolvableGame): an error says that it has none.
func PerfectFactory(game env.Game, cfg PerfectConfig) (Factory, error) {
	sg, ok := game.(env.SolvableGame)
	if !ok {
		return nil, fmt.Errorf("agent: game %q has no perfect player (no solver; Connect Four has one)", game.Name())
	}
	if _, err := sg.NewSolver(); err != nil {
		return nil, fmt.Errorf("agent: no perfect player: %w", err)
	}
	if cfg.MoveTime < 0 {
		return nil, fmt.Errorf("agent: perfect player: negative move time %v", cfg.MoveTime)
	}
	fallback, err := AlphaBetaFactory(game, AlphaBetaConfig{Depth: 4, TTBits: 16})
	if err != nil {
		return nil, err
	}
	return func(seed uint64) (Agent, error) {
		s, err := sg.NewSolver()
		if err != nil {
			return nil, err
		}
		fb, err := fallback(seed)
		if err != nil {
			return nil, err
		}
		return &Perfect{solver: s, fallback: fb, cfg: cfg, rng: rand.New(rand.NewPCG(seed, perfectStream))}, nil
	}, nil
}

// Perfect plays a game-theoretically best move: it solves the position
// (env.Solver) and plays, at random among equals, one that keeps its
// exact value (the fastest win, a draw, the slowest loss). When the time
// runs out before that is known it plays, at random, a move known to keep
// the value (won stays won, drawn not lost); when not even that is known
// it plays the move of an alpha-beta search of depth 4 on the game's
// evaluation and counts a fallback (Fallbacks).
type Perfect struct {
	solver    env.Solver
	fallback  Agent
	cfg       PerfectConfig
	rng       *rand.Rand
	fallbacks int
	inexact   int
}

// Name implements Agent.
func (p *Perfect) Name() string {
	if p.cfg.MoveTime > 0 {
		return "perfect-" + p.cfg.MoveTime.String()
	}
	return "perfect"
}

// Fallbacks is the number of moves played without knowing that they keep
// the position's value (agent.FallbackCounter).
func (p *Perfect) Fallbacks() int { return p.fallbacks }

// Inexact is the number of moves known to keep the value but not its
// exact distance (a win perhaps not the fastest, a loss perhaps not the
// slowest) (agent.InexactCounter).
func (p *Perfect) Inexact() int { return p.inexact }

// Act implements Agent.
func (p *Perfect) Act(ctx context.Context, s env.State) (int, error) {
	if s.IsTerminal() {
		return 0, ErrTerminal
	}
	if err := Cancelled(ctx); err != nil {
		return 0, err
	}
	sctx := ctx
	if p.cfg.MoveTime > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, p.cfg.MoveTime)
		defer cancel()
	}
	value, keep, err := p.solver.Keeping(sctx, s)
	if err != nil {
		if !errors.Is(err, context.DeadlineExceeded) {
			if cerr := Cancelled(ctx); cerr != nil {
				return 0, cerr
			}
			return 0, err
		}
		p.fallbacks++
		return p.fallback.Act(ctx, s)
	}
	_, best, err := p.solver.Best(sctx, s)
	switch {
	case err == nil && len(best) > 0:
		return best[p.rng.IntN(len(best))], nil
	case err != nil && !errors.Is(err, context.DeadlineExceeded):
		if cerr := Cancelled(ctx); cerr != nil {
			return 0, cerr
		}
		return 0, err
	}
	p.inexact++
	if value < 0 || len(keep) == 0 {
		// Every move loses: resist with the search's move.
		return p.fallback.Act(ctx, s)
	}
	return keep[p.rng.IntN(len(keep))], nil
}
