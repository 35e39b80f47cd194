//go:build !nonet

package cli

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/zerokit/zerokit/train"
)

// isTerminal reports whether w is a terminal (progress bars are drawn only
// there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressBars draws the progress of a training run (train.Progress) as
// one progress bar per phase on w.
type progressBars struct {
	w io.Writer
}

// Phase implements train.Progress.
func (p progressBars) Phase(desc string, total int64, unit string) train.Phase {
	return newBar(p.w, true, total, desc, unit)
}

// bar is a progress bar on a terminal, or nothing: a nil *bar is valid and
// does nothing.
type bar struct {
	pb *progressbar.ProgressBar
}

// newBar returns a progress bar on w counting up to max in unit (shown
// with its rate), or nil when not enabled.
func newBar(w io.Writer, enabled bool, max int64, desc, unit string) *bar {
	if !enabled || max <= 0 {
		return nil
	}
	return &bar{pb: progressbar.NewOptions64(max,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionShowIts(),
		progressbar.OptionShowCount(),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}

// Add advances the bar by n.
func (b *bar) Add(n int64) {
	if b != nil {
		_ = b.pb.Add64(n) // drawing errors only affect the display
	}
}

// Describe changes the bar's description.
func (b *bar) Describe(s string) {
	if b != nil {
		b.pb.Describe(s)
	}
}

// Finish completes and clears the bar.
func (b *bar) Finish() {
	if b != nil {
		_ = b.pb.Finish()
		_ = b.pb.Clear()
	}
}
