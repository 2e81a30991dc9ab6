package solve

import (
	"context"
	"slices"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
)

// TestHeuristic: each instance's tours are what lazymask.Decode gives with
// seed cfg.Seed+i, replayed by the checker and sorted by lazymask.Compare
// (ties in decode order), whatever the worker count; a nil policy gives the
// urgency order.
func TestHeuristic(t *testing.T) {
	insts, _, err := datasets.Generate(datasets.GenConfig{Problem: lazymask.TSPDL, N: 15, Hardness: datasets.Hard, Seed: 3}, 12)
	if err != nil {
		t.Fatal(err)
	}
	cfg := lazymask.Config{Lookahead: lazymask.LookTSL, Budget: 5, Seed: 11}
	newRandomL := func() lazymask.Policy { return &lazymask.RandomL{} }
	two, err := Heuristic(context.Background(), insts, newRandomL, 4, cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	one, err := Heuristic(context.Background(), insts, newRandomL, 4, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	missing, infeasible := 0, 0
	for i, in := range insts {
		trajs, err := lazymask.Decode(&lazymask.RandomL{}, []*lazymask.Instance{in}, 4, lazymask.Config{Lookahead: lazymask.LookTSL, Budget: 5, Seed: 11 + uint64(i)})
		if err != nil {
			t.Fatal(err)
		}
		var want []Tour
		for k, tr := range trajs {
			w := Tour{Sample: k, Backtracks: tr.Backtracks}
			if !tr.Failed {
				w.Nodes = tr.Tour
				w.Check, _ = lazymask.Check(in, tr.Tour)
			}
			want = append(want, w)
		}
		slices.SortStableFunc(want, func(a, b Tour) int { return lazymask.Compare(a.Verdict(), b.Verdict()) })
		got := two[i].Tours
		if len(got) != 4 {
			t.Fatalf("instance %d: %d tours", i, len(got))
		}
		for k := range got {
			g, w := got[k], want[k]
			if g.Sample != w.Sample || !slices.Equal(g.Nodes, w.Nodes) || g.Verdict() != w.Verdict() || g.Backtracks != w.Backtracks {
				t.Fatalf("instance %d, tour %d: %+v, want %+v", i, k, g.Verdict(), w.Verdict())
			}
			if !slices.Equal(g.Nodes, one[i].Tours[k].Nodes) {
				t.Fatalf("instance %d: one worker gave other tours than two", i)
			}
			switch {
			case g.Nodes == nil:
				missing++
			case !g.Check.Feasible:
				infeasible++
			}
		}
	}
	t.Logf("%d missing and %d infeasible tours of %d", missing, infeasible, 4*len(insts))
	if missing+infeasible == 0 {
		t.Fatal("every tour feasible: the order is not exercised")
	}
	urg, err := Heuristic(context.Background(), insts, nil, 4, cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i, in := range insts {
		if len(urg[i].Tours) != 1 || !slices.Equal(urg[i].Tours[0].Nodes, localsearch.OrderTour(in)) {
			t.Fatalf("instance %d: urgency %+v", i, urg[i].Tours)
		}
	}
}

// TestTourVerdictOrder: feasible tours by cost even when one carries a
// violation within the tolerance, then infeasible ones by excess, then
// missing tours in their order.
func TestTourVerdictOrder(t *testing.T) {
	tour := []int{0, 1, 2}
	tours := []Tour{
		{Sample: 0},
		{Sample: 1, Nodes: tour, Check: lazymask.Result{Cost: 3, ViolatedNodes: 2, Violation: []float64{0, 0.5, 0.5}}},
		{Sample: 2, Nodes: tour, Check: lazymask.Result{Cost: 5, Feasible: true, Violation: []float64{0, 9e-6, 0}}},
		{Sample: 3, Nodes: tour, Check: lazymask.Result{Cost: 2, ViolatedNodes: 1, Violation: []float64{0, 3, 0}}},
		{Sample: 4, Nodes: tour, Check: lazymask.Result{Cost: 4, Feasible: true, Violation: []float64{0, 0, 0}}},
		{Sample: 5, Nodes: tour, Check: lazymask.Result{Cost: 9, ViolatedNodes: 1, Violation: []float64{0, 2, 0}}},
		{Sample: 6},
	}
	slices.SortStableFunc(tours, func(a, b Tour) int { return lazymask.Compare(a.Verdict(), b.Verdict()) })
	var got []int
	for _, r := range tours {
		got = append(got, r.Sample)
	}
	if want := []int{4, 2, 1, 5, 3, 0, 6}; !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", got, want)
	}
}
