package explain

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// The oracle below is written apart from the package's code: it decides
// whether a set of customers has a feasible tour by a dynamic program over
// the subsets of the set, keeping per (visited subset, last customer) the
// earliest departure (TSPTW) — every later arrival grows with it, so the
// earliest decides — or whether the subset was reached at all (TSPDL: the
// load after a subset is its demand total). The arithmetic is the
// checker's as documented: arrival = departure + travel, late when arrival
// − due > 1e-5, departure = max(arrival, ready) + service; load after a
// port = the loads so far, over when load − limit > 1e-5.

const oracleTol = 1e-5

// oracle returns, for every subset of set (bit i = set[i]), whether some
// order serves it feasibly.
func oracle(inst *lazymask.Instance, set []int) []bool {
	k := len(set)
	size := 1 << k
	ok := make([]bool, size)
	ok[0] = true
	if inst.Problem == lazymask.TSPDL {
		load := make([]float64, size)
		for mask := 1; mask < size; mask++ {
			low := bits.TrailingZeros(uint(mask))
			load[mask] = load[mask&(mask-1)] + inst.Demand[set[low]]
		}
		for mask := 0; mask < size; mask++ {
			if !ok[mask] {
				continue
			}
			for i := 0; i < k; i++ {
				if mask&(1<<i) == 0 {
					next := mask | 1<<i
					if load[mask]+inst.Demand[set[i]]-inst.Draft[set[i]] <= oracleTol {
						ok[next] = true
					}
				}
			}
		}
		return ok
	}
	travel := func(a, b int) float64 {
		dx, dy := inst.X[a]-inst.X[b], inst.Y[a]-inst.Y[b]
		if inst.Dist != nil {
			return inst.Dist[a*inst.N+b]
		}
		return math.Sqrt(dx*dx + dy*dy)
	}
	dep := make([][]float64, size)
	for mask := range dep {
		dep[mask] = make([]float64, k)
		for i := range dep[mask] {
			dep[mask][i] = math.Inf(1)
		}
	}
	arrive := func(t float64, c int) (float64, bool) {
		if t-inst.Late[c] > oracleTol {
			return 0, false
		}
		return math.Max(t, inst.Early[c]) + inst.Service[c], true
	}
	for i, c := range set {
		if t, good := arrive(travel(0, c), c); good {
			dep[1<<i][i] = t
		}
	}
	for mask := 1; mask < size; mask++ {
		for last := 0; last < k; last++ {
			t := dep[mask][last]
			if math.IsInf(t, 1) {
				continue
			}
			ok[mask] = true
			for i := 0; i < k; i++ {
				if mask&(1<<i) != 0 {
					continue
				}
				if nt, good := arrive(t+travel(set[last], set[i]), set[i]); good && nt < dep[mask|1<<i][i] {
					dep[mask|1<<i][i] = nt
				}
			}
		}
	}
	return ok
}

func bool2int(b bool) int {
	if b {
		return 1
	}
	return 0
}

func customers(inst *lazymask.Instance) []int {
	var s []int
	for k := 1; k < inst.N; k++ {
		s = append(s, k)
	}
	return s
}

// oracleFeasible says whether the customers of set have a feasible tour.
func oracleFeasible(inst *lazymask.Instance, set []int) bool {
	return oracle(inst, set)[1<<len(set)-1]
}

// oracleMostServed is the most customers one feasible tour serves.
func oracleMostServed(inst *lazymask.Instance) int {
	best := 0
	for mask, good := range oracle(inst, customers(inst)) {
		if good {
			best = max(best, bits.OnesCount(uint(mask)))
		}
	}
	return best
}

