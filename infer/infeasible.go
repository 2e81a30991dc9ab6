package infer

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/explain"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/solve"
)

// What Run does with an instance left without a feasible tour
// (Options.Infeasible).
const (
	// InfeasibleNone writes the tours found, none of them feasible.
	InfeasibleNone = "none"
	// InfeasibleDrop adds a row that serves as many stops as possible in a
	// feasible tour (explain.Drop), listing the others in its dropped
	// column, source SourceDrop.
	InfeasibleDrop = "drop"
	// InfeasibleLate adds a row that serves every stop with the least
	// total lateness found (explain.Late), source SourceLate.
	InfeasibleLate = "late"
)

// Sources of the rows of instances without a feasible tour.
const (
	SourceDrop = "lmask+drop"
	SourceLate = "lmask" + datasets.LateSuffix
)

// ParseInfeasible checks a mode of Options.Infeasible ("" is none).
func ParseInfeasible(s string) (string, error) {
	switch s {
	case "", InfeasibleNone:
		return InfeasibleNone, nil
	case InfeasibleDrop, InfeasibleLate:
		return s, nil
	}
	return "", fmt.Errorf("%q: want none, drop or late", s)
}

// settles reports whether instances without a feasible tour get a row of
// their own.
func (opt Options) settles() bool {
	return opt.Infeasible == InfeasibleDrop || opt.Infeasible == InfeasibleLate
}

// proven reports whether, with a mode that settles instances, in has no
// feasible tour by the quick certificates: the escalation is then spared.
func (opt Options) proven(in *lazymask.Instance) bool {
	return opt.settles() && explain.Certify(in) != nil
}

// settled is the row of an instance without a feasible tour.
type settled struct {
	tour, dropped []int
	source        string
	res           lazymask.Result
	elapsed       time.Duration
}

// settleAll runs the mode of opt.Infeasible, on workers goroutines, for the
// instances of a row group that decoding, the search and the escalation
// left without a feasible tour, starting from their tours; nil entries
// elsewhere. When ctx is done the searches under way stop within moments
// and settleAll returns ctx's error.
func (opt Options) settleAll(ctx context.Context, insts []*lazymask.Instance, sols []engine.Solution, improved []solve.Result, rescues []*rescued, workers int) ([]*settled, time.Duration, error) {
	began := time.Now()
	out := make([]*settled, len(insts))
	if !opt.settles() {
		return out, 0, nil
	}
	var todo []int
	for i := range insts {
		if sols[i].Best.Feasible || (improved != nil && improved[i].Improved) || rescues[i] != nil {
			continue
		}
		todo = append(todo, i)
	}
	errs := make([]error, len(insts))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(workers, len(todo))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if errs[i] = ctx.Err(); errs[i] == nil {
					out[i], errs[i] = opt.settle(ctx, insts[i].Clone(), sols[i], improved, i)
				}
			}
		}()
	}
	for _, i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, i := range todo {
		if errs[i] != nil {
			return nil, 0, errs[i]
		}
	}
	return out, time.Since(began), nil
}

func (opt Options) settle(ctx context.Context, in *lazymask.Instance, sol engine.Solution, improved []solve.Result, i int) (*settled, error) {
	var starts [][]int
	for _, t := range sol.Tours {
		if t.Nodes != nil {
			starts = append(starts, t.Nodes)
		}
	}
	if improved != nil && improved[i].Searched {
		starts = append(starts, improved[i].Search.Tour)
	}
	eo := explain.Options{TimeLimit: opt.InfeasibleTime, Seed: opt.Decode.Seed}
	if opt.Infeasible == InfeasibleLate {
		began := time.Now()
		tour, res, err := explain.LateContext(ctx, in, starts, eo)
		if err != nil {
			return nil, err
		}
		return &settled{tour: tour, source: SourceLate, res: res, elapsed: time.Since(began)}, nil
	}
	d, err := explain.DropContext(ctx, in, starts, eo)
	if err != nil {
		return nil, err
	}
	s := &settled{tour: d.Tour, source: SourceDrop, res: d.Check, elapsed: d.Elapsed}
	if len(d.Dropped) > 0 {
		s.dropped = d.Dropped
	}
	return s, nil
}

// writeSettled writes the row of an instance without a feasible tour and
// counts it: a served tour apart from the paper's metrics, a late one as
// a candidate with its lateness, a tour of every stop that turned out
// feasible as a candidate.
func writeSettled(w *datasets.SolutionWriter, tl *datasets.Tally, in *lazymask.Instance, idx int64, s *settled, seconds float64) error {
	if s == nil {
		return nil
	}
	row := datasets.Solution{Instance: idx, Tour: s.tour, Dropped: s.dropped, Cost: s.res.Cost, CostOrig: s.res.Cost * in.Scale,
		Feasible: s.res.Feasible, Violation: s.res.TotalViolation, ViolatedNodes: s.res.ViolatedNodes,
		SolveTime: seconds + s.elapsed.Seconds(), Source: s.source}
	if err := w.Write(&row); err != nil {
		return err
	}
	var err error
	switch {
	case s.dropped != nil:
		_, err = tl.AddDropped(idx, in, s.tour, s.dropped)
	case s.source == SourceLate:
		_, err = tl.AddLate(idx, in, s.tour, false)
	default:
		_, err = tl.AddCandidate(idx, in, s.tour)
	}
	return err
}
