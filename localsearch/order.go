package localsearch

import (
	"cmp"
	"errors"
	"math"
	"math/rand/v2"
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

// insertionPush are the weights of the delay to the next node that the
// tries of InsertionTour cycle through: length only, then more and more
// slack kept for the customers still to come.
var insertionPush = []float64{0, 1, 4}

// InsertionTour builds a TSPTW tour by cheapest feasible insertion: the
// customers are taken by increasing window end (ties by window start, then
// index) and each is put where it lengthens the partial tour least among
// the places that keep every window. A customer with no such place is
// postponed and appended, in that order, after the others. Where that
// leaves the tour infeasible it tries again, up to tries times in all, with
// the window ends jittered by up to half their window's width and a fifth
// of the places skipped at random (seeded by seed), the places weighed by
// length plus insertionPush times the delay they cause. It returns the
// first feasible tour with true, or else the least late one (by total
// violation) with false; nil for TSPDL. Why: a feasible start in O(N²) per
// try where a decoder found none (ImproveFrom's repair of the urgency order
// costs O(N³) per scan, seconds at N = 250 on wide windows), and where none
// fits, a start late only at its end, which the repair fixes far sooner
// than the urgency order (docs/experiments.md, "Postponed insertions and
// grown tours").
func InsertionTour(inst *lazymask.Instance, tries int, seed uint64) ([]int, bool) {
	if inst.Problem != lazymask.TSPTW || inst.N < 2 {
		return nil, false
	}
	n := inst.N
	nodes := make([]int, 0, n-1)
	key := make([]float64, n)
	ins := newInserter(inst, inst.Matrix())
	rng := rand.New(rand.NewPCG(seed, 0x696e73))
	var least []int
	leastLate := math.Inf(1)
	for try := range max(tries, 1) {
		nodes = nodes[:0]
		for v := 1; v < n; v++ {
			nodes = append(nodes, v)
			key[v] = inst.Late[v]
			if try > 0 {
				key[v] += rng.Float64() * 0.5 * (inst.Late[v] - inst.Early[v])
			}
		}
		sortByEnd(inst, nodes, key)
		skip := 0.0
		if try > 0 {
			skip = 0.2
		}
		ins.push = insertionPush[try%len(insertionPush)]
		ins.reset([]int{0})
		tour := append(ins.tour, ins.postpone(nodes, rng, skip)...)
		chk, err := lazymask.Check(inst, tour)
		if err != nil && !errors.As(err, new(*lazymask.InfeasibleError)) {
			continue // rounding cannot make a tour malformed; be safe
		}
		if chk.Feasible {
			return slices.Clone(tour), true
		}
		if chk.TotalViolation < leastLate {
			least, leastLate = slices.Clone(tour), chk.TotalViolation
		}
	}
	return least, false
}

// sortByEnd orders nodes by key (a window end, maybe jittered), ties by
// window start, then as given.
func sortByEnd(inst *lazymask.Instance, nodes []int, key []float64) {
	slices.SortStableFunc(nodes, func(a, b int) int {
		return cmp.Or(cmp.Compare(key[a], key[b]), cmp.Compare(inst.Early[a], inst.Early[b]))
	})
}
