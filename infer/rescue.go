package infer

import (
	"context"
	"fmt"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/solve"
)

// FoundBy counts the instances by the step that found their final feasible
// tour (engine.Step); None counts those left without one, NoTour those of
// them proven to have none.
type FoundBy struct {
	Decode int `json:"decode"`
	Repair int `json:"repair"`
	Retry  int `json:"retry"`
	Search int `json:"search"`
	None   int `json:"none"`
	NoTour int `json:"proven_infeasible"`
}

func (f *FoundBy) add(s engine.Step) {
	switch s {
	case engine.StepDecode:
		f.Decode++
	case engine.StepRepair:
		f.Repair++
	case engine.StepRetry:
		f.Retry++
	case engine.StepSearch:
		f.Search++
	default:
		f.None++
	}
}

// String is the table line: "decode 95, repair 4, retry 1, search 0, none 0".
func (f FoundBy) String() string {
	s := fmt.Sprintf("decode %d, repair %d, retry %d, search %d, none %d", f.Decode, f.Repair, f.Retry, f.Search, f.None)
	if f.NoTour > 0 {
		s += fmt.Sprintf(" (%d proven to have no feasible tour)", f.NoTour)
	}
	return s
}

// rescued is a tour the escalation found for one instance, as written.
type rescued struct {
	engine.Rescued
	source string
	search time.Duration // time of the search from the tour (Options.Improve)
}

// needsRescue reports whether instance i still needs a rescue, and counts
// in fb the step that settled it where it does not: a feasible decode or
// start, the search's repair, no rescue time, or a day the quick
// certificates prove infeasible (with --infeasible drop or late).
func (opt Options) needsRescue(in *lazymask.Instance, sol *engine.Solution, improved []solve.Result, i int, fb *FoundBy) bool {
	switch {
	case sol.Best.Feasible:
		fb.add(engine.StepDecode)
	case improved != nil && improved[i].Improved:
		fb.add(engine.StepRepair)
	case opt.RescueTime <= 0:
		fb.add(engine.StepNone)
	case opt.proven(in):
		fb.add(engine.StepNone)
		fb.NoTour++
	default:
		return true
	}
	return false
}

// rescueAll escalates, one by one, the instances of a row group (file rows
// first..) that neither decoding nor the search from the decoded tours
// (improved, nil without Improve) left with a feasible tour, and counts
// every instance's step in fb. The retries go up to RescueBudget, and at
// least to 16 times the instance's own budget (which BudgetPerNode may
// have raised past it). With Improve the tour found is then searched from
// like the decoded ones (without a time share). It returns the tours
// found (nil entries elsewhere) and the time spent.
func (opt Options) rescueAll(ctx context.Context, s *engine.Solver, insts []*lazymask.Instance, first int64,
	sols []engine.Solution, improved []solve.Result, fb *FoundBy) ([]*rescued, time.Duration, error) {
	began := time.Now()
	out := make([]*rescued, len(insts))
	for i, in := range insts {
		if !opt.needsRescue(in, &sols[i], improved, i, fb) {
			continue
		}
		var starts [][]int
		for _, t := range sols[i].Tours {
			starts = append(starts, t.Nodes)
		}
		if improved != nil && improved[i].Searched {
			starts = append(starts, improved[i].Search.Tour)
		}
		ro := engine.RescueOptions{TimeLimit: opt.RescueTime, MaxBudget: max(opt.RescueBudget, 16*opt.Decode.BudgetFor(in.N))}
		r, err := s.Rescue(ctx, in, first+int64(i), starts, ro)
		if err != nil {
			return nil, 0, fmt.Errorf("%s row %d: %w", opt.Data, first+int64(i), err)
		}
		fb.add(r.Step)
		if r.NoTour {
			fb.NoTour++
		}
		if r.Step == engine.StepNone {
			continue
		}
		rs := &rescued{Rescued: r, source: SourceRetry}
		if r.Step == engine.StepSearch {
			rs.source = SourceSearch
		}
		if opt.Improve {
			res, _, err := solve.Improve(ctx, []solve.Job{{Inst: in, Starts: [][]int{r.Tour.Nodes}, Seed: opt.Decode.Seed}}, opt.improveOptions(1))
			if err != nil {
				return nil, 0, fmt.Errorf("%s row %d: improve: %w", opt.Data, first+int64(i), err)
			}
			if res[0].Improved {
				rs.Tour = searchedTour(rs.Tour, &res[0])
				rs.source += "+ls"
				rs.search = res[0].Elapsed()
			}
		}
		out[i] = rs
	}
	return out, time.Since(began), nil
}

// writeRescued writes the row of a tour the escalation found and adds it
// to the metrics as a candidate for the instance's best tour.
func writeRescued(w *datasets.SolutionWriter, tl *datasets.Tally, in *lazymask.Instance, idx int64, r *rescued, seconds float64) error {
	if r == nil {
		return nil
	}
	row := solutionRow(in, idx, r.Tour, r.source, seconds+r.Elapsed.Seconds()+r.search.Seconds())
	if err := w.Write(&row); err != nil {
		return err
	}
	_, err := tl.AddCandidate(idx, in, r.Tour.Nodes)
	return err
}
