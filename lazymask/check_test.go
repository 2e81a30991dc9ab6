package lazymask

import (
	"errors"
	"math"
	"testing"
)

const eps = 1e-12

// triangle is the package example: depot (0,0), node 1 (0,1), node 2 (1,1).
func triangle() *Instance {
	return &Instance{Problem: TSPTW, N: 3, Scale: 1,
		X: []float64{0, 0, 1}, Y: []float64{0, 1, 1},
		Early: []float64{0, 0, 0}, Late: []float64{10, 1, 3}, Service: make([]float64, 3)}
}

// fourPorts: demands 1/3, drafts (1, 1/3, 1, 2/3) on a unit square.
func fourPorts() *Instance {
	third := 1.0 / 3
	return &Instance{Problem: TSPDL, N: 4, Scale: 1,
		X: []float64{0, 1, 1, 0}, Y: []float64{0, 0, 1, 1},
		Demand: []float64{0, third, third, third}, Draft: []float64{1, third, 1, 2 * third}}
}

func TestCheck_TSPTWFeasible(t *testing.T) {
	res, err := Check(triangle(), []int{0, 1, 2})
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	if !res.Feasible || math.Abs(res.Cost-(2+math.Sqrt2)) > eps || res.TotalViolation != 0 || res.ViolatedNodes != 0 {
		t.Fatalf("got %+v, want feasible cost 2+√2", res)
	}
}

func TestCheck_TSPTWWaitingAndService(t *testing.T) {
	in := triangle()
	in.Early[1] = 2 // wait at node 1 until t=2, arrive at node 2 at 3 = l_2
	res, err := Check(in, []int{0, 1, 2})
	if err != nil || !res.Feasible {
		t.Fatalf("waiting until e_1: res %+v err %v, want feasible", res, err)
	}
	if math.Abs(res.Cost-(2+math.Sqrt2)) > eps {
		t.Fatalf("cost %v: waiting must not count in the cost", res.Cost)
	}
	in.Late[1] = 2
	in.Service[1] = 0.5 // service ends at 2.5, arrival at node 2 is 3.5
	res, err = Check(in, []int{0, 1, 2})
	var ie *InfeasibleError
	if !errors.As(err, &ie) {
		t.Fatalf("err %v, want *InfeasibleError", err)
	}
	want := InfeasibleError{Step: 2, Node: 2, Rule: RuleTimeWindow, Value: 3.5, Limit: 3}
	if *ie != want {
		t.Fatalf("got %+v, want %+v", *ie, want)
	}
	if res.Feasible || math.Abs(res.Violation[2]-0.5) > eps || res.Violation[1] != 0 || res.ViolatedNodes != 1 {
		t.Fatalf("result %+v, want violation 0.5 at node 2 only", res)
	}
}

func TestCheck_TSPTWLateness(t *testing.T) {
	res, err := Check(triangle(), []int{0, 2, 1})
	var ie *InfeasibleError
	if !errors.As(err, &ie) || ie.Step != 2 || ie.Node != 1 || ie.Rule != RuleTimeWindow {
		t.Fatalf("err %v, want time-window violation at step 2 node 1", err)
	}
	late := math.Sqrt2 + 1 - 1
	if math.Abs(ie.Value-(math.Sqrt2+1)) > eps || ie.Limit != 1 {
		t.Fatalf("value %v limit %v, want %v and 1", ie.Value, ie.Limit, math.Sqrt2+1)
	}
	if math.Abs(res.TotalViolation-late) > eps || res.ViolatedNodes != 1 || math.Abs(res.Cost-(2+math.Sqrt2)) > eps {
		t.Fatalf("result %+v, want violation %v, 1 node, cost 2+√2", res, late)
	}
	if ie.Error() == "" {
		t.Fatal("empty error text")
	}
}

