package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
)

// Step names the step of the solve pipeline that found an instance's
// feasible tour.
type Step int

const (
	// StepNone: no step found a feasible tour.
	StepNone Step = iota
	// StepDecode: the decode with the run's budget.
	StepDecode
	// StepRepair: the local search from the decoded tours.
	StepRepair
	// StepRetry: decoding the instance alone with a larger budget.
	StepRetry
	// StepSearch: the feasibility search (localsearch.FindFeasible).
	StepSearch
)

// String returns "none", "decode", "repair", "retry" or "search".
func (s Step) String() string {
	switch s {
	case StepNone:
		return "none"
	case StepDecode:
		return "decode"
	case StepRepair:
		return "repair"
	case StepRetry:
		return "retry"
	case StepSearch:
		return "search"
	}
	return fmt.Sprintf("step(%d)", int(s))
}

// DefaultRescueTime caps the escalation of one instance when
// RescueOptions sets no limit. The feasibility search needs far less on
// the generated hard instances up to 500 nodes; the cap bounds what an
// instance without any feasible tour costs.
const DefaultRescueTime = 5 * time.Second

// DefaultRescueBudget caps the retried budgets when RescueOptions sets no
// cap: two retries (×4, ×16) after the paper's largest R of 300.
const DefaultRescueBudget = 4800

// RescueOptions configure Solver.Rescue.
type RescueOptions struct {
	// TimeLimit caps the whole escalation of one instance (0 means
	// DefaultRescueTime): the retries may take half of it, the
	// feasibility search the rest.
	TimeLimit time.Duration
	// MaxBudget caps the retried budgets (0 means DefaultRescueBudget).
	MaxBudget int
}

// Rescued is the outcome of Solver.Rescue for one instance.
type Rescued struct {
	// Step is StepRetry or StepSearch when a feasible tour was found,
	// StepNone otherwise.
	Step Step
	// Tour is the feasible tour found, checked by lazymask.Check on the
	// instance (the retry's best tour keeps its Aug and Sample).
	Tour Tour
	// Budget is the budget of the retry that found the tour; Retries
	// counts the retried decodes.
	Budget, Retries int
	// NoTour is true when the instance is proven to have no feasible tour
	// (TSPDL: the ascending draft-limit order fails).
	NoTour bool
	// Elapsed is the wall time of the escalation.
	Elapsed time.Duration
}

// Retry decodes an instance again alone, with the solver's options and
// the budget ×4, ×16, … (while at most maxBudget; none with an unlimited
// budget), until a decode gives a feasible tour or the deadline passes
// (a decode still running then is abandoned). It returns that tour
// (Step StepRetry, its Budget, the Retries made; StepNone when none was
// feasible) and the best tours of the retries that found none, as starts
// for a search. index is the instance's index for the sampling streams
// (SolveFrom). Why a deadline: a retry at n = 200 with a budget in the
// thousands can take seconds; the deadline bounds what one instance costs.
func (s *Solver) Retry(ctx context.Context, inst *lazymask.Instance, index int64, maxBudget int, deadline time.Time) (Rescued, [][]int, error) {
	began := time.Now()
	var res Rescued
	var tried [][]int
	if inst == nil || inst.Problem != s.e.Problem() {
		return res, nil, fmt.Errorf("retry: instance is not a %s instance", s.e.Problem())
	}
	r := s.opts.BudgetFor(inst.N)
	if r == lazymask.Unlimited {
		return res, nil, nil
	}
	for b := 4 * max(r, 1); b <= maxBudget; b *= 4 {
		if err := ctx.Err(); err != nil {
			return res, nil, err
		}
		if time.Now().After(deadline) {
			break
		}
		o := s.opts
		o.Budget, o.BudgetPerNode, o.Batch, o.AllTours, o.deadline = b, 0, 1, false, deadline
		out := make([]Solution, 1)
		var st Stats
		err := s.workers[0].solveBatch(o, index, []*lazymask.Instance{inst}, 0, 1, out, &st)
		res.Retries++
		if errors.Is(err, errDeadline) {
			break
		}
		if err != nil {
			return res, nil, fmt.Errorf("rescue: retry with budget %d: %w", b, err)
		}
		if best := out[0].Best; best.Feasible {
			res.Step, res.Tour, res.Budget = StepRetry, best, b
			break
		} else if best.Nodes != nil {
			tried = append(tried, best.Nodes)
		}
	}
	res.Elapsed = time.Since(began)
	return res, tried, nil
}

