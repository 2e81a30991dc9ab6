package localsearch

import (
	"cmp"
	"context"
	"math"
	"slices"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// Limits of GrowTour: at most growRounds searches of the partial tour (of
// growKicks kicks each without a time limit); a stalled round frees, for
// each postponed customer, the growFree + round positions either side of
// where the tour passes at its window's opening and as many customers
// nearest to it.
const (
	growRounds = 30
	growKicks  = 100
	growFree   = 8
	// growStalls ends the rounds after that many in a row that leave no
	// fewer customers postponed than before (tight windows: 11–14 s of
	// vain rounds at 251 nodes).
	growStalls = 6
)

// GrowTour builds a feasible TSPTW tour where insertion alone fits no
// tour: it inserts the customers by window end (InsertionTour's first
// try), postponing those with no feasible place, then repeats: search the
// feasible partial tour for a shorter one (ImproveFrom with kicks, on the
// instance cut to its customers), insert the postponed customers into it,
// and where none found a place, take out the customers around each of
// them (by time, the stretch of tour where its window opens; by place, its
// nearest customers) to be inserted after it. It returns a feasible tour
// with true, or the last partial tour with the postponed customers
// appended and false (nil for TSPDL). Each search has a tenth of limit, or
// with limit 0 growKicks kicks, and then results depend on seed alone.
// Why: a partial tour searched for length makes room in its windows, and
// freeing the stretch a window needs makes room there, where the repair of
// a whole late tour took seconds of O(N³) scans; a 251-node stress
// instance that no search made feasible in 30 s got its tour in about a
// second (docs/experiments.md, "Postponed insertions and grown tours").
func GrowTour(inst *lazymask.Instance, limit time.Duration, seed uint64) ([]int, bool) {
	return GrowTourContext(context.Background(), inst, limit, seed)
}

// GrowTourContext is GrowTour, ended early (with the tour grown so far)
// when ctx is done.
func GrowTourContext(ctx context.Context, inst *lazymask.Instance, limit time.Duration, seed uint64) ([]int, bool) {
	if inst.Problem != lazymask.TSPTW || inst.N < 2 {
		return nil, false
	}
	began := time.Now()
	n, d := inst.N, inst.Matrix()
	nodes := make([]int, 0, n-1)
	for v := 1; v < n; v++ {
		nodes = append(nodes, v)
	}
	sortByEnd(inst, nodes, inst.Late)
	ins := newInserter(inst, d)
	ins.reset([]int{0})
	left := ins.postpone(nodes, nil, 0)
	part := slices.Clone(ins.tour)
	out := make([]bool, n)
	fewest, stalled := len(left), 0
	for round := 0; round < growRounds && len(left) > 0 && stalled < growStalls; round++ {
		rest := limit - time.Since(began)
		if limit > 0 && rest <= 0 || ctx.Err() != nil {
			break
		}
		sub, idx := cutInstance(inst, part)
		o := Options{Kicks: growKicks, Seed: seed + uint64(round)}
		if limit > 0 {
			o.Kicks = math.MaxInt32
			o.TimeLimit = max(min(rest, limit/10), time.Millisecond)
		}
		r, err := ImproveFromContext(ctx, sub, [][]int{idx}, o)
		if err != nil || !r.Feasible || r.Stop == Canceled {
			break // a feasible partial tour stays feasible; be safe
		}
		searched := make([]int, len(part)) // r.Tour is over the cut's indices
		for k, a := range r.Tour {
			searched[k] = part[a]
		}
		ins.reset(searched)
		before := len(left)
		if left = ins.postpone(left, nil, 0); len(left) == before {
			// Stalled: around each postponed customer, the stretch of
			// tour where its window opens and its nearest customers leave
			// the tour, to be inserted after it.
			clear(out)
			k := growFree + round
			for _, c := range left {
				// the positions the tour passes at c's window opening
				p := 1
				for p < len(ins.tour)-1 && ins.dep[p] < inst.Early[c] {
					p++
				}
				for q := max(1, p-k); q <= min(len(ins.tour)-1, p+k); q++ {
					out[ins.tour[q]] = true
				}
				// and the customers nearest to c
				near := slices.Clone(ins.tour[1:])
				slices.SortStableFunc(near, func(a, b int) int {
					return cmp.Compare(d[c*n+a]+d[a*n+c], d[c*n+b]+d[b*n+c])
				})
				for _, v := range near[:min(len(near), k)] {
					out[v] = true
				}
			}
			keep, freed := make([]int, 0, len(ins.tour)), []int(nil)
			for _, v := range ins.tour {
				if out[v] {
					freed = append(freed, v)
				} else {
					keep = append(keep, v)
				}
			}
			ins.reset(keep)
			left = ins.postpone(append(left, freed...), nil, 0)
		}
		part = slices.Clone(ins.tour)
		if stalled++; len(left) < fewest {
			fewest, stalled = len(left), 0
		}
	}
	tour := append(part, left...)
	chk, err := lazymask.Check(inst, tour)
	return tour, err == nil && chk.Feasible && len(left) == 0
}

// cutInstance returns the instance restricted to the nodes (the depot
// first), with an explicit matrix, and the tour 0, 1, … over it.
func cutInstance(in *lazymask.Instance, nodes []int) (*lazymask.Instance, []int) {
	m, d := len(nodes), in.Matrix()
	s := &lazymask.Instance{Problem: in.Problem, N: m, Name: in.Name, Scale: in.Scale,
		X: make([]float64, m), Y: make([]float64, m), Early: make([]float64, m), Late: make([]float64, m),
		Service: make([]float64, m), Dist: make([]float64, m*m)}
	idx := make([]int, m)
	for a, u := range nodes {
		idx[a] = a
		s.X[a], s.Y[a], s.Early[a], s.Late[a], s.Service[a] = in.X[u], in.Y[u], in.Early[u], in.Late[u], in.Service[u]
		for b, v := range nodes {
			s.Dist[a*m+b] = d[u*in.N+v]
		}
	}
	return s, idx
}
