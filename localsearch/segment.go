package localsearch

import "math/bits"

// twSeg is the time-window data of a sequence of nodes, in the time-warp
// form of Savelsbergh and Vidal et al.: the duration (travel, waiting and
// service, excluding time warp), the total time warp, and the earliest and
// latest start of service at the first node that realise that duration
// with that warp. Latest times carry the checker's tolerance, so a sequence
// has zero warp exactly when lazymask.Check would find no late arrival in it.
type twSeg struct {
	first, last int
	dur, warp   float64
	early, late float64
}

// nodeSeg returns the data of the one-node sequence (node).
func nodeSeg(node int, early, late, service float64) twSeg {
	return twSeg{first: node, last: node, dur: service, early: early, late: late}
}

// depotSeg is the tour's start: leave the depot at time 0, no service.
func depotSeg() twSeg { return twSeg{} }

// concat joins a and b with travel time d from a's last node to b's first.
func concat(a, b twSeg, d float64) twSeg {
	delta := a.dur - a.warp + d
	wait := max(b.early-delta-a.late, 0)
	warp := max(a.early+delta-b.late, 0)
	return twSeg{
		first: a.first,
		last:  b.last,
		dur:   a.dur + b.dur + d + wait,
		warp:  a.warp + b.warp + warp,
		early: max(b.early-delta, a.early) - wait,
		late:  min(b.late-delta, a.late) + warp,
	}
}

// rangeMin answers minimum queries over a fixed slice in O(1) after an
// O(n log n) build (a sparse table).
type rangeMin struct {
	levels [][]float64
}

// build prepares the table for v, reusing earlier storage.
func (r *rangeMin) build(v []float64) {
	n := len(v)
	if len(r.levels) == 0 {
		r.levels = append(r.levels, nil)
	}
	r.levels[0] = append(r.levels[0][:0], v...)
	k := 1
	for w := 2; w <= n; w *= 2 {
		if len(r.levels) <= k {
			r.levels = append(r.levels, nil)
		}
		prev := r.levels[k-1]
		cur := r.levels[k][:0]
		for i := 0; i+w <= n; i++ {
			cur = append(cur, min(prev[i], prev[i+w/2]))
		}
		r.levels[k] = cur
		k++
	}
	r.levels = r.levels[:k]
}

// rebuild brings a table built for a slice of the same length up to date
// after v changed at positions lo..hi only.
func (r *rangeMin) rebuild(v []float64, lo, hi int) {
	n := len(v)
	copy(r.levels[0][lo:hi+1], v[lo:hi+1])
	w := 1
	for k := 1; k < len(r.levels); k++ {
		half := w
		w *= 2
		prev, cur := r.levels[k-1], r.levels[k]
		// Entry i covers i..i+w−1: it changed when that overlaps lo..hi.
		for i := max(0, lo-w+1); i <= min(hi, n-w); i++ {
			cur[i] = min(prev[i], prev[i+half])
		}
	}
}

// min returns the minimum of v[i..j] (inclusive, i ≤ j).
func (r *rangeMin) min(i, j int) float64 {
	k := log2(j - i + 1)
	lv := r.levels[k]
	return min(lv[i], lv[j-(1<<k)+1])
}

// log2 is ⌊log₂ x⌋ for x ≥ 1.
func log2(x int) int { return bits.Len(uint(x)) - 1 }
