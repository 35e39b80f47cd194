package train

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/zerokit/zerokit/internal/atomicfile"
	"github.com/zerokit/zerokit/model/torch"
)

// State is the trainer's state saved beside each checkpoint
// (checkpoints/step-<step>.json): everything besides the network and the
// optimizer that a resumed run needs to continue where it stopped.
type State struct {
	// Step is the number of training steps taken.
	Step int64 `json:"step"`
	// Iteration is the number of self-play phases completed.
	Iteration int64 `json:"iteration"`
	// NextGame is the index the next self-play game gets (the game store
	// also knows it; the larger of the two is used).
	NextGame int64 `json:"next_game"`
	// Games is the number of games on disk when the checkpoint was taken,
	// and TotalPositions the number of sampleable positions they hold.
	Games          int64 `json:"games"`
	TotalPositions int64 `json:"total_positions"`
	// PositionsTrained is the number of sampleable positions for which
	// training steps have been taken (SamplesPerPosition steps' worth of
	// samples each); positions on disk beyond it are owed training.
	PositionsTrained float64 `json:"positions_trained"`
	// StoreCursor is, for a store trainer, the newest (greatest) key of
	// the store's game shards read into the buffer: a resumed trainer
	// loads the shards up to it and reads the later ones as new games.
	StoreCursor string `json:"store_cursor,omitempty"`
	// Seed is the run seed.
	Seed uint64 `json:"seed"`
	// Init names the weights a run started from (Options.Init) with their
	// SHA-256; "" for random ones.
	Init string `json:"init,omitempty"`
	// TrainSeconds is the wall time spent in train processes of this run.
	TrainSeconds float64 `json:"train_seconds"`
	// Time is when the checkpoint was taken.
	Time time.Time `json:"time"`
}

func writeState(path string, s State) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("train: state: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("train: state: %w", err)
	}
	return nil
}

func readState(path string) (State, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return State{}, fmt.Errorf("train: %w", err)
	}
	var s State
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return State{}, fmt.Errorf("train: %s: %w", path, err)
	}
	if s.Step < 0 || s.NextGame < 0 || s.PositionsTrained < 0 {
		return State{}, fmt.Errorf("train: %s: negative counter in %+v", path, s)
	}
	return s, nil
}

// save writes a checkpoint of the current step and commits it.
func (t *trainer) save() error {
	step := t.state.Step
	text, err := t.cfg.Encode()
	if err != nil {
		return err
	}
	meta := torch.Metadata{Game: t.game.Name(), EncodingVersion: t.game.EncodingVersion(), Step: step, Seed: t.cfg.Seed, Config: text}
	if err := torch.Save(t.ckpts.Path(step), t.net, t.tr, meta); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	bs := t.buffer.Stats()
	t.state.Games = bs.TotalGames
	t.state.TotalPositions = bs.TotalPositions
	t.source.mark(&t.state)
	t.state.TrainSeconds = t.trainSeconds()
	t.state.Time = time.Now().UTC()
	if err := writeState(t.ckpts.StatePath(step), t.state); err != nil {
		return err
	}
	if err := t.ckpts.Commit(step); err != nil {
		return err
	}
	t.lastSaved = step
	t.log.Info("checkpoint", "step", step, "path", t.ckpts.Path(step))
	if err := t.average(step); err != nil {
		return err
	}
	if err := t.refreshAgent(step); err != nil {
		return err
	}
	// The uploads finish even when the run is being stopped: the store is
	// where the run resumes from (Push goes on after a cancellation).
	return t.run.Push(context.Background(), step)
}
