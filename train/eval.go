package train

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/zerokit/zerokit/agent"
	"github.com/zerokit/zerokit/agent/neural"
	"github.com/zerokit/zerokit/agent/spec"
	"github.com/zerokit/zerokit/arena"
	"github.com/zerokit/zerokit/env"
	"github.com/zerokit/zerokit/mcts"
	"github.com/zerokit/zerokit/model/torch"
	"github.com/zerokit/zerokit/rundir"
)

// evaluator is the trainer's evaluation stage: matches of the network being
// trained (the running mean of the weights once there is one) against the
// configured opponents and the previous checkpoint, reported as one
// metrics line, a log entry per opponent and one line on stderr.
type evaluator struct {
	// setup loads the checkpoints (the previous one, the running mean).
	setup *Setup
	ckpts rundir.Checkpoints
	// average is the path of the running mean of the weights.
	average string
	metrics *rundir.Metrics
	log     *slog.Logger
	stderr  io.Writer
	// revision is the source revision recorded in the evaluations.
	revision string
}

// evaluation is what one evaluation found.
type evaluation struct {
	// matches are the matches against fixed opponents (the previous
	// checkpoint left out), recorded in the run's agent.
	matches []neural.Evaluation
	// summary describes the evaluation for the progress display.
	summary string
}

// run plays the evaluation matches of net, the network of step, under cfg
// (the configuration of the recipe's stage in force) and reports them;
// elapsed is the run's training time so far, in seconds.
func (e *evaluator) run(ctx context.Context, cfg Config, step int64, net *torch.Net, elapsed float64) (evaluation, error) {
	start := time.Now()
	// Once the run averages its weights, the mean is its agent: that is
	// what the evaluation measures.
	label := fmt.Sprintf("step%d", step)
	if fileExists(e.average) {
		ck, err := e.setup.Load(e.average)
		if err != nil {
			return evaluation{}, fmt.Errorf("train: evaluation: %w", err)
		}
		defer ck.Net.Close()
		net, label = ck.Net, fmt.Sprintf("step%d-avg%d", ck.Step, len(ck.AveragedSteps))
	}
	cur, err := e.player(label, net, cfg)
	if err != nil {
		return evaluation{}, err
	}
	defer cur.Close()
	game := e.setup.Game
	line := map[string]any{"kind": "eval", "step": step, "time": time.Now().UTC().Format(time.RFC3339), "eval_player": label,
		"elapsed_s": elapsed}
	var parts []string
	var evals []neural.Evaluation
	for i, opp := range cfg.Eval.Opponents {
		var res MatchResult
		seed := deriveSeed(cfg.Seed, "eval", uint64(step)*64+uint64(i))
		if opp == PreviousOpponent {
			r, prevStep, ok, err := e.playPrevious(ctx, cfg, step, cur, seed)
			if err != nil {
				return evaluation{}, err
			}
			if !ok {
				continue
			}
			res = MatchResult{Opponent: opp, Result: r}
			line["eval_previous_step"] = prevStep
		} else {
			f, err := opponentFactory(game, opp)
			if err != nil {
				return evaluation{}, err
			}
			r, err := evalMatch(ctx, game, cfg.Eval, seed, cur.Factory(), f)
			if err != nil {
				return evaluation{}, fmt.Errorf("train: evaluation against %s: %w", opp, err)
			}
			res = MatchResult{Opponent: opp, Result: r}
		}
		key := "eval_" + metricName(opp)
		score, lo, hi := res.Score()
		est := res.Result.Estimate()
		line[key+"_score"] = score
		line[key+"_score_lo"] = lo
		line[key+"_score_hi"] = hi
		line[key+"_elo"] = res.Elo()
		line[key+"_wins"] = est.Wins
		line[key+"_draws"] = est.Draws
		line[key+"_losses"] = est.Losses
		line[key+"_fallbacks"] = res.Result.FallbacksA // moves whose deadline passed before a search completed
		parts = append(parts, fmt.Sprintf("%s %.0f%% [%.0f-%.0f]", opp, 100*score, 100*lo, 100*hi))
		if opp != PreviousOpponent {
			evals = append(evals, neural.Evaluation{
				Opponent: opp, Wins: est.Wins, Draws: est.Draws, Losses: est.Losses, Score: score, Low: lo, High: hi,
				Search:  fmt.Sprintf("%s, %s %d simulations", label, cfg.Eval.Mode, cfg.Eval.Simulations),
				Command: fmt.Sprintf("zerokit train's evaluation at step %d (%d games, %d random opening moves per pair)", step, cfg.Eval.Games, cfg.Eval.OpeningMoves),
				Time:    time.Now().UTC().Round(time.Second),
				Commit:  e.revision,
			})
		}
		e.log.Info("evaluation", "step", step, "opponent", opp, "wins", est.Wins, "draws", est.Draws, "losses", est.Losses,
			"score", fmt.Sprintf("%.3f", score), "lo", fmt.Sprintf("%.3f", lo), "hi", fmt.Sprintf("%.3f", hi),
			"fallbacks", res.Result.FallbacksA)
	}
	line["eval_seconds"] = time.Since(start).Seconds()
	if err := e.metrics.Write(line); err != nil {
		return evaluation{}, err
	}
	fmt.Fprintf(e.stderr, "eval step %d, %s (%d games each, %d sims): %s (%.0fs)\n", step, label, cfg.Eval.Games, cfg.Eval.Simulations,
		strings.Join(parts, ", "), time.Since(start).Seconds())
	return evaluation{matches: evals, summary: fmt.Sprintf("step %d %s: %s", step, label, strings.Join(parts, ", "))}, nil
}

