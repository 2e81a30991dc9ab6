// Package explain says why an instance has no feasible tour and finds the
// best route there is anyway.
//
// Explain calls an instance feasible (a tour the checker accepts was
// found), infeasible (proven) or unknown (neither within the time), and
// names, for an infeasible one, a conflict: a set of customers that no
// tour serving only them can serve in their windows (TSPTW) or under their
// draft limits (TSPDL), irreducible (removing any one of them leaves a set
// that fits), with a one-line reason in the instance's own units.
//
// TSPTW: quick certificates come first, from lower bounds on every arrival
// (shortest-path travel times, so they hold on matrices that break the
// triangle inequality and for the full instance as for the conflict
// alone): a stop that cannot be reached before it closes, a pair that
// excludes each other in both orders, a triple whose six orders all fail.
// Without one, the feasibility search (localsearch.FindFeasible) looks for
// a tour and the exact dynamic program (exact.Solve) proves there is none;
// deletion filtering then shrinks the customers to a conflict, each test
// a feasibility search and, where it finds no tour, a proof. TSPDL is
// decided exactly in O(n log n): the ascending draft-limit order is
// feasible whenever any order is.
//
// Drop serves as many customers as possible and then shortens the tour;
// Late serves every customer with the least total lateness. Every
// feasibility claim comes from lazymask.Check.
package explain

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lmask/lmask/exact"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
)

// Status is Explain's verdict on an instance.
type Status string

// The verdicts.
const (
	Feasible   Status = "feasible"
	Infeasible Status = "infeasible"
	Unknown    Status = "unknown"
)

// Kinds of conflict.
const (
	KindUnreachable = "unreachable" // TSPTW: one stop closes before the vehicle can get there
	KindPair        = "pair"        // TSPTW: two stops exclude each other
	KindWindows     = "windows"     // TSPTW: three or more windows that cannot all fit
	KindDraft       = "draft"       // TSPDL: a port's limit is below its own demand
	KindDrafts      = "drafts"      // TSPDL: ports whose limits cannot all be met
)

// DefaultTime bounds Explain per instance when Options sets no limit.
const DefaultTime = time.Second

// Options configure Explain, Drop and Late.
type Options struct {
	// TimeLimit bounds one instance (0: DefaultTime). An instance whose
	// search and proof do not finish in it is Unknown; a conflict whose
	// shrinking it cuts short is still infeasible but may not be
	// irreducible (Explanation.Irreducible says).
	TimeLimit time.Duration
	// Seed drives the feasibility searches.
	Seed uint64
}

func (o Options) limit() time.Duration {
	if o.TimeLimit <= 0 {
		return DefaultTime
	}
	return o.TimeLimit
}

// Explanation is Explain's answer for one instance.
type Explanation struct {
	Status Status
	// Conflict lists the customers (node ids, increasing) of an infeasible
	// instance's conflict; Kind names its kind and Reason says why, in the
	// instance's units (times × Scale; TSPDL loads as stored).
	Conflict []int
	Kind     string
	Reason   string
	// Irreducible says that each Conflict customer was shown necessary:
	// without it the others have a feasible tour.
	Irreducible bool
	// Tour is a feasible tour of a feasible instance.
	Tour    []int
	Elapsed time.Duration
}

// Explain decides whether inst has a feasible tour and, where it has
// none, names an irreducible conflict.
func Explain(inst *lazymask.Instance, opt Options) (Explanation, error) {
	return ExplainContext(context.Background(), inst, opt)
}

// ExplainContext is Explain, ended early when ctx is done: the searches and
// proofs under way stop within moments, and it returns what it had decided
// by then (Unknown where it had not) with ctx's error.
func ExplainContext(ctx context.Context, inst *lazymask.Instance, opt Options) (Explanation, error) {
	began := time.Now()
	if err := inst.Validate(); err != nil {
		return Explanation{}, fmt.Errorf("explain %s: %w", inst.Name, err)
	}
	c := newChecker(ctx, inst, opt, began)
	ex := c.explain()
	ex.Elapsed = time.Since(began)
	if ex.Status == Feasible {
		if _, err := lazymask.Check(inst, ex.Tour); err != nil {
			return ex, fmt.Errorf("explain %s: the tour found fails the checker (a defect): %w", inst.Name, err)
		}
	}
	return ex, ctx.Err()
}

