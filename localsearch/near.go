package localsearch

import (
	"cmp"
	"math"
	"slices"

	"github.com/lmask/lmask/lazymask"
)

// Neighbour lists make a cost-improving scan O(n·c) instead of O(n²), where
// c is the number of nodes closer than a tour edge: every move that
// shortens the tour is still found, so a scan that finds nothing proves the
// same local optimum the full scan proves.
//
// The argument (the gain criterion of Lin and Kernighan) needs a symmetric
// travel-time matrix, or one that is symmetric up to a node potential
// (d(u, v) = s(u, v) + π(u) − π(v), a service time folded into each node's
// outgoing arcs): every closed tour costs the same under d and under its
// symmetric part s, so a move gains as much under both, and the radii
// below compare s (state.ndist) while the candidates' lengths use d. A move removes tour edges and adds others, and the
// two sets form an alternating cycle; pairing each removed edge with the
// added edge that follows it at a shared node, the pair values (removed
// length − added length) sum to the move's gain. When the gain is positive,
// some rotation of the cycle has all its partial sums positive, so the
// first pair of that rotation is positive: an added edge at some node is
// shorter than the removed edge at that node, and (for or-opt, whose first
// pair may be the edge that closes the gap the segment leaves) shorter than
// the gap's removal gain. Each rule below enumerates, from one node, the
// nodes closer than that bound; together they cover every rotation.
//
//	2-opt (i, j), a=t[i−1] b=t[i] c=t[j] e=next(j):
//	  gain = (d(a,b) − d(a,c)) + (d(c,e) − d(b,e))
//	  from a: c with d(a,c) < d(a,b); from e: b with d(e,b) < d(e,c).
//	swap (i, j): four pairs, each at the predecessor or successor of a
//	  swapped node: from pred(v) or succ(v), the other node w closer to it
//	  than v.
//	or-opt / relocate of s = t[i..e] between u = t[j] and w = next(j),
//	  p = t[i−1], q = next(e), G = d(p,t[i]) + d(t[e],q) − d(p,q):
//	  in order u, t[i] … t[e], w: from t[i]: u with d < max(G, d(p,t[i]));
//	    from w: t[e] with d(w,t[e]) < d(w,u);
//	  reversed (u, t[e] … t[i], w): from t[i]: w with d < max(G, d(p,t[i]));
//	    from u: t[e] with d(u,t[e]) < d(u,w).
//
// The scan goes through anchor positions (the node the rule starts from),
// rotated by the offset as the full scan is, and hands the visitor each
// candidate that passes the full scans' cost filter (need, in the scanner's
// own arithmetic); the visitor computes the exact length change and
// feasibility. Most candidates within the radii gain too little, and the
// filter skips them without the visitor's call and state.delta's dispatch.

// nearSlack widens every radius so that rounding in the pair sums never
// drops a move the visitor would take (it needs a gain above costEps).
const nearSlack = 1e-9

// nearLists holds, for each node v, the other nodes by increasing travel
// time (ties by index) in two lists: out(v), the nodes w for which the edge
// v→w can be in a feasible tour, and in(v), those for which w→v can. An
// edge u→w cannot be where the earliest departure from u plus the travel
// time already misses w's window (TSPTW: Early[u] + Service[u] + d(u,w) is
// later than Late[w] + Tol, summed in the order lazymask.Check sums an
// arrival, so that Check finds every tour with that edge infeasible; the
// tour leaves the depot at time 0); every edge can be in a TSPDL tour. A
// move that adds an edge that cannot be feasible cannot be either, so the
// rules walk these lists: each added edge's direction picks out or in.
type nearLists struct {
	n       int
	nodes   []int32 // out(v) then in(v) for each v, concatenated
	outFrom []int32 // out(v) = nodes[outFrom[v]:inFrom[v]]
	inFrom  []int32 // in(v) = nodes[inFrom[v]:outFrom[v+1]]
}