// player returns the evaluation player of net, named label, under cfg.
func (e *evaluator) player(label string, net *torch.Net, cfg Config) (*NetPlayer, error) {
	return NewNetPlayer(label, net, e.setup.Game, cfg.EvalSettings(), cfg.Eval.ParallelGames, cfg.SelfPlay.Workers)
}

// playPrevious plays cur, the player of step, against the newest
// checkpoint older than step. ok is false when there is none.
func (e *evaluator) playPrevious(ctx context.Context, cfg Config, step int64, cur *NetPlayer, seed uint64) (arena.Result, int64, bool, error) {
	steps, err := e.ckpts.Steps()
	if err != nil {
		return arena.Result{}, 0, false, err
	}
	prev := int64(-1)
	for _, s := range steps {
		if s < step {
			prev = s
		}
	}
	if prev < 0 {
		return arena.Result{}, 0, false, nil
	}
	ck, err := e.setup.Load(e.ckpts.Path(prev))
	if err != nil {
		return arena.Result{}, 0, false, fmt.Errorf("train: evaluation: %w", err)
	}
	defer ck.Net.Close()
	p, err := e.player(fmt.Sprintf("step%d", prev), ck.Net, cfg)
	if err != nil {
		return arena.Result{}, 0, false, err
	}
	defer p.Close()
	r, err := evalMatch(ctx, e.setup.Game, cfg.Eval, seed, cur.Factory(), p.Factory())
	if err != nil {
		return arena.Result{}, 0, false, fmt.Errorf("train: evaluation against step %d: %w", prev, err)
	}
	return r, prev, true, nil
}

// metricName turns an opponent spec into a metrics key part.
func metricName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r - 'A' + 'a')
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

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

// evaluate runs the evaluation stage on the current network.
func (t *trainer) evaluate(ctx context.Context) error {
	res, err := t.evals.run(ctx, t.eff, t.state.Step, t.net, t.trainedBefore+time.Since(t.start).Seconds())
	if err != nil {
		return err
	}
	t.evaluations, t.lastEval = res.matches, res.summary
	return nil
}
