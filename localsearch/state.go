package localsearch

import (
	"math"

	"github.com/lmask/lmask/lazymask"
)

// piece is a run of consecutive positions from..to (inclusive, from ≤ to)
// of the current tour, visited forwards or in reverse. Every move is
// described as the concatenation of at most five pieces, the first of
// which starts at the depot.
type piece struct {
	from, to int
	rev      bool
}

// maxPieces is the most pieces a move needs (a non-adjacent swap).
const maxPieces = 5

// state holds a tour and the data that evaluates any concatenation of its
// pieces in O(1) per piece (feasibility and cost), plus the replay prefixes
// used to evaluate violation exactly while repairing.
type state struct {
	inst  *lazymask.Instance
	n     int
	dist  []float64
	tsptw bool

	tour []int
	pos  []int   // pos[v] is the position of node v in tour
	cost float64 // closed tour length (sum in tour order)

	// near holds each node's neighbours by increasing travel time
	// (newNearLists) for scanNear: TSPTW on a symmetric matrix, or on one
	// that is symmetric up to a node potential (nearOK). ndist is the
	// symmetric matrix their radii compare: dist itself, or its symmetric
	// part (d + dᵀ)/2, under which every closed tour costs the same.
	near   *nearLists
	nearOK bool
	ndist  []float64
	symm   bool // the travel-time matrix is symmetric
	// walk makes feasible use walkTW (TSPTW).
	walk bool

	// fwdCost[k] is the length of the path tour[0..k]; bwdCost[k] the
	// length of the same positions walked backwards (the same slice when
	// the matrix is symmetric).
	fwdCost, bwdCost []float64
	// nxt[k] is the node after position k (the depot after the last one)
	// and edge[k] the travel time to it; distT is the transposed matrix
	// (the matrix itself when symmetric, or for TSPTW, which does not read
	// it): distT[v*n+u] = d(u, v).
	nxt   []int
	edge  []float64
	distT []float64

	// TSPTW: fwdSeg[i*n+j] / revSeg[i*n+j] (i ≤ j) describe positions
	// i..j walked forwards / backwards. Rows are filled lazily, each table
	// on its own, as far as they are read: entries j ≥ staleF[i] of row i
	// of fwdSeg (staleR[i] of revSeg) are out of date (read them through
	// fseg and rseg). suffix[i] describes positions i..n−1 walked forwards,
	// kept up to date by update.
	fwdSeg, revSeg []twSeg
	staleF, staleR []int
	suffix         []twSeg
	// defect bounds how far the travel times break the triangle
	// inequality, d(a, c) − d(a, b) − d(b, c) ≤ defect (0 for coordinates;
	// +Inf where unknown): insBlocked and swapBlocked allow for it.
	defect float64
	nodes  []twSeg // per node, one-node data (tolerance included)

	// TSPDL: load[k] is the load after position k (load[0] = 0);
	// slackFwd[k] = draft − load[k] and slackRev[k] = draft + load[k−1]
	// for the node at position k, with their range minima.
	load               []float64
	slackFwd, slackRev rangeMin
	bufFwd, bufRev     []float64

	// Replay prefixes, bit-identical to lazymask.Check: time after
	// position k, and excess (Σ max(0, v − Tol)) up to position k.
	preTime, preExcess []float64
	preLate            []int32 // visits with a violation up to position k
	excess             float64
}