func (l *nearLists) out(v int) []int32 { return l.nodes[l.outFrom[v]:l.inFrom[v]] }
func (l *nearLists) in(v int) []int32  { return l.nodes[l.inFrom[v]:l.outFrom[v+1]] }

// newNearLists builds the lists of inst (n nodes): each node's neighbours
// by increasing by (a symmetric matrix), the edges that can be in a
// feasible tour by the travel times dist.
func newNearLists(inst *lazymask.Instance, by, dist []float64, n int) *nearLists {
	l := &nearLists{n: n, nodes: make([]int32, 0, 2*n*(n-1)), outFrom: make([]int32, n+1), inFrom: make([]int32, n)}
	canFollow := func(u, w int) bool { // u→w can be in a feasible tour
		if inst.Problem != lazymask.TSPTW || w == 0 {
			return true
		}
		dep := 0.0 // the tour leaves the depot at time 0
		if u != 0 {
			dep = inst.Early[u] + inst.Service[u]
		}
		return dep+dist[u*n+w]-inst.Late[w] <= lazymask.Tol
	}
	order := make([]int32, 0, n-1)
	for v := 0; v < n; v++ {
		order = order[:0]
		for w := 0; w < n; w++ {
			if w != v {
				order = append(order, int32(w))
			}
		}
		row := by[v*n : v*n+n]
		slices.SortFunc(order, func(a, b int32) int {
			return cmp.Or(cmp.Compare(row[a], row[b]), cmp.Compare(a, b))
		})
		l.outFrom[v] = int32(len(l.nodes))
		for _, w := range order {
			if canFollow(v, int(w)) {
				l.nodes = append(l.nodes, w)
			}
		}
		l.inFrom[v] = int32(len(l.nodes))
		for _, w := range order {
			if canFollow(int(w), v) {
				l.nodes = append(l.nodes, w)
			}
		}
	}
	l.outFrom[n] = int32(len(l.nodes))
	return l
}

// symmetric reports whether d[i][j] == d[j][i] for all i, j.
func symmetric(d []float64, n int) bool {
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if d[i*n+j] != d[j*n+i] {
				return false
			}
		}
	}
	return true
}

// scanNear is scan over the cost-improving moves only, found through the
// neighbour lists; f sees a superset of the moves whose length change is
// below need (with sc.st set and need finite; otherwise of those that
// shorten the tour).
func (sc *scanner) scanNear(kinds []MoveKind, offset int, f func(move) bool) bool {
	n := sc.n
	if n < 3 {
		return false
	}
	// The cost filter of the full scans, here before the visitor's call:
	// most candidates within the radii do not gain enough.
	sc.nearFilter = sc.st != nil && !math.IsInf(sc.need, 1)
	for a := 0; a < n; a++ {
		x := (a + offset) % n
		if sc.anchorHi > 0 && (x < sc.anchorLo || x > sc.anchorHi) || sc.only != nil && !sc.only[x] {
			continue
		}
		for _, kind := range kinds {
			if sc.nearAt(kind, x, f) {
				return true
			}
		}
	}
	return false
}

