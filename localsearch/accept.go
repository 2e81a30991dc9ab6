package localsearch

// Acceptance: which tours the search keeps and where its kicks start.
//
// The best tour (search.best) changes only when a tour is better in the
// (excess, cost) order (keep); the tour it replaces, or the one that lost,
// is merged with it where both are feasible (mergeInto). The tour the
// kicks start from (search.cur) follows the best tour where that improved,
// or a tour that improved on cur itself (a restart's own basin: follow);
// TSPDL kicks also start from a kick's local optimum within acceptDL of
// the best length (a record-to-record acceptance: acceptKick).

// keep makes the current tour the best when it is better, and then leaves
// the former best in other; otherwise other is the current tour. It
// reports whether other is a feasible tour to merge.
func (se *search) keep() bool {
	st := se.st
	now := key{st.excess, st.cost}
	if se.best == nil || now.better(se.bestKey) {
		had := se.best != nil && se.bestKey.excess == 0
		se.other = append(se.other[:0], se.best...)
		se.best, se.bestKey = append(se.best[:0], st.tour...), now
		return had
	}
	se.other = append(se.other[:0], st.tour...)
	return st.excess == 0
}

// mergeable reports whether merging is on and the best tour feasible.
func (se *search) mergeable() bool {
	return !se.opt.NoMerge && se.opt.Fixed <= 1 && se.bestKey.excess == 0 && se.res.Stop == LocalOptimum
}

// keepMerged keeps the current tour (keep) and merges where that applies.
func (se *search) keepMerged() {
	if se.keep() && se.mergeable() {
		se.mergeInto(se.best, &se.bestKey, se.other)
	}
}

// follow moves cur to the best tour where that improved on before, or to
// the current tour where it improved on cur (a restart's own basin), and
// reports whether the best tour improved; a move resets the stall counts
// and cur's window sweep.
func (se *search) follow(before key) bool {
	st := se.st
	switch {
	case se.bestKey.better(before):
		copy(se.cur, se.best)
		se.curCost = se.bestKey.cost
	case st.excess == 0 && st.cost < se.curCost-costEps:
		copy(se.cur, st.tour)
		se.curCost = st.cost
	default:
		return false
	}
	se.stall, se.warpStall, se.swept = 0, 0, false
	return se.bestKey.better(before)
}

// acceptKick decides on a kick's local optimum: TSPDL kicks go on from it
// where it came within acceptDL of the best length (cur changes, its cost
// as counted for follow does not), then it is kept where better, and cur
// follows (follow). Why a band for TSPDL alone: walking among near-best
// optima escapes basins that kicks from the best alone do not; the band was
// tuned at about 150 kicks per instance, and TSPTW did not gain from any
// band (docs/experiments.md).
func (se *search) acceptKick() {
	st := se.st
	if !st.tsptw && st.excess == 0 && se.bestKey.excess == 0 && st.cost < se.bestKey.cost*(1+se.p.acceptDL) {
		copy(se.cur, st.tour)
	}
	before := se.bestKey
	se.keepMerged()
	se.stall++
	se.warpStall++
	if se.follow(before) {
		se.res.KicksAccepted++
		se.res.LastAccepted = se.res.Kicks
	}
}

// acceptRestart keeps a restart's local optimum where better, and makes it
// (or the better best tour) the tour the kicks start from, even where it is
// longer than cur: the restart's own kicks then improve it.
func (se *search) acceptRestart() {
	st := se.st
	before := se.bestKey
	se.keepMerged()
	if se.stopped() {
		return
	}
	if se.bestKey.better(before) {
		copy(se.cur, se.best)
		se.curCost = se.bestKey.cost
	} else if st.excess == 0 {
		copy(se.cur, st.tour)
		se.curCost = st.cost
	}
	se.swept = false
}