func TestCheck_TSPDL(t *testing.T) {
	in := fourPorts()
	res, err := Check(in, []int{0, 1, 3, 2})
	if err != nil || !res.Feasible || math.Abs(res.Cost-(2+2*math.Sqrt2)) > eps {
		t.Fatalf("0-1-3-2: res %+v err %v, want feasible cost 2+2√2", res, err)
	}
	res, err = Check(in, []int{0, 2, 1, 3})
	var ie *InfeasibleError
	if !errors.As(err, &ie) {
		t.Fatalf("0-2-1-3: err %v, want *InfeasibleError", err)
	}
	if ie.Step != 2 || ie.Node != 1 || ie.Rule != RuleDraftLimit || math.Abs(ie.Value-2.0/3) > eps || math.Abs(ie.Limit-1.0/3) > eps {
		t.Fatalf("first violation %+v, want step 2 node 1 load 2/3 limit 1/3", *ie)
	}
	if res.ViolatedNodes != 2 || math.Abs(res.TotalViolation-2.0/3) > eps ||
		math.Abs(res.Violation[1]-1.0/3) > eps || math.Abs(res.Violation[3]-1.0/3) > eps || res.Violation[2] != 0 {
		t.Fatalf("result %+v, want 1/3 at nodes 1 and 3", res)
	}
	if want := 2 + 2*math.Sqrt2; math.Abs(res.Cost-want) > eps {
		t.Fatalf("cost %v, want %v", res.Cost, want)
	}
}

func TestCheck_Tolerance(t *testing.T) {
	in := triangle()
	in.Late[1] = 1 - 0.9e-5 // late by 0.9e-5 ≤ Tol: feasible
	if res, err := Check(in, []int{0, 1, 2}); err != nil || !res.Feasible {
		t.Fatalf("lateness within Tol: res %+v err %v", res, err)
	}
	in.Late[1] = 1 - 2e-5
	if _, err := Check(in, []int{0, 1, 2}); err == nil {
		t.Fatal("lateness 2e-5 > Tol accepted")
	}
}

func TestCheck_DistMatrix(t *testing.T) {
	in := triangle()
	in.Dist = []float64{
		0, 1, 5,
		1, 0, 1,
		7, 1, 0,
	}
	res, err := Check(in, []int{0, 1, 2})
	if err != nil || res.Cost != 9 {
		t.Fatalf("cost %v err %v, want 1+1+7 = 9 from the matrix", res.Cost, err)
	}
	in.Dist[1*3+2] = 2.5 // arrival at node 2 at 3.5 > 3
	in.ResetCache()
	_, err = Check(in, []int{0, 1, 2})
	var ie *InfeasibleError
	if !errors.As(err, &ie) || ie.Node != 2 || ie.Value != 3.5 {
		t.Fatalf("err %v, want arrival 3.5 at node 2 from the matrix", err)
	}
}

func TestCheck_Malformed(t *testing.T) {
	cases := []struct {
		name       string
		tour       []int
		step, node int
	}{
		{"short", []int{0, 1}, -1, -1},
		{"long", []int{0, 1, 2, 1}, -1, -1},
		{"not at depot", []int{1, 0, 2}, 0, 1},
		{"out of range", []int{0, 3, 1}, 1, 3},
		{"negative", []int{0, -1, 1}, 1, -1},
		{"repeat", []int{0, 2, 2}, 2, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Check(triangle(), c.tour)
			var te *TourError
			if !errors.As(err, &te) {
				t.Fatalf("err %v, want *TourError", err)
			}
			if te.Step != c.step || te.Node != c.node {
				t.Fatalf("got step %d node %d, want %d %d (%v)", te.Step, te.Node, c.step, c.node, err)
			}
			if res.Feasible || res.Cost != 0 || res.Violation != nil {
				t.Fatalf("malformed tour gave non-zero result %+v", res)
			}
		})
	}
}

func TestRotate(t *testing.T) {
	cases := []struct {
		in      []int
		reverse bool
		want    []int
	}{
		{[]int{3, 0, 1, 2}, false, []int{0, 1, 2, 3}},
		{[]int{3, 0, 1, 2}, true, []int{0, 3, 2, 1}},
		{[]int{0, 2, 1}, false, []int{0, 2, 1}},
		{[]int{0, 2, 1}, true, []int{0, 1, 2}},
		{[]int{2, 1}, false, nil},
	}
	for _, c := range cases {
		got := Rotate(c.in, c.reverse)
		if len(got) != len(c.want) || (got == nil) != (c.want == nil) {
			t.Fatalf("Rotate(%v,%v) = %v, want %v", c.in, c.reverse, got, c.want)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Fatalf("Rotate(%v,%v) = %v, want %v", c.in, c.reverse, got, c.want)
			}
		}
	}
}