// newState allocates the per-instance storage, with prep's data (nil:
// derived here).
func newState(inst *lazymask.Instance, prep *Prepared) *state {
	if prep == nil {
		prep = derive(inst)
	}
	n := inst.N
	s := &state{inst: inst, n: n, dist: inst.Matrix(), tsptw: inst.Problem == lazymask.TSPTW}
	s.tour = make([]int, n)
	s.pos = make([]int, n)
	s.fwdCost = make([]float64, n)
	s.nxt = make([]int, n)
	s.edge = make([]float64, n)
	s.bwdCost = s.fwdCost // a symmetric matrix: walking back costs the same, bit for bit
	s.symm = prep.symm
	if !s.symm {
		s.bwdCost = make([]float64, n)
	}
	s.distT = s.dist // read by the TSPDL scans only
	if !s.symm && !s.tsptw {
		s.distT = make([]float64, n*n)
		for u := 0; u < n; u++ {
			for v := 0; v < n; v++ {
				s.distT[v*n+u] = s.dist[u*n+v]
			}
		}
	}
	if s.tsptw && (s.symm || prep.potential) { // TSPDL scans stay full (see newSearch)
		s.ndist = s.dist
		if !s.symm {
			s.ndist = make([]float64, n*n)
			for u := 0; u < n; u++ {
				for v := 0; v < n; v++ {
					s.ndist[u*n+v] = (s.dist[u*n+v] + s.dist[v*n+u]) / 2
				}
			}
		}
		s.near, s.nearOK = newNearLists(inst, s.ndist, s.dist, n), true
	}
	s.preTime = make([]float64, n)
	s.preExcess = make([]float64, n)
	s.preLate = make([]int32, n)
	if s.tsptw {
		s.fwdSeg = make([]twSeg, n*n)
		s.revSeg = make([]twSeg, n*n)
		s.staleF, s.staleR = make([]int, n), make([]int, n)
		s.suffix = make([]twSeg, n)
		s.defect = prep.defect
		s.nodes = make([]twSeg, n)
		s.nodes[0] = depotSeg()
		for v := 1; v < n; v++ {
			s.nodes[v] = nodeSeg(v, inst.Early[v], inst.Late[v]+lazymask.Tol, inst.Service[v])
		}
	} else {
		s.load = make([]float64, n)
		s.bufFwd = make([]float64, n)
		s.bufRev = make([]float64, n)
	}
	return s
}

// defectCheckMax is the largest N whose explicit travel-time matrix is
// measured for its triangle defect (an O(N³) pass: about 20 ms at N = 250);
// larger ones get +Inf, which leaves the stopping rule off.
const defectCheckMax = 320

// triangleDefect returns max(0, max over a, b, c of d[a][c] − d[a][b] −
// d[b][c]): 0 for a metric, the rounding of a matrix of rounded
// distances, +Inf for N above defectCheckMax.
func triangleDefect(d []float64, n int) float64 {
	if n > defectCheckMax {
		return math.Inf(1)
	}
	// Four running maxima let the additions of a row overlap.
	var w0, w1, w2, w3 float64
	for a := 0; a < n; a++ {
		rowA := d[a*n : a*n+n]
		for b := 0; b < n; b++ {
			dab, rowB := rowA[b], d[b*n:b*n+n]
			rowA := rowA[:len(rowB)]
			c := 0
			for ; c+4 <= len(rowB); c += 4 {
				w0 = max(w0, rowA[c]-rowB[c]-dab)
				w1 = max(w1, rowA[c+1]-rowB[c+1]-dab)
				w2 = max(w2, rowA[c+2]-rowB[c+2]-dab)
				w3 = max(w3, rowA[c+3]-rowB[c+3]-dab)
			}
			for ; c < len(rowB); c++ {
				w0 = max(w0, rowA[c]-rowB[c]-dab)
			}
		}
	}
	return max(w0, w1, w2, w3)
}

// d is the travel time from node i to node j.
func (s *state) d(i, j int) float64 { return s.dist[i*s.n+j] }

// set loads tour (a valid permutation starting at 0) and rebuilds all data.
func (s *state) set(tour []int) {
	s.update(tour, true)
}