// day draws a generated instance of n nodes, made infeasible by kind
// ("" leaves it as drawn).
func day(t *testing.T, p lazymask.Problem, n int, hardness, kind string, seed uint64) *lazymask.Instance {
	t.Helper()
	insts, _, err := datasets.Generate(datasets.GenConfig{Problem: p, N: n, Hardness: hardness, Seed: seed}, 1)
	if err != nil {
		t.Fatal(err)
	}
	in := insts[0]
	if kind == "random" {
		// Random narrow windows on a third of the customers: conflicts of
		// any size, several of them at once.
		rng := rand.New(rand.NewPCG(seed, 9))
		for k := 1; k < n; k++ {
			if p == lazymask.TSPDL {
				if rng.IntN(3) == 0 {
					in.Draft[k] = in.Demand[k] + rng.Float64()*0.3
				}
				continue
			}
			if rng.IntN(3) == 0 {
				a := rng.Float64() * in.Late[0] * 0.4
				in.Early[k], in.Late[k] = a, a+rng.Float64()*0.15
			}
		}
		return in
	}
	if kind != "" {
		if _, err := datasets.MakeInfeasible(in, kind, rand.New(rand.NewPCG(seed, 7))); err != nil {
			t.Fatal(err)
		}
	}
	return in
}

// checkConflict asserts what the oracle says of a named conflict: no
// feasible tour serves it alone, and without any one of its customers the
// rest has one.
func checkConflict(t *testing.T, in *lazymask.Instance, ex Explanation) {
	t.Helper()
	if len(ex.Conflict) == 0 {
		t.Fatalf("%s: infeasible without a conflict", in.Name)
	}
	if oracleFeasible(in, ex.Conflict) {
		t.Fatalf("%s: conflict %v has a feasible tour of its own", in.Name, ex.Conflict)
	}
	for i := range ex.Conflict {
		rest := slices.Delete(slices.Clone(ex.Conflict), i, i+1)
		if !oracleFeasible(in, rest) {
			t.Fatalf("%s: conflict %v is reducible: %v alone is infeasible", in.Name, ex.Conflict, rest)
		}
	}
	if !ex.Irreducible {
		t.Fatalf("%s: conflict %v not shown irreducible", in.Name, ex.Conflict)
	}
	if ex.Reason == "" {
		t.Fatalf("%s: no reason", in.Name)
	}
}

// TestExplainAndDropAgainstOracle: on generated days of 8 to 12 customers,
// feasible ones and ones with each planted conflict, of both problems,
// explain calls every day as the oracle does, every conflict is infeasible
// alone and irreducible, and drop leaves out exactly as few customers as
// the oracle says it must, in a tour the checker accepts.
func TestExplainAndDropAgainstOracle(t *testing.T) {
	seeds := 6
	if testing.Short() {
		seeds = 2
	}
	opt := Options{TimeLimit: 5 * time.Second, Seed: 1}
	for _, p := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
		for _, kind := range append([]string{"", "random"}, datasets.PlantKinds...) {
			for s := range seeds * (1 + 3*bool2int(kind == "random")) {
				n := 9 + s%5
				hardness := []string{datasets.Easy, datasets.Medium, datasets.Hard}[s%3]
				if p == lazymask.TSPDL {
					hardness = []string{datasets.Medium, datasets.Hard}[s%2]
				}
				name := fmt.Sprintf("%s/%s/n%d/%s/%d", p, kind, n, hardness, s)
				t.Run(name, func(t *testing.T) {
					in := day(t, p, n, hardness, kind, uint64(100+s))
					truth := oracleFeasible(in, customers(in))
					if kind != "" && kind != "random" && truth {
						t.Fatalf("planted %s conflict left the day feasible", kind)
					}
					ex, err := Explain(in.Clone(), opt)
					if err != nil {
						t.Fatal(err)
					}
					want := Infeasible
					if truth {
						want = Feasible
					}
					if ex.Status != want {
						t.Fatalf("status %s, oracle says %s", ex.Status, want)
					}
					if ex.Status == Infeasible {
						t.Logf("conflict %v (%s): %s; oracle serves %d of %d", ex.Conflict, ex.Kind, ex.Reason, oracleMostServed(in), in.N-1)
						checkConflict(t, in, ex)
						// Deletion filtering alone, from every customer
						// (no certificate first), also ends irreducible.
						c := newChecker(context.Background(), in.Clone(), opt, time.Now())
						got, proven := c.filter(customers(in))
						slices.Sort(got)
						checkConflict(t, in, Explanation{Conflict: got, Irreducible: proven, Reason: "filter"})
					} else if _, err := lazymask.Check(in, ex.Tour); err != nil {
						t.Fatalf("feasible tour fails the checker: %v", err)
					}
					dr, err := Drop(in.Clone(), nil, opt)
					if err != nil {
						t.Fatal(err)
					}
					most := oracleMostServed(in)
					if got := len(dr.Tour) - 1; got != most || len(dr.Dropped) != in.N-1-most {
						t.Fatalf("drop serves %d (drops %v), the oracle serves %d", got, dr.Dropped, most)
					}
					if _, err := lazymask.CheckServed(in, dr.Tour, dr.Dropped); err != nil || !dr.Feasible || !dr.Fewest {
						t.Fatalf("served tour %v dropped %v: %v (feasible %v, fewest %v)", dr.Tour, dr.Dropped, err, dr.Feasible, dr.Fewest)
					}
					if truth && len(dr.Dropped) != 0 {
						t.Fatalf("feasible day dropped %v", dr.Dropped)
					}
				})
			}
		}
	}
}

