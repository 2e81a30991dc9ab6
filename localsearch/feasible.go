package localsearch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// DefaultFeasibleTime bounds FindFeasible when FeasibleOptions sets no
// limit.
const DefaultFeasibleTime = 2 * time.Second

// defaultShakeLevels is the deepest shake (random 1-shift moves) before the
// levels start again at one: da Silva and Urrutia's level limit.
const defaultShakeLevels = 8

// ErrNoFeasibleTour says that an instance has no feasible tour at all
// (TSPDL: the ascending draft-limit order fails, which proves it; TSPTW of
// at most exactMaxN nodes: the exact search finds none).
var ErrNoFeasibleTour = errors.New("the instance has no feasible tour")

// FeasibleOptions configure FindFeasible. The zero value is usable.
type FeasibleOptions struct {
	// TimeLimit bounds the search (0 means DefaultFeasibleTime).
	TimeLimit time.Duration
	// MaxShakes bounds the number of shakes (0 = only TimeLimit). With a
	// limit that the time does not cut short, results depend on Seed only.
	MaxShakes int
	// Levels is the deepest shake, in random 1-shift moves (0 means 8).
	Levels int
	// Seed drives the shakes.
	Seed uint64
}

// FeasibleResult reports FindFeasible.
type FeasibleResult struct {
	// Tour is the least-late tour found (a fresh slice from the depot).
	Tour []int
	// Feasible is lazymask.Check's verdict on Tour.
	Feasible bool
	// Lateness is Σ max(0, arrival − late − Tol) over Tour (TSPTW; the
	// excess load over the draft limits for TSPDL): zero exactly when
	// Check accepts the tour.
	Lateness float64
	// Shakes and Moves count perturbations and applied local-search moves.
	Shakes, Moves int
	// Elapsed is the wall time of the call.
	Elapsed time.Duration
	// Check is lazymask.Check's replay of Tour.
	Check lazymask.Result
}

// FindFeasible looks for a feasible tour of inst, whatever its length.
//
// TSPDL: the customers in ascending draft-limit order (OrderTour). That
// tour is feasible whenever any tour is: the k customers with the smallest
// limits are all visited by the last of them in any tour, whose load
// is then at least their total demand, so that total fits the k-th
// smallest limit, which is the sorted tour's condition at position k. If
// it fails, FindFeasible returns ErrNoFeasibleTour.
//
// TSPTW of at most exactMaxN nodes: an exact search over the visited sets
// (exactTW), which returns ErrNoFeasibleTour when no tour exists.
//
// Larger TSPTW: first the construction phase of da Silva and Urrutia's
// GVNS, for an eighth of the time: starting from the least late of starts,
// the customers sorted by window midpoint or end, and InsertionTour, a
// first-improvement descent over 1-shift moves (one customer moved
// elsewhere) minimises the total lateness; while the lateness is not zero,
// the best tour is shaken by 1, 2, … Levels random 1-shift moves of up to
// shakeReach positions and descended again, a better result resetting the
// level to 1. Where that ends late, GrowTour (insertions into searched
// partial tours) for a quarter of the time, and where that fails,
// ImproveFrom (the repair on the (excess, cost) key, then kicks, until the
// first feasible tour) from the insertion tour for the rest. With MaxShakes
// set only the GVNS runs, for the whole time. An instance that stays late
// may still have a feasible tour: the result then has Feasible false and no
// error.
//
// The result is always verified with lazymask.Check.
func FindFeasible(inst *lazymask.Instance, starts [][]int, opt FeasibleOptions) (FeasibleResult, error) {
	return FindFeasibleContext(context.Background(), inst, starts, opt)
}

