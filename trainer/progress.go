package trainer

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal (progress bars only there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Progress shows a progress bar with steps/s and ETA on a terminal, and a
// line every tenth of the run elsewhere.
type Progress struct {
	w          io.Writer
	bar        *progressbar.ProgressBar
	total      int
	lastPrint  int
	lastRecord Record
}

// NewProgress reports the steps from done to total of a run on w (for
// SetOnStep): a bar on a terminal, else a line every tenth of the run.
func NewProgress(w io.Writer, done, total int) *Progress {
	p := &Progress{w: w, total: total, lastPrint: done}
	if isTerminal(w) && total > done {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("training"),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("steps"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionShowDescriptionAtLineEnd(),
		)
		_ = p.bar.Set(done)
	}
	return p
}

// Update shows record r.
func (p *Progress) Update(r Record) {
	p.lastRecord = r
	if p.bar != nil {
		if r.StepNLL > 0 {
			p.bar.Describe(fmt.Sprintf("NLL/step %.3f", r.StepNLL))
		} else {
			p.bar.Describe(fmt.Sprintf("Ψ %.3f infeas %.1f%%", r.PenCost, 100*r.Infeasible))
		}
		_ = p.bar.Set(r.Step)
		return
	}
	if every := max(p.total/10, 1); r.Step-p.lastPrint >= every || r.Step == p.total {
		p.lastPrint = r.Step
		if r.StepNLL > 0 {
			fmt.Fprintf(p.w, "step %d/%d: imitation NLL per step %.4f, label length %.4f, loss %.4g, %.2f tours/s\n",
				r.Step, p.total, r.StepNLL, r.Length, r.Loss, r.InstPerSec)
			return
		}
		fmt.Fprintf(p.w, "step %d/%d: reward %.4f, pen. cost %.4f, infeasible %.1f%%, loss %.4g, %.2f inst/s\n",
			r.Step, p.total, r.Reward, r.PenCost, 100*r.Infeasible, r.Loss, r.InstPerSec)
	}
}

// Finish ends the bar.
func (p *Progress) Finish() {
	if p.bar != nil {
		_ = p.bar.Exit()
		fmt.Fprintln(p.w)
	}
}