// update loads tour; unless full, the data are recomputed only from the
// first position where tour differs from the current tour (the time-window
// tables only where it differs).
func (s *state) update(tour []int, full bool) {
	n := s.n
	lo, hi := 0, n-1
	if !full {
		for lo < n && s.tour[lo] == tour[lo] {
			lo++
		}
		for hi >= lo && s.tour[hi] == tour[hi] {
			hi--
		}
		if lo > hi {
			return
		}
	}
	copy(s.tour, tour)
	t := s.tour
	for k := lo; k <= hi; k++ {
		s.pos[t[k]] = k
	}
	// Before position lo the tour is unchanged, and so are the prefix sums
	// (added in the same order).
	s.fwdCost[0], s.bwdCost[0] = 0, 0
	for k := max(lo-1, 0); k <= hi; k++ {
		nx := 0
		if k+1 < n {
			nx = t[k+1]
		}
		s.nxt[k], s.edge[k] = nx, s.d(t[k], nx)
	}
	for k := max(lo, 1); k < n; k++ {
		c := s.fwdCost[k-1] + s.d(t[k-1], t[k])
		if k > hi && c == s.fwdCost[k] {
			break // the same additions from here on: the rest is unchanged
		}
		s.fwdCost[k] = c
	}
	if !s.symm {
		for k := max(lo, 1); k < n; k++ {
			s.bwdCost[k] = s.bwdCost[k-1] + s.d(t[k], t[k-1])
		}
	}
	s.cost = s.fwdCost[n-1] + s.d(t[n-1], 0)
	if s.tsptw {
		s.replayPrefix(lo, n)
		// Runs i..j with j < lo or i > hi are unchanged; the rest is
		// recomputed when first read.
		for i := 0; i <= hi; i++ {
			s.staleF[i] = min(s.staleF[i], max(i, lo))
			s.staleR[i] = min(s.staleR[i], max(i, lo))
		}
		s.suffix[n-1] = s.nodes[t[n-1]]
		for i := min(hi, n-2); i >= 0; i-- {
			s.suffix[i] = concat(s.nodes[t[i]], s.suffix[i+1], s.d(t[i], t[i+1]))
		}
		return
	}
	// Only positions lo..hi changed their nodes, so the loads before lo
	// are unchanged; after hi they hold the same sums, added in another
	// order, so they are recomputed and the range-minimum tables rebuilt
	// up to the last slack that changed (rounding may differ).
	in := s.inst
	s.load[0] = 0
	s.bufFwd[0], s.bufRev[0] = math.Inf(1), math.Inf(1)
	last := hi
	end := n // loads, slacks and replay prefixes from end on are unchanged
	prevChanged := true
	for k := max(lo, 1); k < n; k++ {
		v := t[k]
		l := s.load[k-1] + in.Demand[v]
		changed := l != s.load[k]
		if k > hi && !changed && !prevChanged && !full {
			// Position k and all after it hold the same nodes under
			// bit-identical loads (the same additions from here on).
			end = k
			break
		}
		prevChanged = changed
		s.load[k] = l
		f, r := in.Draft[v]-s.load[k], in.Draft[v]+s.load[k-1]
		if f != s.bufFwd[k] || r != s.bufRev[k] {
			last = max(last, k)
		}
		s.bufFwd[k], s.bufRev[k] = f, r
	}
	s.replayPrefix(lo, end)
	if full {
		s.slackFwd.build(s.bufFwd)
		s.slackRev.build(s.bufRev)
		return
	}
	s.slackFwd.rebuild(s.bufFwd, max(lo, 1), last)
	s.slackRev.rebuild(s.bufRev, max(lo, 1), last)
}

// fill brings row i of fwdSeg (rev: of revSeg) up to date through column
// last.
func (s *state) fill(i, last int, rev bool) {
	n, t := s.n, s.tour
	row, stale := s.fwdSeg[i*n:i*n+n], &s.staleF[i]
	if rev {
		row, stale = s.revSeg[i*n:i*n+n], &s.staleR[i]
	}
	j := max(*stale, i)
	if j == i {
		row[i] = s.nodes[t[i]]
		j++
	}
	for ; j <= last; j++ {
		if rev {
			row[j] = concat(s.nodes[t[j]], row[j-1], s.d(t[j], t[j-1]))
		} else {
			row[j] = concat(row[j-1], s.nodes[t[j]], s.d(t[j-1], t[j]))
		}
	}
	*stale = last + 1
}

// fseg and rseg return the time-window data of positions i..j (i ≤ j)
// walked forwards and backwards.
func (s *state) fseg(i, j int) twSeg {
	if j >= s.staleF[i] {
		s.fill(i, j, false)
	}
	return s.fwdSeg[i*s.n+j]
}

func (s *state) rseg(i, j int) twSeg {
	if j >= s.staleR[i] {
		s.fill(i, j, true)
	}
	return s.revSeg[i*s.n+j]
}

