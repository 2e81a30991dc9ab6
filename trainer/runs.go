package trainer

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lmask/lmask/internal/atomicfile"
	"github.com/lmask/lmask/internal/opterr"
)

// ReadStages reads the metrics of training stages (run directories or
// metrics.jsonl files) in order, for JoinStages; a stage without records is
// an error naming it.
func ReadStages(dirs []string) ([][]Record, error) {
	var stages [][]Record
	for _, dir := range dirs {
		recs, err := ReadMetrics(dir)
		if err != nil {
			return nil, err
		}
		if len(recs) == 0 {
			return nil, fmt.Errorf("curve: %s holds no metrics records", dir)
		}
		stages = append(stages, recs)
	}
	return stages, nil
}

// DrawStages draws the training curve of one or more stages (run
// directories or metrics.jsonl files, joined in order; JoinStages) to the
// SVG file out, written atomically once the runs are read. It returns the
// number of stages and the last step drawn.
func DrawStages(out string, runs []string) (stages, lastStep int, err error) {
	if err := CheckCurveOut(out, runs); err != nil {
		return 0, 0, fmt.Errorf("curve: %w", err)
	}
	st, err := ReadStages(runs)
	if err != nil {
		return 0, 0, err
	}
	recs, starts := JoinStages(st...)
	svg, err := RenderCurve(recs, starts...)
	if err != nil {
		return 0, 0, err
	}
	if err := atomicfile.WriteFile(out, svg); err != nil {
		return 0, 0, fmt.Errorf("curve: %w", err)
	}
	return len(st), recs[len(recs)-1].Step, nil
}

// DrawComparison draws the groups (ReadCompareGroups, which also returns
// runs, the run directories they name) side by side to the SVG file out,
// written atomically; out must be none of the runs' metrics logs.
func DrawComparison(out string, groups []CompareGroup, runs []string) error {
	if err := CheckCurveOut(out, runs); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	svg, err := RenderComparison(groups)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(out, svg); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	return nil
}

// ReadCompareGroups parses the compare command's groups, each
// TITLE:LABEL=RUNDIR;LABEL=RUNDIR;... (semicolons: the flag splits its values at commas), and reads their runs' metrics; it
// returns the groups and every run directory named, in order. A malformed
// spec is an *opterr.Error of the option Groups (a usage error, unlike a
// run that cannot be read).
func ReadCompareGroups(specs []string, toursPerStep int) ([]CompareGroup, []string, error) {
	var groups []CompareGroup
	var dirs []string
	for _, spec := range specs {
		title, runs, ok := strings.Cut(spec, ":")
		if !ok || runs == "" {
			return nil, nil, opterr.New("Groups", strconv.Quote(spec), "want TITLE:LABEL=RUNDIR;LABEL=RUNDIR;...")
		}
		g := CompareGroup{Title: title, ToursPerStep: toursPerStep}
		for _, run := range strings.Split(runs, ";") {
			label, dir, ok := strings.Cut(run, "=")
			if !ok {
				return nil, nil, opterr.New("Groups", strconv.Quote(spec), "run %q is not LABEL=RUNDIR", run)
			}
			recs, err := ReadMetrics(dir)
			if err != nil {
				return nil, nil, err
			}
			g.Runs = append(g.Runs, CompareRun{Name: label, Recs: recs})
			dirs = append(dirs, dir)
		}
		groups = append(groups, g)
	}
	return groups, dirs, nil
}
