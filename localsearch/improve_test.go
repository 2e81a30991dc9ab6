package localsearch

import (
	"cmp"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// randInstance draws a small instance of either problem with a hidden
// feasible tour.
func randInstance(rng *rand.Rand, prob lazymask.Problem, n, it int) (*lazymask.Instance, []int) {
	kind := distKind(it % 3)
	if prob == lazymask.TSPTW {
		return randTSPTW(rng, n, kind, []float64{0.1, 1, 5, 20}[it%4])
	}
	return randTSPDL(rng, n, kind, []float64{0.02, 0.1, 0.5}[(it/3)%3])
}

// TestImproveIsLocalOptimum runs Improve on small instances and checks,
// against every neighbour replayed by lazymask.Check, that the result is a
// local optimum, never worse than the start and feasible whenever the start
// was.
func TestImproveIsLocalOptimum(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 8))
	count := 150
	if testing.Short() {
		count = 50
	}
	for _, prob := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
		improved := 0
		for it := 0; it < count; it++ {
			n := 4 + rng.IntN(5) // 4..8
			in, hidden := randInstance(rng, prob, n, it)
			start := hidden
			if it%2 == 1 {
				start = perm(rng, n)
			}
			opt := Options{BestImprovement: it%4 >= 2, Shuffle: it%3 == 0, Seed: uint64(it), Kicks: it % 5}
			res, err := Improve(in, start, opt)
			if err != nil {
				t.Fatalf("%v #%d: %v", prob, it, err)
			}
			before, _ := lazymask.Check(in, start)
			after, _ := lazymask.Check(in, res.Tour)
			if after.Cost != res.Cost || after.Feasible != res.Feasible || res.StartCost != before.Cost {
				t.Fatalf("%v #%d: result metrics %+v disagree with Check %+v", prob, it, res, after)
			}
			if before.Feasible && !after.Feasible {
				t.Fatalf("%v #%d: feasible start %v became infeasible %v", prob, it, start, res.Tour)
			}
			if before.Feasible && after.Cost > before.Cost+1e-9 {
				t.Fatalf("%v #%d: cost rose %v -> %v", prob, it, before.Cost, after.Cost)
			}
			if !before.Feasible && !after.Feasible && excessOf(after) > excessOf(before) {
				t.Fatalf("%v #%d: excess rose %v -> %v", prob, it, excessOf(before), excessOf(after))
			}
			if after.Cost < before.Cost-1e-9 {
				improved++
			}
			if res.Stop != LocalOptimum {
				t.Fatalf("%v #%d: stopped by %v without budgets", prob, it, res.Stop)
			}
			cur := key{excessOf(after), after.Cost}
			for _, nb := range neighbours(res.Tour, 3) {
				r, _ := lazymask.Check(in, nb)
				if (key{excessOf(r), r.Cost}).better(cur) {
					t.Fatalf("%v #%d: %v (excess %v, cost %v) has better neighbour %v (excess %v, cost %v)",
						prob, it, res.Tour, cur.excess, cur.cost, nb, excessOf(r), r.Cost)
				}
			}
		}
		t.Logf("%v: %d of %d tours improved", prob, improved, count)
		if improved < count/4 {
			t.Fatalf("%v: only %d of %d tours improved", prob, improved, count)
		}
	}
}

// TestImproveSquare uncrosses a crossed tour of the unit square: the only
// local optimum under 2-opt has length 4.
func TestImproveSquare(t *testing.T) {
	t.Parallel()
	in := &lazymask.Instance{Problem: lazymask.TSPTW, N: 4, Scale: 1,
		X: []float64{0, 1, 1, 0}, Y: []float64{0, 0, 1, 1},
		Early: make([]float64, 4), Late: []float64{10, 10, 10, 10}, Service: make([]float64, 4)}
	res, err := Improve(in, []int{0, 2, 1, 3}, Options{Moves: []MoveKind{TwoOpt}})
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 + 2*math.Sqrt2; math.Abs(res.StartCost-want) > 1e-12 {
		t.Fatalf("start cost %v, want %v", res.StartCost, want)
	}
	if math.Abs(res.Cost-4) > 1e-12 || res.Moves != 1 || res.MovesByKind[TwoOpt] != 1 {
		t.Fatalf("got cost %v after %d moves (%v), want 4 after one 2-opt", res.Cost, res.Moves, res.MovesByKind)
	}
	if !slices.Equal(res.Tour, []int{0, 1, 2, 3}) && !slices.Equal(res.Tour, []int{0, 3, 2, 1}) {
		t.Fatalf("tour %v", res.Tour)
	}
}

