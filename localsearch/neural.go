package localsearch

import (
	"math"
	"slices"

	"github.com/lmask/lmask/lazymask"
)

// Neural kicks: the network inside the search. A neural kick keeps a
// prefix of the tour the kicks start from and lets a Redecoder (the
// LazyMask decoder over a trained policy: solve.Redecoder) decode the rest
// again, sampled; the descent after the kick starts from that tour, as
// after any kick. It uses what the network was trained to do, completing a
// partial tour feasibly. The search gets the network through the Redecoder
// interface alone: localsearch imports no model runtime.
//
// The tunables are params.neuralEvery and params.neuralKeep (params.go).

// A Redecoder completes a kept prefix of a tour. Given the instance, the
// prefix (depot first; the Redecoder must not keep or change it) and a seed
// for its sampling, it returns a complete tour of the instance (all N
// nodes, depot first), or nil where it found none. The tour need not be
// feasible, nor keep the prefix (a decode that backtracks may change it):
// the kick applies it only where it is a feasible tour that keeps
// Options.Fixed. A Redecoder serves one search at a time. An error (of the
// network) ends the search, which returns it.
type Redecoder interface {
	Redecode(inst *lazymask.Instance, prefix []int, seed uint64) ([]int, error)
}

// neuralKicker is the neural kick as a perturber.
type neuralKicker struct{}

func (neuralKicker) perturb(se *search) bool { return se.neuralKick() }

// neuralDue reports that the next kick is a neural kick: every
// neuralEvery-th kick of a search that has a Redecoder.
func (se *search) neuralDue() bool {
	return se.opt.Redecoder != nil && se.neuralErr == nil && se.p.neuralEvery > 0 &&
		(se.res.Kicks+1)%se.p.neuralEvery == 0
}

// neuralKick keeps the depot and the first k customers of the current
// feasible tour, k drawn uniformly from the neuralKeep shares of the
// customers (at least Options.Fixed − 1, at most N − 3: two or more are
// re-decoded), and applies the Redecoder's completion of that prefix where
// it is a feasible tour other than the current one. It reports whether it
// did; otherwise the tour is unchanged. The cut and the Redecoder's seed
// come from the search's random stream, so a search under a kick budget
// stays reproducible where the Redecoder is.
func (se *search) neuralKick() bool {
	st := se.st
	n := st.n
	fixed := max(se.opt.Fixed, 1)
	lo := max(fixed-1, 1, int(math.Round(se.p.neuralKeep[0]*float64(n-1))))
	hi := min(n-3, int(math.Round(se.p.neuralKeep[1]*float64(n-1))))
	if hi < lo {
		return false
	}
	k := lo + se.rng.IntN(hi-lo+1)
	seed := se.rng.Uint64()
	t, err := se.opt.Redecoder.Redecode(st.inst, slices.Clone(st.tour[:k+1]), seed)
	se.res.NeuralKicks++
	if err != nil {
		// A failing network: no more neural kicks, and the search ends
		// at its next check with this error (ImproveFromContext).
		se.neuralErr, se.timeUp = err, true
		return false
	}
	if !se.isTour(t) || !slices.Equal(t[:fixed], st.tour[:fixed]) || slices.Equal(t, st.tour) {
		se.res.NeuralFailed++
		return false
	}
	copy(se.old, st.tour)
	st.update(t, false)
	if st.excess > 0 { // an infeasible completion: the kick keeps only feasible tours
		st.update(se.old, false)
		se.res.NeuralFailed++
		return false
	}
	return true
}

// isTour reports whether t visits every node of the instance once, the
// depot first.
func (se *search) isTour(t []int) bool {
	n := se.st.n
	if len(t) != n || t[0] != 0 {
		return false
	}
	seen := make([]bool, n)
	for _, v := range t {
		if v < 0 || v >= n || seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}
