package train

import (
	"context"
	"fmt"
	"math"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/agent/spec"
	"github.com/zerokit/zerokit/arena"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/mcts"
)

// NetPlayer builds the evaluation players of a network being trained: the
// network agent of package agent/neural (neural.Wrap), the same agent and
// code that "zerokit eval -a net:..." plays, with no root noise, no
// temperature and no tree reuse, all games sharing its batching evaluator
// (so parallel arena games fill network batches). Close it after the
// match.
type NetPlayer struct {
	net     *neural.Network
	factory agent.Factory
}

// Factory builds the player's agents.
func (p *NetPlayer) Factory() agent.Factory { return p.factory }

// Stats returns the network evaluator's batch counters.
func (p *NetPlayer) Stats() mcts.BatcherStats { return p.net.Stats() }

// Close stops the player's evaluator; the network stays the caller's.
func (p *NetPlayer) Close() error { return p.net.Close() }

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
