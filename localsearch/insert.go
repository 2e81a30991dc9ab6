package localsearch

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/lmask/lmask/lazymask"
)

// inserter builds TSPTW and TSPDL tours by cheapest feasible insertion
// into a partial tour. Each position keeps its departure time (forward) and
// the latest arrival that keeps every later visit within its window
// (backward), so an insertion is tested in O(1): the new node must be
// reached in time, and the node after it no later than its latest arrival
// (TSPDL: the load and the least slack after it, refreshDL).
type inserter struct {
	inst *lazymask.Instance
	n    int
	d    []float64
	tour []int
	// dep[p] is the departure from position p (0 at the depot); late[p]
	// the latest arrival at p that keeps positions p.. feasible (−Inf
	// when none does).
	dep, late []float64
	in        []bool // node is in tour
	// minAfter is the first position an insertion may follow (a fixed
	// prefix stays in place).
	minAfter int
	// push weighs, in cheapest, how far an insertion delays the start of
	// service at the next node, beside the length it adds (0: length only).
	push float64
}

func newInserter(inst *lazymask.Instance, d []float64) *inserter {
	n := inst.N
	return &inserter{inst: inst, n: n, d: d, tour: make([]int, 0, n),
		dep: make([]float64, n), late: make([]float64, n+1), in: make([]bool, n)}
}

// reset makes the partial tour the given nodes (the depot first) and
// reports whether it is feasible.
func (s *inserter) reset(tour []int) bool {
	s.tour = append(s.tour[:0], tour...)
	clear(s.in)
	for _, v := range tour {
		s.in[v] = true
	}
	return s.refresh()
}

// refresh recomputes the departures and latest arrivals; false when the
// partial tour breaks a window.
func (s *inserter) refresh() bool {
	if s.inst.Problem == lazymask.TSPDL {
		return s.refreshDL()
	}
	in, n, t := s.inst, s.n, s.tour
	m := len(t)
	s.dep[0] = 0
	ok := true
	for p := 1; p < m; p++ {
		v := t[p]
		arr := s.dep[p-1] + s.d[t[p-1]*n+v]
		if arr-in.Late[v] > lazymask.Tol {
			ok = false
		}
		s.dep[p] = math.Max(arr, in.Early[v]) + in.Service[v]
	}
	s.late[m] = math.Inf(1)
	for p := m - 1; p >= 1; p-- {
		v := t[p]
		lim := in.Late[v] + lazymask.Tol
		if p+1 < m {
			x := s.late[p+1] - in.Service[v] - s.d[v*n+t[p+1]]
			if in.Early[v] > x {
				x = math.Inf(-1)
			}
			lim = math.Min(lim, x)
		}
		s.late[p] = lim
	}
	return ok
}

// refreshDL is refresh for TSPDL: dep[p] is the load delivered up to and
// including position p, late[p] the least slack (draft limit less that
// load) over positions p.., so an insertion after p fits when v's own
// load keeps its limit and late[p+1] covers v's demand.
func (s *inserter) refreshDL() bool {
	in, t := s.inst, s.tour
	m := len(t)
	s.dep[0] = 0
	ok := true
	for p := 1; p < m; p++ {
		s.dep[p] = s.dep[p-1] + in.Demand[t[p]]
		ok = ok && s.dep[p]-in.Draft[t[p]] <= lazymask.Tol
	}
	s.late[m] = math.Inf(1)
	for p := m - 1; p >= 1; p-- {
		s.late[p] = math.Min(s.late[p+1], in.Draft[t[p]]-s.dep[p])
	}
	return ok
}

// fits reports whether inserting v after position p keeps the partial
// tour feasible, and by how much it lengthens the tour.
func (s *inserter) fits(v, p int) (delta float64, ok bool) {
	in, n, t := s.inst, s.n, s.tour
	u := t[p]
	w := 0
	if p+1 < len(t) {
		w = t[p+1]
	}
	if in.Problem == lazymask.TSPDL {
		if s.dep[p]+in.Demand[v]-in.Draft[v] > lazymask.Tol || (w != 0 && s.late[p+1]-in.Demand[v] < -lazymask.Tol) {
			return 0, false
		}
		return s.d[u*n+v] + s.d[v*n+w] - s.d[u*n+w], true
	}
	arr := s.dep[p] + s.d[u*n+v]
	if arr-in.Late[v] > lazymask.Tol {
		return 0, false
	}
	if w != 0 {
		if math.Max(arr, in.Early[v])+in.Service[v]+s.d[v*n+w] > s.late[p+1] {
			return 0, false
		}
	}
	return s.d[u*n+v] + s.d[v*n+w] - s.d[u*n+w], true
}

// delay is how much later service starts at the node after position p
// when v is inserted there (0 at the end of the tour).
func (s *inserter) delay(v, p int) float64 {
	if p+1 >= len(s.tour) {
		return 0
	}
	in, n, t := s.inst, s.n, s.tour
	u, w := t[p], t[p+1]
	old := math.Max(s.dep[p]+s.d[u*n+w], in.Early[w])
	dv := math.Max(s.dep[p]+s.d[u*n+v], in.Early[v]) + in.Service[v]
	return math.Max(dv+s.d[v*n+w], in.Early[w]) - old
}

// cheapest returns the position after which inserting v lengthens the tour
// least among the insertions that keep it feasible; ok is false when none
// does. skip, when positive, drops each candidate with that probability
// (a randomised recreate).
func (s *inserter) cheapest(v int, r *rand.Rand, skip float64) (after int, delta float64, ok bool) {
	delta = math.Inf(1)
	for p := s.minAfter; p < len(s.tour); p++ {
		// no early exit: a later departure arrives later, but a matrix
		// that breaks the triangle inequality may still fit v further on
		c, fit := s.fits(v, p)
		if fit && s.push > 0 {
			c += s.push * s.delay(v, p)
		}
		if fit && c < delta && (skip <= 0 || r.Float64() >= skip) {
			delta, after, ok = c, p, true
		}
	}
	return after, delta, ok
}

// insert puts v after position p.
func (s *inserter) insert(v, p int) {
	s.tour = slices.Insert(s.tour, p+1, v)
	s.in[v] = true
	s.refresh()
}

// recreate inserts the nodes, in the given order, each where it costs
// least; false when one has no feasible place.
func (s *inserter) recreate(nodes []int, r *rand.Rand, skip float64) bool {
	for _, v := range nodes {
		p, _, ok := s.cheapest(v, r, skip)
		if !ok {
			return false
		}
		s.insert(v, p)
	}
	return true
}

// postpone inserts the nodes like recreate, but returns those that had no
// feasible place, in order, instead of stopping at the first.
func (s *inserter) postpone(nodes []int, r *rand.Rand, skip float64) []int {
	var left []int
	for _, v := range nodes {
		p, _, ok := s.cheapest(v, r, skip)
		if !ok {
			left = append(left, v)
			continue
		}
		s.insert(v, p)
	}
	return left
}
