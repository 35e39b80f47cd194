package train

import (
	"fmt"
	"time"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/selfplay"
)

// iteration is what the reporting stage reports of one iteration: its
// self-play (or a store trainer's ingestion) and training phases, and the
// run's state after them.
type iteration struct {
	// iteration and step are the run's iteration and training step;
	// elapsed its training time so far, in seconds.
	iteration, step int64
	elapsed         float64
	// stage is the recipe's stage in force ("" without a recipe) and
	// sparring its sparring partner.
	stage, sparring string
	// batchSize and samplesPerPosition are the training settings,
	// owedSteps the training steps the positions so far call for.
	batchSize          int
	samplesPerPosition float64
	owedSteps          int64
	buffer             data.BufferStats
	selfPlay           selfplay.Stats
	train              trainStats
	// ingest describes a store trainer's ingestion (nil for local
	// self-play).
	ingest *ingestStats
}

// report returns the iteration's metrics line and the line that says it
// on stderr.
func (it iteration) report() (line map[string]any, msg string) {
	sp, tp, is, bs := it.selfPlay, it.train, it.ingest, it.buffer
	p0, p1, dr := sp.Outcomes()
	line = map[string]any{
		"kind":            "iteration",
		"iteration":       it.iteration,
		"step":            it.step,
		"time":            time.Now().UTC().Format(time.RFC3339),
		"elapsed_s":       it.elapsed,
		"games":           sp.Games,
		"positions":       sp.Positions,
		"moves":           sp.Searches,
		"games_total":     bs.TotalGames,
		"positions_total": bs.TotalPositions,
		"buffer_size":     bs.Positions,
		"buffer_window":   bs.Window,
		"selfplay_s":      sp.Elapsed.Seconds(),
		"games_per_s":     sp.GamesPerSecond(),
		"positions_per_s": sp.PositionsPerSecond(),
		"sims_per_s":      sp.SimulationsPerSecond(),
		"fallbacks":       sp.Fallbacks,
		"random_moves":    sp.RandomMoves,
		"avg_game_length": sp.MeanLength(),
		"p0_wins":         p0,
		"p1_wins":         p1,
		"draws":           dr,
		"truncated":       sp.Truncated,
		"table_ends":      sp.TableEnds,
		"mean_batch":      sp.Eval.MeanBatch(),
		"forward_share":   sp.ForwardShare(),
		"cache_hit_rate":  sp.Eval.CacheHitRate(),
		"train_steps":     tp.steps,
		"train_s":         (tp.elapsed - tp.evalTime).Seconds(),
		"eval_s":          tp.evalTime.Seconds(),
	}
	stage := ""
	if it.stage != "" {
		line["stage"] = it.stage
		stage = " [" + it.stage + "]"
	}
	msg = fmt.Sprintf("it %d step %d%s: %d games (%.1f/s, %.0f pos/s, %.0f sims/s, len %.0f, W/B/D %.0f/%.0f/%.0f%%, batch %.0f, fwd %.0f%%)",
		it.iteration, it.step, stage, sp.Games, sp.GamesPerSecond(), sp.PositionsPerSecond(), sp.SimulationsPerSecond(),
		sp.MeanLength(), 100*p0, 100*p1, 100*dr, sp.Eval.MeanBatch(), 100*sp.ForwardShare())
	line["samples_per_position"] = it.samplesPerPositionSoFar()
	line["owed_steps"] = it.owedSteps
	if is != nil {
		switch {
		case is.owedAtStart:
			msg = fmt.Sprintf("it %d step %d%s: training on the positions read before the restart", it.iteration, it.step, stage)
		default:
			msg = fmt.Sprintf("it %d step %d%s: %d games from the store (%.1f/s, %.0f pos/s; %s)",
				it.iteration, it.step, stage, sp.Games, sp.GamesPerSecond(), sp.PositionsPerSecond(), is.describe())
		}
		line["shards"] = is.shards
		line["workers"] = len(is.workers)
		line["rejected_games"] = is.rejected
		line["waited_s"] = is.waited.Seconds()
		line["backlog_shards"] = is.backlog
		line["skipped_shards"] = is.skipped
		if is.games > 0 {
			line["network_lag_steps"] = float64(is.lagSum) / float64(is.games)
		}
	}
	if s := sp.Sparring; s.Games > 0 {
		line["sparring_games"] = s.Games
		line["sparring_wins"] = s.Wins
		line["sparring_draws"] = s.Draws
		line["sparring_losses"] = s.Losses
		line["sparring_score"] = s.Score()
		msg += fmt.Sprintf(", vs %s %d-%d-%d", it.sparring, s.Wins, s.Draws, s.Losses)
	}
	if tp.steps > 0 {
		n := float64(tp.steps)
		line["policy_loss"] = tp.policy / n
		line["value_loss"] = tp.value / n
		line["total_loss"] = tp.total / n
		line["grad_norm"] = tp.gradNorm / n
		line["lr"] = tp.lr
		line["samples_per_s"] = float64(tp.steps*int64(it.batchSize)) / (tp.elapsed - tp.evalTime).Seconds()
		msg += fmt.Sprintf("; %d steps (%.0f samples/s) policy %.3f value %.3f", tp.steps,
			line["samples_per_s"], tp.policy/n, tp.value/n)
		if tp.ownership > 0 {
			line["ownership_loss"] = tp.ownership / n
			msg += fmt.Sprintf(" ownership %.3f", tp.ownership/n)
		}
	}
	if tp.probed {
		line["policy_entropy"] = tp.entropy
		line["value_accuracy"] = tp.valueAccuracy
		msg += fmt.Sprintf(" entropy %.2f vacc %.2f", tp.entropy, tp.valueAccuracy)
	}
	msg += fmt.Sprintf("; buffer %d/%d", bs.Positions, bs.TotalPositions)
	if is != nil {
		msg += fmt.Sprintf("; %.2f samples/position (target %g)", it.samplesPerPositionSoFar(), it.samplesPerPosition)
	}
	return line, msg
}

