package cliapp

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// IsTerminal reports whether w is a terminal (progress bars only there).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Progress shows items done of a total, their rate and the time left on a
// terminal, and does nothing otherwise, so logs and pipes stay clean.
type Progress struct {
	w          io.Writer
	desc, unit string
	on         bool
	bar        *progressbar.ProgressBar
}

// NewProgress returns the bar shown on w (when a terminal) as desc, counting
// unit.
func NewProgress(w io.Writer, desc, unit string) *Progress {
	return &Progress{w: w, desc: desc, unit: unit, on: IsTerminal(w)}
}

// Set shows done of total (the bar appears at the first call).
func (p *Progress) Set(done, total int64) {
	if !p.on {
		return
	}
	if p.bar == nil {
		p.bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(p.w), progressbar.OptionSetDescription(p.desc),
			progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString(p.unit),
			progressbar.OptionSetPredictTime(true), progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
	}
	_ = p.bar.Set64(done)
}

// Finish removes the bar.
func (p *Progress) Finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}

// BarLog returns a printf-like logger of lines to w that, on a terminal,
// starts each below the line of a progress bar.
func BarLog(w io.Writer) func(format string, a ...any) {
	return func(format string, a ...any) {
		if IsTerminal(w) {
			format = "\n" + format // below the progress bar's line
		}
		fmt.Fprintf(w, format+"\n", a...)
	}
}
