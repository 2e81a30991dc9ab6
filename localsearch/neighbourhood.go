package localsearch

import (
	"math"

	"github.com/lmask/lmask/lazymask"
)

// move is one neighbour of the current tour, in positions of that tour.
//
//	TwoOpt:   reverse positions i..j (1 ≤ i < j ≤ n−1).
//	OrOpt, Relocate: take the k nodes at positions i..i+k−1 and put them
//	          after position j (j outside i−1..i+k−1), reversed if rev.
//	Swap:     exchange the nodes at positions i < j.
//	bridge:   exchange the runs i..j−1 and j..k−1 (k is then a position,
//	          not a length); kicks only.
//	revPair:  reverse the runs i..j and j+1..k in place (k a position).
type move struct {
	kind MoveKind
	i, j int
	k    int
	rev  bool
}

// lowest is the first position whose node m changes.
func (m move) lowest() int {
	if (m.kind == OrOpt || m.kind == Relocate) && m.j < m.i {
		return m.j + 1
	}
	return m.i
}

// pieces describes the tour after m as pieces of the current tour of n
// nodes, written into buf.
func (m move) pieces(n int, buf *[maxPieces]piece) []piece {
	ps := buf[:0]
	add := func(from, to int, rev bool) {
		if from <= to {
			ps = append(ps, piece{from, to, rev})
		}
	}
	i, j := m.i, m.j
	switch m.kind {
	case TwoOpt:
		add(0, i-1, false)
		add(i, j, true)
		add(j+1, n-1, false)
	case OrOpt, Relocate:
		end := i + m.k - 1
		if j < i {
			add(0, j, false)
			add(i, end, m.rev)
			add(j+1, i-1, false)
			add(end+1, n-1, false)
		} else {
			add(0, i-1, false)
			add(end+1, j, false)
			add(i, end, m.rev)
			add(j+1, n-1, false)
		}
	case Swap:
		add(0, i-1, false)
		add(j, j, false)
		add(i+1, j-1, false)
		add(i, i, false)
		add(j+1, n-1, false)
	case bridge:
		add(0, i-1, false)
		add(j, m.k-1, false)
		add(i, j-1, false)
		add(m.k, n-1, false)
	case revPair:
		add(0, i-1, false)
		add(i, j, true)
		add(j+1, m.k, true)
		add(m.k+1, n-1, false)
	}
	return ps
}

// scanner enumerates the moves of the enabled neighbourhoods.
type scanner struct {
	n      int
	maxSeg int
	// prune, when set, reports that reversing positions i..j is
	// infeasible in any context; since that property is inherited by
	// longer runs, the 2-opt scan of i then stops.
	prune func(i, j int) bool
	// insBlocked, when set, reports that moving the run i..i+k−1 to after
	// position j is infeasible in a way every insertion point further
	// from the run (same side) inherits; the scan of that side then stops.
	// swapBlocked does the same for swaps of i with j and later positions.
	// Unless eager, both are asked only after the visitor set infeasible
	// (it found the move worth having but infeasible), which keeps them
	// off the path of the many moves the cost alone rejects.
	insBlocked  func(i, k int, rev bool, j int) bool
	swapBlocked func(i, j int) bool
	infeasible  bool
	eager       bool
	// posFound, set by the visitor, ends the scan after the moves of the
	// current position (best improvement per position).
	posFound bool

	// Cost filter for 2-opt and segment moves (or-opt, relocate), when st
	// is set: a move whose length change is at least need+filterSlack is
	// counted in filtered and not passed to the visitor, which would
	// reject it on cost anyway. The visitor lowers need as it finds better
	// moves; +Inf turns the filter off.
	st       *state
	need     float64
	filtered int
	// allow widens every neighbour-list radius (scanNear) so that the
	// scan also offers the moves that lengthen the tour by up to about
	// twice it (the warp descents' gains from time warp).
	allow float64
	// anchorLo..anchorHi, when anchorHi > 0, are the only anchor
	// positions scanNear visits (the warp descents' window).
	anchorLo, anchorHi int
	// nearFilter: scanNear applies the cost filter (st set, need finite).
	nearFilter bool
	// only, when set, holds the only start positions scan and scanNear
	// visit (a local descent's marks).
	only []bool
	// expired, when set, is asked every 1024 filtered moves (which the
	// visitor, and its own deadline check, never sees); true stops the scan.
	expired func() bool
}

// skipped counts k filtered moves at once and reports whether the scan
// must stop (asking expired whenever the count passes a multiple of 1024).
func (sc *scanner) skipped(k int) bool {
	before := sc.filtered
	sc.filtered += k
	return before>>10 != sc.filtered>>10 && sc.expired != nil && sc.expired()
}

// skip counts a filtered move and reports whether the scan must stop.
func (sc *scanner) skip() bool {
	sc.filtered++
	return sc.filtered&1023 == 0 && sc.expired != nil && sc.expired()
}