// replayPrefix recomputes the replay prefixes of the current tour from
// position lo on (those before it are up to date) with the same arithmetic
// as lazymask.Check.
func (s *state) replayPrefix(lo, end int) {
	in := s.inst
	lo = max(lo, 1)
	t, ex := s.preTime[lo-1], s.preExcess[lo-1]
	load := 0.0
	if !s.tsptw {
		load = s.load[lo-1] // the same sum, added in the same order
	}
	s.preTime[0], s.preExcess[0] = 0, 0
	same := true // the excess before k is unchanged
	for k := lo; k < s.n; k++ {
		if k >= end && same {
			// TSPDL: the loads from end on are unchanged, and so is
			// the excess before: the rest of the prefixes stand.
			ex = s.preExcess[s.n-1]
			break
		}
		cur := s.tour[k]
		var v float64
		if s.tsptw {
			arr := t + s.d(s.tour[k-1], cur)
			v = max(0, arr-in.Late[cur]) // the builtin: math.Max's results, inlined
			t = max(arr, in.Early[cur]) + in.Service[cur]
		} else {
			load += in.Demand[cur]
			v = max(0, load-in.Draft[cur])
		}
		s.preLate[k] = s.preLate[k-1]
		if v > lazymask.Tol {
			ex += v - lazymask.Tol
			s.preLate[k]++
		}
		same = ex == s.preExcess[k]
		s.preTime[k], s.preExcess[k] = t, ex
	}
	s.excess = ex
}

// first and last return the nodes a piece starts and ends with.
func (s *state) first(p piece) int {
	if p.rev {
		return s.tour[p.to]
	}
	return s.tour[p.from]
}

func (s *state) last(p piece) int {
	if p.rev {
		return s.tour[p.from]
	}
	return s.tour[p.to]
}

// next is the node after position k in the closed tour.
func (s *state) next(k int) int { return s.nxt[k] }

// delta is the change of the closed tour length that m brings, in O(1).
func (s *state) delta(m move) float64 {
	t := s.tour
	i, j := m.i, m.j
	switch m.kind {
	case TwoOpt:
		a, b, c, nx := t[i-1], t[i], t[j], s.next(j)
		return s.d(a, c) + s.d(b, nx) - s.d(a, b) - s.d(c, nx) +
			(s.bwdCost[j] - s.bwdCost[i]) - (s.fwdCost[j] - s.fwdCost[i])
	case revPair:
		k := m.k
		a, b, c, e, f, w := t[i-1], t[i], t[j], t[j+1], t[k], s.next(k)
		return s.d(a, c) + s.d(b, f) + s.d(e, w) - s.d(a, b) - s.d(c, e) - s.d(f, w) +
			(s.bwdCost[j] - s.bwdCost[i]) - (s.fwdCost[j] - s.fwdCost[i]) +
			(s.bwdCost[k] - s.bwdCost[j+1]) - (s.fwdCost[k] - s.fwdCost[j+1])
	case Swap:
		a, x, y, b := t[i-1], t[i], t[j], s.next(j)
		if j == i+1 {
			return s.d(a, y) + s.d(y, x) + s.d(x, b) - s.d(a, x) - s.d(x, y) - s.d(y, b)
		}
		x2, y2 := t[i+1], t[j-1]
		return s.d(a, y) + s.d(y, x2) + s.d(y2, x) + s.d(x, b) -
			s.d(a, x) - s.d(x, x2) - s.d(y2, y) - s.d(y, b)
	}
	e := i + m.k - 1
	p, q := t[i-1], s.next(e)
	sf, sl := t[i], t[e]
	inner := 0.0
	if m.rev {
		sf, sl = sl, sf
		inner = (s.bwdCost[e] - s.bwdCost[i]) - (s.fwdCost[e] - s.fwdCost[i])
	}
	u, w := t[j], s.next(j)
	return s.d(p, q) - s.d(p, t[i]) - s.d(t[e], q) + s.d(u, sf) + s.d(sl, w) - s.d(u, w) + inner
}

// feasible reports in O(len(ps)) whether the tour the pieces describe
// passes lazymask.Check (up to floating-point rounding at the tolerance
// boundary; accepted moves are confirmed by a replay).
func (s *state) feasible(ps []piece) bool {
	if s.tsptw && s.walk {
		return s.walkTW(ps)
	}
	if s.tsptw {
		var seg twSeg
		for k, p := range ps {
			seg = s.join(seg, k, p)
			if seg.warp > 0 {
				return false
			}
		}
		return true
	}
	shift := 0.0 // load before the piece in the new tour
	for _, p := range ps {
		lo := max(p.from, 1)
		if lo > p.to {
			continue
		}
		if !s.loadsFit(p, shift) {
			return false
		}
		shift += s.load[p.to] - s.load[lo-1]
	}
	return true
}

