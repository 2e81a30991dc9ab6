// Package localsearch improves TSPTW and TSPDL tours by feasibility-
// preserving local search over a single tour with the depot fixed at
// position 0.
//
// Neighbourhoods (MoveKind): 2-opt segment reversal, or-opt (segments of
// 2–3 nodes moved in either orientation), relocate (one node moved) and
// swap. Moves are applied by first or best improvement.
//
// Every move is written as a concatenation of at most five runs of the
// current tour, each walked forwards or backwards, and is tested in O(1):
//
//   - TSPTW: each run carries the time-window segment data of the
//     time-warp form (duration, time warp, earliest and latest start),
//     precomputed for every run of the current tour in both directions,
//     so reversals stay exact on asymmetric matrices and on integer
//     matrices that break the triangle inequality. Latest starts include
//     the checker's tolerance, so zero warp means lazymask.Check accepts
//     the tour.
//   - TSPDL: moving a run shifts its loads by a constant, and reversing
//     it turns loads into suffix sums; range minima of draft − load and of
//     draft + load-before over the current tour answer both cases.
//
// Semantics equal lazymask.Check: t = 0 at the depot, arrival = t + D,
// service starts at max(arrival, early), lateness counts when arrival >
// late + Tol, the depot return is not time-checked; TSPDL loads accumulate
// from 0 including the node's own demand. Costs are closed tour lengths.
// Every applied move is confirmed by an exact replay, and Improve verifies
// its final tour with lazymask.Check.
//
// Under first improvement the search keeps a don't-look bit per node and
// confirms convergence with a full scan, so it ends at a true local optimum
// of all enabled neighbourhoods. Options.Kicks adds iterated local search:
// random nearby feasible moves, a descent, and acceptance only on
// improvement.
//
// An infeasible start is repaired first by descending on (excess, cost)
// lexicographically, where excess = Σ max(0, violation − Tol) is zero
// exactly when the tour is feasible; repair moves are evaluated by replay
// from the first changed position.
//
//	res, err := localsearch.Improve(inst, tour, localsearch.Options{Kicks: 50, Seed: 1})
//	// res.Tour, res.StartCost → res.Cost, res.Feasible, res.Check
package localsearch
