package main

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal; the progress bar is drawn
// only then, so logs and pipes stay clean.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progress shows instances solved, rate and ETA on a terminal, and does
// nothing otherwise.
type progress struct {
	bar  *progressbar.ProgressBar
	base int
}

func newProgress(enabled bool, w io.Writer, total int64) *progress {
	if !enabled {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("solving"),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("inst"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}

// batch returns the callback for a Solve call that starts after the
// instances already done.
func (p *progress) batch() func(done int) {
	if p.bar == nil {
		return nil
	}
	base := p.base
	return func(done int) { _ = p.bar.Set(base + done) }
}

// advance records that n more instances are finished.
func (p *progress) advance(n int) {
	p.base += n
	if p.bar != nil {
		_ = p.bar.Set(p.base)
	}
}

// finish removes the bar.
func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
