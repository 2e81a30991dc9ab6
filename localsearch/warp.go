package localsearch

import "time"

// Warp kicks. A TSPTW basin's walls are time windows: the tour a stalled
// search needs often differs from its best by a change each part of which
// alone breaks a window (Gendreau n60w200.001: a reversed run of seven
// plus relocations), which the feasible bridge kicks land on only rarely.
// A warp kick crosses the wall instead: unchecked double
// bridges until one breaks a window, then descents on length + weight ×
// time warp (the lateness of the time-warp run data), the weight raised
// tenfold at each local optimum until no warp is left (docs/experiments.md,
// "Warp kicks").
//
// The tunables are params.warpAfter and the params.warp* fields (params.go).

// warpKicker is the warp kick as a perturber.
type warpKicker struct{}

func (warpKicker) perturb(se *search) bool { return se.warpKick() }

// warpOf returns the total time warp of the tour that the pieces describe.
func (s *state) warpOf(ps []piece) float64 {
	var seg twSeg
	for k, p := range ps {
		seg = s.join(seg, k, p)
	}
	return seg.warp
}

// warpKick perturbs the current feasible TSPTW tour by random double
// bridges, whatever their windows, until one leaves time warp (at least
// warpBridges, at most kickMoves), and descends on length + weight × warp
// from warpWeight up to warpWeightMax. It leaves the state at a tour with
// no warp (feasible) and reports true, or restores the tour and reports
// false when no bridge could be drawn, the warp stayed (the repair of the
// descent that follows would cost O(n³) a scan) or the kick outlasted its
// cap (warpKickCap; the search's warp kicks end there).
func (se *search) warpKick() bool {
	st := se.st
	n := st.n
	fixed := max(se.opt.Fixed, 1)
	if n-fixed < 3 {
		return false
	}
	copy(se.old, st.tour)
	applied := 0
	lo, hi := n, 0 // the positions the last bridge changed (the earlier ones fitted)
	for try := 0; try < se.p.kickTries && applied < se.p.kickMoves && (applied < se.p.warpBridges || st.suffix[0].warp == 0); try++ {
		i := fixed + se.rng.IntN(n-fixed-1)
		j := i + 1 + se.rng.IntN(se.p.bridgeRun)
		k := j + 1 + se.rng.IntN(se.p.bridgeRun)
		if k > n {
			continue
		}
		se.scratch = st.build(move{kind: bridge, i: i, j: j, k: k}.pieces(n, &se.buf), se.scratch)
		st.update(se.scratch, false)
		applied++
		lo, hi = i, k-1
	}
	if applied == 0 {
		return false
	}
	lo, hi = max(lo-se.p.warpWindow, 0), min(hi+se.p.warpWindow, n-1)
	se.warpUntil, se.warpCut = time.Time{}, false
	if se.opt.TimeLimit > 0 && se.res.Kicks > 0 {
		se.warpUntil = time.Now().Add(time.Duration(se.p.warpKickCap) * time.Since(se.kicksBegan) / time.Duration(se.res.Kicks))
	}
	for w := se.p.warpWeight; st.suffix[0].warp > 0 && w <= se.p.warpWeightMax && !se.timeUp && !se.warpCut; w *= se.p.warpStep {
		se.warpDescend(w, lo, hi)
	}
	if se.warpCut {
		se.warpOff = true
		se.warpPause = max(2*se.warpPause, se.p.warpPauseFirst)
		se.warpResume = se.res.Kicks + se.warpPause
		st.update(se.old, false)
		return false
	}
	if st.suffix[0].warp > 0 || st.excess > 0 {
		st.update(se.old, false)
		return false
	}
	return true
}

// warpOver reports, and remembers (warpCut), that the warp kick under way
// has outlasted warpUntil.
func (se *search) warpOver() bool {
	if !se.warpCut && !se.warpUntil.IsZero() && time.Now().After(se.warpUntil) {
		se.warpCut = true
	}
	return se.warpCut
}

// warpDescend applies first-improving moves on length + w × time warp
// until none is left or the time is up: through the neighbour lists
// (anchored at positions lo..hi, radii widened by up to warpReach mean
// edges) where the matrix is symmetric, else full scans.
func (se *search) warpDescend(w float64, lo, hi int) {
	st, sc := se.st, &se.sc
	for !se.budgetHit() {
		warp0 := st.suffix[0].warp
		f0 := st.cost + w*warp0
		// No move gains more than the whole warp's weight: the scanner's
		// cost filter skips the moves that lengthen the tour by more.
		need := w*warp0 - costEps
		var best move
		found := false
		evals := 0
		sc.prune, sc.insBlocked, sc.swapBlocked, sc.infeasible = nil, nil, nil, false
		sc.st, sc.need, sc.filtered = st, need, 0
		fixed := se.opt.Fixed
		visit := func(m move) bool {
			if fixed > 0 && m.lowest() < fixed {
				return false
			}
			evals++
			if evals&1023 == 0 && (se.pastDeadline() || se.warpOver()) {
				return true
			}
			dc := st.delta(m)
			if dc >= need {
				return false
			}
			// Nor more than the warp outside its unchanged prefix and
			// suffix (a concatenation's warp is at least its parts').
			ps := m.pieces(st.n, &se.buf)
			kept := 0.0
			if p := ps[0]; !p.rev && p.from == 0 && p.to > 0 {
				kept = st.fseg(0, p.to).warp
			}
			if p := ps[len(ps)-1]; !p.rev && p.to == st.n-1 && len(ps) > 1 {
				kept += st.suffix[p.from].warp
			}
			if dc >= w*(warp0-kept)-costEps {
				return false
			}
			if st.cost+dc+w*st.warpOf(ps) < f0-costEps {
				best, found = m, true
				return true
			}
			return false
		}
		if st.nearOK && se.p.near {
			// A move that gains at most need in length has an added edge
			// at most need/2 longer than the one it replaces (the gain
			// criterion of near.go with each pair's bound lowered).
			sc.allow = min(max(need, 0)/2, se.p.warpReach*st.cost/float64(st.n))
			sc.anchorLo, sc.anchorHi = lo, hi
			sc.scanNear(se.kinds, se.rng.IntN(st.n-1), visit)
			sc.allow, sc.anchorLo, sc.anchorHi = 0, 0, 0
		} else {
			sc.scan(se.kinds, se.rng.IntN(st.n-1), visit)
		}
		se.res.Evaluations += evals + sc.filtered
		if !found || se.timeUp || se.warpCut {
			return
		}
		se.scratch = st.build(best.pieces(st.n, &se.buf), se.scratch)
		st.update(se.scratch, false)
		se.res.Moves++
	}
}