// FindFeasibleContext is FindFeasible, ended early when ctx is done: the
// result is the least late tour found so far, verified as always.
func FindFeasibleContext(ctx context.Context, inst *lazymask.Instance, starts [][]int, opt FeasibleOptions) (FeasibleResult, error) {
	began := time.Now()
	if err := inst.Validate(); err != nil {
		return FeasibleResult{}, fmt.Errorf("feasible search: %w", err)
	}
	if opt.TimeLimit < 0 || opt.MaxShakes < 0 || opt.Levels < 0 {
		return FeasibleResult{}, fmt.Errorf("feasible search: negative limit (time %v, shakes %d, levels %d)", opt.TimeLimit, opt.MaxShakes, opt.Levels)
	}
	for i, s := range starts {
		if _, err := lazymask.Check(inst, s); err != nil {
			var ie *lazymask.InfeasibleError
			if !errors.As(err, &ie) {
				return FeasibleResult{}, fmt.Errorf("feasible search: start %d: %w", i, err)
			}
		}
	}
	var res FeasibleResult
	switch inst.Problem {
	case lazymask.TSPDL:
		res.Tour = OrderTour(inst)
	case lazymask.TSPTW:
		if inst.N <= exactMaxN {
			res.Tour = exactTW(inst)
			if res.Tour == nil {
				res.Tour = OrderTour(inst)
			}
			break
		}
		res.Tour, res.Shakes, res.Moves = searchLate(ctx, inst, starts, opt, began)
	default:
		return res, fmt.Errorf("feasible search: unknown problem %v", inst.Problem)
	}
	chk, err := lazymask.Check(inst, res.Tour)
	var ie *lazymask.InfeasibleError
	if err != nil && !errors.As(err, &ie) {
		return res, fmt.Errorf("feasible search: result: %w", err)
	}
	res.Check, res.Feasible = chk, chk.Feasible
	for _, v := range chk.Violation {
		res.Lateness += max(0, v-lazymask.Tol)
	}
	res.Elapsed = time.Since(began)
	if !res.Feasible && (inst.Problem == lazymask.TSPDL || inst.N <= exactMaxN) {
		return res, ErrNoFeasibleTour
	}
	return res, nil
}

// searchLate runs the lateness search for an eighth of the time, and where
// that ends late grows a tour (GrowTour) in a quarter of it; where that
// fails, the local search (ImproveFrom: repair on the (excess, cost) key,
// then kicks, until the first feasible tour) goes on from InsertionTour's
// least late tour for the rest. Why this order: the lateness descent finds
// tight-window tours in milliseconds but moves one customer at a time and
// stalls on tours too long for their horizon; there a grown tour came in
// about a second where the descent found none in 30 s; the repair is the
// slowest and last (docs/experiments.md, "Postponed insertions and grown
// tours").
func searchLate(ctx context.Context, inst *lazymask.Instance, starts [][]int, opt FeasibleOptions, began time.Time) ([]int, int, int) {
	limit := opt.TimeLimit
	if limit == 0 {
		limit = DefaultFeasibleTime
	}
	first := opt
	if opt.MaxShakes == 0 {
		first.TimeLimit = limit / 8
	}
	start, _ := InsertionTour(inst, feasibleInsertionTries, opt.Seed)
	ls := newLateSearch(inst, first)
	ls.done = ctx.Done()
	ls.insertion = start // built once: the repair below starts from it too
	tour, shakes, moves := ls.run(starts)
	chk, _ := lazymask.Check(inst, tour)
	if chk.Feasible || opt.MaxShakes > 0 {
		return tour, shakes, moves
	}
	if ctx.Err() != nil {
		return tour, shakes, moves
	}
	if t, ok := GrowTourContext(ctx, inst, limit/4, opt.Seed); ok {
		return t, shakes, moves
	}
	left := limit - time.Since(began)
	if left <= 0 {
		return tour, shakes, moves
	}
	o := Options{TimeLimit: left, Kicks: math.MaxInt32, Seed: opt.Seed, UntilFeasible: true}
	r, err := ImproveFromContext(ctx, inst, [][]int{start}, o)
	if err == nil && r.Violation < chk.TotalViolation {
		tour, moves = r.Tour, moves+r.Moves
	}
	return tour, shakes, moves
}

// lateSearch minimises the total lateness of a TSPTW tour over 1-shift
// moves. For the current tour it keeps each position's departure time and
// lateness prefix and suffix sums; a move is evaluated by replaying the
// changed positions from the unchanged prefix, then the rest only while it
// departs earlier than before (a later or equal departure can only keep or
// add lateness from there on, since arrival times grow with it).
type lateSearch struct {
	inst     *lazymask.Instance
	n        int
	dist     []float64
	tour     []int
	dep      []float64 // departure time after position k (dep[0] = 0 at the depot)
	late     []float64 // lateness at position k: max(0, arrival − late − Tol)
	pre, suf []float64 // pre[k] = Σ late[1..k]; suf[k] = Σ late[k..n-1], suf[n] = 0
	opt      FeasibleOptions
	deadline time.Time
	rng      *rand.Rand
	moves    int
	metric   bool // the travel times meet the triangle inequality
	// insertion is InsertionTour's tour, where the caller built it already
	insertion []int
	// done is the caller's context's Done channel (nil: none): the search
	// ends as at its deadline when it closes.
	done <-chan struct{}
}

