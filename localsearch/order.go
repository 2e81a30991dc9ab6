package localsearch

import (
	"cmp"
	"slices"

	"github.com/lmask/lmask/lazymask"
)

// OrderTour returns the tour that visits the customers by increasing
// window end (TSPTW) or draft limit (TSPDL), ties by node index: the
// urgency order that constructive heuristics start from when feasibility
// is the hard part. It is often feasible where a decoder found no tour,
// and otherwise a start for ImproveFrom's repair.
func OrderTour(inst *lazymask.Instance) []int {
	tour := make([]int, inst.N)
	for k := range tour {
		tour[k] = k
	}
	limit := inst.Late
	if inst.Problem == lazymask.TSPDL {
		limit = inst.Draft
	}
	slices.SortStableFunc(tour[1:], func(a, b int) int { return cmp.Compare(limit[a], limit[b]) })
	return tour
}
