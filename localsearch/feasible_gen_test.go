package localsearch_test

import (
	"errors"
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
	t.Parallel()
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
// each, and no search found instance 0 in 30 s; GrowTour finds all five
// in about a second each. The limit allows for a machine shared with other
// work, where the parallel tests take most of the CPU (GrowTour starts after
// an eighth of it, 6 s); the search ends at its first feasible tour.
func TestFindFeasibleStuck251(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("251-node feasibility searches: not in -short")
	}
	g, err := datasets.NewStressGenerator(datasets.StressConfig{Class: "stuck", N: 251, Seed: 8251})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		in, _ := g.Next()
		if _, ok := localsearch.InsertionTour(in, 20, 1); ok && i == 0 {
			t.Fatalf("instance 0: insertion alone found a tour; the test no longer reaches GrowTour")
		}
		r, err := localsearch.FindFeasible(in, nil, localsearch.FeasibleOptions{TimeLimit: 48 * time.Second, Seed: 1})
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		res, cerr := lazymask.Check(in, r.Tour)
		if cerr != nil || !res.Feasible || !r.Feasible {
			t.Errorf("instance %d: feasible %v lateness %.3g, check %v", i, r.Feasible, r.Lateness, cerr)
		}
		t.Logf("instance %d: %v", i, r.Elapsed.Round(time.Millisecond))
	}
}

// GrowTour: where insertion leaves customers without a place (stuck class,
// 101 and 251 nodes), it returns tours that lazymask.Check accepts; where
// it reports failure, the tour is still a whole one.
func TestGrowTour(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("searches of 251-node partial tours: not in -short")
	}
	for _, n := range []int{101, 251} {
		g, err := datasets.NewStressGenerator(datasets.StressConfig{Class: "stuck", N: n, Seed: uint64(8000 + n)})
		if err != nil {
			t.Fatal(err)
		}
		grown := 0
		for i := range 5 {
			in, _ := g.Next()
			if _, ok := localsearch.InsertionTour(in, 20, 1); ok {
				continue
			}
			tour, ok := localsearch.GrowTour(in, 30*time.Second, uint64(i)) // returns at its first tour; the limit is for a loaded machine
			res, err := lazymask.Check(in, tour)
			if errors.As(err, new(*lazymask.TourError)) {
				t.Fatalf("n %d instance %d: not a whole tour: %v", n, i, err)
			}
			if ok != res.Feasible {
				t.Fatalf("n %d instance %d: GrowTour says %v, the checker %v", n, i, ok, res.Feasible)
			}
			if !ok {
				t.Errorf("n %d instance %d: no tour grown", n, i)
			}
			grown++
		}
		if grown == 0 {
			t.Errorf("n %d: insertion alone fitted every instance; the test does not reach GrowTour", n)
		}
	}
	dl, _, err := datasets.Generate(datasets.GenConfig{Problem: lazymask.TSPDL, N: 20, Hardness: "medium", Seed: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if tour, ok := localsearch.GrowTour(dl[0], time.Second, 1); ok || tour != nil {
		t.Error("a tour was grown for a TSPDL instance")
	}
}
