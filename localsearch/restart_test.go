package localsearch

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// TestRestartLeavesStalledBasin: on 8 instances of the stress class
// "stuck" (61 nodes, seed 3), 400 kicks from the urgency order stall, and
// the restarts (after stallKicks kicks without a gain) leave those local optima:
// the total length falls and instance 6 ends strictly shorter (14.831 →
// 14.796 when this was written), where without restarts its kicks stayed
// at one local optimum to the end.
func TestRestartLeavesStalledBasin(t *testing.T) {
	t.Parallel()
	// The restarts alone: with warp kicks (on by default) both runs reach
	// the restarts' lengths here, and so do the neighbour-list descents
	// (the class folds its service times into the travel times, which the
	// lists take since 2026-12-07): full scans keep the stall.
	run := func(on bool) ([]float64, int) {
		tune := func(p *params) { p.warpKicks, p.near, p.restarts = false, false, on }
		g, err := datasets.NewStressGenerator(datasets.StressConfig{Class: "stuck", N: 61, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		var costs []float64
		n := 0
		for i := range 8 {
			in, _ := g.Next()
			r, err := Improve(in, OrderTour(in), Options{Kicks: 400, Seed: uint64(i), tune: tune})
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

// TestInsertionTour: on wide-window stress instances, where the urgency
// order is infeasible, InsertionTour builds tours that lazymask.Check
// accepts, the same for the same seed; an instance with a customer no tour
// can reach in time gets its least late tour, reported infeasible, and a
// TSPDL instance none.
func TestInsertionTour(t *testing.T) {
	t.Parallel()
	g, err := datasets.NewStressGenerator(datasets.StressConfig{Class: "RC2", N: 101, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	built := 0
	for i := range 5 {
		in, _ := g.Next()
		tour, ok := InsertionTour(in, 20, uint64(i))
		if !ok {
			continue
		}
		built++
		chk, err := lazymask.Check(in, tour)
		if err != nil || !chk.Feasible {
			t.Fatalf("instance %d: insertion tour not feasible (%v, %+v)", i, err, chk.Verdict())
		}
		again, _ := InsertionTour(in, 20, uint64(i))
		if !slices.Equal(again, tour) {
			t.Fatalf("instance %d: a second call with the same seed built another tour", i)
		}
		if u, _ := lazymask.Check(in, OrderTour(in)); u.Feasible {
			t.Logf("instance %d: the urgency order is feasible too", i)
		}
	}
	if built < 4 {
		t.Errorf("insertion built %d of 5 tours", built)
	}
	in, _ := g.Next()
	in = in.Clone()
	in.Late[5] = in.Matrix()[5] / 2 // unreachable even straight from the depot
	tour, ok := InsertionTour(in, 20, 1)
	if ok {
		t.Error("a feasible tour was reported for an instance with an unreachable customer")
	}
	// The least late try comes back: a whole tour, late where customer 5
	// was postponed to, after every customer that fitted.
	chk, err := lazymask.Check(in, tour)
	if errors.As(err, new(*lazymask.TourError)) || chk.Feasible || chk.Violation[5] <= 0 {
		t.Errorf("least late tour %v: %v, feasible %v, violation at 5 %v", tour, err, chk.Feasible, chk.Violation[5])
	}
	dl, _, err := datasets.Generate(datasets.GenConfig{Problem: lazymask.TSPDL, N: 20, Hardness: "medium", Seed: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if tour, ok := InsertionTour(dl[0], 20, 1); ok || tour != nil {
		t.Error("a tour was built for a TSPDL instance")
	}
}

// TestUntilFeasible: from an infeasible start, Options.UntilFeasible ends
// the search at its first feasible tour (the repair's local optimum, no
// kick), where the same search without it goes on kicking.
func TestUntilFeasible(t *testing.T) {
	t.Parallel()
	g, err := datasets.NewStressGenerator(datasets.StressConfig{Class: "R2", N: 51, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for i := range 5 {
		in, _ := g.Next()
		start := OrderTour(in)
		if c, _ := lazymask.Check(in, start); c.Feasible {
			continue
		}
		opt := Options{Kicks: 50, Seed: 1}
		all, err := ImproveFrom(in, [][]int{start}, opt)
		if err != nil {
			t.Fatal(err)
		}
		opt.UntilFeasible = true
		first, err := ImproveFrom(in, [][]int{start}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !all.Feasible || !first.Feasible {
			continue // the repair alone did not reach a feasible tour
		}
		checked++
		if first.Kicks != 0 || all.Kicks == 0 || first.Cost < all.Cost-1e-9 {
			t.Errorf("instance %d: until feasible %d kicks, cost %v; without %d kicks, cost %v", i, first.Kicks, first.Cost, all.Kicks, all.Cost)
		}
	}
	if checked == 0 {
		t.Fatal("no instance had an infeasible urgency order that the repair made feasible")
	}
}

// TestRestartCapsRepair: on Ohlmann-Thomas n150w160.003 the urgency order
// is infeasible and its repair costs many kicks. After 20 kicks the first
// restart gives up that repair at restartRepair kicks' evaluations and
// descends from an insertion tour instead: feasible, and far cheaper than
// the whole repair, which the same restart runs when the mean kick is made
// so costly that the cap is never reached.
func TestRestartCapsRepair(t *testing.T) {
	t.Parallel()
	in := benchmarkInstance(t, "tsptw-ohlmann-thomas", "n150w160.003")
	if r, _ := lazymask.Check(in, OrderTour(in)); r.Feasible {
		t.Fatal("the urgency order is feasible: the test shows nothing")
	}
	ins, ok := InsertionTour(in, 20, 7)
	if !ok {
		t.Fatal("no insertion tour")
	}
	// A start that is not the insertion tour itself (a restart skips the
	// starts): its local optimum after a few kicks.
	r, err := Improve(in, ins, Options{Kicks: 5, Seed: 1})
	if err != nil || !r.Feasible || slices.Equal(r.Tour, ins) {
		t.Fatalf("start: %v, feasible %v", err, r.Feasible)
	}
	start := r.Tour
	cost := func(evalsPerKick int) (evals int, feasible bool, tour []int) {
		res := Result{}
		se := newSearch(in, Options{Seed: 3}, time.Now(), &res)
		se.st.set(start)
		se.descend()
		se.kicking = true
		se.kickEvals, se.res.Kicks = se.res.Evaluations-20*evalsPerKick, 20
		before := se.res.Evaluations
		feasible = se.restart([][]int{start}, slices.Clone(se.st.tour))
		return se.res.Evaluations - before, feasible, slices.Clone(se.st.tour)
	}
	capped, okC, tourC := cost(2_000)
	full, okF, tourF := cost(1 << 40)
	t.Logf("restart evaluations: capped %d, full repair %d", capped, full)
	if !okC || !okF {
		t.Fatalf("restarts feasible: capped %v, full %v", okC, okF)
	}
	if capped*3 > full {
		t.Errorf("the capped restart took %d evaluations, the full repair %d: no saving", capped, full)
	}
	if slices.Equal(tourC, tourF) {
		t.Error("the capped restart ended where the repair did: the insertion tour was not taken")
	}
	if r, err := lazymask.Check(in, tourC); err != nil || !r.Feasible {
		t.Fatalf("capped restart's tour: %v %+v", err, r)
	}
}
