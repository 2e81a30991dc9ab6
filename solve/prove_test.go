package solve

import (
	"math"
	"testing"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/exact"
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
		res, st, err := Improve(jobs, o)
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
