package exact

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// randomTW draws a TSPTW instance of n nodes whose windows lie around a
// random tour (feasible unless tight windows and a rounded matrix break
// it), with windows of the given width in raw units, optional service
// times and, when asym, an explicit asymmetric decimal matrix.
func randomTW(r *rand.Rand, n int, width float64, service, asym bool) *lazymask.Instance {
	in, _ := randomTWTour(r, n, width, service, asym)
	return in
}

// randomTWTour is randomTW that also returns the tour the windows were
// drawn around.
func randomTWTour(r *rand.Rand, n int, width float64, service, asym bool) (*lazymask.Instance, []int) {
	in := &lazymask.Instance{Problem: lazymask.TSPTW, N: n, Scale: 100,
		X: make([]float64, n), Y: make([]float64, n),
		Early: make([]float64, n), Late: make([]float64, n), Service: make([]float64, n)}
	for i := range n {
		in.X[i], in.Y[i] = r.Float64(), r.Float64()
	}
	if asym {
		in.Dist = make([]float64, n*n)
		for i := range n {
			for j := range n {
				if i != j {
					e := math.Hypot(in.X[i]-in.X[j], in.Y[i]-in.Y[j]) * (1 + 0.3*r.Float64())
					in.Dist[i*n+j] = math.Round(e*1000) / 1000
				}
			}
		}
	}
	if service {
		for i := 1; i < n; i++ {
			in.Service[i] = 0.1 * r.Float64()
		}
	}
	perm := r.Perm(n - 1)
	t, prev := 0.0, 0
	for _, p := range perm {
		c := p + 1
		arr := t + in.D(prev, c)
		in.Early[c] = math.Max(0, arr-r.Float64()*width/2/100)
		in.Late[c] = arr + r.Float64()*width/2/100
		t = math.Max(arr, in.Early[c]) + in.Service[c]
		prev = c
	}
	in.Late[0] = t + in.D(prev, 0) + 1
	tour := []int{0}
	for _, p := range perm {
		tour = append(tour, p+1)
	}
	return in, tour
}

func randomDL(r *rand.Rand, n int) *lazymask.Instance {
	in := &lazymask.Instance{Problem: lazymask.TSPDL, N: n, Scale: 1,
		X: make([]float64, n), Y: make([]float64, n), Demand: make([]float64, n), Draft: make([]float64, n)}
	for i := range n {
		in.X[i], in.Y[i] = r.Float64(), r.Float64()
		in.Draft[i] = 1
	}
	for i := 1; i < n; i++ {
		in.Demand[i] = 1 / float64(n-1)
		if r.IntN(2) == 0 {
			in.Draft[i] = float64(1+r.IntN(n-2)) / float64(n-1)
		}
	}
	return in
}

// bruteForce returns the least cost of a feasible tour by enumerating the
// permutations of the customers (Heap's algorithm), +Inf when none is.
func bruteForce(t *testing.T, in *lazymask.Instance) float64 {
	t.Helper()
	n := in.N
	tour := make([]int, n)
	for i := range tour {
		tour[i] = i
	}
	best := math.Inf(1)
	try := func() {
		if r, err := lazymask.Check(in, tour); err == nil && r.Cost < best {
			best = r.Cost
		}
	}
	a := tour[1:]
	c := make([]int, len(a))
	try()
	for i := 0; i < len(a); {
		if c[i] < i {
			if i%2 == 0 {
				a[0], a[i] = a[i], a[0]
			} else {
				a[c[i]], a[i] = a[i], a[c[i]]
			}
			try()
			c[i]++
			i = 0
		} else {
			c[i] = 0
			i++
		}
	}
	return best
}

