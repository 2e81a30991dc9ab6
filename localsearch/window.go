package localsearch

import (
	"math"
	"math/bits"

	"github.com/lmask/lmask/lazymask"
)

// Exact windows. A TSPTW tour can sit in a basin whose way out reorders a
// dozen consecutive customers at once (a run reversed, two nodes moved:
// docs/experiments.md, "Exact windows"), which a kick draws only by luck.
// windowSweep re-optimises every window of windowLen consecutive positions
// exactly instead: a dynamic program over the subsets of the window's nodes
// (the entry time fixed by the prefix, the rest of the tour kept feasible
// by its time-window data), so a sweep finds every improvement that stays
// inside one window.
const (
	// windowLen is the number of positions a window holds, windowStep how
	// far the next window starts (half: every pair of positions less than
	// windowStep apart shares a window).
	windowLen  = 8
	windowStep = windowLen / 2
)

// wLabel is one partial path of the window's dynamic program: its length
// from the node before the window, its departure time, the label it
// extends (−1 for the first node) and the window index of its last node.
type wLabel struct {
	cost, time float64
	prev       int32
	last       int8
}

// windowDP holds the dynamic program's buffers, reused from window to
// window: the labels and, per (subset, last node), the indices of its
// labels not dominated (shorter and earlier).
type windowDP struct {
	pool   []wLabel
	states [][]int32
	nodes  []int
	// rest[m] bounds the length still to add after the subset m: the
	// shortest edge into each node not in m, from the node before the
	// window or a window node, and the shortest edge from a window node
	// to the exit.
	rest  []float64
	minIn [windowLen]float64
}

// windowSweep re-optimises the windows of the current feasible TSPTW tour
// (positions from the fixed prefix on) until a whole pass gains nothing or
// the time is up, and reports whether the tour got shorter. The state then
// holds the new tour; it is not descended again.
func (se *search) windowSweep() bool {
	st := se.st
	if !st.tsptw || st.excess > 0 || st.n < 4 {
		return false
	}
	first := max(se.opt.Fixed, 1)
	gained := false
	for again := true; again && !se.budgetHit(); {
		again = false
		for a := first; a < st.n-2 && !se.budgetHit(); a += windowStep {
			b := min(a+windowLen, st.n) - 1
			if t := se.window(a, b); t != nil {
				st.update(t, false)
				if st.excess > 0 { // rounding at the tolerance: back out
					st.update(se.old, false)
					continue
				}
				se.res.Windows++
				gained, again = true, true
			}
		}
	}
	return gained
}

// window returns the current tour with positions a..b in their shortest
// order that keeps the tour feasible, or nil where none is shorter than the
// current one by more than costEps. It leaves the current tour in se.old.
func (se *search) window(a, b int) []int {
	st := se.st
	in, n := st.inst, st.n
	w := &se.win
	L := b - a + 1
	w.nodes = append(w.nodes[:0], st.tour[a:b+1]...)
	size := 1 << L
	if len(w.states) < size*L {
		w.states = make([][]int32, size*L)
	}
	states := w.states[:size*L]
	for i := range states {
		states[i] = states[i][:0]
	}
	w.pool = w.pool[:0]
	from := st.tour[a-1]
	t0 := st.preTime[a-1]
	// The rest of the tour after b: its time-window data, or the depot.
	exit, exitLate, closing := 0, math.Inf(1), b == n-1
	if !closing {
		suf := st.suffix[b+1]
		if suf.warp > 0 {
			return nil
		}
		exit, exitLate = suf.first, suf.late
	}
	cur := st.fwdCost[b] - st.fwdCost[a-1] + st.d(st.tour[b], exit)
	if len(w.rest) < size {
		w.rest = make([]float64, size)
	}
	rest := w.rest[:size]
	rest[size-1] = math.Inf(1)
	for _, u := range w.nodes {
		rest[size-1] = min(rest[size-1], st.d(u, exit))
	}
	for i, v := range w.nodes {
		e := st.d(from, v)
		for _, u := range w.nodes {
			if u != v {
				e = min(e, st.d(u, v))
			}
		}
		w.minIn[i] = e
	}
	for m := size - 2; m >= 0; m-- {
		i := bits.TrailingZeros(uint(^m))
		rest[m] = rest[m|1<<i] + w.minIn[i]
	}
	bound := cur - costEps // the length a new order must beat
	for i, v := range w.nodes {
		arr := t0 + st.d(from, v)
		if arr-in.Late[v] > lazymask.Tol {
			continue
		}
		w.pool = append(w.pool, wLabel{st.d(from, v), max(arr, in.Early[v]) + in.Service[v], -1, int8(i)})
		states[(1<<i)*L+i] = append(states[(1<<i)*L+i], int32(len(w.pool)-1))
	}
	full := size - 1
	best := int32(-1)
	// Subsets in increasing order: every subset comes before its supersets.
	for m := 1; m < size; m++ {
		for li := range L {
			ls := states[m*L+li]
			if len(ls) == 0 {
				continue
			}
			u := w.nodes[li]
			if m == full {
				for _, x := range ls {
					lb := w.pool[x]
					if lb.time+st.d(u, exit) > exitLate && !closing {
						continue
					}
					if c := lb.cost + st.d(u, exit); c < bound {
						bound, best = c, x
					}
				}
				continue
			}
			for r := full &^ m; r != 0; r &= r - 1 {
				vi := bits.TrailingZeros(uint(r))
				v := w.nodes[vi]
				si := (m|1<<vi)*L + vi
				for _, x := range ls {
					lb := w.pool[x]
					arr := lb.time + st.d(u, v)
					c := lb.cost + st.d(u, v)
					if arr-in.Late[v] > lazymask.Tol || c+rest[m|1<<vi] >= bound {
						continue
					}
					tm := max(arr, in.Early[v]) + in.Service[v]
					tgt := states[si]
					dominated, kept := false, 0
					for _, o := range tgt {
						ol := w.pool[o]
						if ol.cost <= c && ol.time <= tm {
							dominated = true
							break
						}
						if c > ol.cost || tm > ol.time {
							tgt[kept] = o
							kept++
						}
					}
					if dominated {
						continue
					}
					w.pool = append(w.pool, wLabel{c, tm, x, int8(vi)})
					states[si] = append(tgt[:kept], int32(len(w.pool)-1))
				}
			}
		}
	}
	if best < 0 {
		return nil
	}
	copy(se.old, st.tour)
	t := append(se.scratch[:0], st.tour...)
	k := b
	for x := best; x >= 0; x = w.pool[x].prev {
		t[k] = w.nodes[w.pool[x].last]
		k--
	}
	se.scratch = t
	return t
}
