package localsearch

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

// reorderFeasibly applies up to count random reorderings of 2–3 adjacent
// nodes to a copy of tour, each kept only when the tour stays feasible
// (any when in is nil).
func reorderFeasibly(rng *rand.Rand, in *lazymask.Instance, tour []int, count int) []int {
	t := slices.Clone(tour)
	n := len(t)
	for try := 0; try < 50*count && count > 0; try++ {
		k := 1 + rng.IntN(n-3)
		u := slices.Clone(t)
		if rng.IntN(2) == 0 {
			u[k], u[k+1] = u[k+1], u[k]
		} else {
			u[k], u[k+1], u[k+2] = u[k+1], u[k+2], u[k]
		}
		if in == nil {
			t = u
			count--
		} else if r, err := lazymask.Check(in, u); err == nil && r.Feasible {
			t = u
			count--
		}
	}
	return t
}

// mixes returns every tour that follows a or b between consecutive
// positions where both have visited the same set of nodes, with the cut
// positions found by comparing sorted prefixes.
func mixes(a, b []int) [][]int {
	var cuts []int
	for k := 1; k < len(a); k++ {
		pa, pb := slices.Clone(a[1:k+1]), slices.Clone(b[1:k+1])
		slices.Sort(pa)
		slices.Sort(pb)
		if slices.Equal(pa, pb) {
			cuts = append(cuts, k)
		}
	}
	out := [][]int{{0}}
	lo := 1
	for _, hi := range cuts {
		var next [][]int
		for _, t := range out {
			next = append(next, append(slices.Clone(t), a[lo:hi+1]...))
			if !slices.Equal(a[lo:hi+1], b[lo:hi+1]) {
				next = append(next, append(slices.Clone(t), b[lo:hi+1]...))
			}
		}
		out, lo = next, hi+1
	}
	return out
}

// TestMergeIsBestMix: merge finds the cheapest feasible mix of a feasible
// tour a and a tour b (feasible, or not: half the cases reorder a blindly,
// so many mixes break a window or a draft limit), by brute force over all
// mixes, each replayed by lazymask.Check; it reports an improvement exactly
// when that mix is cheaper than a, and returns a feasible mix.
func TestMergeIsBestMix(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 7))
	improved, cases := 0, 0
	for it := 0; it < 20000; it++ {
		n := 8 + rng.IntN(7)
		var in *lazymask.Instance
		var hidden []int
		switch it % 4 {
		case 0:
			in, hidden = randTSPTW(rng, n, euclid, 0.6)
		case 1:
			in, hidden = randTSPTW(rng, n, asymm, 0.6)
		case 2:
			in, hidden = randTSPTW(rng, n, intMatrix, 0.5)
		default:
			in, hidden = randTSPDL(rng, n, euclid, 0.3)
		}
		a := reorderFeasibly(rng, in, hidden, 1+rng.IntN(2))
		check := in
		if it%8 >= 4 {
			check = nil
		}
		b := reorderFeasibly(rng, check, a, 2+rng.IntN(3))
		all := mixes(a, b)
		if len(all) > 16 {
			continue // the labels kept per block are capped at 16
		}
		cases++
		bestCost := math.Inf(1)
		for _, m := range all {
			var te *lazymask.TourError
			if r, err := lazymask.Check(in, m); errors.As(err, &te) {
				t.Fatalf("case %d: mix %v: %v", it, m, err)
			} else if r.Feasible && r.Cost < bestCost {
				bestCost = r.Cost
			}
		}
		ra, _ := lazymask.Check(in, a)
		st := newState(in, nil)
		child, ok := st.merge(&merger{}, a, b, nil)
		want := bestCost < ra.Cost-costEps
		if ok != want {
			t.Fatalf("case %d (%v): merge reports %v, brute force best %.9f against a's %.9f\na %v\nb %v\nchild %v",
				it, in.Problem, ok, bestCost, ra.Cost, a, b, child)
		}
		if !ok {
			continue
		}
		improved++
		r, err := lazymask.Check(in, child)
		if !r.Feasible {
			t.Fatalf("case %d: merged tour %v infeasible: %v %+v", it, child, err, r)
		}
		if math.Abs(r.Cost-bestCost) > 1e-9 {
			t.Fatalf("case %d: merged tour costs %.9f, best mix %.9f", it, r.Cost, bestCost)
		}
		if !slices.ContainsFunc(all, func(m []int) bool { return slices.Equal(m, child) }) {
			t.Fatalf("case %d: merged tour %v is not a mix of %v and %v", it, child, a, b)
		}
	}
	// So many cases because a cheaper but later partial tour that must lose
	// to a dearer, earlier one (the time in the labels' dominance test) is
	// rare: about one case in 10,000 here.
	if cases < 15000 || improved < 2000 {
		t.Fatalf("only %d cases, %d with a better mix: the test exercises too little", cases, improved)
	}
}

// TestMergeIdenticalAndDisjoint: equal tours give nothing to merge, and
// tours with no common cut (b reversed) leave a as it is.
func TestMergeIdenticalAndDisjoint(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 5))
	in, hidden := randTSPTW(rng, 12, euclid, 100)
	st := newState(in, nil)
	if _, ok := st.merge(&merger{}, hidden, slices.Clone(hidden), nil); ok {
		t.Fatal("merging a tour with itself reported an improvement")
	}
	rev := []int{0}
	for k := len(hidden) - 1; k >= 1; k-- {
		rev = append(rev, hidden[k])
	}
	if _, ok := st.merge(&merger{}, hidden, rev, nil); ok {
		t.Fatal("a tour and its reverse share no cut before the end, yet merge reported an improvement")
	}
}

// TestMergingHelps: with merging on, three starts and 15 kicks reach a
// lower mean cost on TSPTW-40 instances with wide windows than without,
// from the same starts and seeds, and every result is feasible and no
// worse than its start.
func TestMergingHelps(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(8, 8))
	var with, without float64
	merged := 0
	for it := 0; it < 40; it++ {
		in, hidden := randTSPTW(rng, 40, euclid, 4)
		starts := [][]int{relocateFeasibly(rng, in, hidden, 20), relocateFeasibly(rng, in, hidden, 20), relocateFeasibly(rng, in, hidden, 20)}
		for _, off := range []bool{false, true} {
			r, err := ImproveFrom(in, starts, Options{Kicks: 15, Seed: uint64(it), NoMerge: off})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Feasible || r.Cost > r.StartCost+costEps {
				t.Fatalf("instance %d (no merge %v): feasible %v, cost %v from %v", it, off, r.Feasible, r.Cost, r.StartCost)
			}
			if off {
				without += r.Cost
				if r.Merged != 0 {
					t.Fatalf("NoMerge run merged %d times", r.Merged)
				}
			} else {
				with += r.Cost
				merged += r.Merged
			}
		}
	}
	if merged < 5 || !(with < without) {
		t.Fatalf("merging: %d improvements, mean cost %.4f against %.4f without", merged, with/40, without/40)
	}
}
