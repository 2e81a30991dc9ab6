package lazymask

import (
	"errors"
	"fmt"
	"slices"
)

// ReplayTour returns the steps a decode with these settings records
// (Config.Record) when it places the customers of tour in order without
// ever backtracking: for each step the current node, time or load,
// refinement count, budget flag and the candidate mask the policy saw. It
// lets a tour from elsewhere (a local search, a heuristic, a reference
// solution) be scored or imitated with the policy's own inputs.
//
// It fails when tour is not a permutation of 0..N−1 starting at the depot,
// or when a node of the tour is not a candidate at its step (the look-ahead
// rules it out, which a feasible tour never triggers under Test semantics).
func ReplayTour(inst *Instance, tour []int, look Lookahead, budget int, sem Semantics) ([]StepRecord, error) {
	var te *TourError
	if _, err := Check(inst, tour); errors.As(err, &te) {
		return nil, fmt.Errorf("replay tour: %w", err)
	}
	s := NewState(inst.N)
	if err := s.Reset(inst, look, budget, sem); err != nil {
		return nil, fmt.Errorf("replay tour: %w", err)
	}
	steps := make([]StepRecord, 0, inst.N-1)
	masks := make([]bool, (inst.N-1)*inst.N)
	for k, node := range tour[1:] {
		if mv := s.Next(); mv != Forward {
			return nil, fmt.Errorf("replay tour: no candidate at step %d (before node %d)", k, node)
		}
		m := masks[k*inst.N : (k+1)*inst.N : (k+1)*inst.N]
		copy(m, s.Mask())
		steps = append(steps, StepRecord{Current: s.Current(), State: s.Value(), Refine: s.Refine(),
			Budget: s.BudgetReached(), Mask: m, Chosen: node})
		if err := s.Step(node); err != nil {
			return nil, fmt.Errorf("replay tour: step %d: node %d is ruled out by the %v mask (candidates %v)",
				k, node, look, maskIndices(m))
		}
	}
	return steps, nil
}

func maskIndices(m []bool) []int {
	var out []int
	for i, ok := range m {
		if ok {
			out = append(out, i)
		}
	}
	return slices.Clip(out)
}
