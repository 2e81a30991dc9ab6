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
// Memory and time grow as 2^(N−1)·(N−1) states: N ≤ 20 or so is practical.
package exact

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// MaxN is the largest instance (nodes, depot included) Solve accepts: the
// state table has 2^(N−1)·(N−1) entries.
const MaxN = 25

// DefaultMaxLabels bounds the labels of one solve (about 32 bytes each).
const DefaultMaxLabels = 20_000_000

// ErrTooLarge is returned when the instance or its labels exceed the limits.
var ErrTooLarge = errors.New("exact: instance too large")

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

// label is a partial tour ending at its state's last node.
type label struct {
	cost, time float64
	parent     int32 // label index, −1 at the first customer
	next       int32 // next label of the same state, −1 at the end
	node       int32
}

// Solve returns an optimal tour of inst, or ErrInfeasible, or ErrTooLarge.
func Solve(inst *lazymask.Instance, opt Options) (Result, error) {
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
	s := newSolver(inst, opt.Upper)
	best, err := s.run(maxLabels)
	res := Result{Labels: s.labels.n, States: s.states}
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
	n, m   int // nodes; customers (m = n − 1)
	d      []float64
	sp     []float64 // shortest-path travel times (Floyd–Warshall)
	minIn  []float64 // cheapest arc into each node
	upper  float64
	heads  []int32 // per state (mask·m + last−1): first label, −1 for none
	labels arena
	states int
}

// arena stores labels in fixed chunks, so growing it never copies them
// (a doubling slice held up to three times the labels at its peak).
type arena struct {
	chunks [][]label
	n      int
}

const chunkBits = 16

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

func newSolver(inst *lazymask.Instance, upper float64) *solver {
	n := inst.N
	s := &solver{inst: inst, n: n, m: n - 1, d: inst.Matrix(), upper: math.Inf(1)}
	if upper > 0 {
		s.upper = upper * (1 + 1e-9)
	}
	s.sp = append([]float64(nil), s.d...)
	for k := 0; k < n; k++ {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if v := s.sp[i*n+k] + s.sp[k*n+j]; v < s.sp[i*n+j] {
					s.sp[i*n+j] = v
				}
			}
		}
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
	return s
}

// visit returns the departure time from (TSPTW) or load after (TSPDL)
// node j reached from a label with departure t (or load) at cost d, and
// whether the visit keeps within j's window or draft limit, exactly as
// lazymask.Check sums it.
func (s *solver) visit(t, d float64, j int) (float64, bool) {
	in := s.inst
	if in.Problem == lazymask.TSPDL {
		load := t + in.Demand[j]
		return load, load-in.Draft[j] <= lazymask.Tol
	}
	arr := t + d
	if math.Max(0, arr-in.Late[j]) > lazymask.Tol {
		return 0, false
	}
	return math.Max(arr, in.Early[j]) + in.Service[j], true
}

// alive reports whether every customer outside mask can still be reached
// in time from node j departing at t (TSPTW), or visited under its draft
// limit after load t (TSPDL: loads only grow).
func (s *solver) alive(mask uint32, j int, t float64) bool {
	in := s.inst
	if in.Problem == lazymask.TSPDL {
		for k := 1; k < s.n; k++ {
			if mask&(1<<(k-1)) == 0 && k != j && t+in.Demand[k]-in.Draft[k] > lazymask.Tol {
				return false
			}
		}
		return true
	}
	for k := 1; k < s.n; k++ {
		if mask&(1<<(k-1)) == 0 && k != j && t+s.sp[j*s.n+k]-in.Late[k] > lazymask.Tol {
			return false
		}
	}
	return true
}

// insert adds a label at state st unless one there dominates it, and drops
// those it dominates. TSPDL keeps only the cheapest (its loads are equal).
func (s *solver) insert(st int, l label, maxLabels int) error {
	tw := s.inst.Problem == lazymask.TSPTW
	prev := int32(-1)
	for i := s.heads[st]; i >= 0; {
		o := s.labels.at(i)
		if o.cost <= l.cost && (!tw || o.time <= l.time) {
			return nil
		}
		if l.cost <= o.cost && (!tw || l.time <= o.time) {
			nx := o.next
			if prev < 0 {
				s.heads[st] = nx
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
	if s.heads[st] < 0 {
		s.states++
	}
	l.next = s.heads[st]
	s.heads[st] = s.labels.add(l)
	return nil
}

// run fills the states in increasing order of their set (every subset of
// a set is a smaller number, so a state is complete when its set is
// reached) and returns the best complete label, or −1.
func (s *solver) run(maxLabels int) (int, error) {
	n, m := s.n, s.m
	full := uint32(1)<<m - 1
	s.heads = make([]int32, (1<<m)*m)
	for i := range s.heads {
		s.heads[i] = -1
	}
	// rest[mask] would cost 2^m floats; the lower bound on the rest of a
	// tour is Σ minIn over the customers outside the set, plus the depot.
	total := s.minIn[0]
	for j := 1; j < n; j++ {
		total += s.minIn[j]
	}
	for j := 1; j < n; j++ {
		t, ok := s.visit(0, s.d[j], j)
		if s.inst.Problem == lazymask.TSPDL {
			t, ok = s.visit(0, 0, j)
		}
		mask := uint32(1) << (j - 1)
		if !ok || !s.alive(mask, j, t) || s.d[j]+total-s.minIn[j] > s.upper {
			continue
		}
		if err := s.insert(int(mask)*m+j-1, label{cost: s.d[j], time: t, parent: -1, node: int32(j)}, maxLabels); err != nil {
			return -1, err
		}
	}
	bestCost, best := math.Inf(1), -1
	for mask := uint32(1); mask <= full; mask++ {
		rest := total
		for b := mask; b != 0; b &= b - 1 {
			rest -= s.minIn[bits.TrailingZeros32(b)+1]
		}
		for j := 1; j < n; j++ {
			if mask&(1<<(j-1)) == 0 {
				continue
			}
			for li := s.heads[int(mask)*m+j-1]; li >= 0; li = s.labels.at(li).next {
				l := *s.labels.at(li)
				if mask == full {
					if c := l.cost + s.d[j*n]; c < bestCost {
						bestCost, best = c, int(li)
					}
					continue
				}
				for k := 1; k < n; k++ {
					bit := uint32(1) << (k - 1)
					if mask&bit != 0 {
						continue
					}
					dc := s.d[j*n+k]
					c := l.cost + dc
					if c+rest-s.minIn[k] > s.upper {
						continue
					}
					t, ok := s.visit(l.time, dc, k)
					if !ok || !s.alive(mask|bit, k, t) {
						continue
					}
					if err := s.insert(int(mask|bit)*m+k-1, label{cost: c, time: t, parent: li, node: int32(k)}, maxLabels); err != nil {
						return -1, err
					}
				}
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
