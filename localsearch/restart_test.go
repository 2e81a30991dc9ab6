package localsearch

import (
	"testing"

	"github.com/lmask/lmask/datasets"
)

// TestRestartLeavesStalledBasin: on 8 instances of the stress class
// "stuck" (61 nodes, seed 3), 400 kicks from the urgency order stall, and
// the restarts (after stallKicks kicks without a gain) leave those local optima:
// the total length falls and instance 6 ends strictly shorter (14.831 →
// 14.796 when this was written), where without restarts its kicks stayed
// at one local optimum to the end.
func TestRestartLeavesStalledBasin(t *testing.T) {
	run := func(on bool) ([]float64, int) {
		defer func(old bool) { restarts = old }(restarts)
		restarts = on
		g, err := datasets.NewStressGenerator(datasets.StressConfig{Class: "stuck", N: 61, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		var costs []float64
		n := 0
		for i := range 8 {
			in, _ := g.Next()
			r, err := Improve(in, OrderTour(in), Options{Kicks: 400, Seed: uint64(i)})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Feasible {
				t.Fatalf("instance %d: infeasible result", i)
			}
			costs = append(costs, r.Cost)
			n += r.Restarts
		}
		return costs, n
	}
	off, n0 := run(false)
	on, n1 := run(true)
	if n0 != 0 || n1 == 0 {
		t.Fatalf("restarts: %d without, %d with", n0, n1)
	}
	sumOff, sumOn := 0.0, 0.0
	for i := range on {
		sumOff, sumOn = sumOff+off[i], sumOn+on[i]
	}
	for _, i := range []int{6} {
		if on[i] >= off[i]-1e-9 {
			t.Errorf("instance %d: %.4f with restarts, %.4f without: the stalled local optimum was not left", i, on[i], off[i])
		}
	}
	if sumOn >= sumOff {
		t.Errorf("total length %.4f with restarts, %.4f without", sumOn, sumOff)
	}
}