// join appends piece p, the k-th of a tour's pieces, to seg, the data of
// the pieces before it (TSPTW).
func (s *state) join(seg twSeg, k int, p piece) twSeg {
	var q twSeg
	switch {
	case p.rev:
		q = s.rseg(p.from, p.to)
	case p.to == s.n-1:
		q = s.suffix[p.from]
	default:
		q = s.fseg(p.from, p.to)
	}
	if k == 0 {
		return q
	}
	return concat(seg, q, s.d(seg.last, q.first))
}

// walkTW is feasible for TSPTW without the run tables: it takes the exact
// time after the first piece from the replay prefixes, replays the nodes of
// the middle pieces as lazymask.Check does (stopping at the first late
// arrival) and tests an unchanged suffix with its time-window data in O(1).
// It costs O(length of the middle pieces) but never fills a table, which
// pays off when moves are applied often and tested sparsely (scanNear).
func (s *state) walkTW(ps []piece) bool {
	in := s.inst
	head := ps[0].to
	t, prev := s.preTime[head], s.tour[head]
	last := len(ps) - 1
	for k := 1; k <= last; k++ {
		p := ps[k]
		if k == last && !p.rev && p.to == s.n-1 {
			suf := s.suffix[p.from]
			return suf.warp == 0 && t+s.d(prev, suf.first) <= suf.late
		}
		for q := 0; q <= p.to-p.from; q++ {
			cur := s.tour[p.from+q]
			if p.rev {
				cur = s.tour[p.to-q]
			}
			arr := t + s.d(prev, cur)
			if arr-in.Late[cur] > lazymask.Tol {
				return false
			}
			t = max(arr, in.Early[cur]) + in.Service[cur]
			prev = cur
		}
	}
	return true
}

// loadsFit reports whether the nodes of piece p (TSPDL) stay within their
// draft limits when the load before the piece is shift.
func (s *state) loadsFit(p piece, shift float64) bool {
	return s.fitsWith(p, s.leastSlack(p), shift)
}

// leastSlack is the range minimum loadsFit tests for piece p: of slackFwd
// over its nodes, or of slackRev when it is reversed.
func (s *state) leastSlack(p piece) float64 {
	lo := max(p.from, 1)
	if p.to-lo < 4 { // short runs (or-opt segments): read them directly
		v := s.bufFwd
		if p.rev {
			v = s.bufRev
		}
		m := v[lo]
		for _, x := range v[lo+1 : p.to+1] {
			m = min(m, x)
		}
		return m
	}
	if p.rev {
		return s.slackRev.min(lo, p.to)
	}
	return s.slackFwd.min(lo, p.to)
}

// fitsWith is loadsFit for a piece whose leastSlack is m.
func (s *state) fitsWith(p piece, m, shift float64) bool {
	if p.rev {
		return m-shift-s.load[p.to] >= -lazymask.Tol
	}
	return m-shift+s.load[max(p.from, 1)-1] >= -lazymask.Tol
}

// insBlocked reports that moving the run at positions i..i+k−1 (1 ≤ i,
// reversed if rev) to after position j is infeasible for a reason that
// every insertion point further from the run on the same side shares, so a
// scan may stop there:
//
//   - TSPTW, j after the run: the nodes end+1..j followed by the run have
//     a time warp; before it: the run followed by the nodes j+1..i−1 has.
//     Every further j inserts nodes between the run and those nodes,
//     which under the triangle inequality (and non-negative service
//     times) only delays the later arrivals, so the warp stays. Where the
//     matrix breaks the inequality by up to defect (rounded distances),
//     each inserted node can advance them by at most defect, so the test
//     joins the two parts with the travel time lowered by defect times
//     the nodes the scan can still insert. (Coordinates obey it up to
//     rounding, which at worst skips a move whose feasibility rests on the
//     last bit.)
//   - TSPDL (demands are non-negative): after the run, the run's nodes
//     exceed a draft limit under the load of everything placed before
//     them, which only grows with j; before it, the nodes j+1..i−1 exceed
//     a limit once the run's load is added to theirs.
func (s *state) insBlocked(i, k int, rev bool, j int) bool {
	end := i + k - 1
	if s.tsptw {
		if math.IsInf(s.defect, 1) {
			return false
		}
		run := s.fseg(i, end)
		if rev {
			run = s.rseg(i, end)
		}
		if j > end {
			mid := s.fseg(end+1, j)
			return concat(mid, run, s.shortcut(mid.last, run.first, s.n-1-j)).warp > 0
		}
		mid := s.fseg(j+1, i-1)
		return concat(run, mid, s.shortcut(run.last, mid.first, j)).warp > 0
	}
	if j > end {
		return !s.loadsFit(piece{i, end, rev}, s.load[i-1]+s.load[j]-s.load[end])
	}
	return s.slackFwd.min(j+1, i-1)-(s.load[end]-s.load[i-1]) < -lazymask.Tol
}

