package explain

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/lmask/lmask/exact"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
)

// MaxExactDrop is the most customers for which Drop proves the fewest
// drops (TSPTW: a dynamic program over every subset, 2^m·m earliest
// departures; TSPDL is exact at any size).
const MaxExactDrop = 17

// Dropped is Drop's answer: a served tour and the customers left out.
type Dropped struct {
	// Tour lists the served nodes from the depot (inst's ids); Dropped the
	// customers left out, increasing.
	Tour, Dropped []int
	// Check is lazymask.CheckServed's replay of Tour; Feasible its verdict.
	Check    lazymask.Result
	Feasible bool
	// Fewest says that no feasible tour drops fewer customers (proven).
	Fewest  bool
	Elapsed time.Duration
}

// Drop serves as many of inst's customers as it can in one feasible tour,
// then shortens that tour. A feasible instance drops none (given a
// feasible start). TSPTW of at most MaxExactDrop customers and every
// TSPDL instance drop the fewest possible (TSPDL: Moore and Hodgson's
// rule, ports taken by increasing draft limit and the largest demand
// dropped whenever the load passes a limit). Larger TSPTW instances walk
// the least late tour the lateness search finds, dropping each stop it
// would reach late; where that drops 2 to 8, they also drop, one at a
// time, a customer of a conflict (Explain's), the one whose removal leaves
// the least late rest, until the rest has a feasible tour, and keep the
// fewer drops; either way every dropped customer that fits is put back. starts are tours of inst (all nodes; infeasible ones
// welcome) the search may start from.
func Drop(inst *lazymask.Instance, starts [][]int, opt Options) (Dropped, error) {
	return DropContext(context.Background(), inst, starts, opt)
}

// DropContext is Drop, ended early when ctx is done: the searches and
// proofs under way stop within moments, and the route it has by then is
// returned (checked as always) with ctx's error.
func DropContext(ctx context.Context, inst *lazymask.Instance, starts [][]int, opt Options) (Dropped, error) {
	d, err := drop(ctx, inst, starts, opt)
	if err == nil {
		err = ctx.Err()
	}
	return d, err
}

func drop(ctx context.Context, inst *lazymask.Instance, starts [][]int, opt Options) (Dropped, error) {
	began := time.Now()
	if err := inst.Validate(); err != nil {
		return Dropped{}, fmt.Errorf("drop %s: %w", inst.Name, err)
	}
	c := newChecker(ctx, inst, opt, began)
	for _, s := range starts {
		if r, err := lazymask.Check(inst, s); err == nil && r.Feasible {
			return c.finish(slices.Clone(s), nil, true, began)
		}
	}
	m := inst.N - 1
	switch {
	case !c.tw:
		served := c.mooreHodgson()
		tour := append([]int{0}, c.edd(served)...)
		return c.finish(tour, c.complement(served), true, began)
	case m <= MaxExactDrop:
		tour, dropped := c.exactDrop()
		return c.finish(tour, dropped, true, began)
	}
	tour, dropped := c.passDrop(starts)
	if len(dropped) > 1 && len(dropped) <= 8 && c.left() > 0 {
		// A conflict at a time may drop fewer where the conflicts are few.
		if t, d := c.greedyDrop(); len(d) < len(dropped) {
			tour, dropped = t, d
		}
	}
	return c.finish(tour, dropped, false, began)
}

