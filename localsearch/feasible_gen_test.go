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