// errDeadline ends a retry that runs out of its time.
var errDeadline = errors.New("retry time is up")

// deadlinePolicy is a policy whose scores fail once the deadline passed.
type deadlinePolicy struct {
	lazymask.Policy
	deadline time.Time
}

func (p deadlinePolicy) Scores(b *lazymask.StepBatch, dst []float32) error {
	if time.Now().After(p.deadline) {
		return errDeadline
	}
	return p.Policy.Scores(b, dst)
}

// Rescue escalates an instance that decoding (and repair) left without a
// feasible tour, within opt.TimeLimit: it decodes the instance alone
// again with the solver's options and the budget ×4, ×16, … (while at
// most opt.MaxBudget; none with an unlimited budget), stopping at the
// first feasible tour, then runs localsearch.FindFeasible from starts (the
// tours the run has for it; nil entries skipped) and the retries' best
// tours. Where that search is exact
// (localsearch.FeasibleIsExact) it runs first, and an instance it proves
// to have no feasible tour gets no retries. index is the instance's index for the sampling streams
// (SolveFrom). The tour found is verified with lazymask.Check.
func (s *Solver) Rescue(ctx context.Context, inst *lazymask.Instance, index int64, starts [][]int, opt RescueOptions) (Rescued, error) {
	began := time.Now()
	if opt.TimeLimit <= 0 {
		opt.TimeLimit = DefaultRescueTime
	}
	if opt.MaxBudget <= 0 {
		opt.MaxBudget = DefaultRescueBudget
	}
	if inst == nil || inst.Problem != s.e.Problem() {
		return Rescued{}, fmt.Errorf("rescue: instance is not a %s instance", s.e.Problem())
	}
	var res Rescued
	seed := streamSeed(s.opts.Seed, uint64(index), lazymask.NumAugment, 0)
	// Where the search is exact and quick, it runs first: an instance with
	// no feasible tour then costs no retries.
	var exact *localsearch.FeasibleResult
	if localsearch.FeasibleIsExact(inst) {
		fr, err := localsearch.FindFeasibleContext(ctx, inst, nil, localsearch.FeasibleOptions{Seed: seed})
		if errors.Is(err, localsearch.ErrNoFeasibleTour) {
			res.NoTour, res.Elapsed = true, time.Since(began)
			return res, nil
		}
		if err != nil {
			return res, fmt.Errorf("rescue: %w", err)
		}
		exact = &fr
	}
	pool := make([][]int, 0, len(starts)+4)
	for _, t := range starts {
		if t != nil {
			pool = append(pool, t)
		}
	}
	r, tried, err := s.Retry(ctx, inst, index, opt.MaxBudget, began.Add(opt.TimeLimit/2))
	if err != nil {
		return res, err
	}
	if r.Step == StepRetry {
		r.Elapsed = time.Since(began)
		return r, nil
	}
	res.Retries = r.Retries
	pool = append(pool, tried...)
	var fr localsearch.FeasibleResult
	if exact != nil {
		fr = *exact
	} else {
		left := opt.TimeLimit - time.Since(began)
		var err error
		fr, err = localsearch.FindFeasibleContext(ctx, inst, pool, localsearch.FeasibleOptions{TimeLimit: max(left, time.Millisecond), Seed: seed})
		if err != nil {
			return res, fmt.Errorf("rescue: %w", err)
		}
	}
	res.Elapsed = time.Since(began)
	if !fr.Feasible {
		return res, nil
	}
	c := fr.Check
	res.Step = StepSearch
	res.Tour = Tour{Nodes: fr.Tour, Cost: c.Cost, Feasible: true, Violation: c.TotalViolation, ViolatedNodes: c.ViolatedNodes}
	return res, nil
}