// TestGreedyDropLarger: the heuristic for larger days drops no more than
// the planted conflicts force (one customer each) and its tour is feasible.
func TestGreedyDropLarger(t *testing.T) {
	for s, kind := range datasets.PlantKinds {
		in := day(t, lazymask.TSPTW, 40, datasets.Medium, kind, uint64(300+s))
		ex, err := Explain(in.Clone(), Options{TimeLimit: 10 * time.Second, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if ex.Status != Infeasible || !ex.Irreducible || len(ex.Conflict) > 3 {
			t.Fatalf("%s: %s conflict %v (irreducible %v)", kind, ex.Status, ex.Conflict, ex.Irreducible)
		}
		if oracleFeasible(in, ex.Conflict) {
			t.Fatalf("%s: conflict %v feasible alone", kind, ex.Conflict)
		}
		dr, err := Drop(in.Clone(), nil, Options{TimeLimit: 10 * time.Second, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !dr.Feasible || len(dr.Dropped) != 1 {
			t.Fatalf("%s: dropped %v, feasible %v", kind, dr.Dropped, dr.Feasible)
		}
		if _, err := lazymask.CheckServed(in, dr.Tour, dr.Dropped); err != nil {
			t.Fatal(err)
		}
	}
}

// tw builds a TSPTW instance on a line: node k at x[k], windows [e, l],
// no service, scale 1.
func tw(x, e, l []float64) *lazymask.Instance {
	n := len(x)
	return &lazymask.Instance{Problem: lazymask.TSPTW, N: n, Scale: 1, Name: "line", X: x, Y: make([]float64, n),
		Early: e, Late: l, Service: make([]float64, n)}
}

// withService gives every customer service time s.
func withService(in *lazymask.Instance, s float64) *lazymask.Instance {
	for k := 1; k < in.N; k++ {
		in.Service[k] = s
	}
	return in
}

// TestConflictKinds: one instance per kind with its expected conflict and
// reason.
func TestConflictKinds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       *lazymask.Instance
		conflict []int
		kind     string
		reason   string
	}{
		{"unreachable", tw([]float64{0, 3, 20, 6}, []float64{0, 0, 0, 0}, []float64{100, 50, 5, 60}), []int{2}, KindUnreachable,
			"stop 2 closes at 5.0 but the earliest arrival from the depot is 20.0"},
		{"pair", tw([]float64{0, 10, -10, 1}, []float64{0, 10, 10, 0}, []float64{100, 12, 12, 90}), []int{1, 2}, KindPair,
			"stops 1 and 2: whichever is served first, the other is reached after it closes (1 then 2 reaches 2 at 30.0, after 12.0; 2 then 1 reaches 1 at 30.0, after 12.0)"},
		{"triple", withService(tw([]float64{0, 10, 10, 10, 1}, []float64{0, 10, 10, 10, 0}, []float64{100, 13, 13, 13, 90}), 2), []int{1, 2, 3}, KindWindows,
			"stops 1, 2 and 3 cannot all be served within their windows, in any order (the least late order, 1 → 2 → 3, reaches stop 3 at 14.0, after it closes at 13.0)"},
		{"four", withService(tw([]float64{0, 10, 10, 10, 10, 1}, []float64{0, 10, 10, 10, 10, 0}, []float64{100, 15, 15, 15, 15, 90}), 2), []int{1, 2, 3, 4}, KindWindows,
			"stops 1, 2, 3 and 4 cannot all be served within their windows, in any order (the least late order, 1 → 2 → 3 → 4, reaches stop 4 at 16.0, after it closes at 15.0)"},
		{"draft", &lazymask.Instance{Problem: lazymask.TSPDL, N: 4, Scale: 1, X: []float64{0, 1, 2, 3}, Y: make([]float64, 4),
			Demand: []float64{0, 2, 3, 1}, Draft: []float64{10, 6, 2, 6}}, []int{2}, KindDraft, "port 2 has draft limit 2.0 but its own demand is 3.0"},
		{"drafts", &lazymask.Instance{Problem: lazymask.TSPDL, N: 5, Scale: 1, X: []float64{0, 1, 2, 3, 4}, Y: make([]float64, 5),
			Demand: []float64{0, 2, 3, 3, 1}, Draft: []float64{10, 9, 5, 5, 9}}, []int{2, 3}, KindDrafts,
			"ports 2 and 3 carry 6.0 together, above the largest of their draft limits (5.0, port 2): whichever is served last is over its limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ex, err := Explain(tc.in, Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if ex.Status != Infeasible || !slices.Equal(ex.Conflict, tc.conflict) || ex.Kind != tc.kind || ex.Reason != tc.reason {
				t.Fatalf("got %s %v %s %q", ex.Status, ex.Conflict, ex.Kind, ex.Reason)
			}
			checkConflict(t, tc.in, ex)
		})
	}
}

