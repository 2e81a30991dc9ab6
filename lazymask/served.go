package lazymask

import "fmt"

// Restrict returns the instance of the given nodes only, in that order:
// node k of the result is node nodes[k] of inst, nodes[0] must be the
// depot. Travel times are inst's (an explicit matrix is cut to the
// nodes; Euclidean ones follow from the same coordinates), so a tour of
// the result replays as the same stops would on inst with the other
// nodes left out. The result shares no slices with inst.
func Restrict(inst *Instance, nodes []int) *Instance {
	k := len(nodes)
	sub := &Instance{Problem: inst.Problem, N: k, Name: inst.Name, Scale: inst.Scale}
	pick := func(s []float64) []float64 {
		if s == nil {
			return nil
		}
		out := make([]float64, k)
		for i, v := range nodes {
			out[i] = s[v]
		}
		return out
	}
	sub.X, sub.Y = pick(inst.X), pick(inst.Y)
	sub.Early, sub.Late, sub.Service = pick(inst.Early), pick(inst.Late), pick(inst.Service)
	sub.Demand, sub.Draft = pick(inst.Demand), pick(inst.Draft)
	if inst.Dist != nil {
		n := inst.N
		sub.Dist = make([]float64, k*k)
		for i, a := range nodes {
			for j, b := range nodes {
				sub.Dist[i*k+j] = inst.Dist[a*n+b]
			}
		}
	}
	return sub
}

// CheckServed replays a tour that serves only some of inst's nodes, the
// others dropped: tour lists the served nodes from the depot, dropped the
// customers left out, and together they must hold every node exactly
// once (else a *TourError). The served tour is replayed by Check on
// Restrict(inst, tour), so its feasibility has Check's meaning; the
// Result's Violation is indexed by inst's nodes (0 at dropped ones) and an
// *InfeasibleError names inst's node. A tour of the depot alone is
// feasible and of length 0.
func CheckServed(inst *Instance, tour, dropped []int) (Result, error) {
	if err := checkPartition(inst.N, tour, dropped); err != nil {
		return Result{}, err
	}
	if len(tour) == 1 {
		return Result{Feasible: true, Violation: make([]float64, inst.N)}, nil
	}
	sub := Restrict(inst, tour)
	res, err := Check(sub, identity(len(tour)))
	viol := make([]float64, inst.N)
	for k, v := range res.Violation {
		viol[tour[k]] = v
	}
	res.Violation = viol
	if ie, ok := err.(*InfeasibleError); ok {
		ie.Node = tour[ie.Node]
	}
	return res, err
}

// ScheduleServed is Schedule for a tour that serves only some nodes
// (CheckServed's rules): the stops of the served tour, their Node inst's,
// with CheckServed's result and error.
func ScheduleServed(inst *Instance, tour, dropped []int) ([]Stop, Result, error) {
	res, err := CheckServed(inst, tour, dropped)
	if _, bad := err.(*TourError); bad {
		return nil, res, err
	}
	if len(tour) == 1 {
		return []Stop{{Node: 0}, {Node: 0}}, res, nil
	}
	stops, _, _ := Schedule(Restrict(inst, tour), identity(len(tour)))
	for i := range stops {
		stops[i].Node = tour[stops[i].Node]
	}
	return stops, res, err
}

// checkPartition reports a *TourError unless tour starts at the depot and
// tour and dropped together hold each of the n nodes exactly once.
func checkPartition(n int, tour, dropped []int) error {
	if len(tour) == 0 || tour[0] != 0 {
		node := -1
		if len(tour) > 0 {
			node = tour[0]
		}
		return &TourError{Step: 0, Node: node, Msg: "tour must start at the depot (node 0)"}
	}
	if len(tour)+len(dropped) != n {
		return &TourError{Step: -1, Node: -1, Msg: fmt.Sprintf("tour serves %d nodes and %d are dropped, instance has %d", len(tour), len(dropped), n)}
	}
	seen := make([]bool, n)
	for k, v := range tour {
		if v < 0 || v >= n {
			return &TourError{Step: k, Node: v, Msg: fmt.Sprintf("node out of range [0,%d)", n)}
		}
		if seen[v] {
			return &TourError{Step: k, Node: v, Msg: "node visited twice"}
		}
		seen[v] = true
	}
	for _, v := range dropped {
		switch {
		case v < 0 || v >= n:
			return &TourError{Step: -1, Node: v, Msg: fmt.Sprintf("dropped node out of range [0,%d)", n)}
		case v == 0:
			return &TourError{Step: -1, Node: v, Msg: "the depot cannot be dropped"}
		case seen[v]:
			return &TourError{Step: -1, Node: v, Msg: "node both served and dropped, or dropped twice"}
		}
		seen[v] = true
	}
	return nil
}

func identity(k int) []int {
	t := make([]int, k)
	for i := range t {
		t[i] = i
	}
	return t
}