// TestImproveKeepsWindows: on the square, a deadline on node 3 forces the
// detour 0→3→... ; the shortest feasible tour 0,3,2,1 (length 4) must be
// found from the crossed feasible start 0,3,1,2, and the equally short but
// infeasible 0,1,2,3 must never be returned.
func TestImproveKeepsWindows(t *testing.T) {
	t.Parallel()
	in := &lazymask.Instance{Problem: lazymask.TSPTW, N: 4, Scale: 1,
		X: []float64{0, 1, 1, 0}, Y: []float64{0, 0, 1, 1},
		Early: make([]float64, 4), Late: []float64{10, 10, 10, 1}, Service: make([]float64, 4)}
	res, err := Improve(in, []int{0, 3, 1, 2}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.StartFeasible || !res.Feasible || !slices.Equal(res.Tour, []int{0, 3, 2, 1}) || math.Abs(res.Cost-4) > 1e-12 {
		t.Fatalf("got %v cost %v feasible %v", res.Tour, res.Cost, res.Feasible)
	}
	// From the infeasible 0,1,2,3 the repair must reach the same tour.
	res, err = Improve(in, []int{0, 1, 2, 3}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.StartFeasible || !res.Repaired || !slices.Equal(res.Tour, []int{0, 3, 2, 1}) {
		t.Fatalf("repair gave %v feasible %v (start violation %v)", res.Tour, res.Feasible, res.StartViolation)
	}
	if math.Abs(res.StartViolation-2) > 1e-12 || res.Violation != 0 {
		t.Fatalf("violation %v -> %v, want 2 -> 0", res.StartViolation, res.Violation)
	}
	// With repair off the infeasible start comes back unchanged.
	res, err = Improve(in, []int{0, 1, 2, 3}, Options{NoRepair: true})
	if err != nil || !slices.Equal(res.Tour, []int{0, 1, 2, 3}) || res.Moves != 0 {
		t.Fatalf("no-repair gave %v after %d moves, err %v", res.Tour, res.Moves, err)
	}
}

// TestImproveTSPDL: with draft limits the heavy port must come first.
func TestImproveTSPDL(t *testing.T) {
	t.Parallel()
	in := &lazymask.Instance{Problem: lazymask.TSPDL, N: 4, Scale: 1,
		X: []float64{0, 1, 1, 0}, Y: []float64{0, 0, 1, 1},
		Demand: []float64{0, 1, 1, 1}, Draft: []float64{3, 3, 3, 1}}
	res, err := Improve(in, []int{0, 1, 3, 2}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Repaired || !slices.Equal(res.Tour, []int{0, 3, 2, 1}) || math.Abs(res.Cost-4) > 1e-12 {
		t.Fatalf("got %v cost %v repaired %v", res.Tour, res.Cost, res.Repaired)
	}
}

// TestRepairRate starts from random tours on instances that have a known
// feasible tour and asserts that repair succeeds in most cases.
func TestRepairRate(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 21))
	count := 100
	if testing.Short() {
		count = 40
	}
	for _, prob := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
		tried, repaired := 0, 0
		for it := 0; it < count; it++ {
			in, start := tightInstance(rng, prob, distKind(it%3))
			res, err := Improve(in, start, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.StartFeasible {
				continue
			}
			tried++
			if res.Feasible {
				repaired++
			}
			if res.Violation > res.StartViolation+1e-9 && !res.Feasible {
				t.Fatalf("%v #%d: violation rose %v -> %v", prob, it, res.StartViolation, res.Violation)
			}
		}
		rate := float64(repaired) / float64(tried)
		t.Logf("%v: repaired %d of %d infeasible starts (%.0f%%)", prob, repaired, tried, 100*rate)
		if tried < count/2 || rate < 0.9 {
			t.Fatalf("%v: repaired %d of %d", prob, repaired, tried)
		}
	}
}

// tightInstance draws a 20-node instance with tight windows or drafts and a
// random start, which is mostly infeasible.
func tightInstance(rng *rand.Rand, prob lazymask.Problem, kind distKind) (*lazymask.Instance, []int) {
	var in *lazymask.Instance
	if prob == lazymask.TSPTW {
		in, _ = randTSPTW(rng, 20, kind, 0.5)
	} else {
		in, _ = randTSPDL(rng, 20, kind, 0.1)
	}
	return in, perm(rng, 20)
}

// TestFinishDescent: a time limit that has already passed ends the search
// at once, leaving an infeasible start unrepaired, unless FinishDescent
// holds it back until the repair reaches a feasible tour; the kicks are
// then cut by the limit.
func TestFinishDescent(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 21))
	checked := 0
	for it := 0; it < 60 && checked < 10; it++ {
		prob := lazymask.TSPTW
		if it%2 == 1 {
			prob = lazymask.TSPDL
		}
		in, start := tightInstance(rng, prob, distKind(it%3))
		free, err := Improve(in, start, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if free.StartFeasible || !free.Feasible {
			continue // only starts the repair makes feasible
		}
		checked++
		cut, err := Improve(in, start, Options{TimeLimit: time.Nanosecond, Kicks: 5})
		if err != nil {
			t.Fatal(err)
		}
		if cut.Feasible || cut.Moves != 0 || cut.Stop != TimeBudget {
			t.Fatalf("#%d without FinishDescent: feasible %v after %d moves, stop %v", it, cut.Feasible, cut.Moves, cut.Stop)
		}
		fin, err := Improve(in, start, Options{TimeLimit: time.Nanosecond, Kicks: 5, FinishDescent: true})
		if err != nil {
			t.Fatal(err)
		}
		if !fin.Feasible || fin.Kicks != 0 || fin.Stop != TimeBudget {
			t.Fatalf("#%d with FinishDescent: feasible %v, %d kicks, stop %v", it, fin.Feasible, fin.Kicks, fin.Stop)
		}
		if r, _ := lazymask.Check(in, fin.Tour); !r.Feasible {
			t.Fatalf("#%d: the checker rejects the repaired tour", it)
		}
	}
	if checked < 10 {
		t.Fatalf("only %d repairable starts", checked)
	}
}

