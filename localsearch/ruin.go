package localsearch

import (
	"cmp"
	"slices"
)

// Ruin and recreate kicks: the perturbation of TSPTW tours where few
// bridges fit (perturb.go).

// ruinKicker is the ruin-and-recreate kick as a perturber.
type ruinKicker struct{}

func (ruinKicker) perturb(se *search) bool { return se.ruinKick() }

// ruinKick perturbs the current feasible TSPTW tour by ruin and recreate:
// it removes a few related customers (a run of consecutive positions, or
// a customer and its nearest ones) and reinserts them, in a random order,
// each where it costs least among the places that keep the tour feasible.
// Unlike a double bridge it can move a customer across the whole tour and
// always yields a feasible tour when it succeeds. It reports whether the
// tour changed.
func (se *search) ruinKick() bool {
	st := se.st
	n := st.n
	fixed := max(se.opt.Fixed, 1)
	free := n - fixed
	if !st.tsptw || free < 3 {
		return false
	}
	if se.ins == nil {
		se.ins = newInserter(st.inst, st.dist)
		se.ins.minAfter = fixed - 1
	}
	ins := se.ins
	copy(se.old, st.tour)
	removed := make([]bool, n)
	for try := 0; try < se.p.ruinTries; try++ {
		k := 2 + se.rng.IntN(max(1, min(se.p.ruinMax, free/3)-1))
		k = min(k, free)
		clear(removed)
		var out []int
		p := fixed + se.rng.IntN(free)
		if se.rng.IntN(2) == 0 {
			for q := p; q < p+k && q < n; q++ {
				removed[se.old[q]] = true
				out = append(out, se.old[q])
			}
		} else {
			c := se.old[p]
			for _, v := range se.related(c) {
				if len(out) == k {
					break
				}
				if st.pos[v] >= fixed {
					removed[v] = true
					out = append(out, v)
				}
			}
		}
		partial := se.scratch[:0]
		for _, v := range se.old {
			if !removed[v] {
				partial = append(partial, v)
			}
		}
		se.scratch = partial
		if !ins.reset(partial) {
			continue
		}
		se.rng.Shuffle(len(out), func(a, b int) { out[a], out[b] = out[b], out[a] })
		// later draws skip a fifth of the insertion places: on a tight
		// tour the cheapest ones often rebuild the tour as it was
		skip := 0.0
		if try >= se.p.ruinTries/2 {
			skip = 0.2
		}
		if !ins.recreate(out, se.rng, skip) || slices.Equal(ins.tour, se.old) {
			continue
		}
		st.update(ins.tour, false)
		if st.excess > 0 { // rounding at the tolerance: undo
			st.update(se.old, false)
			continue
		}
		return true
	}
	return false
}

// related returns the customers by increasing d(c, v) + d(v, c), c first.
func (se *search) related(c int) []int {
	st := se.st
	if se.rel == nil {
		se.rel = make([][]int, st.n)
	}
	if se.rel[c] == nil {
		l := make([]int, 0, st.n-1)
		for v := 1; v < st.n; v++ {
			l = append(l, v)
		}
		key := func(v int) float64 {
			if v == c {
				return -1
			}
			return st.d(c, v) + st.d(v, c)
		}
		slices.SortStableFunc(l, func(a, b int) int { return cmp.Compare(key(a), key(b)) })
		se.rel[c] = l
	}
	return se.rel[c]
}
