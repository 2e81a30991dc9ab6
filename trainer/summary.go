package trainer

import (
	"fmt"
	"io"
	"path/filepath"
	"time"
)

// WriteReport prints what a session of the run in dir did: s.Step of the
// run's steps, the instances seen and the run's wall time (with the
// session's own), the last validation, and the run's checkpoint, metrics
// and curve files.
func (s Summary) WriteReport(w io.Writer, steps int, session time.Duration, dir string) {
	fmt.Fprintf(w, "steps %d/%d, instances seen %d, wall %s (this session %s)\n", s.Step, steps,
		s.InstancesSeen, time.Duration(s.WallSeconds*float64(time.Second)).Round(time.Second), session.Round(time.Second))
	if v := s.LastVal; v != nil {
		fmt.Fprintf(w, "validation: sol. infeasible %.2f%%, inst. infeasible %.2f%%, obj %.4f\n",
			100*v.SolInfeasible, 100*v.InstInfeasible, v.Obj)
	}
	fmt.Fprintf(w, "checkpoint: %s\nmetrics: %s\ncurve: %s\n", filepath.Join(dir, CheckpointFile),
		filepath.Join(dir, MetricsFile), filepath.Join(dir, CurveFile))
}