// passDrop takes the least late tour the lateness search finds (from
// starts) and walks it, dropping each stop it would reach late, so the
// stops kept are each reached in time as the checker replays them; then
// it puts back the dropped stops that fit.
func (c *checker) passDrop(starts [][]int) ([]int, []int) {
	in, n := c.inst, c.n
	fo := localsearch.FeasibleOptions{TimeLimit: max(c.left()/8, time.Millisecond), MaxShakes: 50 + 2*n, Seed: c.opt.Seed}
	var pool [][]int
	for _, s := range starts {
		if _, err := lazymask.Check(in, s); err == nil || errors.As(err, new(*lazymask.InfeasibleError)) {
			pool = append(pool, s)
		}
	}
	r, err := localsearch.FindFeasibleContext(c.ctx, in, pool, fo)
	order := r.Tour
	if (err != nil && !errors.Is(err, localsearch.ErrNoFeasibleTour)) || len(order) != n {
		order = localsearch.OrderTour(in)
	}
	tour := []int{0}
	var dropped []int
	t, prev := 0.0, 0
	for _, k := range order[1:] {
		arr := t + c.d[prev*n+k]
		if math.Max(0, arr-in.Late[k]) > lazymask.Tol {
			dropped = append(dropped, k)
			continue
		}
		tour = append(tour, k)
		t, prev = math.Max(arr, in.Early[k])+in.Service[k], k
	}
	return c.reinsert(tour, dropped)
}

// complement returns the customers outside served, increasing.
func (c *checker) complement(served []int) []int {
	in := make([]bool, c.n)
	for _, k := range served {
		in[k] = true
	}
	var out []int
	for k := 1; k < c.n; k++ {
		if !in[k] {
			out = append(out, k)
		}
	}
	return out
}

// finish shortens the served tour with the local search (a feasible tour
// stays feasible), checks it and fills the result.
func (c *checker) finish(tour, dropped []int, fewest bool, began time.Time) (Dropped, error) {
	slices.Sort(dropped)
	if len(tour) > 3 {
		sub := lazymask.Restrict(c.inst, tour)
		o := localsearch.Options{Kicks: 2 * len(tour), Seed: c.opt.Seed, TimeLimit: max(min(c.left()/2, 250*time.Millisecond), 10*time.Millisecond), MinKicks: 1}
		if r, err := localsearch.ImproveContext(c.ctx, sub, identityTour(len(tour)), o); err == nil && r.Feasible {
			out := make([]int, len(tour))
			for i, v := range r.Tour {
				out[i] = tour[v]
			}
			tour = out
		}
	}
	res, err := lazymask.CheckServed(c.inst, tour, dropped)
	var ie *lazymask.InfeasibleError
	if err != nil && !errors.As(err, &ie) {
		return Dropped{}, fmt.Errorf("drop %s: %w", c.inst.Name, err)
	}
	if !res.Feasible {
		fewest = false
	}
	return Dropped{Tour: tour, Dropped: dropped, Check: res, Feasible: res.Feasible, Fewest: fewest, Elapsed: time.Since(began)}, nil
}

// mooreHodgson returns the most ports one tour can serve (TSPDL): by
// increasing limit, each port joins; where the load then passes its limit,
// the port of largest demand so far leaves.
func (c *checker) mooreHodgson() []int {
	in := c.inst
	all := make([]int, 0, c.n-1)
	for k := 1; k < c.n; k++ {
		all = append(all, k)
	}
	var served []int
	load := 0.0
	for _, k := range c.edd(all) {
		served = append(served, k)
		load += in.Demand[k]
		if math.Max(0, load-in.Draft[k]) > lazymask.Tol {
			big := 0
			for i, v := range served {
				if in.Demand[v] > in.Demand[served[big]] || (in.Demand[v] == in.Demand[served[big]] && v > served[big]) {
					big = i
				}
			}
			load -= in.Demand[served[big]]
			served = slices.Delete(served, big, big+1)
		}
	}
	// The sums above may round differently from the checker's replay of
	// the final order; drop the largest until it fits.
	for !c.eddFits(c.edd(served)) && len(served) > 0 {
		big := 0
		for i, v := range served {
			if in.Demand[v] > in.Demand[served[big]] {
				big = i
			}
		}
		served = slices.Delete(served, big, big+1)
	}
	return served
}

