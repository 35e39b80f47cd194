package arena

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
	"time"

	"github.com/zerokit/zerokit/arena/elo"
)

// FormatElo writes an Elo difference with its sign, or "+inf"/"-inf".
func FormatElo(d float64) string {
	switch {
	case math.IsInf(d, 1):
		return "+inf"
	case math.IsInf(d, -1):
		return "-inf"
	case math.IsNaN(d):
		return "n/a"
	}
	r := math.Round(d)
	if r == 0 {
		r = 0 // -0.4 rounds to -0, which would print "-0"
	}
	return fmt.Sprintf("%+.0f", r)
}

// WriteText writes a human-readable summary of the match: A's results as
// first and second player and in total, with the score's 95% interval and
// the Elo difference A - B, then game lengths and thinking times (mean and
// longest per move).
func (r Result) WriteText(w io.Writer) error {
	n := r.Games()
	if _, err := fmt.Fprintf(w, "%s vs %s: %s, %d games\n", r.A, r.B, r.Game, n); err != nil {
		return fmt.Errorf("arena: writing result: %w", err)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s as\tgames\twins\tdraws\tlosses\tscore\t95%% CI\tElo\t95%% CI\n", r.A)
	rows := []struct {
		label string
		e     elo.Estimate
	}{
		{"first (player 0)", r.EstimateAs(0)},
		{"second (player 1)", r.EstimateAs(1)},
		{"total", r.Estimate()},
	}
	for _, row := range rows {
		e := row.e
		if e.Games() == 0 {
			fmt.Fprintf(tw, "%s\t0\t\t\t\t\t\t\t\n", row.label)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.3f\t[%.3f, %.3f]\t%s\t[%s, %s]\n",
			row.label, e.Games(), e.Wins, e.Draws, e.Losses, e.Score, e.ScoreLo, e.ScoreHi,
			FormatElo(e.Elo), FormatElo(e.EloLo), FormatElo(e.EloHi))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("arena: writing result: %w", err)
	}
	if n == 0 {
		return nil
	}
	_, err := fmt.Fprintf(w, "mean length %.1f actions; %d truncated; time per move (mean, max): %s %v, %v; %s %v, %v\n",
		float64(r.Moves)/float64(n), r.Truncated,
		r.A, perMove(r.ThinkA, r.MovesA), perMove(r.MaxThinkA, 1), r.B, perMove(r.ThinkB, r.MovesB), perMove(r.MaxThinkB, 1))
	if err == nil && r.FallbacksA+r.FallbacksB > 0 {
		_, err = fmt.Fprintf(w, "fallbacks (moves whose deadline passed before a search completed): %s %d of %d, %s %d of %d\n",
			r.A, r.FallbacksA, r.MovesA, r.B, r.FallbacksB, r.MovesB)
	}
	if err == nil && r.InexactA+r.InexactB > 0 {
		_, err = fmt.Fprintf(w, "inexact (moves known to keep the result, not the exact value, the deadline having passed): %s %d of %d, %s %d of %d\n",
			r.A, r.InexactA, r.MovesA, r.B, r.InexactB, r.MovesB)
	}
	if err != nil {
		return fmt.Errorf("arena: writing result: %w", err)
	}
	return nil
}

// perMove is the mean time per move, rounded for display.
func perMove(total time.Duration, moves int) time.Duration {
	if moves == 0 {
		return 0
	}
	d := total / time.Duration(moves)
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond / 10)
}