// nearAt calls f for the candidate moves of kind anchored at position x.
func (sc *scanner) nearAt(kind MoveKind, x int, f func(move) bool) bool {
	st := sc.st
	// ds: the radii's symmetric lengths; d: the travel times (the filter).
	n, t, d, ds, nl := st.n, st.tour, st.dist, st.ndist, st.near
	// The position before x in the closed tour (the last one when x is
	// the depot): the node at x follows it.
	jBefore := n - 1
	if x > 0 {
		jBefore = x - 1
	}
	v := t[x]
	switch kind {
	case TwoOpt:
		// From a = t[x]: reverse x+1..j for c = t[j] closer to a than
		// t[x+1].
		if x+1 <= n-2 {
			b := t[x+1]
			r := ds[v*n+b] + nearSlack + sc.allow
			thr := sc.need + filterSlack + d[v*n+b] // the filter (state.delta)
			for _, c := range nl.out(v) {
				if ds[v*n+int(c)] >= r {
					break
				}
				if j := st.pos[c]; j > x+1 {
					if sc.nearFilter {
						i, e := x+1, st.next(j)
						if d[v*n+int(c)]+d[b*n+e]-d[int(c)*n+e]+(st.bwdCost[j]-st.bwdCost[i])-(st.fwdCost[j]-st.fwdCost[i]) >= thr {
							if sc.skip() {
								return true
							}
							continue
						}
					}
					if f(move{kind: TwoOpt, i: x + 1, j: j}) {
						return true
					}
				}
			}
		}
		// From e = t[x] (the depot closing the tour when x = 0): reverse
		// i..j, j = x−1, for b = t[i] closer to e than t[j].
		j := jBefore
		if j >= 2 {
			c := t[j]
			r := ds[v*n+c] + nearSlack + sc.allow
			thr := sc.need + filterSlack + d[c*n+v] // the filter (state.delta)
			for _, b := range nl.in(v) {
				if ds[v*n+int(b)] >= r {
					break
				}
				if i := st.pos[b]; i >= 1 && i < j {
					if sc.nearFilter {
						a := t[i-1]
						if d[a*n+c]+d[int(b)*n+v]-d[a*n+int(b)]+(st.bwdCost[j]-st.bwdCost[i])-(st.fwdCost[j]-st.fwdCost[i]) >= thr {
							if sc.skip() {
								return true
							}
							continue
						}
					}
					if f(move{kind: TwoOpt, i: i, j: j}) {
						return true
					}
				}
			}
		}
	case Swap:
		if x == 0 {
			return false
		}
		// From a = pred(v), the edge a→w; from b = succ(v), w→b.
		for side, end := range [2]int{t[x-1], st.next(x)} {
			r := ds[end*n+v] + nearSlack + sc.allow
			list := nl.out(end)
			if side == 1 {
				list = nl.in(end)
			}
			for _, w := range list {
				if ds[end*n+int(w)] >= r {
					break
				}
				q := st.pos[w]
				if q < 1 || q == x {
					continue
				}
				if sc.offer(move{kind: Swap, i: min(x, q), j: max(x, q)}, f) {
					return true
				}
			}
		}
	case Relocate:
		return sc.nearSegment(Relocate, x, 1, 1, jBefore, f)
	case OrOpt:
		return sc.nearSegment(OrOpt, x, 2, sc.maxSeg, jBefore, f)
	}
	return false
}

