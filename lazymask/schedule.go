package lazymask

import "math"

// Stop is one position of a replayed tour: where the vehicle is and when,
// or what it carries. Values are in the instance's stored units (times ×
// Instance.Scale are original units).
type Stop struct {
	// Node is the node visited; the last Stop of a schedule is the return
	// to the depot.
	Node int
	// Travel is D(previous node, Node); 0 at the start.
	Travel float64
	// TSPTW: Arrival = previous departure + Travel; Start = max(Arrival,
	// Early); Wait = Start − Arrival; Departure = Start + Service; Late =
	// max(0, Arrival − Late[Node]) (what Check counts as the violation).
	// At the start all are 0; the return has only Travel and Arrival (Check
	// tests no window there).
	Arrival, Wait, Start, Departure, Late float64
	// TSPDL: Load after the visit (accumulated from 0 at the depot, as
	// Check does), Limit the draft limit and Slack = Limit − Load (negative
	// when the limit is broken). The depot rows have no Limit or Slack:
	// Check tests no limit there.
	Load, Limit, Slack float64
}

// Schedule replays tour with Check and returns, beside Check's result and
// error, the stops in tour order: the depot at time 0 (load 0), every
// customer, then the return to the depot. The values follow Check's
// semantics exactly, so a stop is late (or over its limit) by more than Tol
// exactly where Check reports a violation. A malformed tour returns nil
// stops and Check's *TourError.
func Schedule(inst *Instance, tour []int) ([]Stop, Result, error) {
	res, err := Check(inst, tour)
	if _, bad := err.(*TourError); bad {
		return nil, res, err
	}
	n := inst.N
	stops := make([]Stop, 0, n+1)
	stops = append(stops, Stop{Node: 0})
	dist := inst.edge()
	t, load, prev := 0.0, 0.0, 0
	for k := 1; k < n; k++ {
		cur := tour[k]
		s := Stop{Node: cur, Travel: dist(prev, cur)}
		switch inst.Problem {
		case TSPTW:
			s.Arrival = t + s.Travel
			s.Start = math.Max(s.Arrival, inst.Early[cur])
			s.Wait = s.Start - s.Arrival
			s.Departure = s.Start + inst.Service[cur]
			s.Late = math.Max(0, s.Arrival-inst.Late[cur])
			t = s.Departure
		case TSPDL:
			load += inst.Demand[cur]
			s.Load, s.Limit, s.Slack = load, inst.Draft[cur], inst.Draft[cur]-load
		}
		stops = append(stops, s)
		prev = cur
	}
	back := Stop{Node: 0, Travel: dist(prev, 0)}
	if inst.Problem == TSPTW {
		back.Arrival = t + back.Travel
	} else {
		back.Load = load
	}
	stops = append(stops, back)
	return stops, res, err
}
