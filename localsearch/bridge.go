package localsearch

import (
	"github.com/lmask/lmask/lazymask"
)

// Bridge kicks: random double bridges (two adjacent runs exchanged) that
// keep the tour feasible, the search's default perturbation. A kick applies
// up to kickMoves of them, each exchanging runs of 1–bridgeRun nodes.
// Double bridges (A B C D → A C B D) keep every run's direction, which time
// windows and draft limits both favour, and a descent rarely undoes them;
// the sizes were tuned per problem on the paper's n = 50 sets
// (docs/experiments.md). Where kickTries random bridges find none feasible
// (tight windows, as on hard TSPTW), the kick falls back to as many tries
// of random moves of the scanned neighbourhoods reaching up to kickReach
// positions. The TSPTW runs grow with N (defaultParams): windows of a given
// share of the horizon hold more customers, and the stuck tours of 150
// nodes and more differed from the best known ones by exchanges of longer
// runs (docs/experiments.md, "Bridge runs that grow with N").

// bridgeKick is the bridge kick as a perturber.
type bridgeKick struct{}

func (bridgeKick) perturb(se *search) bool { return se.feasibleKick() }

// feasibleKick perturbs the current feasible tour by up to kickMoves
// random double bridges (two adjacent runs exchanged), or
// nearby moves where no bridge fits, each applied only when the O(1) test
// finds the result feasible. It reports whether any was applied.
func (se *search) feasibleKick() bool {
	st := se.st
	n := st.n
	if n < 4 {
		return false
	}
	if !st.tsptw && se.p.fastKickDL {
		if ok, done := se.bridgesDL(); done {
			return ok
		}
	}
	copy(se.old, st.tour)
	applied := 0
	if st.tsptw {
		defer func() { se.bridgeKicks++; se.bridgesApplied += applied }()
	}
	moves := se.p.kickMoves
	for try := 0; try < 2*se.p.kickTries && applied < moves; try++ {
		var m move
		i := 1 + se.rng.IntN(n-2)
		if applied > 0 || try < se.p.kickTries {
			j := i + 1 + se.rng.IntN(se.p.bridgeRun)
			k := j + 1 + se.rng.IntN(se.p.bridgeRun)
			if k > n {
				continue
			}
			m = move{kind: bridge, i: i, j: j, k: k}
		} else if nm, ok := se.nearbyMove(i); ok {
			m = nm
		} else {
			continue
		}
		if m.lowest() < se.opt.Fixed {
			continue
		}
		ps := m.pieces(n, &se.buf)
		if !st.feasible(ps) {
			continue
		}
		se.scratch = st.build(ps, se.scratch)
		st.update(se.scratch, false)
		if st.excess > 0 { // rounding at the tolerance: undo
			st.update(se.old, false)
			continue
		}
		copy(se.old, st.tour)
		applied++
	}
	return applied > 0
}

// bridgesDL is feasibleKick's bridge phase for TSPDL, on a copy of the
// tour with its loads: a bridge moves run B = j..k−1 before run A = i..j−1,
// which lowers B's loads and raises A's by B's load, so it is feasible when
// every node of A has that much slack. It draws the same bridges as the
// general loop (its fit test and its loads, recomputed over i..k−1 only,
// agree with the general loop's up to rounding at the tolerance, and the
// final update replays the whole tour), applies the kick with one update,
// and reports done = false (with the tour unchanged) when the general loop
// must run instead: no bridge fitted in kickTries tries, or the replay
// disagrees at the tolerance.
func (se *search) bridgesDL() (ok, done bool) {
	st := se.st
	n, in := st.n, st.inst
	t := append(se.scratch[:0], st.tour...)
	load := append(se.kickLoad[:0], st.load...)
	se.kickLoad = load
	tmp := se.kickRun[:0]
	applied := 0
	saved := *se.pcg // the draws are replayed by the general loop on a fallback
	for try := 0; try < 2*se.p.kickTries && applied < se.p.kickMoves; try++ {
		i := 1 + se.rng.IntN(n-2)
		if applied == 0 && try >= se.p.kickTries {
			*se.pcg = saved
			return false, false
		}
		j := i + 1 + se.rng.IntN(se.p.kickBridge)
		k := j + 1 + se.rng.IntN(se.p.kickBridge)
		if k > n || i < se.opt.Fixed {
			continue
		}
		loadB := load[k-1] - load[j-1]
		fits := true
		for q := i; q < j; q++ {
			if load[q]+loadB-in.Draft[t[q]] > lazymask.Tol {
				fits = false
				break
			}
		}
		if !fits {
			continue
		}
		tmp = append(append(tmp[:0], t[j:k]...), t[i:j]...)
		copy(t[i:k], tmp)
		for q := i; q < k; q++ {
			load[q] = load[q-1] + in.Demand[t[q]]
		}
		applied++
	}
	se.kickRun = tmp
	copy(se.old, st.tour)
	st.update(t, false)
	se.scratch = t
	if st.excess > 0 { // rounding at the tolerance
		st.update(se.old, false)
		*se.pcg = saved
		return false, false
	}
	return applied > 0, true
}

// nearbyMove draws a random move of the enabled neighbourhoods that starts
// at position i and reaches at most kickReach positions; false when the
// draw falls outside the tour.
func (se *search) nearbyMove(i int) (move, bool) {
	n := se.st.n
	off := 1 + se.rng.IntN(se.p.kickReach)
	switch kind := se.kinds[se.rng.IntN(len(se.kinds))]; kind {
	case TwoOpt, Swap:
		return move{kind: kind, i: i, j: min(i+off, n-1)}, true
	default:
		k := 1
		if kind == OrOpt {
			k = min(2+se.rng.IntN(max(se.opt.MaxSegment-1, 1)), n-i)
		}
		j := i - 1 - off
		if se.rng.IntN(2) == 1 {
			j = i + k - 1 + off
		}
		if j < 0 || j >= n || (j >= i-1 && j <= i+k-1) {
			return move{}, false
		}
		return move{kind: kind, i: i, j: j, k: k, rev: kind == OrOpt && se.rng.IntN(2) == 1}, true
	}
}

// kick returns a copy of tour with two random segments (1–3 nodes) moved
// to random nearby places.
func (se *search) kick(tour []int) []int {
	n := len(tour)
	out := append([]int(nil), tour...)
	if n < 4 {
		return out
	}
	fixed := max(se.opt.Fixed, 1)
	if n-fixed < 2 {
		return out
	}
	for r := 0; r < 2; r++ {
		k := 1 + se.rng.IntN(min(3, n-fixed-1))
		i := fixed + se.rng.IntN(n-fixed-k+1)
		seg := append([]int(nil), out[i:i+k]...)
		rest := append(append([]int(nil), out[:i]...), out[i+k:]...)
		lo, hi := max(fixed, i-8), min(len(rest), i+8)
		p := lo + se.rng.IntN(hi-lo+1)
		if se.rng.IntN(2) == 1 {
			for a, b := 0, len(seg)-1; a < b; a, b = a+1, b-1 {
				seg[a], seg[b] = seg[b], seg[a]
			}
		}
		out = append(append(append(out[:0], rest[:p]...), seg...), rest[p:]...)
	}
	return out
}
