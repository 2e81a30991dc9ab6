// Package exact proves optimal tours of small TSPTW and TSPDL instances with
// a Held–Karp dynamic program over subsets of customers.
//
// A state is (visited set S, last node j). For TSPTW it holds Pareto labels
// (cost, departure time): cost and time differ by the waiting and by the
// service times, so neither alone orders the partial tours, but a label that
// is no cheaper and departs no earlier than another at the same state can
// never complete better. For TSPDL the load after S is fixed by S, so one
// label (the cheapest) per state suffices. Labels are pruned when some
// unvisited customer can no longer be reached in time (by shortest-path
// travel times, so the rule holds on matrices that break the triangle
// inequality) and, given an upper bound, when their cost plus a lower bound
// on the rest exceeds it. The optimum is replayed by lazymask.Check, which
// alone declares it feasible.
//
// The states are built stage by stage (sets of one customer, then of two,
// …) and only where some label reaches them, so the work follows the
// reachable states rather than all 2^(N−1)·(N−1): tight windows and a good
// upper bound keep a 100-node instance small, while wide windows make N ≈ 25
// the practical limit. Options.MaxLabels and Options.Deadline bound a solve.
package exact

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// MaxN is the largest instance (nodes, depot included) Solve accepts: a
// set of customers is a fixed 256-bit key.
const MaxN = 1 + 64*setWords

// DefaultMaxLabels bounds the labels of one solve (about 32 bytes each).
const DefaultMaxLabels = 20_000_000

// ErrTooLarge is returned when the instance or its labels exceed the limits.
var ErrTooLarge = errors.New("exact: instance too large")

// ErrTimeLimit is returned when Options.Deadline passes before the proof.
var ErrTimeLimit = errors.New("exact: time limit")

// ErrInfeasible is returned when no feasible tour exists (at most
// Options.Upper, when that is set).
var ErrInfeasible = errors.New("exact: no feasible tour")

// Options bound a solve.
type Options struct {
	// Upper, when positive, is an upper bound on the optimal cost
	// (normalised units), e.g. the cost of a known feasible tour: labels
	// that cannot complete at or below it are dropped. A bound below the
	// optimum makes Solve return ErrInfeasible.
	Upper float64
	// MaxLabels bounds the labels kept (DefaultMaxLabels when zero).
	MaxLabels int
	// Metric says that the travel times keep the triangle inequality
	// (d(a, c) ≤ d(a, b) + d(b, c)), so they are their own shortest paths
	// and the O(N³) pass that finds those is skipped.
	Metric bool
	// Deadline, when set, ends a solve that has not finished by then, or
	// whose pace shows it will not (ErrTimeLimit; see run).
	Deadline time.Time
}

// Result is a proven optimum.
type Result struct {
	// Tour is an optimal tour (starting at the depot) and Cost its closed
	// length as lazymask.Check computes it.
	Tour []int
	Cost float64
	// Check is lazymask.Check's replay of Tour.
	Check lazymask.Result
	// Labels counts the labels created; States the states that held one.
	Labels, States int
	Elapsed        time.Duration
}

// errCanceled ends a solve whose context is done; SolveContext returns the
// context's error in its place.
var errCanceled = errors.New("exact: canceled")

