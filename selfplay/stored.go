package selfplay

import (
	"context"

	"github.com/zerokit/zerokit/data"
	"github.com/zerokit/zerokit/mcts"
)

// Store keeps the games of RunStored durably (package selfplay/gamestore's
// Store is the one used).
type Store interface {
	// Add writes finished game index durably.
	Add(index int64, rec *data.Record) error
	// Compact merges the games added so far into a shard file, returning
	// its path and the number of games ("" and 0 without any); nextGame is
	// the number of the next game to be played.
	Compact(nextGame int64) (string, int, error)
}

// Stored is what RunStored wrote.
type Stored struct {
	// Shard is the shard file the finished games were compacted into and
	// Games their number ("" and 0 when there were none).
	Shard string
	Games int
	// Interrupted is set when ctx ended the run before stop was met; the
	// finished games are stored all the same.
	Interrupted bool
}

// RunStored is the self-play stage of a training run and of zerokit
// selfplay: Run until stop, each finished game written durably to store as
// it finishes and then handed to each (nil: nothing more), then the
// store's pending games compacted into a shard (also when the run failed).
// A cancelled ctx is not an error: the finished games are kept and
// Stored.Interrupted says so.
func (g *Generator) RunStored(ctx context.Context, eval mcts.Evaluator, networkStep int64, stop Stop, store Store, each Sink) (Stats, Stored, error) {
	sink := func(index int64, rec *data.Record) error {
		if err := store.Add(index, rec); err != nil {
			return err
		}
		if each != nil {
			return each(index, rec)
		}
		return nil
	}
	st, runErr := g.Run(ctx, eval, networkStep, stop, sink)
	shard, n, err := store.Compact(g.NextGame())
	if err != nil {
		return st, Stored{}, err
	}
	stored := Stored{Shard: shard, Games: n, Interrupted: runErr != nil}
	if runErr != nil && ctx.Err() == nil {
		return st, stored, runErr
	}
	return st, stored, nil
}
