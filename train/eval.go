package train

import (
	"context"
	"fmt"
	"math"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/agent/spec"
	"github.com/zerokit/zerokit/arena"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/model/torch"
)

// NetPlayer builds evaluation players that search with a network: no root
// noise, no temperature, no tree reuse, all games sharing one batching
// evaluator (so parallel arena games fill network batches). Close it after
// the match.
type NetPlayer struct {
	name    string
	search  mcts.Config
	eval    *mcts.NetEvaluator
	release func()
}

// NewNetPlayer returns a player of game searching with net: mode ("gumbel"
// or "puct") with simulations simulations per move; leaves and the Gumbel
// considered actions are taken from base (the training search). maxBatch
// bounds the network batches; workers single-threaded copies of net
// evaluate them in parallel when workers > 1.
func NewNetPlayer(name string, net *torch.Net, game env.Game, base mcts.Config, mode mcts.Mode, simulations, maxBatch, workers int) (*NetPlayer, error) {
	c := agent.EvalSearchConfig(simulations)
	c.Mode = mode
	c.LeavesInFlight = base.LeavesInFlight
	c.Gumbel.MaxConsideredActions = base.Gumbel.MaxConsideredActions
	c.Gumbel.CVisit = base.Gumbel.CVisit
	c.Gumbel.CScale = base.Gumbel.CScale
	c.Gumbel.Interior = base.Gumbel.Interior
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("train: %s player: %w", name, err)
	}
	nets, release, err := workerNets(net, workers)
	if err != nil {
		return nil, fmt.Errorf("train: %s player: %w", name, err)
	}
	e, err := mcts.NewNetEvaluator(nets, game, mcts.NetEvaluatorConfig{Batcher: mcts.BatcherConfig{MaxBatch: max(maxBatch, 1)}, CacheSize: 1 << 15, Pad: true})
	if err != nil {
		release()
		return nil, err
	}
	return &NetPlayer{name: name, search: c, eval: e, release: release}, nil
}

// Factory builds the player's agents.
func (p *NetPlayer) Factory() agent.Factory {
	return func(seed uint64) (agent.Agent, error) {
		return agent.NewMCTS(p.name, p.search, p.eval, seed)
	}
}

// EvalStats returns the network evaluator's counters.
func (p *NetPlayer) EvalStats() mcts.EvalStats { return p.eval.EvalStats() }

// Close stops the player's evaluator and frees its network copies.
func (p *NetPlayer) Close() error {
	err := p.eval.Close()
	p.release()
	return err
}

// MatchResult is one evaluation match, from the network's side.
type MatchResult struct {
	// Opponent is the opponent's spec (or "previous").
	Opponent string
	// Result is the match.
	Result arena.Result
}

// Score is the network's score fraction with its 95% interval.
func (m MatchResult) Score() (score, lo, hi float64) {
	e := m.Result.Estimate()
	return e.Score, e.ScoreLo, e.ScoreHi
}

// Elo is the network's Elo difference over the opponent, clamped to
// ±maxElo (a clean sweep has an infinite estimate).
func (m MatchResult) Elo() float64 {
	e := m.Result.Estimate().Elo
	return math.Max(-maxElo, math.Min(maxElo, e))
}

const maxElo = 1000

// evalMatch plays one evaluation match of player against an opponent
// factory.
func evalMatch(ctx context.Context, game env.Game, cfg EvalConfig, seed uint64, player agent.Factory, opp agent.Factory) (arena.Result, error) {
	return arena.Play(ctx, arena.Config{
		Game:         game,
		Games:        cfg.Games,
		Workers:      cfg.ParallelGames,
		Seed:         seed,
		OpeningMoves: cfg.OpeningMoves,
	}, player, opp)
}

// opponentFactory resolves a baseline opponent spec.
func opponentFactory(game env.Game, s string) (agent.Factory, error) {
	b, err := spec.Default().Build(game, s)
	if err != nil {
		return nil, fmt.Errorf("train: eval opponent %q: %w", s, err)
	}
	return b.Factory, nil
}
