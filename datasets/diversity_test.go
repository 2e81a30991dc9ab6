package datasets

import (
	"math"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

func TestTourDiversity(t *testing.T) {
	a, rev, swap := []int{0, 1, 2, 3}, []int{0, 3, 2, 1}, []int{0, 2, 1, 3}
	for _, c := range []struct {
		name     string
		tours    [][]int
		distinct int
		edge     float64
	}{
		{"one", [][]int{a}, 1, 0},
		{"same", [][]int{a, {0, 1, 2, 3}}, 1, 0},
		{"reversed: no directed edge shared", [][]int{a, rev}, 2, 1},
		{"two swapped nodes: 3 of 4 edges differ", [][]int{a, swap}, 2, 0.75},
		{"a twice and its reverse: pairs 0, 1, 0, 1, 1, 1", [][]int{a, a, rev}, 2, 4.0 / 6},
	} {
		d, e := TourDiversity(c.tours)
		if d != c.distinct || math.Abs(e-c.edge) > 1e-12 {
			t.Errorf("%s: got %d distinct, edge share %v; want %d, %v", c.name, d, e, c.distinct, c.edge)
		}
	}
}

// EvaluateDiversity counts only feasible tours, and only instances with two
// or more.
func TestEvaluateDiversity(t *testing.T) {
	open := func() *lazymask.Instance { // no binding window: every order is feasible
		in := squareInstance()
		in.Late = []float64{100, 100, 100, 100}
		return in
	}
	insts := []*lazymask.Instance{open(), open(), squareInstance()}
	sols := []Solution{
		{Instance: 0, Tour: []int{0, 1, 2, 3}}, {Instance: 0, Tour: []int{0, 1, 2, 3}}, {Instance: 0, Tour: []int{0, 2, 1, 3}},
		{Instance: 1, Tour: []int{0, 1, 2, 3}}, {Instance: 1, Tour: nil},
		{Instance: 2, Tour: []int{0, 1, 2, 3}}, {Instance: 2, Tour: []int{0, 3, 2, 1}}, // the second is late
	}
	// instance 0: pairs (same 0, swap 0.75) from each copy and 0.75 twice from the swap: 3/6
	m, d, err := EvaluateDiversity(insts, sols, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Instances != 1 || d.DistinctTours != 2 || math.Abs(d.EdgeShare-0.5) > 1e-12 {
		t.Fatalf("diversity %+v; want 1 instance, 2 distinct, edge share 0.5", d)
	}
	f := d.JSONFields(m)
	if f["diversity_instances"] != 1 || f["distinct_tours"] != 2.0 || math.Abs(f["edge_diversity"].(float64)-0.5) > 1e-12 ||
		f["instances"] != m.JSONFields()["instances"] {
		t.Errorf("JSON fields %v", f)
	}
	m, d, err = EvaluateDiversity(insts[1:2], []Solution{{Instance: 0, Tour: []int{0, 1, 2, 3}}}, nil)
	if err != nil || d != (Diversity{}) {
		t.Errorf("one tour: %+v, want none", d)
	}
	for _, k := range []string{"diversity_instances", "distinct_tours", "edge_diversity"} {
		if _, ok := d.JSONFields(m)[k]; ok {
			t.Errorf("%s written without an instance of two tours", k)
		}
	}
}
