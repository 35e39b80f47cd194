package train

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
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

// evalJob is one evaluation with its networks loaded: the player being
// evaluated and, when the configuration asks for it, the previous
// checkpoint's. Its matches may run while training goes on (eval.background)
// since it holds networks of its own; Close frees them.
type evalJob struct {
	e       *evaluator
	cfg     Config
	step    int64
	elapsed float64
	label   string
	net     *torch.Net   // the network evaluated
	prev    *torch.Net   // the previous checkpoint's, or nil
	prevAt  int64        // its step
	owned   []*torch.Net // networks the job loaded or copied, freed by close
}

// prepare loads what the evaluation of net, the network of step, under cfg
// (the configuration of the recipe's stage in force) needs; elapsed is the
// run's training time so far, in seconds. With own, the job works on a copy
// of net, so that net can go on training meanwhile.
func (e *evaluator) prepare(cfg Config, step int64, net *torch.Net, elapsed float64, own bool) (job *evalJob, err error) {
	job = &evalJob{e: e, cfg: cfg, step: step, elapsed: elapsed, label: fmt.Sprintf("step%d", step), net: net}
	defer func() {
		if err != nil {
			job.close()
			job = nil
		}
	}()
	// Once the run averages its weights, the mean is its agent: that is
	// what the evaluation measures.
	if fileExists(e.average) {
		ck, err := e.setup.Load(e.average)
		if err != nil {
			return job, fmt.Errorf("train: evaluation: %w", err)
		}
		job.owned = append(job.owned, ck.Net)
		job.net, job.label = ck.Net, fmt.Sprintf("step%d-avg%d", ck.Step, len(ck.AveragedSteps))
	} else if own {
		c, err := net.Clone()
		if err != nil {
			return job, fmt.Errorf("train: evaluation: %w", err)
		}
		job.owned = append(job.owned, c)
		job.net = c
	}
	if slices.Contains(cfg.Eval.Opponents, PreviousOpponent) {
		steps, err := e.ckpts.Steps()
		if err != nil {
			return job, err
		}
		job.prevAt = -1
		for _, s := range steps {
			if s < step {
				job.prevAt = s
			}
		}
		if job.prevAt >= 0 {
			ck, err := e.setup.Load(e.ckpts.Path(job.prevAt))
			if err != nil {
				return job, fmt.Errorf("train: evaluation: %w", err)
			}
			job.owned = append(job.owned, ck.Net)
			job.prev = ck.Net
		}
	}
	return job, nil
}

// close frees the networks the job loaded.
func (j *evalJob) close() {
	for _, n := range j.owned {
		n.Close()
	}
	j.owned = nil
}

// play plays the evaluation matches and reports them.
func (j *evalJob) play(ctx context.Context) (evaluation, error) {
	e, cfg, step, label := j.e, j.cfg, j.step, j.label
	start := time.Now()
	cur, err := e.player(label, j.net, cfg)
	if err != nil {
		return evaluation{}, err
	}
	defer cur.Close()
	game := e.setup.Game
	line := map[string]any{"kind": "eval", "step": step, "time": time.Now().UTC().Format(time.RFC3339), "eval_player": label,
		"elapsed_s": j.elapsed}
	var parts []string
	var evals []neural.Evaluation
	for i, opp := range cfg.Eval.Opponents {
		var res MatchResult
		seed := deriveSeed(cfg.Seed, "eval", uint64(step)*64+uint64(i))
		if opp == PreviousOpponent {
			if j.prev == nil {
				continue
			}
			r, err := j.playPrevious(ctx, cur, seed)
			if err != nil {
				return evaluation{}, err
			}
			res = MatchResult{Opponent: opp, Result: r}
			line["eval_previous_step"] = j.prevAt
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

// playPrevious plays cur against the previous checkpoint.
func (j *evalJob) playPrevious(ctx context.Context, cur *NetPlayer, seed uint64) (arena.Result, error) {
	p, err := j.e.player(fmt.Sprintf("step%d", j.prevAt), j.prev, j.cfg)
	if err != nil {
		return arena.Result{}, err
	}
	defer p.Close()
	r, err := evalMatch(ctx, j.e.setup.Game, j.cfg.Eval, seed, cur.Factory(), p.Factory())
	if err != nil {
		return arena.Result{}, fmt.Errorf("train: evaluation against step %d: %w", j.prevAt, err)
	}
	return r, nil
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
		MaxMoves:     cfg.MaxMoves,
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

// evaluate runs the evaluation stage on the current network and waits for
// it.
func (t *trainer) evaluate(ctx context.Context) error {
	job, err := t.evals.prepare(t.eff, t.state.Step, t.net, t.trainSeconds(), false)
	if err != nil {
		return err
	}
	defer job.close()
	res, err := job.play(ctx)
	if err != nil {
		return err
	}
	t.evaluations, t.lastEval = res.matches, res.summary
	return nil
}

// backgroundEval is an evaluation whose matches run while the trainer goes
// on (eval.background).
type backgroundEval struct {
	step   int64
	cancel context.CancelFunc
	done   chan struct{} // closed when res and err are set
	res    evaluation
	err    error
	ctx    context.Context
}

// startEval starts the evaluation of the current network in the
// background, after waiting for the previous one: one runs at a time, so
// every evaluation step is evaluated, in order.
func (t *trainer) startEval(ctx context.Context) error {
	if err := t.collectEval(true); err != nil {
		return err
	}
	job, err := t.evals.prepare(t.eff, t.state.Step, t.net, t.trainSeconds(), true)
	if err != nil {
		return err
	}
	ectx, cancel := t.limited(ctx)
	bg := &backgroundEval{step: t.state.Step, cancel: cancel, done: make(chan struct{}), ctx: ectx}
	t.bgEval = bg
	go func() {
		defer close(bg.done)
		defer job.close()
		bg.res, bg.err = job.play(ectx)
	}()
	return nil
}

// collectEval takes the result of the background evaluation when it has
// finished, or, with wait, when it finishes. An evaluation cut short by the
// run's end is dropped, as a synchronous one is.
func (t *trainer) collectEval(wait bool) error {
	bg := t.bgEval
	if bg == nil {
		return nil
	}
	if !wait {
		select {
		case <-bg.done:
		default:
			return nil
		}
	}
	<-bg.done
	bg.cancel()
	t.bgEval = nil
	if bg.err != nil {
		if bg.ctx.Err() != nil {
			t.log.Info("evaluation abandoned", "step", bg.step, "err", bg.err)
			return nil
		}
		return bg.err
	}
	t.evaluations, t.lastEval = bg.res.matches, bg.res.summary
	return nil
}
