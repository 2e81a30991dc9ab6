package localsearch_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
)

// FindFeasible finds a tour for every generated hard instance (feasible by
// construction: the generator keeps the tour it built the windows or limits
// from), from the window order alone, at sizes far from any training size.
func TestFindFeasibleGenerated(t *testing.T) {
	sizes := []int{12, 16, 20, 37, 50, 100, 150, 200, 333, 500}
	count := 3
	if testing.Short() {
		sizes, count = []int{20, 100}, 2
	}
	for _, p := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
		for _, n := range sizes {
			t.Run(fmt.Sprintf("%s-%d", p, n), func(t *testing.T) {
				insts, tours, err := datasets.Generate(datasets.GenConfig{Problem: p, N: n, Hardness: datasets.Hard, Seed: uint64(7 + n)}, count)
				if err != nil {
					t.Fatal(err)
				}
				for i, in := range insts {
					if tours[i] == nil {
						t.Fatalf("instance %d has no known tour", i)
					}
					r, err := localsearch.FindFeasible(in, nil, localsearch.FeasibleOptions{TimeLimit: 20 * time.Second, Seed: 1})
					if err != nil {
						t.Fatalf("instance %d: %v", i, err)
					}
					res, cerr := lazymask.Check(in, r.Tour)
					if cerr != nil || !res.Feasible || !r.Feasible || r.Lateness != 0 {
						t.Errorf("instance %d: feasible %v lateness %g, check %v", i, r.Feasible, r.Lateness, cerr)
					}
					t.Logf("instance %d: %d shakes, %d moves, %v", i, r.Shakes, r.Moves, r.Elapsed.Round(time.Millisecond))
				}
			})
		}
	}
}

// FindFeasible on the stress suite's stuck class at 251 nodes (feasible by
// construction): open windows around a quarter of 120-unit windows in an
// order the geometry does not suggest, with the horizon at the end of the
// generator's tour. The lateness descent alone found two of five in 20 s
// each; InsertionTour's postponed customers give it starts late only at
// the end, and four of the five become feasible within 2 s.
func TestFindFeasibleStuck251(t *testing.T) {
	if testing.Short() {
		t.Skip("251-node feasibility searches: not in -short")
	}
	g, err := datasets.NewStressGenerator(datasets.StressConfig{Class: "stuck", N: 251, Seed: 8251})
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for i := range 5 {
		in, _ := g.Next()
		r, err := localsearch.FindFeasible(in, nil, localsearch.FeasibleOptions{TimeLimit: 2 * time.Second, Seed: 1})
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		res, cerr := lazymask.Check(in, r.Tour)
		if cerr != nil && r.Feasible {
			t.Fatalf("instance %d: reported feasible, check %v", i, cerr)
		}
		if res.Feasible {
			found++
		}
		t.Logf("instance %d: feasible %v lateness %.3g, %v", i, res.Feasible, r.Lateness, r.Elapsed.Round(time.Millisecond))
	}
	if found < 4 {
		t.Errorf("feasible tours for %d of 5 stuck-class instances at 251 nodes, want at least 4", found)
	}
}