// TestSolveMatchesBruteForce compares the proven optimum with the least
// cost over every permutation, on random instances of every kind the
// solver distinguishes: tight and wide windows (waiting makes cost and
// time differ), service times, asymmetric rounded matrices, and TSPDL.
func TestSolveMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 49))
	cases := 0
	infeasible := 0
	for k := 0; k < 160; k++ {
		n := 5 + k%5 // 5..9 nodes
		var in *lazymask.Instance
		switch k % 8 {
		case 0:
			in = randomTW(r, n, 20, false, false)
		case 1:
			in = randomTW(r, n, 100, true, false)
		case 2:
			in = randomTW(r, n, 400, true, true)
		case 3:
			in = randomTW(r, n, 40, false, true)
		case 4:
			// windows shifted off the drawn tour: some instances have
			// no feasible tour at all
			in = randomTW(r, n, 30, true, true)
			for i := 1; i < n; i++ {
				s := 0.2 * (r.Float64() - 0.5)
				in.Early[i], in.Late[i] = math.Max(0, in.Early[i]+s), math.Max(0, in.Late[i]+s)
			}
		case 5:
			in = randomDL(r, n)
		case 6, 7:
			// windows drawn over a horizon, not around a tour: partial
			// tours that cost more but depart earlier matter
			in = randomTW(r, n, 100, k%2 == 0, k%4 == 3)
			h := 0.5 * float64(n)
			for i := 1; i < n; i++ {
				e := r.Float64() * h
				in.Early[i], in.Late[i] = e, e+(0.3+0.4*r.Float64())*h
			}
			in.Late[0] = 100
		}
		want := bruteForce(t, in)
		res, err := Solve(in, Options{})
		if math.IsInf(want, 1) {
			infeasible++
			if !errors.Is(err, ErrInfeasible) {
				t.Fatalf("case %d (n=%d): no feasible permutation, Solve gave %v, %v", k, n, res.Cost, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("case %d (n=%d): %v", k, n, err)
		}
		if !res.Check.Feasible {
			t.Fatalf("case %d: the optimum fails the checker", k)
		}
		if math.Abs(res.Cost-want) > 1e-9 {
			t.Fatalf("case %d (n=%d, %v): Solve %.9f, brute force %.9f", k, n, in.Problem, res.Cost, want)
		}
		// a bound at the optimum keeps it; one below it finds nothing
		if up, err := Solve(in, Options{Upper: want}); err != nil || math.Abs(up.Cost-want) > 1e-9 {
			t.Fatalf("case %d: with the optimum as bound: %v, %v", k, up.Cost, err)
		}
		if _, err := Solve(in, Options{Upper: want * 0.99}); !errors.Is(err, ErrInfeasible) {
			t.Fatalf("case %d: a bound under the optimum gave %v", k, err)
		}
		cases++
	}
	if cases < 100 || infeasible == 0 {
		t.Fatalf("%d feasible and %d infeasible cases: the draw no longer covers both", cases, infeasible)
	}
}

// TestSolveLimits: too many nodes or labels is an error, not a wrong tour.
func TestSolveLimits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	if _, err := Solve(randomTW(r, MaxN+1, 100, false, false), Options{}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("%d nodes: %v", MaxN+1, err)
	}
	if _, err := Solve(randomTW(r, 12, 2000, false, false), Options{MaxLabels: 100}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("100 labels: %v", err)
	}
}