// verdict is the answer for one set of customers.
type verdict int

const (
	no verdict = iota
	yes
	unknown
)

// checker answers feasibility questions about sets of inst's customers.
type checker struct {
	inst     *lazymask.Instance
	n        int
	tw       bool
	sp       []float64 // TSPTW: shortest-path travel times, for the certificates
	d        []float64
	opt      Options
	deadline time.Time
	ctx      context.Context // done: no time is left (left)
}

func newChecker(ctx context.Context, inst *lazymask.Instance, opt Options, began time.Time) *checker {
	c := &checker{inst: inst, n: inst.N, tw: inst.Problem == lazymask.TSPTW, opt: opt, deadline: began.Add(opt.limit()), ctx: ctx}
	if c.tw {
		c.d = inst.Matrix()
		c.sp = shortestPaths(c.d, c.n)
	}
	return c
}

// shortestPaths is Floyd–Warshall over the travel times.
func shortestPaths(d []float64, n int) []float64 {
	sp := slices.Clone(d)
	for k := 0; k < n; k++ {
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
	return sp
}

// left is the time left before the deadline, none once the context is done.
func (c *checker) left() time.Duration {
	if c.ctx.Err() != nil {
		return 0
	}
	return time.Until(c.deadline)
}

func (c *checker) explain() Explanation {
	all := make([]int, 0, c.n-1)
	for k := 1; k < c.n; k++ {
		all = append(all, k)
	}
	var conflict []int
	if !c.tw {
		order := c.edd(all)
		if c.eddFits(order) {
			return Explanation{Status: Feasible, Tour: append([]int{0}, order...)}
		}
		if conflict = c.smallestDraftConflict(); conflict == nil {
			conflict = all
		}
	} else {
		conflict = c.certificate()
		if conflict == nil {
			v, tour := c.feasible(all, true)
			switch v {
			case yes:
				return Explanation{Status: Feasible, Tour: tour}
			case unknown:
				return Explanation{Status: Unknown}
			}
			conflict = all
		}
	}
	conflict, irreducible := c.filter(conflict)
	slices.Sort(conflict)
	ex := Explanation{Status: Infeasible, Conflict: conflict, Irreducible: irreducible}
	ex.Kind, ex.Reason = c.reason(conflict)
	return ex
}

// feasible answers whether the customers of set (any order) have a
// feasible tour serving them alone, with that tour (inst's node ids) where
// it does. full says that set is every customer: the search then also
// gets the time the proof leaves.
func (c *checker) feasible(set []int, full bool) (verdict, []int) {
	if len(set) == 0 {
		return yes, []int{0}
	}
	nodes := append([]int{0}, set...)
	if !c.tw {
		order := c.edd(set)
		if c.eddFits(order) {
			return yes, append([]int{0}, order...)
		}
		return no, nil
	}
	sub := lazymask.Restrict(c.inst, nodes)
	back := func(t []int) []int {
		out := make([]int, len(t))
		for i, v := range t {
			out[i] = nodes[v]
		}
		return out
	}
	if localsearch.FeasibleIsExact(sub) {
		r, err := localsearch.FindFeasibleContext(c.ctx, sub, nil, localsearch.FeasibleOptions{Seed: c.opt.Seed})
		switch {
		case errors.Is(err, localsearch.ErrNoFeasibleTour):
			return no, nil
		case err == nil && r.Feasible:
			return yes, back(r.Tour)
		}
		return unknown, nil
	}
	// A quick necessary test on the set alone: a certificate among its
	// own customers proves it infeasible at once.
	if c.certificateIn(set) != nil {
		return no, nil
	}
	// A short search first (it finds most tours in milliseconds), then a
	// proof in half the time left, then, for the whole instance, the
	// search again with the rest: an infeasible set pays the search's
	// share only once before its proof.
	left := c.left()
	if left <= 0 {
		return unknown, nil
	}
	search := func(limit time.Duration) []int {
		fo := localsearch.FeasibleOptions{TimeLimit: max(limit, time.Millisecond), Seed: c.opt.Seed}
		if r, err := localsearch.FindFeasibleContext(c.ctx, sub, nil, fo); err == nil && r.Feasible {
			return back(r.Tour)
		}
		return nil
	}
	if t := search(left / 8); t != nil {
		return yes, t
	}
	res, err := exact.SolveContext(c.ctx, sub, exact.Options{Deadline: time.Now().Add(c.left() / 2)})
	switch {
	case err == nil:
		return yes, back(res.Tour)
	case errors.Is(err, exact.ErrInfeasible):
		return no, nil
	}
	if full && c.left() > 0 {
		if t := search(c.left()); t != nil {
			return yes, t
		}
	}
	return unknown, nil
}

// edd returns set by increasing draft limit (ties by demand, then id).
func (c *checker) edd(set []int) []int {
	in := c.inst
	order := slices.Clone(set)
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(in.Draft[a], in.Draft[b]), cmp.Compare(in.Demand[a], in.Demand[b]), cmp.Compare(a, b))
	})
	return order
}

