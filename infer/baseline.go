package infer

import (
	"context"
	"fmt"
	"math"

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