// samplesPerPositionSoFar is the samples per position achieved so far: the
// samples drawn over the sampleable positions that entered the buffer
// (those not trained on yet included).
func (it iteration) samplesPerPositionSoFar() float64 {
	if it.buffer.TotalPositions == 0 {
		return 0
	}
	return float64(it.step) * float64(it.batchSize) / float64(it.buffer.TotalPositions)
}

// report runs the reporting stage: the iteration's metrics line, log entry
// and stderr line. is describes a store trainer's ingestion (nil for local
// self-play).
func (t *trainer) report(sp selfplay.Stats, tp trainStats, is *ingestStats) error {
	it := iteration{
		iteration: t.state.Iteration, step: t.state.Step, elapsed: t.trainSeconds(),
		stage: t.stage, sparring: t.eff.SelfPlay.SparringAgent,
		batchSize: t.cfg.Train.BatchSize, samplesPerPosition: t.cfg.Train.SamplesPerPosition, owedSteps: t.owedSteps(),
		buffer: t.buffer.Stats(), selfPlay: sp, train: tp, ingest: is,
	}
	line, msg := it.report()
	if err := t.metrics.Write(line); err != nil {
		return err
	}
	t.log.Info("iteration", "it", it.iteration, "step", it.step, "games", sp.Games, "positions", sp.Positions,
		"games_per_s", fmt.Sprintf("%.2f", sp.GamesPerSecond()), "sims_per_s", fmt.Sprintf("%.0f", sp.SimulationsPerSecond()),
		"train_steps", tp.steps, "buffer", it.buffer.Positions, "samples_per_position", fmt.Sprintf("%.3f", it.samplesPerPositionSoFar()),
		"owed_steps", it.owedSteps)
	fmt.Fprintln(t.stderr, msg)
	return nil
}
