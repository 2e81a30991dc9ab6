package localsearch

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// lateness recomputes Σ max(0, arrival − late − Tol) of a tour by a plain
// replay, independently of the search's tables.
func lateness(in *lazymask.Instance, tour []int) float64 { return replayLate(in, tour, false) }

// replayLate sums the late arrivals' excess over late + Tol; with warp the
// schedule goes on from the window's end after each (the time-warp form),
// without it from the late arrival (as lazymask.Check replays).
func replayLate(in *lazymask.Instance, tour []int, warp bool) float64 {
	t, sum := 0.0, 0.0
	for k := 1; k < len(tour); k++ {
		v := tour[k]
		arr := t + in.D(tour[k-1], v)
		if late := in.Late[v] + lazymask.Tol; arr > late {
			sum += arr - late
			if warp {
				arr = late
			}
		}
		t = math.Max(arr, in.Early[v]) + in.Service[v]
	}
	return sum
}

// shifted returns tour with the node at position i moved to position j.
func shifted(tour []int, i, j int) []int {
	out := slices.Clone(tour)
	shift(out, i, j)
	return out
}

// Every 1-shift evaluation equals a replay of the moved tour, on metric,
// integer (triangle inequality broken) and asymmetric matrices; forward
// finds the nearest improving place.
func TestLateSearchEval(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for it := 0; it < 60; it++ {
		kind := distKind(it % 3)
		n := 5 + rng.IntN(25)
		in, hidden := randTSPTW(rng, n, kind, 0.3)
		s := newLateSearch(in, FeasibleOptions{})
		start := hidden
		if it%2 == 0 {
			start = perm(rng, n)
		}
		if got, want := s.set(start), lateness(in, start); math.Abs(got-want) > 1e-9 {
			t.Fatalf("set: %g, replay %g", got, want)
		}
		cur := s.total()
		for i := 1; i < n; i++ {
			wantFwd := -1
			for j := 1; j < n; j++ {
				if j == i {
					continue
				}
				want := lateness(in, shifted(start, i, j))
				if got := s.eval(i, j, math.Inf(1)); math.Abs(got-want) > 1e-9 {
					t.Fatalf("it %d: eval(%d,%d) = %g, replay %g", it, i, j, got, want)
				}
				// A bound below the true value must be reported as not met.
				if got := s.eval(i, j, want-1e-6); !math.IsInf(got, 1) && got >= want-1e-6 {
					t.Fatalf("it %d: eval(%d,%d) under bound %g = %g", it, i, j, want-1e-6, got)
				}
				if j > i && wantFwd < 0 && want < cur-1e-6 {
					wantFwd = j
				}
			}
			got := s.forward(i, cur-1e-6)
			if s.metric && kind == euclid {
				if got != wantFwd {
					t.Fatalf("it %d: forward(%d) = %d, want %d", it, i, got, wantFwd)
				}
			} else if got >= 0 && got != wantFwd {
				t.Fatalf("it %d (kind %d): forward(%d) = %d, nearest improving %d", it, kind, i, got, wantFwd)
			}
		}
	}
}

// allTours calls f with every tour of n nodes from the depot until f
// returns true.
func allTours(n int, f func([]int) bool) bool {
	tour := make([]int, n)
	for k := range tour {
		tour[k] = k
	}
	var rec func(k int) bool
	rec = func(k int) bool {
		if k == n {
			return f(tour)
		}
		for i := k; i < n; i++ {
			tour[k], tour[i] = tour[i], tour[k]
			if rec(k + 1) {
				return true
			}
			tour[k], tour[i] = tour[i], tour[k]
		}
		return false
	}
	return rec(1)
}

// feasibleExists enumerates every tour of a small instance.
func feasibleExists(in *lazymask.Instance) bool {
	return allTours(in.N, func(tour []int) bool {
		r, err := lazymask.Check(in, tour)
		return err == nil && r.Feasible
	})
}

// TSPDL: the ascending draft-limit order is feasible exactly when some
// tour is (all tours of up to 7 nodes enumerated); otherwise FindFeasible
// says so with ErrNoFeasibleTour.
func TestFindFeasibleTSPDLSortedOrder(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	seen := map[bool]int{}
	for it := 0; it < 300; it++ {
		n := 3 + rng.IntN(5)
		var in *lazymask.Instance
		if it%2 == 0 {
			in, _ = randTSPDL(rng, n, euclid, 0.1)
		} else {
			// Limits drawn without a hidden tour: often no tour fits.
			in, _ = randTSPDL(rng, n, euclid, 0)
			total := in.TotalDemand()
			for i := 1; i < n; i++ {
				in.Draft[i] = total * (0.3 + 0.8*rng.Float64())
			}
		}
		exists := feasibleExists(in)
		seen[exists]++
		r, err := FindFeasible(in, nil, FeasibleOptions{})
		if exists {
			if err != nil || !r.Feasible || r.Lateness != 0 {
				t.Fatalf("it %d: a feasible tour exists, FindFeasible: %v %+v", it, err, r)
			}
		} else if !errors.Is(err, ErrNoFeasibleTour) || r.Feasible || r.Lateness <= 0 {
			t.Fatalf("it %d: no feasible tour exists, FindFeasible: %v feasible %v", it, err, r.Feasible)
		}
	}
	if seen[true] < 50 || seen[false] < 50 {
		t.Errorf("too few cases of one kind: %v", seen)
	}
}

