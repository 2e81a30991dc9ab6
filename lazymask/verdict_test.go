package lazymask

import (
	"math"
	"slices"
	"testing"
)

// TestVerdict_Excess: the excess leaves out the tolerance of every violated
// node and any violation within it.
func TestVerdict_Excess(t *testing.T) {
	in := triangle()
	in.Late[1], in.Late[2] = 0.5, 2 // arrivals 1 and 2: node 1 late by 0.5, node 2 on time
	res, _ := Check(in, []int{0, 1, 2})
	v := res.Verdict()
	if !v.Complete || v.Feasible || v.ViolatedNodes != 1 || math.Abs(v.Excess-(0.5-Tol)) > eps || v.Cost != res.Cost {
		t.Fatalf("verdict %+v of %+v, want one violated node with excess 0.5 − Tol", v, res)
	}
	in.Late[1] = 1 - Tol/2 // late by half the tolerance: feasible, no excess
	res, _ = Check(in, []int{0, 1, 2})
	if v := res.Verdict(); !v.Feasible || v.Excess != 0 || v.ViolatedNodes != 0 {
		t.Fatalf("within the tolerance: %+v", v)
	}
}

// TestCompare pins the order on a table sorted best first: feasible by cost,
// then infeasible by excess, violated nodes and cost, then missing tours.
func TestCompare(t *testing.T) {
	want := []Verdict{
		{Complete: true, Feasible: true, Cost: 1},
		{Complete: true, Feasible: true, Cost: 2, Excess: 0},
		{Complete: true, Cost: 0.5, Excess: 0.1, ViolatedNodes: 3},
		{Complete: true, Cost: 0.5, Excess: 0.2, ViolatedNodes: 1},
		{Complete: true, Cost: 0.4, Excess: 0.2, ViolatedNodes: 2},
		{Complete: true, Cost: 0.6, Excess: 0.2, ViolatedNodes: 2},
		{},
	}
	for i := range want {
		for j := range want {
			got := Compare(want[i], want[j])
			if exp := map[bool]int{true: -1, false: 1}[i < j]; i != j && got != exp || i == j && got != 0 {
				t.Errorf("Compare(%+v, %+v) = %d", want[i], want[j], got)
			}
		}
	}
	shuffled := []Verdict{want[6], want[3], want[1], want[5], want[0], want[4], want[2]}
	slices.SortStableFunc(shuffled, Compare)
	if !slices.Equal(shuffled, want) {
		t.Fatalf("sorted %+v", shuffled)
	}
	if Compare(Verdict{}, Verdict{}) != 0 {
		t.Fatal("two missing tours must tie")
	}
}
