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
// Scans are cheap where most moves are not: the 2-opt and segment scans
// first test the length change (with the segment's removal gain computed
// once per segment) and only hand cost-improving moves to the feasibility
// test; the time-window tables are filled lazily, row by row, as far as
// they are read; and a scan that meets an infeasible insertion point asks
// whether every point further away inherits the cause (a time warp between
// the run and its new neighbours, which further points only lengthen under
// the triangle inequality, less the matrix's triangle defect per node still
// to pass where rounding breaks it; a draft limit under a load that only
// grows) and then stops.
//
// On symmetric TSPTW matrices, and on those symmetric up to a node
// potential (a service time folded into each node's outgoing arcs, under
// which every closed tour costs what it costs under the symmetric part),
// the scans go through neighbour lists instead
// (near.go): by the gain criterion of Lin and Kernighan, every move that
// shortens the tour adds, at one of its nodes, an edge shorter than the
// tour edge it removes there (or, for or-opt, than the gap the segment
// leaves), so a scan that takes each node's neighbours only up to that
// radius still finds every improving move, and a scan that finds none
// still proves a local optimum. The lists leave out the edges no feasible
// tour can have (the earliest departure from one node already misses the
// other's window). Their candidates are tested by replaying the changed
// part of the tour from the exact time before it, with the unchanged rest
// tested in O(1), which costs no table filling (docs/experiments.md has
// the timings). Where windows are so tight
// that most shorter neighbours are infeasible (a scan testing more than 20
// per node, as on hard TSPTW), the search goes back to full scans and
// their blocked tests. TSPDL keeps the full scans, whose
// blocked tests end each insertion walk early.
//
// First improvement takes, for TSPDL, the best improving move of the
// first position that has one (over all neighbourhoods): on the paper's
// TSPDL-50 sets that ends kicks in better local optima, and sooner, than
// taking the position's first improving move.
//
// Each descent stops when a full scan of the enabled neighbourhoods finds
// no improving move (a true local optimum) or a budget runs out.
// Options.Kicks adds iterated local search:
// random feasible double bridges (two adjacent runs of up to 8 nodes
// exchanged), a descent, and acceptance only on improvement (TSPDL kicks
// start from the last kick's local optimum while it stays within acceptDL
// of the best). Where few bridges fit a TSPTW tour, kicks ruin and recreate
// instead: a few related customers are removed and reinserted where they
// cost least among the feasible places. A TSPTW search whose kicks made no
// gain for 100 kicks restarts: from the urgency order, repaired where it is
// infeasible (once), otherwise from the best tour ruined by several kicks,
// and kicks on from that local optimum, the best tour kept apart; TSPDL
// searches restart after 15 such kicks from a new draft-order insertion
// tour, and every third TSPDL kick after five without a gain descends in a
// random order. On TSPTW instances of 150 nodes or more, the descent
// after a kick first scans only the moves near the kick's new edges, and
// the full descent runs only where that beat the tour kicked from, so a
// kept tour is still a full local optimum. A descent after a kick that
// comes back to the tour kicked from stops there, without proving it a
// local optimum again (most kicks on small instances do come back).
//
// Local optima that lose to the best tour are not simply dropped: each is
// merged with it (Options.NoMerge turns this off). Wherever the two tours
// have visited the same set of nodes, either can be followed from there
// on, since the loads after that point depend only on the set and the
// times only on the last node and its departure; a shortest path over the
// blocks between such points (exact for draft limits; over Pareto labels
// of cost and departure time for time windows) picks each block from the
// tour that does it better, and a descent follows. The descents from the
// starts are merged the same way.
//
// An infeasible start is repaired first by descending on (excess, cost)
// lexicographically, where excess = Σ max(0, violation − Tol) is zero
// exactly when the tour is feasible; repair moves are evaluated by replay
// from the first changed position, stopped early where a run of the old
// tour is reached no earlier than before (its old excess is a lower bound).
//
// ImproveFrom searches from several starting tours of one instance (the
// eight tours a model decodes under the dihedral transforms, say) and
// returns the best local optimum, perturbed by the kicks: on the paper's
// TSPTW-50 easy set, descending from all eight decoded tours lands at a
// third of the gap that descending from the best one does. OrderTour gives
// an urgency-ordered start for instances where no decoded tour is
// feasible, InsertionTour a cheapest-insertion one (the least late where
// none fits), and GrowTour one grown by insertions into partial tours
// searched for length; FindFeasible looks for any feasible tour.
//
// Options.Redecoder lets a network take part in the kicks: every
// Options.NeuralEvery-th kick keeps a prefix of the tour and the Redecoder
// completes it (a neural kick; solve.Redecoder decodes with a model). The
// package sees the network only through that interface.
//
//	res, err := localsearch.Improve(inst, tour, localsearch.Options{Kicks: 50, Seed: 1})
//	// res.Tour, res.StartCost → res.Cost, res.Feasible, res.Check
//	res, err = localsearch.ImproveFrom(inst, tours, localsearch.Options{Kicks: 10})
package localsearch