// exactDrop finds the largest set of customers with a feasible tour (every
// set's earliest departure per last customer, as lazymask.Check sums the
// times) and, among the largest sets, the shortest tour the exact solver
// proves within the time (the feasible tour found where it does not).
func (c *checker) exactDrop() ([]int, []int) {
	in, n, d := c.inst, c.n, c.d
	m := n - 1
	full := 1 << m
	dep := make([]float64, full*m)
	from := make([]int8, full*m)
	for i := range dep {
		dep[i] = math.Inf(1)
	}
	visit := func(t float64, j int) (float64, bool) {
		if math.Max(0, t-in.Late[j]) > lazymask.Tol {
			return 0, false
		}
		return math.Max(t, in.Early[j]) + in.Service[j], true
	}
	for k := 1; k < n; k++ {
		if t, ok := visit(d[k], k); ok {
			dep[(1<<(k-1))*m+k-1], from[(1<<(k-1))*m+k-1] = t, -1
		}
	}
	bestSize := 0
	var bestMasks []int
	for mask := 1; mask < full; mask++ {
		row := dep[mask*m : mask*m+m]
		any := false
		for last, t := range row {
			if math.IsInf(t, 1) {
				continue
			}
			any = true
			for k := 0; k < m; k++ {
				if mask&(1<<k) != 0 {
					continue
				}
				nt, ok := visit(t+d[(last+1)*n+k+1], k+1)
				if !ok {
					continue
				}
				if i := (mask|1<<k)*m + k; nt < dep[i] {
					dep[i], from[i] = nt, int8(last)
				}
			}
		}
		if any {
			switch sz := bits.OnesCount(uint(mask)); {
			case sz > bestSize:
				bestSize, bestMasks = sz, []int{mask}
			case sz == bestSize:
				bestMasks = append(bestMasks, mask)
			}
		}
	}
	if bestSize == 0 {
		return []int{0}, c.complement(nil)
	}
	// A feasible tour of a largest set, from the departures' parents.
	walk := func(mask int) []int {
		last := -1
		for j := 0; j < m; j++ {
			if !math.IsInf(dep[mask*m+j], 1) && (last < 0 || dep[mask*m+j] < dep[mask*m+last]) {
				last = j
			}
		}
		var rev []int
		for mask != 0 {
			rev = append(rev, last+1)
			p := int(from[mask*m+last])
			mask &^= 1 << last
			last = p
		}
		slices.Reverse(rev)
		return append([]int{0}, rev...)
	}
	members := func(mask int) []int {
		var s []int
		for k := 0; k < m; k++ {
			if mask&(1<<k) != 0 {
				s = append(s, k+1)
			}
		}
		return s
	}
	bestTour, bestCost := walk(bestMasks[0]), math.Inf(1)
	if r, err := lazymask.CheckServed(in, bestTour, c.complement(members(bestMasks[0]))); err == nil {
		bestCost = r.Cost
	}
	// The shortest tour of each largest set (at most 64 of them), by the
	// exact solver within the time.
	for _, mask := range bestMasks[:min(64, len(bestMasks))] {
		if c.left() <= 0 {
			break
		}
		nodes := append([]int{0}, members(mask)...)
		sub := lazymask.Restrict(in, nodes)
		if sub.N < 3 {
			t := nodes
			if r, err := lazymask.CheckServed(in, t, c.complement(members(mask))); err == nil && r.Cost < bestCost {
				bestTour, bestCost = slices.Clone(t), r.Cost
			}
			continue
		}
		res, err := exact.SolveContext(c.ctx, sub, exact.Options{Upper: bestCost, Deadline: time.Now().Add(c.left() / 4)})
		if err != nil || res.Cost >= bestCost {
			continue
		}
		t := make([]int, len(res.Tour))
		for i, v := range res.Tour {
			t[i] = nodes[v]
		}
		bestTour, bestCost = t, res.Cost
	}
	served := slices.Clone(bestTour[1:])
	return bestTour, c.complement(served)
}

