package train

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Progress is a progress bar on a terminal, or nothing: a nil *Progress
// is valid and does nothing.
type Progress struct {
	pb *progressbar.ProgressBar
}

// IsTerminal reports whether w is a terminal (progress bars are drawn only
// there).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// NewProgress returns a progress bar on w counting up to max in unit
// (shown with its rate), or nil when not enabled.
func NewProgress(w io.Writer, enabled bool, max int64, desc, unit string) *Progress {
	if !enabled || max <= 0 {
		return nil
	}
	return &Progress{pb: progressbar.NewOptions64(max,
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
func (b *Progress) Add(n int64) {
	if b != nil {
		_ = b.pb.Add64(n) // drawing errors only affect the display
	}
}

// Describe changes the bar's description.
func (b *Progress) Describe(s string) {
	if b != nil {
		b.pb.Describe(s)
	}
}

// Finish completes and clears the bar.
func (b *Progress) Finish() {
	if b != nil {
		_ = b.pb.Finish()
		_ = b.pb.Clear()
	}
}