// TestImproveErrors: bad instances and malformed tours are reported with
// the checker's typed errors.
func TestImproveErrors(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2, 2))
	in, hidden := randTSPTW(rng, 6, euclid, 1)
	_, err := Improve(in, []int{0, 1, 2, 3, 4, 4}, Options{})
	var te *lazymask.TourError
	if !errors.As(err, &te) || te.Step != 5 || te.Node != 4 {
		t.Fatalf("duplicate node: got %v", err)
	}
	bad := in.Clone()
	bad.Late[2] = bad.Early[2] - 1
	_, err = Improve(bad, hidden, Options{})
	var fe *lazymask.FieldError
	if !errors.As(err, &fe) || fe.Field != "early" || fe.Node != 2 {
		t.Fatalf("bad window: got %v", err)
	}
	if _, err := Improve(nil, hidden, Options{}); err == nil {
		t.Fatal("nil instance accepted")
	}
	if _, err := Improve(in, hidden, Options{Moves: []MoveKind{7}}); err == nil || !strings.Contains(err.Error(), "unknown move kind 7") {
		t.Fatalf("bad move kind: got %v", err)
	}
	if _, err := Improve(in, hidden, Options{MaxMoves: -1}); err == nil || !strings.Contains(err.Error(), "max moves is negative") {
		t.Fatalf("negative budget: got %v", err)
	}
	if ks, err := ParseMoves("2opt, swap"); err != nil || !slices.Equal(ks, []MoveKind{TwoOpt, Swap}) {
		t.Fatalf("ParseMoves: %v %v", ks, err)
	}
	if _, err := ParseMoves("3opt"); err == nil || !strings.Contains(err.Error(), `"3opt"`) {
		t.Fatalf("ParseMoves(3opt): %v", err)
	}
}

