package arena

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/env"
)

// GenerateConfig configures GeneratePositions.
type GenerateConfig struct {
	Game env.Game
	// Positions is the number of positions wanted.
	Positions int
	// MinDiscs and MaxDiscs bound the number of actions played to reach a
	// position, drawn uniformly between them for each game.
	MinDiscs, MaxDiscs int
	// Players are the agents drawn, independently for each side of each
	// game, to play the games the positions come from (weak and strong
	// ones, so that the positions are varied and not all lopsided).
	Players []agent.Factory
	// SolveTime bounds the solver's work on one position; a position not
	// solved within it is skipped (counted in Skipped).
	SolveTime time.Duration
	// Workers is the number of positions solved at once (default 1).
	Workers int
	// Seed makes the games, hence the set, reproducible (on a machine fast
	// enough that the same positions are solved within SolveTime).
	Seed uint64
	// OnPosition, if set, is called after each candidate (from one
	// goroutine at a time) with the positions kept so far.
	OnPosition func(kept, candidates int)
}

// GenerateStats counts the candidates GeneratePositions looked at.
type GenerateStats struct {
	Candidates int // games played
	Ended      int // games over before the drawn number of discs
	Repeated   int // positions already in the set
	Skipped    int // positions the solver did not solve in time
	Trivial    int // positions where every move keeps the value (lost ones among them)
}

type candidate struct {
	pos     Position
	hash    uint64
	ended   bool
	skipped bool
	trivial bool
}

// GeneratePositions builds a position set: for candidate i (0, 1, ...),
// two players drawn from cfg.Players play game i from the initial state
// up to a number of discs drawn in [MinDiscs, MaxDiscs]; the game's solver
// (env.SolvableGame) gives that position's exact value and the moves that
// keep it. The set is the first Positions candidates in order that reach
// their position, are new, are solved in time, and have a move that loses
// the value (so no lost position, where every move keeps it). When ctx
// ends first it returns ctx's error with the positions found so far, the
// beginning of the set a longer run writes.
func GeneratePositions(ctx context.Context, cfg GenerateConfig) ([]Position, GenerateStats, error) {
	sg, ok := cfg.Game.(env.SolvableGame)
	switch {
	case !ok:
		return nil, GenerateStats{}, fmt.Errorf("arena: game %s has no solver", cfg.Game.Name())
	case len(cfg.Players) == 0:
		return nil, GenerateStats{}, errors.New("arena: no players to play the games")
	case cfg.Positions < 1:
		return nil, GenerateStats{}, fmt.Errorf("arena: %d positions wanted", cfg.Positions)
	case cfg.MinDiscs < 0 || cfg.MaxDiscs < cfg.MinDiscs || cfg.MaxDiscs >= cfg.Game.MaxGameLength():
		return nil, GenerateStats{}, fmt.Errorf("arena: discs [%d, %d] out of range [0, %d)", cfg.MinDiscs, cfg.MaxDiscs, cfg.Game.MaxGameLength())
	}
	workers := max(1, cfg.Workers)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan int)
	type result struct {
		i   int
		c   candidate
		err error
	}
	results := make(chan result)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		solver, err := sg.NewSolver()
		if err != nil {
			return nil, GenerateStats{}, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				c, err := generateOne(ctx, cfg, solver, i)
				select {
				case results <- result{i, c, err}:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := 0; ; i++ {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	got := map[int]candidate{}
	seen := map[uint64]bool{}
	var out []Position
	var st GenerateStats
	next := 0
	var err error
	for len(out) < cfg.Positions && err == nil {
		var r result
		select {
		case r = <-results:
		case <-ctx.Done():
			err = ctx.Err()
			continue
		}
		if r.err != nil {
			err = fmt.Errorf("candidate %d: %w", r.i, r.err)
			continue
		}
		got[r.i] = r.c
		// Take the candidates in order, so that the set does not depend
		// on which worker finished first.
		for c, ok := got[next]; ok && len(out) < cfg.Positions; c, ok = got[next] {
			delete(got, next)
			next++
			st.Candidates++
			switch {
			case c.ended:
				st.Ended++
			case c.skipped:
				st.Skipped++
			case c.trivial:
				st.Trivial++
			case seen[c.hash]:
				st.Repeated++
			default:
				seen[c.hash] = true
				out = append(out, c.pos)
			}
			if cfg.OnPosition != nil {
				cfg.OnPosition(len(out), st.Candidates)
			}
		}
	}
	cancel()
	wg.Wait()
	if err != nil {
		// The positions so far are a prefix of the whole set: a caller
		// stopped early may keep them.
		return out, st, err
	}
	return out, st, nil
}

// generateOne plays candidate i and solves its position.
func generateOne(ctx context.Context, cfg GenerateConfig, solver env.Solver, i int) (candidate, error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, uint64(i)))
	discs := cfg.MinDiscs + rng.IntN(cfg.MaxDiscs-cfg.MinDiscs+1)
	var players [2]agent.Agent
	for k := range players {
		a, err := cfg.Players[rng.IntN(len(cfg.Players))](rng.Uint64())
		if err != nil {
			return candidate{}, err
		}
		players[k] = a
	}
	s := cfg.Game.NewInitialState()
	var moves []int
	for len(moves) < discs {
		if s.IsTerminal() {
			return candidate{ended: true}, nil
		}
		a, err := players[s.CurrentPlayer()].Act(ctx, s)
		if err != nil {
			return candidate{}, err
		}
		if err := s.ApplyAction(a); err != nil {
			return candidate{}, err
		}
		moves = append(moves, a)
	}
	if s.IsTerminal() {
		return candidate{ended: true}, nil
	}
	sctx := ctx
	if cfg.SolveTime > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, cfg.SolveTime)
		defer cancel()
	}
	sol, _, err := solver.Best(sctx, s)
	if err == nil {
		var keep []int
		if _, keep, err = solver.Keeping(sctx, s); err == nil {
			if len(keep) == len(s.LegalActions(nil)) {
				return candidate{trivial: true}, nil
			}
			return candidate{pos: Position{Moves: moves, Solution: sol, Keep: keep}, hash: s.Hash()}, nil
		}
	}
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return candidate{skipped: true}, nil
	}
	return candidate{}, err
}