// expired reports that the deadline passed or the context is done.
func (s *lateSearch) expired() bool {
	if s.done != nil {
		select {
		case <-s.done:
			return true
		default:
		}
	}
	return time.Now().After(s.deadline)
}

func newLateSearch(inst *lazymask.Instance, opt FeasibleOptions) *lateSearch {
	if opt.TimeLimit == 0 {
		opt.TimeLimit = DefaultFeasibleTime
	}
	if opt.Levels == 0 {
		opt.Levels = defaultShakeLevels
	}
	n := inst.N
	return &lateSearch{
		inst: inst, n: n, dist: inst.Matrix(), opt: opt,
		tour: make([]int, n), dep: make([]float64, n), late: make([]float64, n),
		pre: make([]float64, n), suf: make([]float64, n+1),
		deadline: time.Now().Add(opt.TimeLimit),
		metric:   inst.Dist == nil || triangleDefect(inst.Matrix(), n) == 0,
		rng:      rand.New(rand.NewPCG(opt.Seed, 0x6c6d61736b666561)),
	}
}

// lateAt is the lateness of arriving at node v at time arr, less the
// checker's tolerance.
func (s *lateSearch) lateAt(v int, arr float64) float64 {
	return max(0, arr-s.inst.Late[v]-lazymask.Tol)
}

// set makes tour the current tour and fills the tables.
func (s *lateSearch) set(tour []int) float64 {
	copy(s.tour, tour)
	t := 0.0
	for k := 1; k < s.n; k++ {
		v := s.tour[k]
		arr := t + s.dist[s.tour[k-1]*s.n+v]
		s.late[k] = s.lateAt(v, arr)
		t = math.Max(arr, s.inst.Early[v]) + s.inst.Service[v]
		s.dep[k] = t
		s.pre[k] = s.pre[k-1] + s.late[k]
	}
	s.suf[s.n] = 0
	for k := s.n - 1; k >= 1; k-- {
		s.suf[k] = s.suf[k+1] + s.late[k]
	}
	return s.pre[s.n-1]
}

// total is the current tour's lateness.
func (s *lateSearch) total() float64 { return s.pre[s.n-1] }

// eval returns the lateness of the tour with the node at position i moved
// to position j (1 ≤ i, j < n, i ≠ j), or +Inf once it cannot beat bound.
func (s *lateSearch) eval(i, j int, bound float64) float64 {
	lo, hi := min(i, j), max(i, j)
	t := s.dep[lo-1]
	prev := s.tour[lo-1]
	sum := s.pre[lo-1]
	n := s.n
	step := func(v int) bool {
		arr := t + s.dist[prev*n+v]
		sum += s.lateAt(v, arr)
		t = math.Max(arr, s.inst.Early[v]) + s.inst.Service[v]
		prev = v
		return sum < bound
	}
	if i < j {
		for p := i + 1; p <= j; p++ {
			if !step(s.tour[p]) {
				return math.Inf(1)
			}
		}
		if !step(s.tour[i]) {
			return math.Inf(1)
		}
	} else {
		if !step(s.tour[i]) {
			return math.Inf(1)
		}
		for p := j; p < i; p++ {
			if !step(s.tour[p]) {
				return math.Inf(1)
			}
		}
	}
	return s.tail(hi+1, t, prev, sum, bound)
}

// tail finishes an evaluation: the old nodes from position p0 on, reached
// with departure t from prev and lateness sum so far. From p0+1 on the
// node before each is the old one too, so an equal departure time gives
// the old rest exactly, and a later one at least the old rest.
func (s *lateSearch) tail(p0 int, t float64, prev int, sum, bound float64) float64 {
	n := s.n
	for p := p0; p < n; p++ {
		if p > p0 && t >= s.dep[p-1] {
			rest := sum + s.suf[p]
			if rest >= bound {
				return math.Inf(1)
			}
			if t == s.dep[p-1] {
				return rest
			}
		}
		v := s.tour[p]
		arr := t + s.dist[prev*n+v]
		sum += s.lateAt(v, arr)
		if sum >= bound {
			return math.Inf(1)
		}
		t = math.Max(arr, s.inst.Early[v]) + s.inst.Service[v]
		prev = v
	}
	return sum
}