// TestLateServesAll: late mode serves every customer, with no more total
// lateness than the urgency order, and on a day whose only fault is one
// unreachable stop, lateness exactly that stop's least lateness.
func TestLateServesAll(t *testing.T) {
	in := tw([]float64{0, 3, 20, 6}, []float64{0, 0, 0, 0}, []float64{100, 50, 5, 60})
	tour, res, err := Late(in, nil, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(tour) != in.N || res.Feasible {
		t.Fatalf("tour %v feasible %v", tour, res.Feasible)
	}
	// Stop 2 first arrives at 20, 15 late; nothing else need be late.
	if math.Abs(res.TotalViolation-15) > 1e-9 || res.ViolatedNodes != 1 {
		t.Fatalf("lateness %v at %d stops, want 15 at 1 (tour %v)", res.TotalViolation, res.ViolatedNodes, tour)
	}
	for s := range 4 {
		in := day(t, lazymask.TSPTW, 30, datasets.Medium, datasets.PlantKinds[s%3], uint64(500+s))
		tour, res, err := Late(in.Clone(), nil, Options{Seed: 1, TimeLimit: 500 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		order, _ := lazymask.Check(in, orderTour(in))
		if len(tour) != in.N || res.Verdict().Excess > order.Verdict().Excess+1e-9 {
			t.Fatalf("lateness %v, urgency order %v", res.Verdict().Excess, order.Verdict().Excess)
		}
	}
}

func orderTour(in *lazymask.Instance) []int {
	t := customers(in)
	slices.SortStableFunc(t, func(a, b int) int {
		if in.Late[a] < in.Late[b] {
			return -1
		}
		if in.Late[a] > in.Late[b] {
			return 1
		}
		return 0
	})
	return append([]int{0}, t...)
}

// TestLateExactAgainstPermutations: on small days (5 to 7 customers) of
// both problems, with planted conflicts and random narrow windows or
// limits, late's tour has the least excess lateness of all orders (by
// enumerating them, with the checker's replay), then the least length.
func TestLateExactAgainstPermutations(t *testing.T) {
	for _, p := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
		for _, kind := range []string{"random", datasets.PlantUnreachable, datasets.PlantPair, datasets.PlantTriple} {
			for s := range 4 {
				in := day(t, p, 6+s%3, datasets.Medium, kind, uint64(700+s))
				tour, res, err := Late(in.Clone(), nil, Options{Seed: 1})
				if err != nil {
					t.Fatal(err)
				}
				got := res.Verdict()
				perm := customers(in)
				bestEx, bestCost := math.Inf(1), math.Inf(1)
				var rec func(k int)
				rec = func(k int) {
					if k == len(perm) {
						r, _ := lazymask.Check(in, append([]int{0}, perm...))
						v := r.Verdict()
						if v.Excess < bestEx-1e-9 || (v.Excess <= bestEx+1e-9 && v.Cost < bestCost) {
							bestEx, bestCost = v.Excess, v.Cost
						}
						return
					}
					for i := k; i < len(perm); i++ {
						perm[k], perm[i] = perm[i], perm[k]
						rec(k + 1)
						perm[k], perm[i] = perm[i], perm[k]
					}
				}
				rec(0)
				if math.Abs(got.Excess-bestEx) > 1e-9 || math.Abs(got.Cost-bestCost) > 1e-9 {
					t.Fatalf("%s %s %d: late tour %v excess %v cost %v, best order excess %v cost %v", p, kind, s, tour, got.Excess, got.Cost, bestEx, bestCost)
				}
			}
		}
	}
}

// TestContextEndsEarly: a context cancelled during Drop and Late (before
// Explain, whose certificates take a millisecond here) ends each long
// before its time limit, with the context's error; the route Drop and
// Late hand back by then passes the checker.
func TestContextEndsEarly(t *testing.T) {
	t.Parallel()
	in := day(t, lazymask.TSPTW, 100, datasets.Medium, "random", 77)
	opt := Options{TimeLimit: time.Minute, Seed: 1}
	within := func(what string, began time.Time, err error) {
		t.Helper()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: error %v, want context.Canceled", what, err)
		}
		if d := time.Since(began); d > 20*time.Second {
			t.Fatalf("%s: ran %v of its minute after the cancel", what, d)
		}
	}
	cancelled := func() context.Context {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		return ctx
	}
	began := time.Now()
	done, cancel := context.WithCancel(context.Background())
	cancel()
	ex, err := ExplainContext(done, in.Clone(), opt)
	within("explain", began, err)
	if ex.Status == Feasible {
		t.Fatalf("explain: %s for an infeasible day", ex.Status)
	}
	began = time.Now()
	dr, err := DropContext(cancelled(), in.Clone(), nil, opt)
	within("drop", began, err)
	if dr.Tour != nil {
		chk, cerr := lazymask.CheckServed(in, dr.Tour, dr.Dropped)
		if cerr != nil || chk.Feasible != dr.Feasible {
			t.Fatalf("drop: checker %v (feasible %v), reported feasible %v", cerr, chk.Feasible, dr.Feasible)
		}
	}
	began = time.Now()
	tour, _, err := LateContext(cancelled(), in.Clone(), nil, opt)
	within("late", began, err)
	if tour != nil {
		if _, cerr := lazymask.Check(in, tour); cerr != nil && !errors.As(cerr, new(*lazymask.InfeasibleError)) {
			t.Fatalf("late: %v", cerr)
		}
	}
}
