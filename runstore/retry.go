package runstore

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"
)

// DefaultRetry is how long a store trainer and a worker retry a store
// operation that fails with a transient error (the store is unreachable or
// answers with a server error) before they give up.
const DefaultRetry = 10 * time.Minute

// The backoff between tries of a failing store operation: it doubles from
// the first to the last.
const (
	firstBackoff = time.Second
	maxBackoff   = 30 * time.Second
)

// Retrier runs operations on a run's store again after transient failures
// (Transient), waiting between tries with exponential backoff, for up to
// Limit after the first failure. It logs every failed try to Log, and says
// on Stderr (when not nil) that it is retrying and when the store answers
// again, prefixed with Who. Other errors, and a cancelled context, end it
// at once.
type Retrier struct {
	Limit  time.Duration
	Log    *slog.Logger
	Stderr io.Writer
	Who    string
}

// Do calls op until it succeeds, fails with an error that is not
// transient, ctx ends, or the store has failed for Limit. The error then
// says how long and how often it was tried.
func (r *Retrier) Do(ctx context.Context, what string, op func(context.Context) error) error {
	var first time.Time
	backoff := firstBackoff
	for tries := 1; ; tries++ {
		err := op(ctx)
		if err == nil {
			if tries > 1 {
				d := time.Since(first).Round(time.Second)
				r.Log.Info("store reachable again", "op", what, "after", d, "tries", tries)
				r.say("the store answers again (%s succeeded after %v, %d tries)", what, d, tries)
			}
			return nil
		}
		if ctx.Err() != nil || !Transient(err) {
			return err
		}
		if first.IsZero() {
			first = time.Now()
			r.say("warning: %s failed; retrying for up to %v: %v", what, r.Limit, err)
		}
		failing := time.Since(first)
		if failing+backoff > r.Limit {
			r.Log.Error("store unreachable: giving up", "op", what, "tries", tries, "for", failing.Round(time.Second), "err", err)
			return fmt.Errorf("%s failed for %v (%d tries; the limit is %v): %w", what, failing.Round(time.Second), tries, r.Limit, err)
		}
		r.Log.Warn("store operation failed; retrying", "op", what, "try", tries, "failing_for", failing.Round(time.Second),
			"retry_in", backoff, "limit", r.Limit, "err", err)
		select {
		case <-ctx.Done():
			return err
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

func (r *Retrier) say(format string, args ...any) {
	if r.Stderr != nil {
		fmt.Fprintf(r.Stderr, r.Who+": "+format+"\n", args...)
	}
}
