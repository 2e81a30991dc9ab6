package localsearch

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/internal/testenv"
	"github.com/lmask/lmask/lazymask"
)

// seedCosts searches in from start with the given kicks under seeds
// 0..seeds−1 and returns the tours' lengths in the instance's units,
// rounded, failing the test on an error or an infeasible result.
func seedCosts(t *testing.T, in *lazymask.Instance, start []int, kicks, seeds int) []float64 {
	t.Helper()
	return seedCostsTuned(t, in, start, kicks, seeds, nil)
}

// seedCostsTuned is seedCosts with the search's tunables changed by tune.
func seedCostsTuned(t *testing.T, in *lazymask.Instance, start []int, kicks, seeds int, tune func(*params)) []float64 {
	t.Helper()
	var out []float64
	for seed := range uint64(seeds) {
		r, err := Improve(in, start, Options{Kicks: kicks, Seed: seed, tune: tune})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Feasible {
			t.Fatalf("seed %d: infeasible result", seed)
		}
		out = append(out, math.Round(r.Cost*in.Scale))
	}
	return out
}

// noNear turns the neighbour-list scans off: every scan is a full one.
func noNear(p *params) { p.near = false }

// benchmarkInstance imports the named instance of a benchmark folder of
// ../shared/benchmarks (the test skips where ../shared is absent).
func benchmarkInstance(t *testing.T, bench, name string) *lazymask.Instance {
	t.Helper()
	dir := testenv.SharedFile(t, "benchmarks", bench)
	bm, err := datasets.ImportBenchmark(dir, "", datasets.BenchmarkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range bm.Dataset.Instances {
		if x.Name == name {
			return x
		}
	}
	t.Fatalf("%s not imported from %s", name, dir)
	return nil
}

// distKind selects how a test instance's travel times are made.
type distKind int

const (
	euclid    distKind = iota // from coordinates
	intMatrix                 // symmetric integers, triangle inequality broken
	asymm                     // asymmetric reals
	rounded                   // Euclidean rounded to 0.05, as benchmark files store them (triangle broken by rounding)
	folded                    // rounded, plus a per-node constant on each outgoing arc (a service time folded in): asymmetric
)

// randMatrix returns an N×N travel-time matrix of the given kind for the
// coordinates x, y, or nil.
func randMatrix(rng *rand.Rand, n int, kind distKind, x, y []float64) []float64 {
	if kind == euclid {
		return nil
	}
	m := make([]float64, n*n)
	if kind == rounded || kind == folded {
		for i := 0; i < n; i++ {
			out := 0.0
			if kind == folded && i > 0 {
				out = math.Round(20*0.1*rng.Float64()) / 20
			}
			for j := 0; j < n; j++ {
				if j != i {
					m[i*n+j] = math.Round(20*math.Hypot(x[i]-x[j], y[i]-y[j]))/20 + out
				}
			}
		}
		return m
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if i == j {
				continue
			}
			switch kind {
			case intMatrix:
				if j > i {
					v := float64(1 + rng.IntN(30))
					m[i*n+j], m[j*n+i] = v/30, v/30
				}
			case asymm:
				m[i*n+j] = 0.05 + rng.Float64()
			}
		}
	}
	return m
}

// perm returns a random tour starting at the depot.
func perm(rng *rand.Rand, n int) []int {
	t := []int{0}
	for _, v := range rng.Perm(n - 1) {
		t = append(t, v+1)
	}
	return t
}

// randTSPTW returns an instance built around a hidden random tour that is
// feasible for it; width scales the windows (small = tight). The hidden
// tour is returned too.
func randTSPTW(rng *rand.Rand, n int, kind distKind, width float64) (*lazymask.Instance, []int) {
	in := &lazymask.Instance{Problem: lazymask.TSPTW, N: n, Scale: 1,
		X: make([]float64, n), Y: make([]float64, n),
		Early: make([]float64, n), Late: make([]float64, n), Service: make([]float64, n)}
	for i := 0; i < n; i++ {
		in.X[i], in.Y[i] = rng.Float64(), rng.Float64()
		if i > 0 && rng.IntN(3) == 0 {
			in.Service[i] = 0.1 * rng.Float64()
		}
	}
	in.Dist = randMatrix(rng, n, kind, in.X, in.Y)
	hidden := perm(rng, n)
	t := 0.0
	in.Late[0] = 1e3
	for k := 1; k < n; k++ {
		cur := hidden[k]
		arr := t + in.D(hidden[k-1], cur)
		in.Early[cur] = math.Max(0, arr-width*rng.Float64())
		in.Late[cur] = arr + width*rng.Float64()
		t = math.Max(arr, in.Early[cur]) + in.Service[cur]
	}
	return in, hidden
}

// randTSPDL returns an instance with a hidden feasible tour; slack scales
// the draft limits above the hidden tour's loads.
func randTSPDL(rng *rand.Rand, n int, kind distKind, slack float64) (*lazymask.Instance, []int) {
	in := &lazymask.Instance{Problem: lazymask.TSPDL, N: n, Scale: 1,
		X: make([]float64, n), Y: make([]float64, n),
		Demand: make([]float64, n), Draft: make([]float64, n)}
	total := 0.0
	for i := 0; i < n; i++ {
		in.X[i], in.Y[i] = rng.Float64(), rng.Float64()
		if i > 0 {
			in.Demand[i] = 0.5 + rng.Float64()
			total += in.Demand[i]
		}
	}
	in.Dist = randMatrix(rng, n, kind, in.X, in.Y)
	hidden := perm(rng, n)
	load := 0.0
	in.Draft[0] = total
	for k := 1; k < n; k++ {
		cur := hidden[k]
		load += in.Demand[cur]
		in.Draft[cur] = math.Min(total, load+slack*total*rng.Float64())
		if rng.IntN(4) == 0 {
			in.Draft[cur] = total
		}
	}
	return in, hidden
}

// excessOf is Σ max(0, v − Tol) of a checked tour.
func excessOf(r lazymask.Result) float64 {
	ex := 0.0
	for _, v := range r.Violation {
		if v > lazymask.Tol {
			ex += v - lazymask.Tol
		}
	}
	return ex
}

// neighbours lists every neighbour of tour under the four neighbourhoods
// (segments up to maxSeg), built by direct slice edits, independently of
// the package's piece arithmetic.
func neighbours(tour []int, maxSeg int) [][]int {
	n := len(tour)
	var out [][]int
	for i := 1; i < n; i++ {
		for j := i + 1; j < n; j++ {
			r := append([]int(nil), tour...)
			for a, b := i, j; a < b; a, b = a+1, b-1 {
				r[a], r[b] = r[b], r[a]
			}
			out = append(out, r)
			s := append([]int(nil), tour...)
			s[i], s[j] = s[j], s[i]
			out = append(out, s)
		}
	}
	for k := 1; k <= maxSeg; k++ {
		for i := 1; i+k <= n; i++ {
			for _, rev := range []bool{false, true} {
				if rev && k == 1 {
					continue
				}
				seg := append([]int(nil), tour[i:i+k]...)
				if rev {
					for a, b := 0, k-1; a < b; a, b = a+1, b-1 {
						seg[a], seg[b] = seg[b], seg[a]
					}
				}
				rest := append(append([]int(nil), tour[:i]...), tour[i+k:]...)
				for p := 1; p <= len(rest); p++ {
					if p == i && !rev {
						continue
					}
					nb := append(append(append([]int(nil), rest[:p]...), seg...), rest[p:]...)
					out = append(out, nb)
				}
			}
		}
	}
	return out
}