// greedyDrop drops conflict customers one at a time until the rest has a
// feasible tour, then puts back those that fit.
func (c *checker) greedyDrop() ([]int, []int) {
	served := make([]int, 0, c.n-1)
	for k := 1; k < c.n; k++ {
		served = append(served, k)
	}
	var dropped []int
	var tour []int
	for len(served) > 0 {
		v, t := c.feasible(served, true)
		if v == yes {
			tour = t
			break
		}
		var cand []int
		if v == no {
			sc := &checker{inst: c.inst, n: c.n, tw: c.tw, sp: c.sp, d: c.d, opt: c.opt, deadline: time.Now().Add(max(c.left()/4, 5*time.Millisecond))}
			cand, _ = sc.filter(c.certificateOr(served))
		}
		if len(cand) == 0 {
			cand = c.latestOf(served)
		}
		k := c.leastLateWithout(served, cand)
		served = slices.DeleteFunc(served, func(v int) bool { return v == k })
		dropped = append(dropped, k)
	}
	if tour == nil {
		tour = []int{0}
	}
	return c.reinsert(tour, dropped)
}

// certificateOr returns a certificate among set, or set itself.
func (c *checker) certificateOr(set []int) []int {
	if cert := c.certificateIn(set); cert != nil {
		return cert
	}
	return set
}

// latestOf returns the customers late in the least late tour the
// lateness search finds for set, latest first (at most 4).
func (c *checker) latestOf(set []int) []int {
	nodes := append([]int{0}, set...)
	sub := lazymask.Restrict(c.inst, nodes)
	r, err := localsearch.FindFeasibleContext(c.ctx, sub, nil, localsearch.FeasibleOptions{TimeLimit: max(c.left()/8, time.Millisecond), MaxShakes: 50, Seed: c.opt.Seed})
	if err != nil && !errors.Is(err, localsearch.ErrNoFeasibleTour) {
		return set[:1]
	}
	var late []int
	for k, v := range r.Check.Violation {
		if v > lazymask.Tol {
			late = append(late, k)
		}
	}
	slices.SortStableFunc(late, func(a, b int) int { return cmp.Compare(r.Check.Violation[b], r.Check.Violation[a]) })
	out := make([]int, 0, 4)
	for _, k := range late[:min(4, len(late))] {
		out = append(out, nodes[k])
	}
	if len(out) == 0 {
		out = append(out, set[0])
	}
	return out
}

// leastLateWithout returns the customer of cand whose removal from set
// leaves a set with a feasible tour, or else the least late one.
func (c *checker) leastLateWithout(set, cand []int) int {
	if len(cand) == 1 {
		return cand[0]
	}
	best, bestLate := cand[0], math.Inf(1)
	for _, k := range cand {
		rest := slices.DeleteFunc(slices.Clone(set), func(v int) bool { return v == k })
		nodes := append([]int{0}, rest...)
		sub := lazymask.Restrict(c.inst, nodes)
		if sub.N < 2 {
			return k
		}
		r, err := localsearch.FindFeasibleContext(c.ctx, sub, nil, localsearch.FeasibleOptions{TimeLimit: max(c.left()/16, time.Millisecond), MaxShakes: 50, Seed: c.opt.Seed})
		if err != nil && !errors.Is(err, localsearch.ErrNoFeasibleTour) {
			continue
		}
		if r.Feasible {
			return k
		}
		if r.Lateness < bestLate {
			best, bestLate = k, r.Lateness
		}
	}
	return best
}