// forward returns the nearest position j > i to which moving the node at
// position i gives a lateness below bound, or -1. The tour without the
// node is replayed once, one position further per j; under the triangle
// inequality the moved node's own arrival only grows with j, so the scan
// stops once that alone reaches the bound.
func (s *lateSearch) forward(i int, bound float64) int {
	n := s.n
	v := s.tour[i]
	t, prev, sum := s.dep[i-1], s.tour[i-1], s.pre[i-1]
	for j := i + 1; j < n; j++ {
		u := s.tour[j]
		arr := t + s.dist[prev*n+u]
		sum += s.lateAt(u, arr)
		if sum >= bound {
			return -1
		}
		t = math.Max(arr, s.inst.Early[u]) + s.inst.Service[u]
		prev = u
		av := t + s.dist[u*n+v]
		sv := sum + s.lateAt(v, av)
		if sv >= bound {
			if s.metric {
				return -1
			}
			continue
		}
		if s.tail(j+1, math.Max(av, s.inst.Early[v])+s.inst.Service[v], v, sv, bound) < bound {
			return j
		}
	}
	return -1
}

// shift moves the node at position i to position j in tour.
func shift(tour []int, i, j int) {
	v := tour[i]
	if i < j {
		copy(tour[i:j], tour[i+1:j+1])
	} else {
		copy(tour[j+1:i+1], tour[j:i])
	}
	tour[j] = v
}

// descend applies improving 1-shift moves until none is left (or the
// deadline). The positions are tried as da Silva and Urrutia order them:
// late customers moved earlier, on-time ones moved later, on-time ones
// earlier, late ones later.
func (s *lateSearch) descend() {
	n := s.n
	for s.total() > 0 {
		if s.expired() {
			return
		}
		found := false
		cur := s.total()
	scan:
		for _, ph := range phases {
			for i := 1; i < n; i++ {
				if (s.late[i] > 0) != ph.late {
					continue
				}
				if i&15 == 0 && s.expired() {
					return
				}
				bound := cur - minLateGain
				if !ph.backward {
					if j := s.forward(i, bound); j > 0 {
						s.move(i, j)
						found = true
						break scan
					}
					continue
				}
				// Nearest places first: small shifts are the cheap ones.
				for j := i - 1; j >= 1; j-- {
					if s.eval(i, j, bound) < bound {
						s.move(i, j)
						found = true
						break scan
					}
				}
			}
		}
		if !found {
			return
		}
	}
}

// minLateGain is the least lateness decrease a move must bring, so that
// rounding differences between a move's evaluation and the replay of the
// new tour cannot make a descent cycle.
const minLateGain = 1e-9

// midOrder returns the customers by increasing window midpoint, ties by
// node index. Where windows are narrow around the arrival times of some
// tour (the hard generator), the midpoints stray from those arrival times
// by half as much as the window ends do, so this order starts closer.
func midOrder(inst *lazymask.Instance) []int {
	tour := make([]int, inst.N)
	for k := range tour {
		tour[k] = k
	}
	slices.SortStableFunc(tour[1:], func(a, b int) int {
		return cmp.Compare(inst.Early[a]+inst.Late[a], inst.Early[b]+inst.Late[b])
	})
	return tour
}

// phases order the 1-shift moves of a descent.
var phases = [4]struct{ late, backward bool }{{true, true}, {false, false}, {false, true}, {true, false}}

// move applies the 1-shift move of position i to j.
func (s *lateSearch) move(i, j int) {
	shift(s.tour, i, j)
	s.set(s.tour)
	s.moves++
}

// shakeReach is how far, in positions, a shake moves a customer: a far
// random move mostly makes lateness that the next descent only undoes.
const shakeReach = 8

// shake applies k random 1-shift moves of at most shakeReach positions to
// the current tour; half of them move a customer near the first late one.
func (s *lateSearch) shake(k int) {
	n := s.n
	if n < 3 {
		return
	}
	first := 0
	for p := 1; p < n; p++ {
		if s.late[p] > 0 {
			first = p
			break
		}
	}
	for range k {
		i := 1 + s.rng.IntN(n-1)
		if first > 0 && s.rng.IntN(2) == 0 {
			i = min(max(first-shakeReach+s.rng.IntN(2*shakeReach+1), 1), n-1)
		}
		d := 1 + s.rng.IntN(shakeReach)
		if s.rng.IntN(2) == 0 {
			d = -d
		}
		j := min(max(i+d, 1), n-1)
		if j == i {
			continue
		}
		shift(s.tour, i, j)
	}
	s.set(s.tour)
}