// filterSlack keeps the filter's arithmetic (summed in another order than
// state.delta) from ever skipping a move the visitor would take.
const filterSlack = 1e-9

// each calls f for every move of kind, starting the outer position loop at
// offset (rotated), until f returns true; it reports whether f stopped it.
func (sc *scanner) each(kind MoveKind, offset int, f func(move) bool) bool {
	return sc.scan([]MoveKind{kind}, offset, f)
}

// scan calls f for every move of the kinds, grouped by the position i the
// move starts at (rotated by offset), until f returns true; it reports
// whether f stopped it.
func (sc *scanner) scan(kinds []MoveKind, offset int, f func(move) bool) bool {
	n := sc.n
	if n < 3 {
		return false
	}
	span := n - 1 // positions 1..n−1
	for a := 0; a < span; a++ {
		i := 1 + (a+offset)%span
		if sc.only != nil && !sc.only[i] {
			continue
		}
		for _, kind := range kinds {
			if sc.one(kind, i, f) {
				return true
			}
		}
		if sc.posFound {
			return true
		}
	}
	return false
}

// one calls f for every move of kind that starts at position i.
func (sc *scanner) one(kind MoveKind, i int, f func(move) bool) bool {
	n := sc.n
	switch kind {
	case TwoOpt:
		st := sc.st
		filter := st != nil && !math.IsInf(sc.need, 1)
		if filter && st.symm {
			// The length change d(a, c) + d(b, w) − d(a, b) − d(c, w)
			// of reversing i..j, a = t[i−1], b = t[i], c = t[j], w = the
			// node after j (on a symmetric matrix the reversed run's
			// length is unchanged).
			t, nx, edge := st.tour, st.nxt, st.edge
			a, b := t[i-1], t[i]
			rowA, rowB := st.dist[a*n:a*n+n], st.dist[b*n:b*n+n]
			thr := sc.need + filterSlack + edge[i-1]
			skipped := 0
			// TSPDL: revInfeasible over a running minimum of slackRev (the
			// scan sets prune to st.revInfeasible whenever it sets it; the
			// same verdicts up to rounding at the tolerance).
			dl := sc.prune != nil && !st.tsptw
			runMin, base := math.Inf(1), 0.0
			if dl {
				runMin, base = st.bufRev[i], st.load[i-1]-lazymask.Tol
			}
			for j := i + 1; j < n; j++ {
				if dl {
					runMin = min(runMin, st.bufRev[j])
					if runMin-st.load[j] < base {
						break
					}
				} else if sc.prune != nil && sc.prune(i, j) {
					break
				}
				if rowA[t[j]]+rowB[nx[j]]-edge[j] >= thr {
					skipped++
					continue
				}
				if f(move{kind: TwoOpt, i: i, j: j}) {
					sc.filtered += skipped
					return true
				}
				thr = sc.need + filterSlack + edge[i-1]
			}
			return sc.skipped(skipped)
		}
		for j := i + 1; j < n; j++ {
			if sc.prune != nil && sc.prune(i, j) {
				break
			}
			if filter && st.delta(move{kind: TwoOpt, i: i, j: j}) >= sc.need+filterSlack {
				if sc.skip() {
					return true
				}
				continue
			}
			if f(move{kind: TwoOpt, i: i, j: j}) {
				return true
			}
		}
	case Swap:
		if st := sc.st; st != nil && !math.IsInf(sc.need, 1) && st.symm && !st.tsptw && sc.eager && sc.swapBlocked != nil {
			return sc.swapDL(i, f)
		}
		for j := i + 1; j < n; j++ {
			if f(move{kind: Swap, i: i, j: j}) {
				return true
			}
			if sc.ask() && sc.swapBlocked != nil && sc.swapBlocked(i, j) {
				break
			}
		}
	case Relocate:
		return sc.segment(Relocate, i, 1, false, f)
	case OrOpt:
		for k := 2; k <= sc.maxSeg && i+k-1 <= n-1; k++ {
			if sc.segment(OrOpt, i, k, false, f) || sc.segment(OrOpt, i, k, true, f) {
				return true
			}
		}
	}
	return false
}