// TestFinishDescentFeasible: with a feasible start and a time limit
// already past, FinishDescent still takes the best start to the local
// optimum the unbounded descent reaches (the same moves), and no kick runs.
func TestFinishDescentFeasible(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(23, 29))
	checked := 0
	for it := 0; it < 40; it++ {
		prob := []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL}[it%2]
		in, hidden := randInstance(rng, prob, 15+rng.IntN(20), it)
		start := relocateFeasibly(rng, in, hidden, 30)
		free, err := Improve(in, start, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if free.Moves == 0 {
			continue
		}
		checked++
		cut, err := Improve(in, start, Options{TimeLimit: time.Nanosecond, Kicks: 5})
		if err != nil {
			t.Fatal(err)
		}
		if cut.Moves != 0 {
			t.Fatalf("#%d without FinishDescent: %d moves after the limit", it, cut.Moves)
		}
		fin, err := Improve(in, start, Options{TimeLimit: time.Nanosecond, Kicks: 5, FinishDescent: true})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(fin.Tour, free.Tour) || fin.Moves != free.Moves || fin.Kicks != 0 || fin.Stop != TimeBudget {
			t.Fatalf("#%d: FinishDescent gave %v (%d moves, %d kicks, stop %v), the unbounded descent %v (%d moves)",
				it, fin.Tour, fin.Moves, fin.Kicks, fin.Stop, free.Tour, free.Moves)
		}
	}
	if checked < 20 {
		t.Fatalf("only %d starts improvable", checked)
	}
}

