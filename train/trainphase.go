package train

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/zerokit/zerokit/model/torch"
)

// owedSteps is the number of training steps the positions generated so
// far call for.
func (t *trainer) owedSteps() int64 {
	bs := t.buffer.Stats()
	if bs.Positions < t.cfg.Train.MinBufferPositions {
		return 0
	}
	owed := (float64(bs.TotalPositions) - t.state.PositionsTrained) * t.cfg.Train.SamplesPerPosition / float64(t.cfg.Train.BatchSize)
	return int64(math.Floor(owed + 1e-9))
}

// trainStats summarises a training phase.
type trainStats struct {
	steps                   int64
	policy, value, total    float64 // sums over the steps
	ownership               float64 // sum over the steps (0 without an ownership loss)
	gradNorm, lr            float64
	elapsed, evalTime       time.Duration
	entropy, valueAccuracy  float64
	probed                  bool
	checkpoints, evaluation int
}

// trainPhase takes the training steps the new positions call for, saving
// and evaluating at the configured steps. It stops early (between steps)
// when the run must stop.
func (t *trainer) trainPhase(ctx context.Context) (trainStats, error) {
	var ts trainStats
	bs := t.buffer.Stats()
	if bs.Positions < t.cfg.Train.MinBufferPositions {
		// Warm-up: the positions so far are not owed training.
		t.state.PositionsTrained = float64(bs.TotalPositions)
		return ts, nil
	}
	steps := t.source.limit(t.owedSteps())
	if t.opts.MaxSteps > 0 {
		steps = min(steps, t.opts.MaxSteps-t.state.Step)
	}
	if steps <= 0 {
		return ts, nil
	}
	start := time.Now()
	bar := t.phase(t.phaseLabel(fmt.Sprintf("train step %d", t.state.Step)), steps, "steps")
	defer bar.Finish()
	perStep := float64(t.cfg.Train.BatchSize) / t.cfg.Train.SamplesPerPosition
	smp := startSampler(t.buffer, t.cfg.Train.BatchSize, steps, t.slots)
	defer smp.close()
	for i := int64(0); i < steps; i++ {
		if t.stopReason(ctx) != "" {
			break
		}
		l, err := t.step(smp)
		if err != nil {
			return ts, err
		}
		t.state.PositionsTrained += perStep
		ts.steps++
		ts.policy += l.Policy
		ts.value += l.Value
		ts.ownership += l.Ownership
		ts.total += l.Total
		ts.gradNorm += l.GradNorm
		ts.lr = l.LearningRate
		bar.Add(1)
		if t.state.Step%t.cfg.Checkpoint.Every == 0 {
			if err := t.save(); err != nil {
				return ts, err
			}
			ts.checkpoints++
		}
		if t.cfg.Eval.Every > 0 && t.state.Step%t.cfg.Eval.Every == 0 {
			evalStart := time.Now()
			if t.eff.Eval.Background {
				err := t.startEval(ctx)
				ts.evalTime += time.Since(evalStart) // waiting for the previous one
				if err != nil {
					return ts, err
				}
				ts.evaluation++
				continue
			}
			ectx, cancel := t.limited(ctx)
			err := t.evaluate(ectx)
			cancel()
			ts.evalTime += time.Since(evalStart)
			if err != nil {
				if ectx.Err() != nil {
					// Interrupted or out of time: the match is dropped.
					t.log.Info("evaluation abandoned", "step", t.state.Step, "err", err)
					break
				}
				return ts, err
			}
			ts.evaluation++
		}
	}
	ts.elapsed = time.Since(start)
	smp.close() // before the probe reads the last batch's slot
	if ts.steps > 0 {
		ent, acc, err := t.probe.run(t.net, *t.lastBatch, t.cfg.Train.BatchSize, t.shape)
		if err != nil {
			return ts, err
		}
		ts.entropy, ts.valueAccuracy, ts.probed = ent, acc, true
	}
	return ts, nil
}

// step takes one training step on the sampler's next batch.
func (t *trainer) step(smp *sampler) (torch.Losses, error) {
	sl := smp.next()
	if sl.err != nil {
		return torch.Losses{}, sl.err
	}
	l, err := t.tr.Step(sl.mb)
	t.lastBatch = &sl.batch
	smp.release(sl)
	if err != nil {
		return l, fmt.Errorf("train: step %d: %w", t.state.Step+1, err)
	}
	t.state.Step++
	return l, nil
}