// segment enumerates the insertion points of the segment at i..i+k−1:
// first after it (nearest first), then before it (nearest first).
func (sc *scanner) segment(kind MoveKind, i, k int, rev bool, f func(move) bool) bool {
	end := i + k - 1
	n, st := sc.n, sc.st
	filter := st != nil && !math.IsInf(sc.need, 1)
	// The move's length change is rem (take the run out, reverse it if
	// asked) plus the insertion cost between u = tour[j] and w = next(j).
	var rem float64
	var sf, sl int
	if filter {
		t := st.tour
		p, q := t[i-1], st.next(end)
		sf, sl = t[i], t[end]
		rem = st.d(p, q) - st.d(p, sf) - st.d(sl, q)
		if rev {
			sf, sl = sl, sf
			rem += (st.bwdCost[end] - st.bwdCost[i]) - (st.fwdCost[end] - st.fwdCost[i])
		}
	}
	try := func(j int) bool {
		if filter {
			u, w := st.tour[j], st.next(j)
			if rem+st.d(u, sf)+st.d(sl, w)-st.d(u, w) >= sc.need+filterSlack {
				return sc.skip()
			}
		}
		return f(move{kind: kind, i: i, j: j, k: k, rev: rev})
	}
	// TSPDL asks at every insertion point: runBlocks gives the same
	// verdicts without a range-minimum query per point. (The two walks are
	// written out again rather than sharing a blocked closure with the
	// general ones below: the closure call is measurable on this hot path.)
	if sc.eager && sc.insBlocked != nil && st != nil && !st.tsptw {
		if filter {
			// The filter written out over the tour's edge lengths: a move
			// is passed on when d(u, sf) + d(sl, w) − d(u, w) < need − rem.
			t, nx, edge := st.tour, st.nxt, st.edge
			colF := st.distT[sf*n : sf*n+n] // d(·, sf)
			rowL := st.dist[sl*n : sl*n+n]  // d(sl, ·)
			thr := sc.need + filterSlack - rem
			skipped := 0
			// runBlocks' verdicts, written out: after the run, j is
			// blocked once the load after it passes limA; before it, once
			// a passed node's slack is under limB (the walk passes one
			// more node per step).
			load, slack := st.load, st.bufFwd
			limA, limB := st.runLimits(i, end, rev)
			for j := end + 1; j < n; j++ {
				if colF[t[j]]+rowL[nx[j]]-edge[j] < thr {
					if f(move{kind: kind, i: i, j: j, k: k, rev: rev}) {
						sc.filtered += skipped
						return true
					}
					thr = sc.need + filterSlack - rem
				} else {
					skipped++
				}
				if load[j] > limA {
					break
				}
			}
			for j := i - 2; j >= 0; j-- {
				if colF[t[j]]+rowL[nx[j]]-edge[j] < thr {
					if f(move{kind: kind, i: i, j: j, k: k, rev: rev}) {
						sc.filtered += skipped
						return true
					}
					thr = sc.need + filterSlack - rem
				} else {
					skipped++
				}
				if slack[j+1] < limB {
					break
				}
			}
			sc.infeasible = false
			return sc.skipped(skipped)
		}
		rb := st.blocksOf(i, k, rev)
		for j := end + 1; j < n; j++ {
			if try(j) {
				return true
			}
			if rb.after(j) {
				break
			}
		}
		for j := i - 2; j >= 0; j-- {
			if try(j) {
				return true
			}
			if rb.before(j) {
				break
			}
		}
		sc.infeasible = false
		return false
	}
	for j := end + 1; j < n; j++ {
		if try(j) {
			return true
		}
		if sc.ask() && sc.insBlocked != nil && sc.insBlocked(i, k, rev, j) {
			break
		}
	}
	for j := i - 2; j >= 0; j-- {
		if try(j) {
			return true
		}
		if sc.ask() && sc.insBlocked != nil && sc.insBlocked(i, k, rev, j) {
			break
		}
	}
	return false
}

// ask consumes the visitor's infeasible flag and reports whether a
// blocked test is due (always when eager).
func (sc *scanner) ask() bool {
	due := sc.infeasible || sc.eager
	sc.infeasible = false
	return due
}

// swapDL is the swap scan of position i for TSPDL on a symmetric matrix,
// with the cost filter written out over the tour's edge lengths and
// swapBlocked's verdict as a bound on the load before j.
func (sc *scanner) swapDL(i int, f func(move) bool) bool {
	st := sc.st
	n, t, nx, edge := sc.n, st.tour, st.nxt, st.edge
	if i+1 >= n {
		return false
	}
	a, x, x2 := t[i-1], t[i], t[i+1]
	rowA, rowX := st.dist[a*n:a*n+n], st.dist[x*n:x*n+n]
	rowX2 := st.dist[x2*n : x2*n+n]
	lim := st.inst.Draft[x] + lazymask.Tol // swapBlocked (up to rounding): load[j−1] above it
	skipped := 0
	for j := i + 1; j < n; j++ {
		if j == i+1 {
			if f(move{kind: Swap, i: i, j: j}) {
				sc.filtered += skipped
				return true
			}
			continue
		}
		// d(a, y) + d(y, x2) + d(y2, x) + d(x, b) − the four tour edges.
		y := t[j]
		if rowA[y]+rowX2[y]+rowX[t[j-1]]+rowX[nx[j]]-edge[j-1]-edge[j] < sc.need+filterSlack+edge[i-1]+edge[i] {
			if f(move{kind: Swap, i: i, j: j}) {
				sc.filtered += skipped
				return true
			}
		} else {
			skipped++
		}
		if st.load[j-1] > lim {
			break
		}
	}
	return sc.skipped(skipped)
}