// TestBudgetsAndDeterminism: budgets stop the search where asked, and a
// seed fixes the outcome of a shuffled, kicked search.
func TestBudgetsAndDeterminism(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	in, _ := randTSPTW(rng, 30, euclid, 5)
	start := perm(rng, 30)
	res, err := Improve(in, start, Options{MaxMoves: 3})
	if err != nil || res.Moves != 3 || res.Stop != MoveBudget {
		t.Fatalf("max moves: %d moves, stop %v, err %v", res.Moves, res.Stop, err)
	}
	res, err = Improve(in, start, Options{MaxIterations: 2})
	if err != nil || res.Iterations != 2 || res.Stop != IterationBudget {
		t.Fatalf("max iterations: %d, stop %v, err %v", res.Iterations, res.Stop, err)
	}
	opt := Options{Shuffle: true, Kicks: 10, Seed: 42}
	a, err := Improve(in, start, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Improve(in, start, opt)
	if !slices.Equal(a.Tour, b.Tour) || a.Moves != b.Moves || a.Evaluations != b.Evaluations {
		t.Fatalf("same seed, different results: %v (%d moves) vs %v (%d moves)", a.Tour, a.Moves, b.Tour, b.Moves)
	}
	if a.Kicks != 10 || a.Stop != LocalOptimum {
		t.Fatalf("kicks %d stop %v", a.Kicks, a.Stop)
	}
}

// TestToleranceBoundary: an arrival up to Tol after the due time is
// feasible, as in lazymask.Check, and one beyond it is not.
func TestToleranceBoundary(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		over     float64 // arrival − due time at node 3 on the tour 0,1,2,3
		wantTour []int
		wantCost float64
	}{
		{"inside", 0.9 * lazymask.Tol, []int{0, 1, 2, 3}, 4},
		{"outside", 1.1 * lazymask.Tol, []int{0, 1, 3, 2}, 2 + 2*math.Sqrt2},
	} {
		in := &lazymask.Instance{Problem: lazymask.TSPTW, N: 4, Scale: 1,
			X: []float64{0, 1, 1, 0}, Y: []float64{0, 0, 1, 1}, Early: make([]float64, 4),
			Late: []float64{10, 3 - 1.1*lazymask.Tol, 10, 3 - c.over}, Service: make([]float64, 4)}
		res, err := Improve(in, []int{0, 1, 3, 2}, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !res.Feasible || !slices.Equal(res.Tour, c.wantTour) || math.Abs(res.Cost-c.wantCost) > 1e-12 {
			t.Fatalf("%s: got %v cost %v feasible %v, want %v cost %v", c.name, res.Tour, res.Cost, res.Feasible, c.wantTour, c.wantCost)
		}
	}
}

// TestImproveFromIsBestOfStarts: ImproveFrom without kicks returns the
// best of the tours Improve reaches from each distinct start (feasible
// starts only when there is one), counts the starts it searched, honours
// MaxStarts, and reports the best start's metrics.
func TestImproveFromIsBestOfStarts(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	for it := 0; it < 60; it++ {
		prob := []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL}[it%2]
		n := 8 + rng.IntN(15)
		in, hidden := randInstance(rng, prob, n, it)
		starts := [][]int{hidden, perm(rng, n), perm(rng, n), hidden, perm(rng, n)}
		type run struct {
			res   Result
			chk   lazymask.Result
			tour  []int
			index int
		}
		var runs []run
		anyFeasible := false
		for k, s := range starts {
			if k == 3 { // a repeat of start 0
				continue
			}
			r, err := Improve(in, s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			chk, _ := lazymask.Check(in, s)
			runs = append(runs, run{r, chk, s, k})
			anyFeasible = anyFeasible || chk.Feasible
		}
		if anyFeasible {
			runs = slices.DeleteFunc(runs, func(r run) bool { return !r.chk.Feasible })
		}
		// Best start first, as ImproveFrom orders them.
		slices.SortStableFunc(runs, func(a, b run) int {
			if a.chk.Feasible {
				return cmp.Compare(a.chk.Cost, b.chk.Cost)
			}
			return cmp.Or(cmp.Compare(excessOf(a.chk), excessOf(b.chk)), cmp.Compare(a.chk.Cost, b.chk.Cost))
		})
		for _, max := range []int{0, 1, 2} {
			want := runs
			if max > 0 && len(want) > max {
				want = want[:max]
			}
			bestK := 0
			for k, r := range want {
				a, b := r.res, want[bestK].res
				if excessOf(a.Check) < excessOf(b.Check) || (excessOf(a.Check) == excessOf(b.Check) && a.Cost < b.Cost-costEps) {
					bestK = k
				}
			}
			got, err := ImproveFrom(in, starts, Options{MaxStarts: max})
			if err != nil {
				t.Fatalf("#%d max %d: %v", it, max, err)
			}
			if got.Starts != len(want) || !slices.Equal(got.Tour, want[bestK].res.Tour) || got.StartIndex != want[0].index ||
				got.StartCost != want[0].chk.Cost || got.StartFeasible != want[0].chk.Feasible {
				t.Fatalf("#%d max %d: got %v (%d starts, start cost %v), want %v (%d starts, start cost %v)",
					it, max, got.Tour, got.Starts, got.StartCost, want[bestK].res.Tour, len(want), want[0].chk.Cost)
			}
		}
	}
	if _, err := ImproveFrom(nil, nil, Options{}); err == nil {
		t.Fatal("nil instance accepted")
	}
	in, tour := randTSPTW(rng, 6, euclid, 1)
	if _, err := ImproveFrom(in, nil, Options{}); err == nil || !strings.Contains(err.Error(), "no starting tour") {
		t.Fatalf("no starts: %v", err)
	}
	if _, err := ImproveFrom(in, [][]int{tour, {0, 1, 2}}, Options{}); err == nil || !strings.Contains(err.Error(), "start 1") {
		t.Fatalf("malformed second start: %v", err)
	}
	if _, err := ImproveFrom(in, [][]int{tour}, Options{MaxStarts: -1}); err == nil || !strings.Contains(err.Error(), "max starts") {
		t.Fatalf("negative max starts: %v", err)
	}
}

// TestOrderTour: the urgency order visits customers by window end or
// draft limit, and a feasible schedule that follows it is found feasible.
func TestOrderTour(t *testing.T) {
	t.Parallel()
	in := &lazymask.Instance{Problem: lazymask.TSPTW, N: 5, Scale: 1,
		X: []float64{0, 1, 2, 3, 4}, Y: make([]float64, 5), Early: make([]float64, 5),
		Late: []float64{100, 9, 3, 9, 1}, Service: make([]float64, 5)}
	if got := OrderTour(in); !slices.Equal(got, []int{0, 4, 2, 1, 3}) {
		t.Fatalf("TSPTW order %v", got)
	}
	dl := &lazymask.Instance{Problem: lazymask.TSPDL, N: 4, Scale: 1,
		X: make([]float64, 4), Y: []float64{0, 1, 2, 3}, Demand: []float64{0, 0.5, 0.25, 0.25},
		Draft: []float64{1, 1, 0.25, 0.5}}
	got := OrderTour(dl)
	if !slices.Equal(got, []int{0, 2, 3, 1}) {
		t.Fatalf("TSPDL order %v", got)
	}
	if r, err := lazymask.Check(dl, got); err != nil || !r.Feasible {
		t.Fatalf("draft order should be feasible: %v", err)
	}
}

// TestCostFilterChangesNothing: the scanner's cost filter only skips moves
// the search would reject, so with and without it every search applies
// the same moves and ends with the same tour. (It compares full scans: the
// neighbour lists, which need the filter's cost bound, are off.)
func TestCostFilterChangesNothing(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 22))
	for it := 0; it < 80; it++ {
		prob := []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL}[it%2]
		in, hidden := randInstance(rng, prob, 10+rng.IntN(30), it)
		starts := [][]int{hidden, perm(rng, in.N)}
		opt := Options{Kicks: 5, Seed: uint64(it), BestImprovement: it%4 == 1, tune: noNear}
		with, err := ImproveFrom(in, starts, opt)
		if err != nil {
			t.Fatal(err)
		}
		opt.tune = func(p *params) { p.near, p.costFilter = false, false }
		without, err := ImproveFrom(in, starts, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(with.Tour, without.Tour) || with.Moves != without.Moves || with.Evaluations != without.Evaluations {
			t.Fatalf("#%d: with filter %v (%d moves, %d evals), without %v (%d moves, %d evals)",
				it, with.Tour, with.Moves, with.Evaluations, without.Tour, without.Moves, without.Evaluations)
		}
	}
}

