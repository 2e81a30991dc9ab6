package localsearch

// scanRevPair looks, at a feasible TSPTW local optimum of the scanned
// neighbourhoods, for the first move that reverses two adjacent runs
// i..j and j+1..k in place and shortens the tour. Why: of the pure 3-opt
// reconnections it is the one no 2-opt, or-opt, swap or double bridge
// reaches in one step, and each of its two reversals alone can break a
// window or lengthen the tour (docs/experiments.md, "Two reversals at
// once"). A reversal infeasible in any context ends its run's growth.
func (se *search) scanRevPair() (move, bool) {
	st := se.st
	n := st.n
	// reach[p]: the last position q (at most revPairRun−1 after p)
	// such that p..q reversed has no time warp of its own; a longer run
	// from p inherits the warp. Built by prepending nodes, O(N·L).
	reach := se.reach[:0]
	for p := 0; p < n; p++ {
		q := p
		if p >= 1 {
			seg := st.nodes[st.tour[p]]
			for q+1 < n && q+1-p < se.p.revPairRun {
				v := st.tour[q+1]
				next := concat(st.nodes[v], seg, st.d(v, seg.first))
				if next.warp > 0 {
					break
				}
				seg = next
				q++
			}
		}
		reach = append(reach, q)
	}
	se.reach = reach
	evals := 0
	for i := max(1, se.opt.Fixed); i < n-1; i++ {
		for j := i; j <= min(reach[i], n-2); j++ {
			for k := j + 1; k <= reach[j+1]; k++ {
				evals++
				m := move{kind: revPair, i: i, j: j, k: k}
				if st.delta(m) >= -costEps {
					continue
				}
				if len(se.rejected) > 0 && se.rejected[m] {
					continue
				}
				if st.feasible(m.pieces(n, &se.buf)) {
					se.res.Evaluations += evals
					return m, true
				}
			}
		}
		if evals > 1<<14 && se.pastDeadline() {
			break
		}
	}
	se.res.Evaluations += evals
	return move{}, false
}