// reinsert puts each dropped customer back where it lengthens the served
// tour least among the places that keep it feasible, while any fits.
func (c *checker) reinsert(tour, dropped []int) ([]int, []int) {
	var left []int
	for _, k := range dropped {
		bestPos, bestCost := -1, math.Inf(1)
		for pos := 1; pos <= len(tour); pos++ {
			t := slices.Insert(slices.Clone(tour), pos, k)
			r, err := lazymask.Check(lazymask.Restrict(c.inst, t), identityTour(len(t)))
			if err == nil && r.Feasible && r.Cost < bestCost {
				bestPos, bestCost = pos, r.Cost
			}
		}
		if bestPos < 0 {
			left = append(left, k)
			continue
		}
		tour = slices.Insert(tour, bestPos, k)
	}
	return tour, left
}

// MaxExactLate is the most customers for which Late finds the least
// lateness, then the shortest tour, exactly.
const MaxExactLate = 12

// maxLateLabels bounds exactLate's labels (about 40 bytes each).
const maxLateLabels = 4_000_000

// exactLate returns a tour of least excess lateness (Σ max(0, v − Tol)
// over the stops' lateness or overload, the measure lazymask.Compare ranks
// infeasible tours by), then of least length, by a dynamic program over
// (visited set, last customer) with Pareto labels (excess, departure time
// or load, length); nil where the labels or the time run out.
func exactLate(ctx context.Context, in *lazymask.Instance, deadline time.Time) []int {
	n, m := in.N, in.N-1
	d := in.Matrix()
	tw := in.Problem == lazymask.TSPTW
	type label struct {
		ex, t, cost float64
		parent      int32
		node        int8
	}
	var arena []label
	slots := make([][]int32, (1<<m)*m)
	visit := func(t, dd float64, k int) (float64, float64) {
		var v, nt float64
		if tw {
			arr := t + dd
			v, nt = math.Max(0, arr-in.Late[k]), math.Max(arr, in.Early[k])+in.Service[k]
		} else {
			nt = t + in.Demand[k]
			v = math.Max(0, nt-in.Draft[k])
		}
		if v > lazymask.Tol {
			return nt, v - lazymask.Tol
		}
		return nt, 0
	}
	insert := func(slot int, l label) bool {
		list := slots[slot]
		for _, i := range list {
			o := arena[i]
			if o.ex <= l.ex && o.t <= l.t && o.cost <= l.cost {
				return true
			}
		}
		keep := list[:0]
		for _, i := range list {
			o := arena[i]
			if !(l.ex <= o.ex && l.t <= o.t && l.cost <= o.cost) {
				keep = append(keep, i)
			}
		}
		if len(arena) >= maxLateLabels {
			return false
		}
		arena = append(arena, l)
		slots[slot] = append(keep, int32(len(arena)-1))
		return true
	}
	for k := 1; k < n; k++ {
		t, ex := visit(0, d[k], k)
		insert((1<<(k-1))*m+k-1, label{ex: ex, t: t, cost: d[k], parent: -1, node: int8(k)})
	}
	for mask := 1; mask < 1<<m; mask++ {
		if mask&255 == 0 && (time.Now().After(deadline) || ctx.Err() != nil) {
			return nil
		}
		for last := 0; last < m; last++ {
			for _, li := range slots[mask*m+last] {
				l := arena[li]
				for k := 0; k < m; k++ {
					if mask&(1<<k) != 0 {
						continue
					}
					dd := d[(last+1)*n+k+1]
					t, ex := visit(l.t, dd, k+1)
					if !insert((mask|1<<k)*m+k, label{ex: l.ex + ex, t: t, cost: l.cost + dd, parent: li, node: int8(k + 1)}) {
						return nil
					}
				}
			}
		}
	}
	best, bestEx, bestCost := int32(-1), math.Inf(1), math.Inf(1)
	full := 1<<m - 1
	for last := 0; last < m; last++ {
		for _, li := range slots[full*m+last] {
			l := arena[li]
			c := l.cost + d[(last+1)*n]
			if l.ex < bestEx-1e-9 || (l.ex <= bestEx+1e-9 && c < bestCost) {
				best, bestEx, bestCost = li, l.ex, c
			}
		}
	}
	if best < 0 {
		return nil
	}
	tour := make([]int, n)
	for k, i := n-1, best; i >= 0; k, i = k-1, arena[i].parent {
		tour[k] = int(arena[i].node)
	}
	return tour
}

