package lazymask

import (
	"errors"
	"math"
	"testing"
)

// TestCheckServed: a served tour replays on the instance without the
// dropped nodes (the same arrivals as a hand computation), its violations
// and first failure name the instance's nodes, and served plus dropped
// must be every node exactly once.
func TestCheckServed(t *testing.T) {
	// A line: depot at 0, nodes at 3, 20, 6; node 2 closes at 5.
	in := &Instance{Problem: TSPTW, N: 4, Scale: 1, X: []float64{0, 3, 20, 6}, Y: make([]float64, 4),
		Early: []float64{0, 0, 0, 0}, Late: []float64{100, 50, 5, 60}, Service: []float64{0, 1, 0, 1}}
	res, err := CheckServed(in, []int{0, 1, 3}, []int{2})
	if err != nil || !res.Feasible || math.Abs(res.Cost-12) > 1e-12 || len(res.Violation) != 4 {
		t.Fatalf("served 0 1 3: %+v %v", res, err)
	}
	stops, _, err := ScheduleServed(in, []int{0, 3, 1}, []int{2})
	// 0 → 3 arrives 6, departs 7; → 1 arrives 10, departs 11; back at 14.
	if err != nil || len(stops) != 4 || stops[1].Node != 3 || stops[2].Node != 1 || stops[2].Arrival != 10 || stops[3].Arrival != 14 {
		t.Fatalf("schedule %+v %v", stops, err)
	}
	res, err = CheckServed(in, []int{0, 2, 1}, []int{3})
	var ie *InfeasibleError
	if !errors.As(err, &ie) || ie.Node != 2 || res.Feasible || math.Abs(res.Violation[2]-15) > 1e-12 || res.Violation[3] != 0 {
		t.Fatalf("served 0 2 1: %+v %v", res, err)
	}
	if res, err := CheckServed(in, []int{0}, []int{3, 1, 2}); err != nil || !res.Feasible || res.Cost != 0 {
		t.Fatalf("depot alone: %+v %v", res, err)
	}
	for _, bad := range []struct{ tour, dropped []int }{
		{[]int{0, 1}, []int{2}},       // node 3 missing
		{[]int{0, 1, 3}, []int{2, 3}}, // node 3 twice
		{[]int{0, 1, 3, 2}, []int{0}}, // depot dropped
		{[]int{1, 0, 3}, []int{2}},    // not from the depot
		{[]int{0, 1, 3}, []int{7}},    // out of range
		{[]int{0, 1, 1, 3}, []int{}},  // visited twice
	} {
		var te *TourError
		if _, err := CheckServed(in, bad.tour, bad.dropped); !errors.As(err, &te) {
			t.Fatalf("tour %v dropped %v: want a *TourError, got %v", bad.tour, bad.dropped, err)
		}
	}
}