// feasibleInsertionTries is how many InsertionTour draws the feasibility
// search starts from beside the window orders: its postponed customers
// make the lateness at the tour's end, which the descent removes far
// sooner than that of the urgency order (docs/experiments.md).
const feasibleInsertionTries = 20

// run returns the least late tour found, with the shake and move counts.
func (s *lateSearch) run(starts [][]int) ([]int, int, int) {
	best := midOrder(s.inst)
	bestLate := s.set(best)
	more := [][]int{OrderTour(s.inst)}
	t := s.insertion
	if t == nil {
		t, _ = InsertionTour(s.inst, feasibleInsertionTries, s.opt.Seed)
	}
	if t != nil {
		more = append(more, t)
	}
	for _, st := range append(slices.Clone(starts), more...) {
		if l := s.set(st); l < bestLate {
			best, bestLate = st, l
		}
	}
	s.set(best)
	s.descend()
	best = append([]int(nil), s.tour...)
	bestLate = s.total()
	shakes := 0
	for level := 1; bestLate > 0 && s.n > 2; {
		if s.expired() || (s.opt.MaxShakes > 0 && shakes >= s.opt.MaxShakes) {
			break
		}
		s.set(best)
		s.shake(level)
		shakes++
		s.descend()
		if l := s.total(); l < bestLate {
			copy(best, s.tour)
			bestLate, level = l, 1
		} else if level++; level > s.opt.Levels {
			level = 1
		}
	}
	return best, shakes, s.moves
}

// FeasibleIsExact reports whether FindFeasible decides inst exactly: a
// TSPDL instance, or a TSPTW instance of at most exactMaxN nodes, for
// which it finds a feasible tour or returns ErrNoFeasibleTour, and quickly.
func FeasibleIsExact(inst *lazymask.Instance) bool {
	return inst.Problem == lazymask.TSPDL || inst.N <= exactMaxN
}

// exactMaxN is the largest instance (depot included) that FindFeasible
// solves exactly: 2^15 visited sets × 15 last nodes.
const exactMaxN = 16

// exactTW returns a feasible tour of a TSPTW instance of at most exactMaxN
// nodes, or nil when there is none. For each set of visited customers and
// last customer it keeps the earliest departure of a feasible path; as
// every later arrival only grows with the departure time, the earliest one
// decides feasibility exactly. Times follow lazymask.Check's arithmetic.
func exactTW(inst *lazymask.Instance) []int {
	n := inst.N
	m := n - 1 // customers 1..n-1, bit c-1
	if m == 0 {
		return []int{0}
	}
	d := inst.Matrix()
	full := 1<<m - 1
	dep := make([]float64, (full+1)*m)
	from := make([]int8, (full+1)*m)
	for i := range dep {
		dep[i] = math.Inf(1)
	}
	try := func(set, c, prev int, t float64) {
		arr := t + d[prev*n+c+1]
		if max(0, arr-inst.Late[c+1]) > lazymask.Tol {
			return
		}
		nt := math.Max(arr, inst.Early[c+1]) + inst.Service[c+1]
		if k := set*m + c; nt < dep[k] {
			dep[k], from[k] = nt, int8(prev)
		}
	}
	for c := 0; c < m; c++ {
		try(1<<c, c, 0, 0)
	}
	for set := 1; set <= full; set++ {
		for last := 0; last < m; last++ {
			t := dep[set*m+last]
			if set&(1<<last) == 0 || math.IsInf(t, 1) {
				continue
			}
			for c := 0; c < m; c++ {
				if set&(1<<c) == 0 {
					try(set|1<<c, c, last+1, t)
				}
			}
		}
	}
	last := -1
	for c := 0; c < m; c++ {
		if !math.IsInf(dep[full*m+c], 1) {
			last = c
			break
		}
	}
	if last < 0 {
		return nil
	}
	tour := make([]int, n)
	set := full
	for k := n - 1; k >= 1; k-- {
		tour[k] = last + 1
		prev := int(from[set*m+last])
		set &^= 1 << last
		last = prev - 1
	}
	return tour
}
