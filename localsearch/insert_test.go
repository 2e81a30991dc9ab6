package localsearch

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// replayPartial replays a partial tour (depot first) as lazymask.Check
// replays a whole one: whether every visit is within its window, and the
// closed length.
func replayPartial(in *lazymask.Instance, t []int) (bool, float64) {
	tm, cost, ok := 0.0, 0.0, true
	for k := 1; k < len(t); k++ {
		d := in.D(t[k-1], t[k])
		cost += d
		arr := tm + d
		if math.Max(0, arr-in.Late[t[k]]) > lazymask.Tol {
			ok = false
		}
		tm = math.Max(arr, in.Early[t[k]]) + in.Service[t[k]]
	}
	return ok, cost + in.D(t[len(t)-1], 0)
}

// TestInserterMatchesReplay: the O(1) insertion test (forward departures,
// backward latest arrivals) gives the verdict and length change of a replay
// for every node left out of a partial tour and every place, on Euclidean,
// triangle-breaking integer and asymmetric matrices, tight and wide windows.
func TestInserterMatchesReplay(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	checked, feasible := 0, 0
	for it := 0; it < 150; it++ {
		kind := []distKind{euclid, intMatrix, asymm}[it%3]
		in, hidden := randTSPTW(rng, 8+rng.IntN(12), kind, []float64{0.3, 1, 4}[it%5%3])
		keep := []int{0}
		var out []int
		for _, v := range hidden[1:] {
			if rng.IntN(3) == 0 {
				out = append(out, v)
			} else {
				keep = append(keep, v)
			}
		}
		s := newInserter(in, in.Matrix())
		ok, _ := replayPartial(in, keep)
		if got := s.reset(keep); got != ok {
			t.Fatalf("instance %d: reset says feasible %v, replay %v", it, got, ok)
		}
		if !ok {
			continue
		}
		_, base := replayPartial(in, keep)
		for _, v := range out {
			for p := 0; p < len(keep); p++ {
				cand := slices.Insert(slices.Clone(keep), p+1, v)
				wantOK, cost := replayPartial(in, cand)
				delta, gotOK := s.fits(v, p)
				// the two sums differ in rounding only: skip verdicts
				// within 1e-9 of the tolerance
				if gotOK != wantOK && !nearTol(in, cand) {
					t.Fatalf("instance %d: insert %d after position %d of %v: fits %v, replay %v", it, v, p, keep, gotOK, wantOK)
				}
				if gotOK && wantOK && math.Abs(base+delta-cost) > 1e-9 {
					t.Fatalf("instance %d: insert %d after %d: length %v, replay %v", it, v, p, base+delta, cost)
				}
				checked++
				if wantOK {
					feasible++
				}
			}
		}
	}
	if checked < 1000 || feasible < checked/10 || feasible == checked {
		t.Fatalf("%d insertions checked, %d feasible: the draw no longer tests both verdicts", checked, feasible)
	}
}

// nearTol reports whether some visit of the partial tour is late by
// within 1e-9 of the tolerance (where two summation orders may disagree).
func nearTol(in *lazymask.Instance, t []int) bool {
	tm := 0.0
	for k := 1; k < len(t); k++ {
		arr := tm + in.D(t[k-1], t[k])
		if math.Abs(arr-in.Late[t[k]]-lazymask.Tol) < 1e-9 {
			return true
		}
		tm = math.Max(arr, in.Early[t[k]]) + in.Service[t[k]]
	}
	return false
}

// pinnedTSPTW draws an instance whose feasible tours are pinned by a few
// tight windows spread among open ones over a tight horizon (the class
// where double bridges rarely fit), around a hidden feasible tour.
func pinnedTSPTW(rng *rand.Rand, n int) (*lazymask.Instance, []int) {
	in := &lazymask.Instance{Problem: lazymask.TSPTW, N: n, Scale: 1,
		X: make([]float64, n), Y: make([]float64, n),
		Early: make([]float64, n), Late: make([]float64, n), Service: make([]float64, n), Dist: make([]float64, n*n)}
	for i := range n {
		in.X[i], in.Y[i] = rng.Float64(), rng.Float64()
	}
	for i := range n {
		for j := range n {
			if i != j {
				in.Dist[i*n+j] = math.Hypot(in.X[i]-in.X[j], in.Y[i]-in.Y[j])
				if i > 0 {
					in.Dist[i*n+j] += 0.1 // service folded into outgoing times
				}
			}
		}
	}
	hidden := perm(rng, n)
	tm := 0.0
	var arr []float64
	for k := 1; k < n; k++ {
		tm += in.D(hidden[k-1], hidden[k])
		arr = append(arr, tm)
	}
	horizon := tm
	for k := 1; k < n; k++ {
		v := hidden[k]
		in.Late[v] = horizon
		if rng.IntN(4) == 0 {
			off := 1.2 * rng.Float64()
			in.Early[v], in.Late[v] = math.Max(0, arr[k-1]-off), arr[k-1]+1.2-off
		}
	}
	in.Late[0] = horizon + 2
	return in, hidden
}

// TestRuinKicksKeepFeasible: kicks on pinned instances go through ruin and
// recreate (bridges rarely fit there), every kick's tour is feasible (each
// result is replayed by lazymask.Check and never worse than its start),
// and the kicks reach lower costs than the descent alone.
func TestRuinKicksKeepFeasible(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 22))
	var descent, kicked float64
	ruins := 0
	for it := 0; it < 12; it++ {
		in, hidden := pinnedTSPTW(rng, 30)
		r0, err := Improve(in, hidden, Options{})
		if err != nil {
			t.Fatal(err)
		}
		se := newSearch(in, Options{Kicks: 40, Seed: uint64(it)}, time.Now(), &Result{})
		se.st.set(r0.Tour)
		for k := 0; k < 40; k++ {
			before := slices.Clone(se.st.tour)
			if se.ruinKick() {
				ruins++
				if chk, err := lazymask.Check(in, se.st.tour); err != nil || !chk.Feasible {
					t.Fatalf("instance %d: ruin kick gave an infeasible tour: %v", it, err)
				}
				if slices.Equal(before, se.st.tour) {
					t.Fatalf("instance %d: ruin kick reported a change but left the tour as it was", it)
				}
			}
			se.st.set(r0.Tour)
		}
		r, err := Improve(in, hidden, Options{Kicks: 60, Seed: uint64(it)})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Feasible || r.Cost > r0.Cost+costEps {
			t.Fatalf("instance %d: kicks ended at %v (feasible %v), the descent at %v", it, r.Cost, r.Feasible, r0.Cost)
		}
		descent += r0.Cost
		kicked += r.Cost
	}
	if ruins < 100 || !(kicked < descent*0.99) {
		t.Fatalf("%d ruin kicks applied; kicks %.4f against descents %.4f", ruins, kicked, descent)
	}
}