// TestTSPDLScanTakesBestOfPosition: a TSPDL scan returns the best
// improving feasible move (by Check's replay) among all moves of the first
// position that has one, not the first such move.
func TestTSPDLScanTakesBestOfPosition(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(59, 61))
	var buf [maxPieces]piece
	checked, several := 0, 0
	for it := 0; it < 60; it++ {
		n := 8 + rng.IntN(20)
		in, hidden := randTSPDL(rng, n, euclid, 0.3)
		var res Result
		se := newSearch(in, Options{}, time.Now(), &res)
		se.st.set(hidden)
		m, ok := se.scan()
		// Brute force over positions 1, 2, … (the scan starts at lastPos 0).
		sc := scanner{n: n, maxSeg: 3}
		wantPos, wantDelta, count := -1, 0.0, 0
		for i := 1; i < n && wantPos < 0; i++ {
			best, found := 0.0, 0
			for _, k := range AllMoves {
				sc.one(k, i, func(c move) bool {
					d := se.st.delta(c)
					if d >= -costEps {
						return false
					}
					if r, _ := lazymask.Check(in, se.st.build(c.pieces(n, &buf), nil)); !r.Feasible {
						return false
					}
					if found == 0 || d < best {
						best = d
					}
					found++
					return false
				})
			}
			if found > 0 {
				wantPos, wantDelta, count = i, best, found
			}
		}
		if wantPos < 0 {
			if ok {
				t.Fatalf("#%d: scan found %+v where no improving feasible move exists", it, m)
			}
			continue
		}
		if !ok || m.i != wantPos || math.Abs(se.st.delta(m)-wantDelta) > 1e-12 {
			t.Fatalf("#%d: scan gave %+v (ok %v, delta %v), want position %d with delta %v", it, m, ok, se.st.delta(m), wantPos, wantDelta)
		}
		checked++
		if count > 1 {
			several++
		}
	}
	if checked < 20 || several < 10 {
		t.Fatalf("too few informative cases: %d checked, %d with several improving moves", checked, several)
	}
}

