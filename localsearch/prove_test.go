package localsearch

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lmask/lmask/exact"
)

// TestProveEndsSearch: a TSPTW search under a time limit asks Options.Prove
// once, after its start's descent, with that local optimum's cost as the
// bound and whether the matrix keeps the triangle inequality; a proof ends
// the search there with the proved tour and no kicks, at exact's optimum.
func TestProveEndsSearch(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 22))
	for k, kind := range []distKind{euclid, rounded, asymm} {
		in, hidden := randTSPTW(rng, 40, kind, 1.5) // windows wide enough for kicks (5 of 5 run without Prove)
		calls := 0
		var gotUpper float64
		var gotMetric bool
		opt := Options{Kicks: 1000, Seed: 1, TimeLimit: time.Minute,
			Prove: func(upper float64, deadline time.Time, metric bool) ([]int, bool) {
				calls++
				gotUpper, gotMetric = upper, metric
				r, err := exact.Solve(in, exact.Options{Upper: upper, Deadline: deadline, Metric: metric})
				return r.Tour, err == nil
			}}
		res, err := Improve(in, hidden, opt)
		if err != nil {
			t.Fatal(err)
		}
		want, err := exact.Solve(in, exact.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if calls != 1 || !res.Optimal || res.Kicks != 0 || !res.Feasible {
			t.Fatalf("case %d: %d calls, optimal %v, %d kicks, feasible %v", k, calls, res.Optimal, res.Kicks, res.Feasible)
		}
		if math.Abs(res.Cost-want.Cost) > 1e-9 || gotUpper < want.Cost-1e-9 {
			t.Fatalf("case %d: cost %.9f, exact %.9f, bound given %.9f", k, res.Cost, want.Cost, gotUpper)
		}
		if gotMetric != (kind == euclid) {
			t.Fatalf("case %d (%v): metric %v", k, kind, gotMetric)
		}
	}
}

// TestProveFails: where Prove cannot tell, or gives no tour of this
// instance, the kicks run as without it and nothing is called optimal;
// without a time limit, or for TSPDL, Prove is not asked.
func TestProveFails(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(23, 24))
	in, hidden := randTSPTW(rng, 40, euclid, 1.5)
	for k, prove := range []func(float64, time.Time, bool) ([]int, bool){
		func(float64, time.Time, bool) ([]int, bool) { return nil, false },
		func(float64, time.Time, bool) ([]int, bool) { return []int{0, 1}, true },
	} {
		res, err := Improve(in, hidden, Options{Kicks: 5, Seed: 1, TimeLimit: time.Minute, Prove: prove})
		if err != nil {
			t.Fatal(err)
		}
		if res.Optimal || res.Kicks != 5 {
			t.Fatalf("case %d: optimal %v after %d kicks", k, res.Optimal, res.Kicks)
		}
	}
	asked := false
	never := func(float64, time.Time, bool) ([]int, bool) { asked = true; return nil, false }
	if _, err := Improve(in, hidden, Options{Kicks: 5, Seed: 1, Prove: never}); err != nil || asked {
		t.Fatalf("without a time limit: asked %v, %v", asked, err)
	}
	dl, tour := randTSPDL(rng, 20, euclid, 0.3)
	if _, err := Improve(dl, tour, Options{Kicks: 5, Seed: 1, TimeLimit: time.Minute, Prove: never}); err != nil || asked {
		t.Fatalf("TSPDL: asked %v, %v", asked, err)
	}
}
