package localsearch

import (
	"math"
	"slices"
)

// descend applies improving moves until a local optimum or a budget. Each
// scan covers the whole neighbourhood (starting where the last applied move
// did, or at a random position under Options.Shuffle; through the neighbour
// lists it skips only moves that cannot shorten the tour), so a scan that
// finds nothing proves a true local optimum. There are no don't-look bits: in a
// time-window tour a move anywhere shifts every later arrival, so a bit set
// earlier hides moves that became feasible; with bits the descents from the
// decoded tours needed a confirming full scan anyway and cost more, and the
// descents after kicks stopped short of local optima (worse per second).
// (Large TSPTW searches scan near a kick first, then descend in full where
// that gained: localKicks.)
func (se *search) descend() { se.descendOver(nil) }

// descendOver is descend, or with marks (descendLocal) a descent whose
// scans visit only the moves that start at a marked position, each applied
// move marking the positions it changed, and no reversal-pair scan.
func (se *search) descendOver(marks []bool) {
	st := se.st
	clear(se.rejected)
	se.res.Stop = LocalOptimum
	se.sc.only = marks
	defer func() { se.sc.only = nil }()
	for !se.budgetHit() {
		if se.p.stopAtKnown && se.known != nil && st.excess == 0 && math.Abs(st.cost-se.knownCost) <= costEps && slices.Equal(st.tour, se.known) {
			se.res.KnownOptima++
			return // no move improves a local optimum: its proof scan is spared
		}
		se.res.Iterations++
		m, ok := se.scan()
		if se.timeUp {
			se.res.Stop = TimeBudget
			return
		}
		if !ok && marks == nil && se.p.revPairs && se.st.tsptw && se.st.excess == 0 {
			m, ok = se.scanRevPair()
		}
		if !ok {
			se.res.Stop = LocalOptimum
			return
		}
		before := se.res.Moves
		se.apply(m)
		if marks != nil && se.res.Moves > before {
			se.mark(m.i-1, max(m.i, m.j, m.k))
		}
	}
}

// scan looks for an improving move of the current tour.
func (se *search) scan() (move, bool) {
	st := se.st
	cur := key{st.excess, st.cost}
	if cur.excess > 0 && se.opt.NoRepair {
		return move{}, false
	}
	kinds := se.kinds
	offset := se.lastPos
	if se.shuffle {
		se.rng.Shuffle(len(kinds), func(a, b int) { kinds[a], kinds[b] = kinds[b], kinds[a] })
		offset = se.rng.IntN(max(st.n-1, 1))
	}
	first := !se.opt.BestImprovement
	repair := cur.excess > 0
	// TSPDL descents take the best improving move of the first position
	// that has one (over all neighbourhoods), not its first: their local
	// optima are better and reached sooner. TSPTW did not gain from it
	// (docs/experiments.md).
	posBest := first && !repair && !st.tsptw
	se.sc.posFound = false
	se.sc.prune, se.sc.insBlocked, se.sc.swapBlocked, se.sc.infeasible = nil, nil, nil, false
	if !repair {
		se.sc.prune, se.sc.insBlocked, se.sc.swapBlocked = st.revInfeasible, st.insBlocked, st.swapBlocked
		// TSPDL's tests are two range-minimum lookups: ask them at every
		// insertion point. TSPTW's cost a concatenation: ask only after
		// an infeasible candidate.
		se.sc.eager = !st.tsptw
	}
	se.sc.st, se.sc.need, se.sc.filtered = st, math.Inf(1), 0
	if !repair && se.p.costFilter {
		se.sc.need = cur.cost - costEps - st.cost
	}
	best, found := cur, false
	var bestMove move
	evals, tests := 0, 0
	fixed, rejected := se.opt.Fixed, len(se.rejected) > 0
	visit := func(m move) bool {
		if fixed > 0 && m.lowest() < fixed || rejected && se.rejected[m] {
			return false
		}
		evals++
		if evals&1023 == 0 && se.pastDeadline() {
			return true
		}
		c := st.cost + st.delta(m)
		var cand key
		if repair {
			cand = key{st.replay(m.pieces(st.n, &se.buf), best.excess), c}
		} else {
			if c >= best.cost-costEps {
				return false
			}
			tests++
			if !st.feasible(m.pieces(st.n, &se.buf)) {
				se.sc.infeasible = true
				return false
			}
			cand = key{0, c}
		}
		if cand.better(best) {
			best, bestMove, found = cand, m, true
			if !repair && se.p.costFilter {
				se.sc.need = best.cost - costEps - st.cost
			}
			if posBest {
				se.sc.posFound = true // the scan ends with this position
				return false
			}
			return first
		}
		return false
	}
	if !repair && st.walk {
		se.sc.scanNear(kinds, offset, visit)
		if tests > se.p.nearMaxTests*st.n {
			// Most moves that shorten this tour break its windows: the
			// full scan's blocked tests discard them by the run.
			st.walk = false
		}
	} else {
		se.sc.scan(kinds, offset, visit)
	}
	se.res.Evaluations += evals + se.sc.filtered
	return bestMove, found && !se.timeUp
}

// apply makes m the current tour after an exact replay confirms that it
// improves the (excess, cost) key; otherwise m is rejected for this tour.
func (se *search) apply(m move) {
	st := se.st
	before := key{st.excess, st.cost}
	copy(se.old, st.tour)
	se.scratch = st.build(m.pieces(st.n, &se.buf), se.scratch)
	st.update(se.scratch, false)
	if !(key{st.excess, st.cost}).better(before) {
		st.update(se.old, false)
		se.rejected[m] = true
		return
	}
	clear(se.rejected)
	se.lastPos = m.i - 1
	se.res.Moves++
	if m.kind < numKinds {
		se.res.MovesByKind[m.kind]++
	} else {
		se.res.RevPairs++
	}
}

// mark marks positions lo..hi (widened by localMargin) for descendLocal.
func (se *search) mark(lo, hi int) {
	for p := max(lo-se.p.localMargin, 1); p <= min(hi+se.p.localMargin, se.st.n-1); p++ {
		se.marks[p] = true
	}
}

// descendLocal is descend over the marked start positions (descendOver).
func (se *search) descendLocal() { se.descendOver(se.marks) }

// markDiff marks the positions of the current tour around its edges that
// old lacks.
func (se *search) markDiff(old []int) {
	n := se.st.n
	for p := 0; p+1 < n; p++ {
		se.succ[old[p]] = old[p+1]
	}
	se.succ[old[n-1]] = -1
	t := se.st.tour
	for p := 1; p < n; p++ {
		if se.succ[t[p-1]] != t[p] {
			se.mark(p-1, p)
		}
	}
	se.marked = true
}