// nearSegment calls f for the candidate moves of segments of kLo..kHi
// nodes anchored at position x: segments starting at x (the rules from
// t[i]), segments ending at a node close to t[x] as the node after the
// insertion point (from w) and, for reversed or-opt, as the node before it
// (from u).
func (sc *scanner) nearSegment(kind MoveKind, x, kLo, kHi, jBefore int, f func(move) bool) bool {
	st := sc.st
	n, t, d, ds, nl := st.n, st.tour, st.dist, st.ndist, st.near
	v := t[x]
	both := kind == OrOpt
	// From t[i], i = x: in order, after a close node u (edge u→t[i]);
	// reversed, before a close node w (edge t[i]→w).
	if i := x; i >= 1 {
		p := t[i-1]
		dp, dsp := d[p*n+v], ds[p*n+v]
		for k := kLo; k <= kHi && i+k-1 <= n-1; k++ {
			e := i + k - 1
			q := st.next(e)
			g := dp + d[t[e]*n+q] - d[p*n+q]
			gs := dsp + ds[t[e]*n+q] - ds[p*n+q] // g in the radii's lengths
			r := max(gs, dsp) + nearSlack + sc.allow
			// The filter's threshold on the insertion's cost (state.delta
			// for a segment: the removal, −g, plus the insertion).
			thr := sc.need + filterSlack + g
			sl := t[e]
			for _, u := range nl.in(v) {
				if ds[v*n+int(u)] >= r {
					break
				}
				if j := st.pos[u]; j < i-1 || j > e {
					if sc.nearFilter {
						w := st.next(j)
						if d[int(u)*n+v]+d[sl*n+w]-d[int(u)*n+w] >= thr {
							if sc.skip() {
								return true
							}
							continue
						}
					}
					if f(move{kind: kind, i: i, j: j, k: k}) {
						return true
					}
				}
			}
			if !both {
				continue
			}
			thrRev := thr - ((st.bwdCost[e] - st.bwdCost[i]) - (st.fwdCost[e] - st.fwdCost[i]))
			for _, w := range nl.out(v) {
				if ds[v*n+int(w)] >= r {
					break
				}
				j := st.pos[w] - 1
				if w == 0 {
					j = n - 1
				}
				if j < i-1 || j > e {
					if sc.nearFilter {
						u := t[j]
						if d[u*n+sl]+d[v*n+int(w)]-d[u*n+int(w)] >= thrRev {
							if sc.skip() {
								return true
							}
							continue
						}
					}
					if f(move{kind: kind, i: i, j: j, k: k, rev: true}) {
						return true
					}
				}
			}
		}
	}
	// From w = t[x] (insertion after j = x−1, or after the last position
	// when x is the depot): in order, segments ending at a node closer to
	// w than u (edge t[e]→w).
	if sc.nearEnds(nl.in(v), v, jBefore, ds[v*n+t[jBefore]], kind, kLo, kHi, false, f) {
		return true
	}
	// From u = t[x] (insertion after j = x), reversed: segments ending at
	// a node closer to u than w (edge u→t[e]).
	return both && sc.nearEnds(nl.out(v), v, x, ds[v*n+st.next(x)], kind, kLo, kHi, true, f)
}

// nearEnds calls f for the segments of kLo..kHi nodes that end at a node
// of list closer to node v than radius, moved to after position j.
func (sc *scanner) nearEnds(list []int32, v, j int, radius float64, kind MoveKind, kLo, kHi int, rev bool, f func(move) bool) bool {
	st := sc.st
	n, d, ds, t := st.n, st.dist, st.ndist, st.tour
	r := radius + nearSlack + sc.allow
	// The filter (state.delta for a segment): the run's removal plus its
	// insertion between u and w, at or above need + filterSlack.
	u, w := t[j], st.next(j)
	thr := sc.need + filterSlack + d[u*n+w]
	for _, z := range list {
		if ds[v*n+int(z)] >= r {
			break
		}
		e := st.pos[z]
		if e < 1 {
			continue
		}
		q := st.next(e)
		for k := kLo; k <= kHi && e-k+1 >= 1; k++ {
			i := e - k + 1
			if j >= i-1 && j <= e {
				continue
			}
			if sc.nearFilter {
				p, sf, sl := t[i-1], t[i], int(z)
				rem := d[p*n+q] - d[p*n+sf] - d[sl*n+q]
				if rev {
					sf, sl = sl, sf
					rem += (st.bwdCost[e] - st.bwdCost[i]) - (st.fwdCost[e] - st.fwdCost[i])
				}
				if rem+d[u*n+sf]+d[sl*n+w] >= thr {
					if sc.skip() {
						return true
					}
					continue
				}
			}
			if f(move{kind: kind, i: i, j: j, k: k, rev: rev}) {
				return true
			}
		}
	}
	return false
}

// offer passes m to f unless the cost filter (need, set by the visitor)
// rejects it, and reports whether the scan must stop.
func (sc *scanner) offer(m move, f func(move) bool) bool {
	if sc.nearFilter && sc.st.delta(m) >= sc.need+filterSlack {
		return sc.skip()
	}
	return f(m)
}
