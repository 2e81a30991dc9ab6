package solve

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/exact"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
)

// TestImproveProves: under a deadline with Prove, the searches of
// tight-window instances (the stress class R1, 41 nodes) end proved
// optimal, at exact's optimum, and Stats counts them; without Prove none
// is.
func TestImproveProves(t *testing.T) {
	g, err := datasets.NewStressGenerator(datasets.StressConfig{Class: "R1", N: 41, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var jobs []Job
	var opt []float64
	for i := range 6 {
		in, known := g.Next()
		jobs = append(jobs, Job{Inst: in, Starts: [][]int{known}, Seed: uint64(i)})
		r, err := exact.Solve(in, exact.Options{})
		if err != nil {
			t.Fatal(err)
		}
		opt = append(opt, r.Cost)
	}
	for _, prove := range []bool{true, false} {
		o := Options{Search: localsearch.Options{Kicks: 30}, Prove: prove, Workers: 2, Deadline: time.Now().Add(time.Minute)}
		res, st, err := Improve(context.Background(), jobs, o)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if prove {
			want = len(jobs)
		}
		if st.Proven != want {
			t.Fatalf("prove %v: %d proved, want %d", prove, st.Proven, want)
		}
		for i, r := range res {
			if !r.Final.Feasible || r.Search.Optimal != prove {
				t.Fatalf("prove %v, instance %d: feasible %v, optimal %v", prove, i, r.Final.Feasible, r.Search.Optimal)
			}
			if prove && math.Abs(r.Search.Check.Cost-opt[i]) > 1e-9 {
				t.Fatalf("instance %d: proved %.9f, exact %.9f", i, r.Search.Check.Cost, opt[i])
			}
		}
	}
}

// TestSmallProofs: an instance of at most smallProveN nodes tries its
// proof even where the gate has closed, with at least smallProveTime
// whatever deadline the search gives, and outside the gate's counts; a
// larger one passes the gate's closed turns.
func TestSmallProofs(t *testing.T) {
	gen := func(n int) *datasets.StressGenerator {
		g, err := datasets.NewStressGenerator(datasets.StressConfig{Class: "R1", N: n, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	small, _ := gen(smallProveN).Next()
	large, _ := gen(smallProveN + 1).Next()
	var p proofs
	p.tried.Store(proveProbe) // the first tries all failed: the gate is closed
	f := p.prover(small)
	if f == nil {
		t.Fatal("a small instance passed its proof")
	}
	want, err := exact.Solve(small, exact.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tour, ok := f(0, time.Now().Add(-time.Second), true) // a deadline already past
	if !ok || len(tour) != small.N {
		t.Fatalf("small instance not proved under the floor: ok %v", ok)
	}
	if got := p.tried.Load(); got != proveProbe || p.found.Load() != 0 {
		t.Fatalf("the small proof was counted: tried %d, found %d", got, p.found.Load())
	}
	passed := 0
	for range proveRate {
		if p.prover(large) == nil {
			passed++
		}
	}
	if passed != proveRate-1 {
		t.Fatalf("closed gate: %d of %d larger instances passed, want %d", passed, proveRate, proveRate-1)
	}
	if chk, err := lazymask.Check(small, tour); err != nil || !chk.Feasible || math.Abs(chk.Cost-want.Cost) > 1e-9 {
		t.Fatalf("proved tour: length %v (feasible %v), exact's optimum %v", chk.Cost, chk.Feasible, want.Cost)
	}
}