// TSPTW: on instances of up to 8 nodes (all tours enumerated),
// FindFeasible's exact search finds a tour exactly when one exists and
// otherwise returns ErrNoFeasibleTour; the lateness search alone (used from
// exactMaxN+1 nodes on) finds one too whenever one exists, from a bad start.
func TestFindFeasibleTSPTWSmall(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	seen := map[bool]int{}
	for it := 0; it < 300; it++ {
		n := 2 + rng.IntN(7)
		kind := distKind(it % 3)
		in, _ := randTSPTW(rng, n, kind, 0.05+0.3*rng.Float64())
		if it%3 == 0 {
			// Shuffle the windows among the customers: often infeasible.
			p := rng.Perm(n - 1)
			e, l := slices.Clone(in.Early), slices.Clone(in.Late)
			for i, q := range p {
				in.Early[i+1], in.Late[i+1] = e[q+1], l[q+1]
			}
		}
		exists := feasibleExists(in)
		seen[exists]++
		bad := perm(rng, n)
		r, err := FindFeasible(in, [][]int{bad}, FeasibleOptions{Seed: uint64(it)})
		res, cerr := lazymask.Check(in, r.Tour)
		var ie *lazymask.InfeasibleError
		if cerr != nil && !errors.As(cerr, &ie) {
			t.Fatalf("it %d: malformed result %v: %v", it, r.Tour, cerr)
		}
		if r.Feasible != res.Feasible || r.Feasible != (r.Lateness == 0) {
			t.Fatalf("it %d: feasible %v, lateness %g, check %v", it, r.Feasible, r.Lateness, res.Feasible)
		}
		if exists != r.Feasible || exists == errors.Is(err, ErrNoFeasibleTour) || (err != nil && !errors.Is(err, ErrNoFeasibleTour)) {
			t.Fatalf("it %d (n %d, kind %d): feasible tour exists %v, FindFeasible: feasible %v, %v", it, n, kind, exists, r.Feasible, err)
		}
		if !exists {
			continue
		}
		s := newLateSearch(in, FeasibleOptions{TimeLimit: time.Second, MaxShakes: 2000, Seed: uint64(it)})
		tour, _, _ := s.run([][]int{bad})
		if chk, err := lazymask.Check(in, tour); err != nil || !chk.Feasible {
			t.Fatalf("it %d (n %d, kind %d): a feasible tour exists, the lateness search ended with %v", it, n, kind, err)
		}
	}
	t.Logf("cases: %v", seen)
	if seen[true] < 50 || seen[false] < 20 {
		t.Errorf("too few cases of one kind: %v", seen)
	}
}

// With a shake limit that the time does not cut, the result depends on
// the seed only; the starts are not modified.
func TestFindFeasibleReproducible(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	in, _ := randTSPTW(rng, 40, euclid, 0.02)
	start := perm(rng, 40)
	keep := slices.Clone(start)
	opt := FeasibleOptions{TimeLimit: time.Minute, MaxShakes: 30, Seed: 11}
	a, err := FindFeasible(in, [][]int{start}, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := FindFeasible(in, [][]int{start}, opt)
	if !slices.Equal(a.Tour, b.Tour) || a.Shakes != b.Shakes || a.Moves != b.Moves {
		t.Errorf("two runs differ: %v/%d/%d and %v/%d/%d", a.Tour, a.Shakes, a.Moves, b.Tour, b.Shakes, b.Moves)
	}
	if !slices.Equal(start, keep) {
		t.Error("the start was modified")
	}
	if lateness(in, a.Tour) > lateness(in, start) {
		t.Errorf("result later than the start")
	}
}

func TestFindFeasibleErrors(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	in, _ := randTSPTW(rng, 6, euclid, 0.1)
	if _, err := FindFeasible(in, [][]int{{0, 1, 2}}, FeasibleOptions{}); err == nil {
		t.Error("a short start was accepted")
	}
	if _, err := FindFeasible(in, nil, FeasibleOptions{TimeLimit: -1}); err == nil {
		t.Error("a negative time limit was accepted")
	}
	bad := in.Clone()
	bad.Late = bad.Late[:3]
	if _, err := FindFeasible(bad, nil, FeasibleOptions{}); err == nil {
		t.Error("an invalid instance was accepted")
	}
}
