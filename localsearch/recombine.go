package localsearch

import (
	"math"

	"github.com/lmask/lmask/lazymask"
)

// Recombination of two tours (a partition crossover for tours anchored at
// the depot). Wherever two tours a and b have visited the same set of
// nodes after position k, everything after k can be taken from either of
// them: the loads (TSPDL) at every later position depend only on the
// nodes visited before it, and the times (TSPTW) only on the previous
// node and its departure. So the tours split into blocks between such
// positions, each visited in a's or in b's order, and the best mix is a
// shortest path over the blocks: exact for TSPDL (a block's feasibility
// does not depend on the other blocks), and for TSPTW a search over
// (cost, departure time) labels kept only when no other label of the same
// block and last node is at least as cheap and as early.
//
// The search's kicks end mostly in local optima worse than the best tour,
// yet often better than it in some blocks: merging keeps those blocks.

// mergeLabel is a partial tour: its cost, its departure time from its last
// node (TSPTW), the label it extends and the tour it took the block from.
type mergeLabel struct {
	cost, time float64
	last       int
	prev       int32
	fromB      bool
}

// maxMergeLabels bounds the labels kept per block (TSPTW): once it is
// reached, a new label only replaces the dearest one, when it is cheaper.
// TSPDL keeps at most two (its labels all have time 0: one per last node).
const maxMergeLabels = 16

// merger holds the scratch space of merge.
type merger struct {
	inA, inB []bool
	blocks   []int // end positions (inclusive) of the blocks
	labels   []mergeLabel
	starts   []int // first label of each block in labels
}

// merge writes into dst the cheapest feasible tour that visits each block
// of a and b (see above) in a's or b's order, and reports whether it is
// cheaper than a by more than costEps. Both tours must be permutations
// starting at the depot.
func (s *state) merge(mg *merger, a, b []int, dst []int) ([]int, bool) {
	n := s.n
	if len(mg.inA) != n {
		mg.inA, mg.inB = make([]bool, n), make([]bool, n)
	}
	clear(mg.inA)
	clear(mg.inB)
	mg.blocks = mg.blocks[:0]
	diff, differs := 0, false
	for k := 1; k < n; k++ {
		x, y := a[k], b[k]
		mg.inA[x] = true
		if mg.inB[x] {
			diff--
		} else {
			diff++
		}
		mg.inB[y] = true
		if mg.inA[y] {
			diff--
		} else {
			diff++
		}
		differs = differs || x != y
		if diff == 0 {
			mg.blocks = append(mg.blocks, k)
		}
	}
	if !differs {
		return dst, false
	}
	in := s.inst
	mg.labels = append(mg.labels[:0], mergeLabel{last: 0, prev: -1})
	mg.starts = append(mg.starts[:0], 0)
	lo, load := 1, 0.0
	for _, hi := range mg.blocks {
		first := len(mg.labels)
		mg.starts = append(mg.starts, first)
		same := true
		for k := lo; k <= hi; k++ {
			if a[k] != b[k] {
				same = false
				break
			}
		}
		for p := mg.starts[len(mg.starts)-2]; p < first; p++ {
			from := mg.labels[p]
			for opt := 0; opt < 2; opt++ {
				if opt == 1 && same {
					break
				}
				seq := a[lo : hi+1]
				if opt == 1 {
					seq = b[lo : hi+1]
				}
				cost, t, l, prev, ok := from.cost, from.time, load, from.last, true
				for _, v := range seq {
					d := s.d(prev, v)
					cost += d
					if s.tsptw {
						arr := t + d
						if arr-in.Late[v] > lazymask.Tol {
							ok = false
							break
						}
						t = math.Max(arr, in.Early[v]) + in.Service[v]
					} else {
						l += in.Demand[v]
						if l-in.Draft[v] > lazymask.Tol {
							ok = false
							break
						}
					}
					prev = v
				}
				if ok {
					mg.addLabel(first, mergeLabel{cost: cost, time: t, last: prev, prev: int32(p), fromB: opt == 1})
				}
			}
		}
		if len(mg.labels) == first {
			return dst, false // cannot happen for feasible a: its own blocks always fit
		}
		if !s.tsptw {
			for _, v := range a[lo : hi+1] {
				load += in.Demand[v]
			}
		}
		lo = hi + 1
	}
	// Close the tour and take the cheapest label.
	bestAt, bestCost := -1, math.Inf(1)
	for p := mg.starts[len(mg.starts)-1]; p < len(mg.labels); p++ {
		if c := mg.labels[p].cost + s.d(mg.labels[p].last, 0); c < bestCost {
			bestAt, bestCost = p, c
		}
	}
	if bestAt < 0 || !(bestCost < s.tourLength(a)-costEps) {
		return dst, false
	}
	dst = append(dst[:0], make([]int, n)...)
	hi := n - 1
	for blk, p := len(mg.blocks)-1, bestAt; blk >= 0; blk-- {
		lab := mg.labels[p]
		lo := 1
		if blk > 0 {
			lo = mg.blocks[blk-1] + 1
		}
		src := a
		if lab.fromB {
			src = b
		}
		copy(dst[lo:hi+1], src[lo:hi+1])
		hi = lo - 1
		p = int(lab.prev)
	}
	dst[0] = 0
	return dst, true
}

// addLabel adds l to the labels of the block that starts at first unless
// one of them with the same last node is at least as cheap and as early;
// the labels it dominates are dropped.
func (mg *merger) addLabel(first int, l mergeLabel) {
	ls := mg.labels
	for _, o := range ls[first:] {
		if o.last == l.last && o.cost <= l.cost && o.time <= l.time {
			return
		}
	}
	w := first
	for _, o := range ls[first:] {
		if !(o.last == l.last && l.cost <= o.cost && l.time <= o.time) {
			ls[w] = o
			w++
		}
	}
	ls = ls[:w]
	if w-first >= maxMergeLabels {
		// Keep the cheapest: replace the dearest when l is cheaper.
		worst := first
		for k := first + 1; k < w; k++ {
			if ls[k].cost > ls[worst].cost {
				worst = k
			}
		}
		if l.cost < ls[worst].cost {
			ls[worst] = l
		}
		mg.labels = ls
		return
	}
	mg.labels = append(ls, l)
}

// tourLength is the closed length of tour, summed in tour order.
func (s *state) tourLength(tour []int) float64 {
	c := 0.0
	for k := 1; k < len(tour); k++ {
		c += s.d(tour[k-1], tour[k])
	}
	return c + s.d(tour[len(tour)-1], 0)
}