// runBlocks answers insBlocked for one TSPDL run at every insertion point
// of a scan, with the run's range minimum taken once and the nodes between
// the run and an insertion point before it folded into a running minimum
// as the scan walks away from the run; its verdicts are insBlocked's (its
// bounds rearrange insBlocked's inequalities, so a value within rounding
// of the tolerance may fall the other way; applied moves are replayed).
type runBlocks struct {
	s *state
	// limAfter: an insertion point j after the run is blocked once the
	// load after j exceeds it (the run's least slack, moved onto that
	// load, goes below −Tol); limBefore: a point before it is blocked once
	// a passed node's slack (draft − load) is under it (the run's own load
	// would push that node over its limit).
	limAfter, limBefore float64
	passedMin           float64 // least slackFwd of the positions j+1..i−1 passed
	passedNext          int     // the next position before the run to fold in
}

// blocksOf prepares runBlocks for the run at positions i..i+k−1 (TSPDL).
func (s *state) blocksOf(i, k int, rev bool) runBlocks {
	after, before := s.runLimits(i, i+k-1, rev)
	return runBlocks{s: s, limAfter: after, limBefore: before, passedMin: math.Inf(1), passedNext: i - 1}
}

// runLimits returns runBlocks' limits for the run at positions i..end:
// fitsWith with shift = load[i−1] + load[j] − load[end], solved for
// load[j], and the run's own load less the tolerance.
func (s *state) runLimits(i, end int, rev bool) (after, before float64) {
	m := s.leastSlack(piece{i, end, rev})
	if rev {
		after = m - s.load[i-1] + lazymask.Tol
	} else {
		after = m + s.load[end] + lazymask.Tol
	}
	return after, s.load[end] - s.load[i-1] - lazymask.Tol
}

// after is insBlocked(i, k, rev, j) for j after the run.
func (r *runBlocks) after(j int) bool {
	return r.s.load[j] > r.limAfter
}

// before is insBlocked(i, k, rev, j) for j before the run; the scan asks
// for j = i−2, i−3, … in turn.
func (r *runBlocks) before(j int) bool {
	for ; r.passedNext > j; r.passedNext-- {
		r.passedMin = min(r.passedMin, r.s.bufFwd[r.passedNext])
	}
	return r.passedMin < r.limBefore
}

// shortcut is a lower bound on the travel time from a to b through up to
// hops more nodes: d(a, b) less hops·defect, and never below 0.
func (s *state) shortcut(a, b, hops int) float64 {
	if s.defect == 0 {
		return s.d(a, b)
	}
	return max(s.d(a, b)-float64(hops)*s.defect, 0)
}

// swapBlocked reports that swapping positions i < j is infeasible because
// the node at i, moved to j, comes after the nodes i+1..j−1 with a time
// warp (TSPTW, with the triangle inequality as in insBlocked) or under at
// least their load (TSPDL); every later j shares the reason.
func (s *state) swapBlocked(i, j int) bool {
	if j == i+1 {
		return false
	}
	x := s.tour[i]
	if s.tsptw {
		if math.IsInf(s.defect, 1) {
			return false
		}
		mid := s.fseg(i+1, j-1)
		return concat(mid, s.nodes[x], s.shortcut(mid.last, x, s.n-1-j)).warp > 0
	}
	return s.inst.Draft[x]-s.load[j-1] < -lazymask.Tol
}