// TestFixedPrefix completes given prefixes: the first Fixed positions stay,
// the result is never worse than the start, and no neighbour that keeps the
// prefix is better (a local optimum of the suffix).
func TestFixedPrefix(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 3))
	for _, prob := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
		improved := 0
		for it := 0; it < 120; it++ {
			n := 6 + rng.IntN(4) // 6..9
			in, hidden := randInstance(rng, prob, n, it)
			start := hidden
			if it%2 == 1 {
				start = perm(rng, n)
			}
			fixed := 2 + rng.IntN(n-3)
			opt := Options{Fixed: fixed, Seed: uint64(it), Kicks: it % 4, Shuffle: it%3 == 0}
			res, err := Improve(in, start, opt)
			if err != nil {
				t.Fatalf("%v #%d: %v", prob, it, err)
			}
			if !slices.Equal(res.Tour[:fixed], start[:fixed]) {
				t.Fatalf("%v #%d: prefix %v of %v changed: %v", prob, it, fixed, start, res.Tour)
			}
			before, _ := lazymask.Check(in, start)
			after, _ := lazymask.Check(in, res.Tour)
			if before.Feasible && (!after.Feasible || after.Cost > before.Cost+1e-9) {
				t.Fatalf("%v #%d: worse than the start: %v (%v) -> %v (%v)", prob, it, before.Cost, before.Feasible, after.Cost, after.Feasible)
			}
			if after.Cost < before.Cost-1e-9 {
				improved++
			}
			cur := key{excessOf(after), after.Cost}
			for _, nb := range neighbours(res.Tour, 3) {
				if !slices.Equal(nb[:fixed], start[:fixed]) {
					continue
				}
				if r, _ := lazymask.Check(in, nb); (key{excessOf(r), r.Cost}).better(cur) {
					t.Fatalf("%v #%d: %v has a better neighbour with the same prefix: %v", prob, it, res.Tour, nb)
				}
			}
		}
		if improved < 20 {
			t.Fatalf("%v: only %d of 120 suffixes improved", prob, improved)
		}
	}
	in, tour := randInstance(rng, lazymask.TSPTW, 8, 1)
	other := append([]int(nil), tour...)
	other[1], other[2] = other[2], other[1]
	if _, err := ImproveFrom(in, [][]int{tour, other}, Options{Fixed: 3}); err == nil || !strings.Contains(err.Error(), "fixed prefix") {
		t.Fatalf("starts with different prefixes: err = %v", err)
	}
	if _, err := Improve(in, tour, Options{Fixed: 9}); err == nil {
		t.Fatal("a prefix longer than the tour was accepted")
	}
	if _, err := ImproveFrom(in, [][]int{tour[:3], tour}, Options{Fixed: 5}); err == nil {
		t.Fatal("a start shorter than the fixed prefix was accepted")
	}
}
