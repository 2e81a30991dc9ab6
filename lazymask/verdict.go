package lazymask

import "cmp"

// Verdict is what ranking a tour takes from its replay by Check. The zero
// value stands for no tour at all (a decode that gave up).
type Verdict struct {
	// Complete is false for a missing tour.
	Complete bool
	// Feasible is Check's verdict.
	Feasible bool
	// Cost is the closed tour length (normalised units).
	Cost float64
	// Excess is Σ max(0, v − Tol) over the nodes' violations: zero exactly
	// when the tour is feasible, and the measure a repair minimises.
	Excess float64
	// ViolatedNodes counts the nodes violated by more than Tol.
	ViolatedNodes int
}

// Verdict returns the ranking facts of the replayed tour.
func (r Result) Verdict() Verdict {
	ex := 0.0
	for _, v := range r.Violation {
		if v > Tol {
			ex += v - Tol
		}
	}
	return Verdict{Complete: true, Feasible: r.Feasible, Cost: r.Cost, Excess: ex, ViolatedNodes: r.ViolatedNodes}
}

// Compare orders tours best first, returning −1 when a is better than b,
// +1 when b is better and 0 when they tie: a complete tour before a missing
// one, a feasible one before an infeasible one; feasible tours by cost;
// infeasible ones by excess violation, then violated nodes, then cost.
// Callers keep the earlier of two tied tours (a stable sort), which makes
// every choice deterministic.
func Compare(a, b Verdict) int {
	if a.Complete != b.Complete {
		return boolFirst(a.Complete)
	}
	if !a.Complete {
		return 0
	}
	if a.Feasible != b.Feasible {
		return boolFirst(a.Feasible)
	}
	if a.Feasible {
		return cmp.Compare(a.Cost, b.Cost)
	}
	return cmp.Or(cmp.Compare(a.Excess, b.Excess), cmp.Compare(a.ViolatedNodes, b.ViolatedNodes), cmp.Compare(a.Cost, b.Cost))
}

// boolFirst is Compare's result for two verdicts that differ in a flag
// whose true side ranks first, given a's flag.
func boolFirst(a bool) int {
	if a {
		return -1
	}
	return 1
}
