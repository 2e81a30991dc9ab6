package lazymask

import (
	"fmt"
	"math"
)

// Result is what Check computes by replaying a tour.
type Result struct {
	// Cost is the closed tour length (travel cost, waiting not counted) in
	// normalised units; multiply by Instance.Scale for original units.
	Cost float64
	// Feasible is true when no node is violated by more than Tol.
	Feasible bool
	// TotalViolation is Σ max(0, lateness) for TSPTW or Σ max(0, excess load)
	// for TSPDL.
	TotalViolation float64
	// ViolatedNodes counts nodes whose violation exceeds Tol.
	ViolatedNodes int
	// Violation holds the per-node violation (indexed by node).
	Violation []float64
}

// TourError says that a tour is malformed (not a permutation of the nodes
// starting at the depot).
type TourError struct {
	Step, Node int
	Msg        string
}

// Error names the step, the node and what is wrong with the tour.
func (e *TourError) Error() string {
	return fmt.Sprintf("malformed tour at step %d (node %d): %s", e.Step, e.Node, e.Msg)
}

// Rule names the constraint an InfeasibleError refers to.
type Rule string

const (
	// RuleTimeWindow: arrival after the node's due time.
	RuleTimeWindow Rule = "time-window"
	// RuleDraftLimit: load after the visit above the port's draft limit.
	RuleDraftLimit Rule = "draft-limit"
)

// InfeasibleError reports the first constraint a well-formed tour breaks.
type InfeasibleError struct {
	Step, Node int
	Rule       Rule
	Value      float64 // arrival time or load
	Limit      float64 // due time or draft limit
}

// Error names the step, the node, the broken rule and the value against its limit.
func (e *InfeasibleError) Error() string {
	what := "arrival"
	if e.Rule == RuleDraftLimit {
		what = "load"
	}
	return fmt.Sprintf("infeasible at step %d, node %d: %s rule broken (%s %.6g > limit %.6g)",
		e.Step, e.Node, e.Rule, what, e.Value, e.Limit)
}

// Check replays tour on inst and is the only function in the project that
// declares a tour feasible. A tour lists every node exactly once and starts
// at the depot (length N); the return to the depot is implied.
//
// A malformed tour yields a *TourError and a zero Result. A well-formed tour
// yields its full Result; if it breaks a constraint the error is an
// *InfeasibleError describing the first violation (Result.Feasible false).
func Check(inst *Instance, tour []int) (Result, error) {
	var r Result
	n := inst.N
	if len(tour) != n {
		return r, &TourError{Step: -1, Node: -1, Msg: fmt.Sprintf("tour has %d nodes, instance has %d", len(tour), n)}
	}
	if tour[0] != 0 {
		return r, &TourError{Step: 0, Node: tour[0], Msg: "tour must start at the depot (node 0)"}
	}
	seen := make([]bool, n)
	for k, v := range tour {
		if v < 0 || v >= n {
			return r, &TourError{Step: k, Node: v, Msg: fmt.Sprintf("node out of range [0,%d)", n)}
		}
		if seen[v] {
			return r, &TourError{Step: k, Node: v, Msg: "node visited twice"}
		}
		seen[v] = true
	}
	r.Violation = make([]float64, n)
	dist := inst.edge()
	var first *InfeasibleError
	t, load := 0.0, 0.0
	prev := 0
	for k := 1; k < n; k++ {
		cur := tour[k]
		d := dist(prev, cur)
		r.Cost += d
		var v, val, lim float64
		var rule Rule
		switch inst.Problem {
		case TSPTW:
			arr := t + d
			v = math.Max(0, arr-inst.Late[cur])
			val, lim, rule = arr, inst.Late[cur], RuleTimeWindow
			t = math.Max(arr, inst.Early[cur]) + inst.Service[cur]
		case TSPDL:
			load += inst.Demand[cur]
			v = math.Max(0, load-inst.Draft[cur])
			val, lim, rule = load, inst.Draft[cur], RuleDraftLimit
		}
		r.Violation[cur] = v
		r.TotalViolation += v
		if v > Tol {
			r.ViolatedNodes++
			if first == nil {
				first = &InfeasibleError{Step: k, Node: cur, Rule: rule, Value: val, Limit: lim}
			}
		}
		prev = cur
	}
	r.Cost += dist(prev, 0)
	r.Feasible = first == nil
	if first != nil {
		return r, first
	}
	return r, nil
}

// Rotate returns a copy of a closed tour (a permutation of all nodes in any
// rotation) rotated to start at the depot, optionally reversed. It returns
// nil if the depot is missing.
func Rotate(cycle []int, reverse bool) []int {
	n := len(cycle)
	pos := -1
	for i, v := range cycle {
		if v == 0 {
			pos = i
			break
		}
	}
	if pos < 0 {
		return nil
	}
	out := make([]int, n)
	for k := 0; k < n; k++ {
		if reverse {
			out[k] = cycle[((pos-k)%n+n)%n]
		} else {
			out[k] = cycle[(pos+k)%n]
		}
	}
	return out
}