// revInfeasible reports whether the 2-opt move reversing positions i..j
// (1 ≤ i < j) is infeasible because of the reversed run itself: a time warp
// inside it (TSPTW), or a draft limit exceeded by its loads on top of the
// unchanged prefix's load (TSPDL). Both verdicts carry over to i..j+1.
func (s *state) revInfeasible(i, j int) bool {
	if s.tsptw {
		return s.rseg(i, j).warp > 0
	}
	return s.slackRev.min(i, j)-s.load[i-1]-s.load[j] < -lazymask.Tol
}

// replay evaluates the tour the pieces describe exactly as lazymask.Check
// does, reusing the current tour's prefix for the first piece, and returns
// its excess violation Σ max(0, v − Tol) (zero exactly when feasible). It
// stops early once the excess exceeds limit, or (TSPTW) once the tour's
// unchanged end is reached no earlier than before: the result is then the
// old end's excess added (a lower bound above limit, or exact when reached
// at the same time; apply replays the move exactly before taking it).
func (s *state) replay(ps []piece, limit float64) float64 {
	in := s.inst
	head := ps[0].to
	t, ex := s.preTime[head], s.preExcess[head]
	load := 0.0
	if !s.tsptw {
		load = s.load[head]
	}
	prev := s.tour[head]
	for pi, p := range ps[1:] {
		// An unchanged run (the old order, a new node before it) reached no
		// earlier than before has at least its old excess: arrivals only
		// grow with the departure. Reached at the same time, the end of the
		// tour has exactly its old excess.
		run := s.tsptw && !p.rev
		tail := run && pi == len(ps)-2 && p.to == s.n-1
		for q := 0; q <= p.to-p.from; q++ {
			var cur int
			if p.rev {
				cur = s.tour[p.to-q]
			} else {
				cur = s.tour[p.from+q]
			}
			var v float64
			if s.tsptw {
				arr := t + s.d(prev, cur)
				if tail {
					k := p.from + q
					old := s.preTime[k-1] + s.d(s.tour[k-1], cur)
					rest := s.preExcess[s.n-1] - s.preExcess[k-1]
					if arr >= old {
						if arr == old || ex+rest > limit {
							return ex + rest
						}
					} else if lb := ex + rest - (old-arr)*float64(s.preLate[s.n-1]-s.preLate[k-1]); lb > limit {
						// each late visit of the end gains at most old − arr
						return lb
					}
				} else if run && q == 0 {
					old := s.preTime[p.from-1] + s.d(s.tour[p.from-1], cur)
					if arr >= old {
						lb := ex + s.preExcess[p.to] - s.preExcess[p.from-1]
						if rest := ps[1+pi+1:]; len(rest) == 1 && !rest[0].rev && rest[0].to == s.n-1 {
							lb += s.endBound(p.to, rest[0].from)
						}
						if lb > limit {
							return lb
						}
					}
				}
				v = math.Max(0, arr-in.Late[cur])
				t = math.Max(arr, in.Early[cur]) + in.Service[cur]
			} else {
				load += in.Demand[cur]
				v = math.Max(0, load-in.Draft[cur])
			}
			if v > lazymask.Tol {
				ex += v - lazymask.Tol
				if ex > limit {
					return ex
				}
			}
			prev = cur
		}
	}
	return ex
}

// endBound is a lower bound on the excess of the tour's unchanged end
// (old positions x..n−1) when it follows old position p, whose departure
// is no earlier than before: the end is reached no earlier than from p's
// old departure, and each of its late visits gains at most what that
// earliest arrival saves.
func (s *state) endBound(p, x int) float64 {
	arr := s.preTime[p] + s.d(s.tour[p], s.tour[x])
	old := s.preTime[x-1] + s.d(s.tour[x-1], s.tour[x])
	rest := s.preExcess[s.n-1] - s.preExcess[x-1]
	if arr >= old {
		return rest
	}
	return max(0, rest-(old-arr)*float64(s.preLate[s.n-1]-s.preLate[x-1]))
}

// build writes the tour the pieces describe into dst.
func (s *state) build(ps []piece, dst []int) []int {
	dst = dst[:0]
	for _, p := range ps {
		if p.rev {
			for k := p.to; k >= p.from; k-- {
				dst = append(dst, s.tour[k])
			}
		} else {
			dst = append(dst, s.tour[p.from:p.to+1]...)
		}
	}
	return dst
}