// closed reports that done (nil: never) is closed.
func closed(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// label is a partial tour ending at its state's last node.
type label struct {
	cost, time float64
	parent     int32 // label index, −1 at the first customer
	next       int32 // next label of the same state, −1 at the end
	node       int32
}

// Solve returns an optimal tour of inst, or ErrInfeasible, or ErrTooLarge.
func Solve(inst *lazymask.Instance, opt Options) (Result, error) {
	return SolveContext(context.Background(), inst, opt)
}

// SolveContext is Solve, ended early when ctx is done: it then returns
// ctx's error (wrapped, with the instance's name) and no tour.
func SolveContext(ctx context.Context, inst *lazymask.Instance, opt Options) (Result, error) {
	began := time.Now()
	if inst == nil {
		return Result{}, errors.New("exact: nil instance")
	}
	if err := inst.Validate(); err != nil {
		return Result{}, fmt.Errorf("exact %s: %w", inst.Name, err)
	}
	n := inst.N
	if n > MaxN {
		return Result{}, fmt.Errorf("exact %s: %w: %d nodes (at most %d)", inst.Name, ErrTooLarge, n, MaxN)
	}
	if n == 2 {
		tour := []int{0, 1}
		chk, err := lazymask.Check(inst, tour)
		if err != nil {
			return Result{}, fmt.Errorf("exact %s: %w: %w", inst.Name, ErrInfeasible, err)
		}
		return Result{Tour: tour, Cost: chk.Cost, Check: chk, Labels: 1, States: 1, Elapsed: time.Since(began)}, nil
	}
	maxLabels := opt.MaxLabels
	if maxLabels <= 0 {
		maxLabels = DefaultMaxLabels
	}
	s := newSolver(inst, opt.Upper, opt.Metric, opt.Deadline, ctx.Done())
	if s == nil {
		if err := ctx.Err(); err != nil {
			return Result{Elapsed: time.Since(began)}, fmt.Errorf("exact %s: %w", inst.Name, err)
		}
		return Result{Elapsed: time.Since(began)}, fmt.Errorf("exact %s: %w", inst.Name, ErrTimeLimit)
	}
	best, err := s.run(maxLabels, opt.Deadline)
	res := Result{Labels: s.labels.n, States: s.states, Elapsed: time.Since(began)}
	if errors.Is(err, errCanceled) {
		err = ctx.Err()
	}
	if err != nil {
		return res, fmt.Errorf("exact %s: %w", inst.Name, err)
	}
	if best < 0 {
		return res, fmt.Errorf("exact %s: %w", inst.Name, ErrInfeasible)
	}
	tour := make([]int, n)
	for k, l := n-1, int32(best); l >= 0; k, l = k-1, s.labels.at(l).parent {
		tour[k] = int(s.labels.at(l).node)
	}
	chk, err := lazymask.Check(inst, tour)
	res.Tour, res.Cost, res.Check, res.Elapsed = tour, chk.Cost, chk, time.Since(began)
	if err != nil {
		return res, fmt.Errorf("exact %s: the optimum failed the checker (a defect): %w", inst.Name, err)
	}
	return res, nil
}

type solver struct {
	inst   *lazymask.Instance
	done   <-chan struct{} // a context's: closed, the solve ends (errCanceled)
	n, m   int             // nodes; customers (m = n − 1)
	tw     bool
	d      []float64
	minIn  []float64 // cheapest arc into each node
	upper  float64
	labels arena
	states int
	// TSPTW: tight[j] lists the tightK customers k of least late[k] −
	// sp(j, k), the latest departure from j that still reaches k in time
	// (sp: shortest-path travel times, Floyd–Warshall), with that bound in
	// tightAt; the first customer of the list not yet
	// visited decides whether every unvisited one can still be reached.
	// TSPDL: tight[0] lists them all by draft − demand, the most load they
	// can still take.
	tight   [][]int32
	tightAt [][]float64
	boundAt []float64 // TSPTW: late[k] − sp(j, k) at j·n + k
	byLate  []int32   // TSPTW: the customers by window end
}

// setWords is the number of 64-bit words of a set of customers.
const setWords = 4

// set holds customer k (1 ≤ k < n) at bit k − 1.
type set [setWords]uint64

func (s set) has(k int) bool { return s[(k-1)>>6]&(1<<((k-1)&63)) != 0 }

// eachOut calls f with every customer 1..m outside s, in increasing order,
// until f returns false.
func (s set) eachOut(m int, f func(k int) bool) {
	for w := 0; w*64 < m; w++ {
		x := ^s[w]
		if rest := m - w*64; rest < 64 {
			x &= 1<<rest - 1
		}
		for ; x != 0; x &= x - 1 {
			if !f(w*64 + bits.TrailingZeros64(x) + 1) {
				return
			}
		}
	}
}

func (s set) with(k int) set {
	s[(k-1)>>6] |= 1 << ((k - 1) & 63)
	return s
}

// stateKey is a state: the visited set and the last customer.
type stateKey struct {
	s    set
	last int32
}

// state is one reachable state of a stage: its labels' list and the lower
// bound on the rest of a tour from it (Σ minIn over the customers outside
// the set, the depot's included).
type state struct {
	key  stateKey
	head int32
	rest float64
}

// arena stores labels in fixed chunks, so growing it never copies them
// (a doubling slice held up to three times the labels at its peak).
type arena struct {
	chunks [][]label
	n      int
}

const chunkBits = 12

func (a *arena) at(i int32) *label { return &a.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

func (a *arena) add(l label) int32 {
	if a.n&(1<<chunkBits-1) == 0 {
		a.chunks = append(a.chunks, make([]label, 1<<chunkBits))
	}
	i := int32(a.n)
	*a.at(i) = l
	a.n++
	return i
}

// newSolver prepares a solve, or returns nil when deadline passes first.
func newSolver(inst *lazymask.Instance, upper float64, metric bool, deadline time.Time, done <-chan struct{}) *solver {
	n := inst.N
	s := &solver{inst: inst, n: n, m: n - 1, tw: inst.Problem == lazymask.TSPTW, d: inst.Matrix(), upper: math.Inf(1), done: done}
	if upper > 0 {
		s.upper = upper * (1 + 1e-9)
	}
	s.minIn = make([]float64, n)
	for j := 0; j < n; j++ {
		s.minIn[j] = math.Inf(1)
		for i := 0; i < n; i++ {
			if i != j {
				s.minIn[j] = min(s.minIn[j], s.d[i*n+j])
			}
		}
	}
	order := func(bound func(k int) float64) ([]int32, []float64) {
		ks := make([]int32, 0, n-1)
		for k := 1; k < n; k++ {
			ks = append(ks, int32(k))
		}
		slices.SortStableFunc(ks, func(a, b int32) int { return cmp.Compare(bound(int(a)), bound(int(b))) })
		at := make([]float64, len(ks))
		for i, k := range ks {
			at[i] = bound(int(k))
		}
		return ks, at
	}
	if !s.tw {
		ks, at := order(func(k int) float64 { return inst.Draft[k] - inst.Demand[k] })
		s.tight, s.tightAt = [][]int32{ks}, [][]float64{at}
		return s
	}
	sp := append([]float64(nil), s.d...)
	for k := 0; k < n && !metric; k++ {
		if !deadline.IsZero() && time.Now().After(deadline) || closed(done) {
			return nil
		}
		rowK := sp[k*n : k*n+n]
		for i := 0; i < n; i++ {
			dik, rowI := sp[i*n+k], sp[i*n:i*n+n]
			for j, v := range rowK {
				if w := dik + v; w < rowI[j] {
					rowI[j] = w
				}
			}
		}
	}
	s.boundAt = sp
	for j := 0; j < n; j++ {
		for k := 0; k < n; k++ {
			s.boundAt[j*n+k] = inst.Late[k] - sp[j*n+k]
		}
	}
	s.byLate, _ = order(func(k int) float64 { return inst.Late[k] })
	s.tight, s.tightAt = make([][]int32, n), make([][]float64, n)
	for j := range n {
		s.tight[j], s.tightAt[j] = s.tightest(j)
	}
	return s
}

// visit returns the departure time from (TSPTW) or load after (TSPDL)
// node j reached from a label with departure t (or load) at cost d, and
// whether the visit keeps within j's window or draft limit, exactly as
// lazymask.Check sums it.
func (s *solver) visit(t, d float64, j int) (float64, bool) {
	in := s.inst
	if !s.tw {
		load := t + in.Demand[j]
		return load, load-in.Draft[j] <= lazymask.Tol
	}
	arr := t + d
	if math.Max(0, arr-in.Late[j]) > lazymask.Tol {
		return 0, false
	}
	return math.Max(arr, in.Early[j]) + in.Service[j], true
}

// alive reports whether every customer outside vis can still be reached
// in time from node j departing at t (TSPTW), or visited under its draft
// limit after load t (TSPDL: loads only grow): the tightest unvisited
// customer decides, found in the tight order or, once those are all
// visited, among the customers left.
func (s *solver) alive(vis set, j int, t float64) bool {
	row, at := s.tight[0], s.tightAt[0]
	if s.tw {
		row, at = s.tight[j], s.tightAt[j]
	}
	for i, k := range row {
		if !vis.has(int(k)) {
			return t-at[i] <= lazymask.Tol
		}
	}
	if len(row) == s.m {
		return true
	}
	ok := true // TSPTW only: TSPDL's row holds every customer
	vis.eachOut(s.m, func(k int) bool {
		ok = t-s.boundAt[j*s.n+k] <= lazymask.Tol
		return ok
	})
	return ok
}

// tightK is how many of the customers tightest from a node TSPTW's alive
// keeps in order; where all of them are visited it scans the rest.
const tightK = 8

// tightest returns the tightK customers with the least latest departure
// from j (boundAt), in increasing order, and those bounds.
func (s *solver) tightest(j int) ([]int32, []float64) {
	ks := make([]int32, 0, tightK+1)
	at := make([]float64, 0, tightK+1)
	for k := 1; k < s.n; k++ {
		b := s.boundAt[j*s.n+k]
		if len(ks) == tightK && b >= at[tightK-1] {
			continue
		}
		i := len(ks)
		for i > 0 && at[i-1] > b {
			i--
		}
		ks, at = slices.Insert(ks, i, int32(k)), slices.Insert(at, i, b)
		if len(ks) > tightK {
			ks, at = ks[:tightK], at[:tightK]
		}
	}
	return ks, at
}

// urgent returns the two customers outside vis with the earliest window
// ends (TSPTW; 0 where there are fewer), for reaches.
func (s *solver) urgent(vis set) (u0, u1 int) {
	if !s.tw {
		return 0, 0
	}
	for _, k := range s.byLate {
		if !vis.has(int(k)) {
			if u0 != 0 {
				return u0, int(k)
			}
			u0 = int(k)
		}
	}
	return u0, 0
}

// reaches is alive's quick necessary test after moving to k, departing at
// t: the most urgent other customer left can still be reached in time.
// Most extensions that alive rejects fail it already, in O(1).
func (s *solver) reaches(k int, t float64, u0, u1 int) bool {
	if u0 == k {
		u0 = u1
	}
	return u0 == 0 || t-s.boundAt[k*s.n+u0] <= lazymask.Tol
}

// insert adds a label at state st unless one there dominates it, and drops
// those it dominates. TSPDL keeps only the cheapest (its loads are equal).
func (s *solver) insert(st *state, l label, maxLabels int) error {
	prev := int32(-1)
	for i := st.head; i >= 0; {
		o := s.labels.at(i)
		if o.cost <= l.cost && (!s.tw || o.time <= l.time) {
			return nil
		}
		if l.cost <= o.cost && (!s.tw || l.time <= o.time) {
			nx := o.next
			if prev < 0 {
				st.head = nx
			} else {
				s.labels.at(prev).next = nx
			}
			i = nx
			continue
		}
		prev, i = i, o.next
	}
	if s.labels.n >= maxLabels {
		return fmt.Errorf("%w: more than %d labels", ErrTooLarge, maxLabels)
	}
	l.next = st.head
	st.head = s.labels.add(l)
	return nil
}

// stage collects the states of one set size, in the order they were
// first reached (so a solve is deterministic), with an index by key.
type stage struct {
	states []state
	index  map[stateKey]int32
}

func (g *stage) get(k stateKey, rest float64) *state {
	if i, ok := g.index[k]; ok {
		return &g.states[i]
	}
	g.index[k] = int32(len(g.states))
	g.states = append(g.states, state{key: k, head: -1, rest: rest})
	return &g.states[len(g.states)-1]
}

// paceSlack is how far past its deadline a projection of a solve's pace
// may reach before the solve stops early: the stages of a solve bounded
// by a good tour shrink again after the middle, and the first stages'
// pace is noisy.
const paceSlack = 2

// run extends every label of each stage by one customer into the next
// stage and returns the best complete label, or −1.
func (s *solver) run(maxLabels int, deadline time.Time) (int, error) {
	n, m := s.n, s.m
	total := 0.0
	for j := 0; j < n; j++ {
		total += s.minIn[j]
	}
	cur := &stage{index: map[stateKey]int32{}}
	for j := 1; j < n; j++ {
		t, ok := s.visit(0, s.d[j], j)
		if !s.tw {
			t, ok = s.visit(0, 0, j)
		}
		vis := set{}.with(j)
		rest := total - s.minIn[j]
		if !ok || !s.alive(vis, j, t) || s.d[j]+rest > s.upper {
			continue
		}
		if err := s.insert(cur.get(stateKey{vis, int32(j)}, rest), label{cost: s.d[j], time: t, parent: -1, node: int32(j)}, maxLabels); err != nil {
			return -1, err
		}
	}
	timed, polls := !deadline.IsZero(), 0
	polled := timed || s.done != nil
	start := time.Now()
	for size := 1; size < m; size++ {
		s.states += len(cur.states)
		began := time.Now()
		next := &stage{index: make(map[stateKey]int32, len(cur.states))}
		for si := range cur.states {
			st := cur.states[si]
			j := int(st.key.last)
			u0, u1 := s.urgent(st.key.s) // a state's, for all its labels
			for li := st.head; li >= 0; li = s.labels.at(li).next {
				if polls++; polled && polls&63 == 0 {
					if closed(s.done) {
						return -1, errCanceled
					}
					// this stage alone, at its pace so far, outlasts the time left
					now := time.Now()
					stage := float64(now.Sub(began)) * float64(len(cur.states)) / float64(si+1)
					if timed && (now.After(deadline) || began.Add(time.Duration(stage)).After(deadline)) {
						return -1, ErrTimeLimit
					}
				}
				l := *s.labels.at(li)
				var err error
				st.key.s.eachOut(m, func(k int) bool {
					dc := s.d[j*n+k]
					c := l.cost + dc
					rest := st.rest - s.minIn[k]
					if c+rest > s.upper {
						return true
					}
					t, ok := s.visit(l.time, dc, k)
					if !ok || !s.reaches(k, t, u0, u1) {
						return true
					}
					vis := st.key.s.with(k)
					if !s.alive(vis, k, t) {
						return true
					}
					err = s.insert(next.get(stateKey{vis, int32(k)}, rest), label{cost: c, time: t, parent: li, node: int32(k)}, maxLabels)
					return err == nil
				})
				if err != nil {
					return -1, err
				}
			}
		}
		// The stages left, at the mean pace of those done, outlast the
		// time left by paceSlack (a solve bounded by a good tour has its
		// widest stages in the middle, so this pace is a guess).
		if now := time.Now(); timed && now.Add(time.Duration(float64(now.Sub(start))/float64(size)*float64(m-1-size)/paceSlack)).After(deadline) {
			return -1, ErrTimeLimit
		}
		cur = next
	}
	s.states += len(cur.states)
	bestCost, best := math.Inf(1), -1
	for _, st := range cur.states {
		j := int(st.key.last)
		for li := st.head; li >= 0; li = s.labels.at(li).next {
			if c := s.labels.at(li).cost + s.d[j*n]; c < bestCost {
				bestCost, best = c, int(li)
			}
		}
	}
	if best >= 0 && bestCost > s.upper {
		best = -1
	}
	return best, nil
}

// SolveAll solves every instance on workers goroutines (at least one),
// with the cost of its known tour (when it has a feasible one) as the
// upper bound: results[i] and errs[i] are Solve's for instance i.
func SolveAll(insts []*lazymask.Instance, known [][]int, workers int, opt Options) ([]Result, []error) {
	res := make([]Result, len(insts))
	errs := make([]error, len(insts))
	next := make(chan int)
	done := make(chan struct{})
	for range max(workers, 1) {
		go func() {
			for i := range next {
				o := opt
				if i < len(known) && known[i] != nil {
					if chk, err := lazymask.Check(insts[i], known[i]); err == nil && (o.Upper <= 0 || chk.Cost < o.Upper) {
						o.Upper = chk.Cost
					}
				}
				res[i], errs[i] = Solve(insts[i], o)
			}
			done <- struct{}{}
		}()
	}
	for i := range insts {
		next <- i
	}
	close(next)
	for range max(workers, 1) {
		<-done
	}
	return res, errs
}
