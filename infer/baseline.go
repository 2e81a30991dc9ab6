package infer

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/solve"
)

// Heuristic returns the constructor of the decode policy name, or nil for
// "urgency" (which decodes nothing).
func Heuristic(name string) (func() lazymask.Policy, error) {
	switch name {
	case "random-l":
		return func() lazymask.Policy { return &lazymask.RandomL{} }, nil
	case "random-c":
		return func() lazymask.Policy { return &lazymask.RandomC{} }, nil
	case "uniform":
		return func() lazymask.Policy { return lazymask.Uniform{} }, nil
	case "urgency":
		return nil, nil
	}
	return nil, fmt.Errorf("unknown policy %q (want random-l, random-c, uniform or urgency)", name)
}

// Baseline decodes every instance samples times with the heuristic policy
// (solve.Heuristic; instance i with seed cfg.Seed+i) and returns its rows,
// source policy: each instance's best tour in the order of
// lazymask.Compare, or every tour with allTours (lmask-data baseline).
//
// When ctx is done the decoding stops between instances and Baseline
// returns ctx's error.
func Baseline(ctx context.Context, insts []*lazymask.Instance, policy string, samples int, cfg lazymask.Config, workers int, allTours bool) ([]datasets.Solution, error) {
	newPolicy, err := Heuristic(policy)
	if err != nil {
		return nil, err
	}
	decoded, err := solve.Heuristic(ctx, insts, newPolicy, samples, cfg, workers)
	if err != nil {
		return nil, err
	}
	var sols []datasets.Solution
	for i, dec := range decoded {
		tours := dec.Tours
		if !allTours {
			tours = tours[:1]
		}
		for _, t := range tours {
			sols = append(sols, baselineRow(insts[i], int64(i), t, policy, dec.Elapsed.Seconds()))
		}
	}
	return sols, nil
}

// BaselineSettings describes a baseline run (lmask-data baseline) for its
// report and its solutions' metadata: policy, samples, budget, look-ahead
// and seed, or the policy alone for urgency, which decodes nothing.
func BaselineSettings(policy string, samples int, cfg lazymask.Config) string {
	if policy == "urgency" {
		return "policy=urgency"
	}
	return fmt.Sprintf("policy=%s samples=%d budget=%d lookahead=%s seed=%d", policy, samples, cfg.Budget, cfg.Lookahead, cfg.Seed)
}

// BaselineMeta returns the metadata of a baseline run's solutions: those
// of the instances file ipath (metadata imeta), source policy, with the
// run's settings (BaselineSettings) under lmask.baseline.
func BaselineMeta(imeta datasets.Metadata, ipath, policy, settings string) datasets.Metadata {
	return datasets.Metadata{
		Kind: datasets.KindSolutions, Problem: imeta.Problem, Size: imeta.Size, Hardness: imeta.Hardness, Scale: imeta.Scale,
		Source: policy, Instances: ipath,
		Extra: map[string]string{"lmask.baseline": settings},
	}
}

// WriteBaselineTable prints the report of a baseline run: its settings
// (BaselineSettings), its wall time and the metrics of its solutions, with
// the gap rows when gap is set.
func WriteBaselineTable(w io.Writer, settings string, wall time.Duration, m datasets.Metrics, gap bool) {
	fmt.Fprintf(w, "policy           %s\n", settings)
	fmt.Fprintf(w, "time             %.3fs wall\n", wall.Seconds())
	m.WriteTable(w, gap)
}

// baselineRow is the solution row of tour t of instance index (seconds: the
// instance's decode time, written on each of its rows as lmask-infer does).
func baselineRow(in *lazymask.Instance, index int64, t solve.Tour, policy string, seconds float64) datasets.Solution {
	s := datasets.Solution{Instance: index, Cost: math.Inf(1), CostOrig: math.Inf(1), Source: policy,
		SolveTime: seconds, Backtracks: t.Backtracks, Sample: t.Sample}
	if t.Nodes != nil {
		c := t.Check
		s.Tour, s.Cost, s.CostOrig = t.Nodes, c.Cost, c.Cost*in.Scale
		s.Feasible, s.Violation, s.ViolatedNodes = c.Feasible, c.TotalViolation, c.ViolatedNodes
	}
	return s
}
