package localsearch

import (
	"cmp"
	"slices"
)

// Restarts: a search whose kicks stalled for stallKicks kicks (schedule.go)
// goes on from a new local optimum, away from the basin it stalled in.

// restart puts a new local optimum in the state, away from the basin the
// kicks stalled in, and reports whether it is feasible. The first restart
// descends from the urgency order (OrderTour), repaired where it is
// infeasible, when it is not one of the starts. Why: the urgency order is
// built from the deadlines alone, not from distances as the decoded and
// insertion starts are, so its repair leads to the basin farthest from
// theirs (on Dumas n150w40.003 only that basin holds the optimum). Where
// that repair and descent outlast restartRepair kicks and a feasible
// insertion tour (InsertionTour) that is not a start exists, the restart
// descends from that instead. Why: a repair costs O(N³) per scan, from 150
// nodes about fifty kicks, so a restart late in a search's time was cut
// inside it and its basin got no kicks; the cap in kicks' evaluations
// scales with the search's own pace (docs/experiments.md, "The first
// restart's repair, capped"). The other restarts, and the first where it ends
// infeasible, rebuild the best tour with r+1 ruin and recreate kicks in a
// row at the r-th restart, so each goes further from the best. TSPDL
// restarts build a new tour instead (restartDL).
func (se *search) restart(starts [][]int, best []int) bool {
	st := se.st
	se.res.Restarts++
	r := se.res.Restarts
	if !st.tsptw {
		return se.restartDL()
	}
	isStart := func(tour []int) bool {
		return slices.ContainsFunc(starts, func(t []int) bool { return slices.Equal(t, tour) })
	}
	if r == 1 && se.opt.Fixed <= 1 {
		order := OrderTour(st.inst)
		if !isStart(order) {
			st.set(order)
			se.lastPos = 0
			if st.excess > 0 && se.res.Kicks > 0 {
				perKick := max((se.res.Evaluations-se.kickEvals)/se.res.Kicks, 1)
				se.repairCap, se.capHit = se.res.Evaluations+se.p.restartRepair*perKick, false
			}
			se.descend()
			se.repairCap = 0
			if se.capHit {
				se.capHit = false
				// The seed does not draw from the search's stream, so that
				// where no insertion fits the repair goes on as before.
				if t, ok := InsertionTour(st.inst, se.p.restartTries, se.opt.Seed+uint64(r)); ok && !isStart(t) {
					st.set(t)
					se.lastPos = 0
				}
				se.descend()
			}
			if st.excess == 0 || se.res.Stop != LocalOptimum {
				return st.excess == 0
			}
		}
	}
	st.set(best)
	for range r + 1 {
		if !se.ruinKick() {
			break
		}
	}
	se.lastPos = 0
	se.descend()
	return st.excess == 0
}

// restartDL descends from a TSPDL tour built by cheapest feasible
// insertion of the customers in order of draft limits, each jittered by up
// to its own size (so each restart builds another), and reports whether it
// is feasible; false, the state unchanged, when ten draws find no tour.
// The k-th draw jitters by 1/k of that: with ten draws at full jitter a
// restart found a tour on 3% of generated TSPDL-50 hard instances, now 43%.
func (se *search) restartDL() bool {
	st := se.st
	in, n := st.inst, st.n
	if se.ins == nil {
		se.ins = newInserter(in, st.dist)
		se.ins.minAfter = max(se.opt.Fixed, 1) - 1
	}
	nodes := make([]int, 0, n)
	key := make([]float64, n)
	prefix := st.tour[:max(se.opt.Fixed, 1)]
	for try := range 10 {
		nodes = nodes[:0]
		for _, v := range st.tour[len(prefix):] {
			nodes = append(nodes, v)
			key[v] = in.Draft[v] * (1 + se.rng.Float64()/float64(1+try))
		}
		slices.SortStableFunc(nodes, func(a, b int) int { return cmp.Compare(key[a], key[b]) })
		if !se.ins.reset(prefix) || !se.ins.recreate(nodes, se.rng, 0.2) {
			continue
		}
		st.set(se.ins.tour)
		se.lastPos = 0
		se.descend()
		return st.excess == 0
	}
	return false
}