// eddFits replays the loads of order as lazymask.Check sums them.
func (c *checker) eddFits(order []int) bool {
	load := 0.0
	for _, k := range order {
		load += c.inst.Demand[k]
		if math.Max(0, load-c.inst.Draft[k]) > lazymask.Tol {
			return false
		}
	}
	return true
}

// smallestDraftConflict returns a smallest set of ports whose limits
// cannot all be met: a set fails exactly where, for its port j of largest
// limit, its demands total more than j's limit (the ascending order then
// fails at j and no order does better), so for each j the largest demands
// among the ports of no larger limit are taken until they pass it.
func (c *checker) smallestDraftConflict() []int {
	in := c.inst
	byDemand := make([]int, 0, c.n-1)
	for k := 1; k < c.n; k++ {
		byDemand = append(byDemand, k)
	}
	slices.SortStableFunc(byDemand, func(a, b int) int { return cmp.Or(cmp.Compare(in.Demand[b], in.Demand[a]), cmp.Compare(a, b)) })
	var best []int
	for j := 1; j < c.n; j++ {
		set, load := []int{j}, in.Demand[j]
		for _, k := range byDemand {
			if math.Max(0, load-in.Draft[j]) > lazymask.Tol || (best != nil && len(set) >= len(best)) {
				break
			}
			if k == j || in.Draft[k] > in.Draft[j] || (in.Draft[k] == in.Draft[j] && k > j) {
				continue
			}
			set, load = append(set, k), load+in.Demand[k]
		}
		if math.Max(0, load-in.Draft[j]) > lazymask.Tol && (best == nil || len(set) < len(best)) {
			best = set
		}
	}
	return best
}

// certificate returns a stop, a pair or a triple of customers that no
// tour can serve, by lower bounds on the arrivals (the full instance's
// shortest paths), or nil.
func (c *checker) certificate() []int {
	all := make([]int, 0, c.n-1)
	for k := 1; k < c.n; k++ {
		all = append(all, k)
	}
	return c.certificateIn(all)
}

// maxTripleN bounds the sets whose triples certificateIn tries (O(k³)).
const maxTripleN = 150

// certificateIn is certificate among the customers of set.
func (c *checker) certificateIn(set []int) []int {
	for _, k := range set {
		if !c.boundOK([]int{k}) {
			return []int{k}
		}
	}
	for a, i := range set {
		for _, j := range set[a+1:] {
			if !c.boundOK([]int{i, j}) && !c.boundOK([]int{j, i}) {
				return []int{i, j}
			}
		}
	}
	if len(set) > maxTripleN {
		return nil
	}
	for a, i := range set {
		for b := a + 1; b < len(set); b++ {
			j := set[b]
			if !c.pairFits(i, j) {
				continue
			}
			for _, k := range set[b+1:] {
				if c.tripleFails(i, j, k) {
					return []int{i, j, k}
				}
			}
		}
	}
	return nil
}