// TestSolve16 is a larger case than the brute force reaches: a bound at
// the optimum gives the same optimum with no more labels.
func TestSolve16(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	in := randomTW(r, 16, 150, true, true)
	res, err := Solve(in, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Solve(in, Options{Upper: res.Cost})
	if err != nil || math.Abs(b.Cost-res.Cost) > 1e-12 || b.Labels > res.Labels {
		t.Fatalf("bounded: %v (%d labels), unbounded %v (%d labels), %v", b.Cost, b.Labels, res.Cost, res.Labels, err)
	}
	t.Logf("n=16: optimum %.4f, %d labels (%d with the bound), %v", res.Cost, res.Labels, b.Labels, res.Elapsed)
}

// TestSolveAll: the known tour's cost bounds each solve without changing
// its optimum, and the results do not depend on the workers.
func TestSolveAll(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var insts []*lazymask.Instance
	var known [][]int
	for k := 0; k < 8; k++ {
		in := randomTW(r, 9, 60, true, k%2 == 0)
		insts = append(insts, in)
		id := []int{0, 1, 2, 3, 4, 5, 6, 7, 8} // feasible or not: only a feasible one bounds
		known = append(known, id)
	}
	one, errs1 := SolveAll(insts, nil, 1, Options{})
	two, errs2 := SolveAll(insts, known, 3, Options{})
	for i := range insts {
		if (errs1[i] == nil) != (errs2[i] == nil) || errs1[i] == nil && math.Abs(one[i].Cost-two[i].Cost) > 1e-12 {
			t.Fatalf("instance %d: %v (%v) alone, %v (%v) with the known tour and 3 workers", i, one[i].Cost, errs1[i], two[i].Cost, errs2[i])
		}
		if want := bruteForce(t, insts[i]); errs1[i] == nil && math.Abs(one[i].Cost-want) > 1e-9 {
			t.Fatalf("instance %d: %v, brute force %v", i, one[i].Cost, want)
		}
	}
}

// TestSolveLargeTight: with tight windows the states stay few, so a
// 150-node instance (far past a table over all subsets) is proved: its
// optimum replays feasible, is no longer than the tour the windows were
// drawn around, and is found again under its own cost as the bound.
func TestSolveLargeTight(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for k, asym := range []bool{false, true} {
		in, drawn := randomTWTour(r, 150, 250, k == 1, asym)
		res, err := Solve(in, Options{})
		if err != nil {
			t.Fatalf("case %d: %v", k, err)
		}
		if !res.Check.Feasible {
			t.Fatalf("case %d: the optimum fails the checker", k)
		}
		chk, err := lazymask.Check(in, drawn)
		if err != nil || !chk.Feasible {
			t.Fatalf("case %d: the drawn tour is infeasible: %v", k, err)
		}
		hidden := chk.Cost
		if res.Cost > hidden+1e-9 {
			t.Fatalf("case %d: optimum %.6f longer than the drawn tour %.6f", k, res.Cost, hidden)
		}
		again, err := Solve(in, Options{Upper: res.Cost})
		if err != nil || math.Abs(again.Cost-res.Cost) > 1e-12 || again.Labels > res.Labels {
			t.Fatalf("case %d: under its own bound %v (%d labels, %v), unbounded %v (%d labels)", k, again.Cost, again.Labels, err, res.Cost, res.Labels)
		}
		t.Logf("case %d: n=150, optimum %.4f (drawn tour %.4f), %d labels, %d states", k, res.Cost, hidden, res.Labels, res.States)
	}
}

// TestSolveDeadline: a deadline that has passed stops a solve with
// ErrTimeLimit and no tour; a distant one changes nothing.
func TestSolveDeadline(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	in := randomTW(r, 22, 3000, true, false)
	if res, err := Solve(in, Options{Deadline: time.Now().Add(-time.Second)}); !errors.Is(err, ErrTimeLimit) || res.Tour != nil {
		t.Fatalf("past deadline: %v, tour %v", err, res.Tour)
	}
	small := randomTW(r, 12, 100, true, true)
	free, err := Solve(small, Options{})
	if err != nil {
		t.Fatal(err)
	}
	timed, err := Solve(small, Options{Deadline: time.Now().Add(time.Hour)})
	if err != nil || math.Abs(timed.Cost-free.Cost) > 1e-12 {
		t.Fatalf("an hour's deadline: %v (%v), without: %v", timed.Cost, err, free.Cost)
	}
}

// TestSolveContext: a done context stops a solve with its error and no
// tour, in the shortest-path pass and in the labelling (Metric skips the
// first); a live one gives Solve's optimum.
func TestSolveContext(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(17, 18))
	in := randomTW(r, 22, 3000, true, false)
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for _, metric := range []bool{false, true} {
		if res, err := SolveContext(done, in, Options{Metric: metric}); !errors.Is(err, context.Canceled) || res.Tour != nil {
			t.Fatalf("metric %v, canceled: %v, tour %v", metric, err, res.Tour)
		}
	}
	small := randomTW(r, 12, 100, true, true)
	free, err := Solve(small, Options{})
	if err != nil {
		t.Fatal(err)
	}
	live, err := SolveContext(context.Background(), small, Options{})
	if err != nil || !slices.Equal(live.Tour, free.Tour) || live.Cost != free.Cost {
		t.Fatalf("live context: %v %v (%v), Solve: %v %v", live.Tour, live.Cost, err, free.Tour, free.Cost)
	}
}

// TestSolveMetric: where the travel times keep the triangle inequality
// (Euclidean), skipping the shortest paths gives the same optimum.
func TestSolveMetric(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for k := range 6 {
		in := randomTW(r, 14, 150, k%2 == 0, false)
		a, errA := Solve(in, Options{})
		b, errB := Solve(in, Options{Metric: true})
		if (errA == nil) != (errB == nil) || errA == nil && math.Abs(a.Cost-b.Cost) > 1e-12 {
			t.Fatalf("case %d: %v (%v) with shortest paths, %v (%v) without", k, a.Cost, errA, b.Cost, errB)
		}
	}
}