// Late serves every customer of inst with the least total lateness (TSPTW:
// Σ max(0, arrival − due); TSPDL: Σ load above the limits), then the
// shortest tour at that lateness: exactly up to MaxExactLate customers
// (exactLate); above, the least the search finds: the lateness search
// (localsearch.FindFeasible) from the starts, then the local search's
// descent on (excess, length), which never adds lateness. A feasible
// start, or a feasible tour found, is returned as it is found and
// shortened.
func Late(inst *lazymask.Instance, starts [][]int, opt Options) ([]int, lazymask.Result, error) {
	return LateContext(context.Background(), inst, starts, opt)
}

// LateContext is Late, ended early when ctx is done: the search under way
// stops within moments, and the least late tour it has by then is returned
// with ctx's error.
func LateContext(ctx context.Context, inst *lazymask.Instance, starts [][]int, opt Options) ([]int, lazymask.Result, error) {
	tour, res, err := late(ctx, inst, starts, opt)
	if err == nil {
		err = ctx.Err()
	}
	return tour, res, err
}

func late(ctx context.Context, inst *lazymask.Instance, starts [][]int, opt Options) ([]int, lazymask.Result, error) {
	began := time.Now()
	if err := inst.Validate(); err != nil {
		return nil, lazymask.Result{}, fmt.Errorf("late %s: %w", inst.Name, err)
	}
	deadline := began.Add(opt.limit())
	if inst.N-1 <= MaxExactLate {
		if tour := exactLate(ctx, inst, deadline); tour != nil {
			res, err := lazymask.Check(inst, tour)
			var ie *lazymask.InfeasibleError
			if err != nil && !errors.As(err, &ie) {
				return nil, res, fmt.Errorf("late %s: %w", inst.Name, err)
			}
			return tour, res, nil
		}
	}
	var pool [][]int
	for _, s := range starts {
		if _, err := lazymask.Check(inst, s); err == nil || errors.As(err, new(*lazymask.InfeasibleError)) {
			pool = append(pool, s)
		}
	}
	fo := localsearch.FeasibleOptions{TimeLimit: max(opt.limit()/2, time.Millisecond), MaxShakes: 200 + 20*inst.N, Seed: opt.Seed}
	if r, err := localsearch.FindFeasibleContext(ctx, inst, pool, fo); err == nil || errors.Is(err, localsearch.ErrNoFeasibleTour) {
		pool = append(pool, r.Tour)
	}
	pool = append(pool, localsearch.OrderTour(inst))
	o := localsearch.Options{Seed: opt.Seed, TimeLimit: max(time.Until(deadline), 10*time.Millisecond), Kicks: 2 * inst.N, MaxStarts: 4, FinishDescent: true}
	r, err := localsearch.ImproveFromContext(ctx, inst, pool, o)
	if err != nil {
		return nil, lazymask.Result{}, fmt.Errorf("late %s: %w", inst.Name, err)
	}
	best := r.Tour
	bestV := r.Check.Verdict()
	for _, t := range pool {
		if res, err := lazymask.Check(inst, t); err == nil || errors.As(err, new(*lazymask.InfeasibleError)) {
			if lazymask.Compare(res.Verdict(), bestV) < 0 {
				best, bestV = t, res.Verdict()
			}
		}
	}
	res, err := lazymask.Check(inst, best)
	var ie *lazymask.InfeasibleError
	if err != nil && !errors.As(err, &ie) {
		return nil, res, fmt.Errorf("late %s: %w", inst.Name, err)
	}
	return slices.Clone(best), res, nil
}

func identityTour(k int) []int {
	t := make([]int, k)
	for i := range t {
		t[i] = i
	}
	return t
}