// pairFits reports whether i and j fit in some order by the bounds.
func (c *checker) pairFits(i, j int) bool { return c.boundOK([]int{i, j}) || c.boundOK([]int{j, i}) }

func (c *checker) tripleFails(i, j, k int) bool {
	for _, o := range [][3]int{{i, j, k}, {i, k, j}, {j, i, k}, {j, k, i}, {k, i, j}, {k, j, i}} {
		if c.boundOK(o[:]) {
			return false
		}
	}
	return true
}

// boundOK reports whether visiting order (customers, in that order, with
// any others between them) can keep every window by the shortest-path
// lower bounds on the arrivals: false proves no tour visits them so.
func (c *checker) boundOK(order []int) bool {
	in, n := c.inst, c.n
	t, prev := 0.0, 0
	for _, k := range order {
		arr := t + c.sp[prev*n+k]
		if math.Max(0, arr-in.Late[k]) > lazymask.Tol {
			return false
		}
		t, prev = math.Max(arr, in.Early[k])+in.Service[k], k
	}
	return true
}

// filter shrinks an infeasible set of customers to an irreducible one by
// deletion: blocks of customers are left out while the rest stays
// infeasible, halving the block where it does not, down to single
// customers; those whose removal leaves a feasible set are kept. The
// customers least likely to matter go first (TSPTW: widest windows;
// TSPDL: largest limits). It returns the set and whether every customer
// of it was shown necessary.
func (c *checker) filter(set []int) ([]int, bool) {
	in := c.inst
	cand := slices.Clone(set)
	if c.tw {
		slices.SortStableFunc(cand, func(a, b int) int {
			return cmp.Or(cmp.Compare(in.Late[b]-in.Early[b], in.Late[a]-in.Early[a]), cmp.Compare(b, a))
		})
	} else {
		slices.SortStableFunc(cand, func(a, b int) int { return cmp.Or(cmp.Compare(in.Draft[b], in.Draft[a]), cmp.Compare(b, a)) })
	}
	for {
		var keep []int
		proven := true
		chunk := max(1, len(cand)/4)
		for len(cand) > 0 {
			k := min(chunk, len(cand))
			rest := append(slices.Clone(keep), cand[k:]...)
			v, _ := c.feasible(rest, false)
			switch {
			case v == no:
				cand = cand[k:]
			case k > 1:
				chunk = k / 2
			default:
				keep = append(keep, cand[0])
				cand = cand[1:]
				proven = proven && v == yes
			}
		}
		// Each kept customer was needed by a larger set; check it is by
		// this one (without the triangle inequality a subset of a
		// feasible set may fail).
		again := false
		for i := range keep {
			rest := slices.Delete(slices.Clone(keep), i, i+1)
			v, _ := c.feasible(rest, false)
			if v == no {
				cand, again = rest, true
				break
			}
			proven = proven && v == yes
		}
		if !again {
			return keep, proven
		}
	}
}

// reason describes conflict in the instance's units.
func (c *checker) reason(conflict []int) (string, string) {
	in := c.inst
	if !c.tw {
		if len(conflict) == 1 {
			k := conflict[0]
			return KindDraft, fmt.Sprintf("port %d has draft limit %s but its own demand is %s", k, num(in.Draft[k]), num(in.Demand[k]))
		}
		load, top := 0.0, conflict[0]
		for _, k := range conflict {
			load += in.Demand[k]
			if in.Draft[k] > in.Draft[top] {
				top = k
			}
		}
		return KindDrafts, fmt.Sprintf("ports %s carry %s together, above the largest of their draft limits (%s, port %d): whichever is served last is over its limit",
			list(conflict), num(load), num(in.Draft[top]), top)
	}
	sc := in.Scale
	switch len(conflict) {
	case 1:
		k := conflict[0]
		return KindUnreachable, fmt.Sprintf("stop %d closes at %s but the earliest arrival from the depot is %s", k, num(in.Late[k]*sc), num(c.d[k]*sc))
	case 2:
		i, j := conflict[0], conflict[1]
		ai, aj := c.arrivalAfter(i, j), c.arrivalAfter(j, i)
		return KindPair, fmt.Sprintf("stops %d and %d: whichever is served first, the other is reached after it closes (%d then %d reaches %d at %s, after %s; %d then %d reaches %d at %s, after %s)",
			i, j, i, j, j, num(ai*sc), num(in.Late[j]*sc), j, i, i, num(aj*sc), num(in.Late[i]*sc))
	}
	r := fmt.Sprintf("stops %s cannot all be served within their windows, in any order", list(conflict))
	if order, step, arr := c.leastLate(conflict); order != nil {
		k := order[step]
		r += fmt.Sprintf(" (the least late order, %s, reaches stop %d at %s, after it closes at %s)", strings.Join(ints(order), " → "), k, num(arr*sc), num(in.Late[k]*sc))
	}
	return KindWindows, r
}

// arrivalAfter is the arrival at j when the conflict is served i then j
// straight from the depot (with the wait for i's window).
func (c *checker) arrivalAfter(i, j int) float64 {
	in, n := c.inst, c.n
	t := math.Max(c.d[i], in.Early[i]) + in.Service[i]
	return t + c.d[i*n+j]
}

// leastLate returns, for a small conflict (at most 8 customers), the order
// of least total lateness served alone, the position of its first late
// stop and that arrival; nil for larger ones.
func (c *checker) leastLate(set []int) ([]int, int, float64) {
	if len(set) > 8 {
		return nil, 0, 0
	}
	in, n := c.inst, c.n
	perm := slices.Clone(set)
	var best []int
	bestLate, bestStep, bestArr := math.Inf(1), 0, 0.0
	var rec func(k int)
	rec = func(k int) {
		if k == len(perm) {
			t, prev, late, step, first := 0.0, 0, 0.0, -1, 0.0
			for p, v := range perm {
				arr := t + c.d[prev*n+v]
				if l := math.Max(0, arr-in.Late[v]); l > lazymask.Tol {
					late += l
					if step < 0 {
						step, first = p, arr
					}
				}
				t, prev = math.Max(arr, in.Early[v])+in.Service[v], v
			}
			if late < bestLate && step >= 0 {
				best, bestLate, bestStep, bestArr = slices.Clone(perm), late, step, first
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
	return best, bestStep, bestArr
}

// num writes a value with about four significant digits, at least one
// decimal: 5.0, 19.21, 0.0523.
func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	dec := 1
	if a := math.Abs(v); a > 0 {
		dec = min(8, max(1, 3-int(math.Floor(math.Log10(a)))))
	}
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(s, "0")
		if strings.HasSuffix(s, ".") {
			s += "0"
		}
	}
	return s
}

func ints(s []int) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = strconv.Itoa(v)
	}
	return out
}

// list writes "2, 5 and 7".
func list(s []int) string {
	w := ints(s)
	if len(w) < 2 {
		return strings.Join(w, "")
	}
	return strings.Join(w[:len(w)-1], ", ") + " and " + w[len(w)-1]
}

// Certify returns a conflict of inst found by the quick certificates
// alone (TSPTW: a stop, pair or triple the arrival bounds exclude; TSPDL:
// the ascending draft-limit order fails, which is exact), or nil when they
// find none: a proof that inst has no feasible tour in about O(n³) at
// most, without any search.
func Certify(inst *lazymask.Instance) []int {
	if inst.Validate() != nil {
		return nil
	}
	c := newChecker(context.Background(), inst, Options{}, time.Now())
	if !c.tw {
		all := make([]int, 0, c.n-1)
		for k := 1; k < c.n; k++ {
			all = append(all, k)
		}
		if c.eddFits(c.edd(all)) {
			return nil
		}
		if s := c.smallestDraftConflict(); s != nil {
			return s
		}
		return all
	}
	return c.certificate()
}
