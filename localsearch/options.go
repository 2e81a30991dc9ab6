package localsearch

import (
	"fmt"
	"strings"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// MoveKind names a neighbourhood.
type MoveKind int

const (
	// TwoOpt reverses a segment of the tour (positions i..j).
	TwoOpt MoveKind = iota
	// OrOpt moves a segment of 2 to MaxSegment consecutive nodes to another
	// place, in its own or reversed orientation. Single nodes belong to
	// Relocate.
	OrOpt
	// Relocate moves one node to another place (or-opt of length 1).
	Relocate
	// Swap exchanges two nodes.
	Swap
	numKinds
	// bridge exchanges two adjacent runs (a double bridge): kicks use it,
	// scans do not.
	bridge = numKinds
	// revPair reverses two adjacent runs in place (the one pure 3-opt
	// reconnection no other move reaches): scanned at local optima only.
	revPair = numKinds + 1
)

// AllMoves lists every neighbourhood in the default scan order.
var AllMoves = []MoveKind{TwoOpt, OrOpt, Relocate, Swap}

// String returns "2opt", "oropt", "relocate" or "swap".
func (k MoveKind) String() string {
	switch k {
	case TwoOpt:
		return "2opt"
	case OrOpt:
		return "oropt"
	case Relocate:
		return "relocate"
	case Swap:
		return "swap"
	}
	return fmt.Sprintf("move(%d)", int(k))
}

// ParseMoves parses a comma-separated list of neighbourhood names
// ("2opt,oropt,relocate,swap"); "all" or "" selects AllMoves.
func ParseMoves(s string) ([]MoveKind, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		return append([]MoveKind(nil), AllMoves...), nil
	}
	var out []MoveKind
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		found := false
		for _, k := range AllMoves {
			if k.String() == f {
				out = append(out, k)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown move %q (want 2opt, oropt, relocate or swap)", f)
		}
	}
	return out, nil
}

// Options configures Improve. The zero value is usable: all neighbourhoods,
// first improvement, segments up to 3 nodes, repair on, no budgets.
type Options struct {
	// Moves lists the neighbourhoods to scan, in this order; nil means
	// AllMoves.
	Moves []MoveKind
	// BestImprovement scans every neighbourhood fully and applies the best
	// move; otherwise the first improving move is applied (for TSPDL, the
	// best improving move of the first position that has one).
	BestImprovement bool
	// MaxSegment is the longest or-opt segment; 0 means 3.
	MaxSegment int
	// NoRepair keeps an infeasible start unchanged instead of first
	// minimising its violation.
	NoRepair bool
	// MaxMoves bounds the number of applied moves (0 = unbounded).
	MaxMoves int
	// MaxIterations bounds the number of neighbourhood scans; each scan
	// ends with one applied move or a proof of local optimality
	// (0 = unbounded).
	MaxIterations int
	// TimeLimit bounds the wall time of one call (0 = unbounded). Results
	// are deterministic for a seed as long as this limit does not bind.
	TimeLimit time.Duration
	// FinishDescent keeps TimeLimit from ending the descent from the best
	// start, so every search returns at least that start's local optimum,
	// and, where no start is feasible, the descents from all the starts:
	// each is repaired and descends to a local optimum (of the violation
	// when it stays infeasible; a descent on (excess, cost) always ends).
	// The limit binds during the other descents and the kicks.
	FinishDescent bool
	// Kicks is the number of perturbations tried after the first local
	// optimum (iterated local search): each applies up to 20 (TSPTW) or
	// 22 (TSPDL) random double bridges (two adjacent runs of 1–8 nodes
	// exchanged) that keep the tour feasible (or,
	// while no feasible tour is known, moves random segments), descends
	// again, and is kept only if it ends better than the best tour so far
	// (or merged with it: see NoMerge). A TSPTW kick perturbs the best
	// tour; a TSPDL kick perturbs the last kick's local optimum instead
	// when that came within acceptDL of the best tour's length. TSPTW kicks
	// ruin and recreate instead where few bridges fit (see perturb).
	// The kicks end early when three kicks in a row find no feasible
	// perturbation.
	Kicks int
	// MinKicks keeps TimeLimit from ending the kicks before MinKicks of
	// them (at most Kicks) have run to their local optima, once the
	// starts have descended within the limit. Why: a time share of a few
	// milliseconds can end a small instance's search after a handful of
	// kicks, where its last gain needs ten or twenty (docs/experiments.md,
	// "A floor of kicks").
	MinKicks int
	// Resume is Result.Resume of the search whose best tour this one
	// starts from (a second pass); the zero value starts afresh.
	Resume ResumeState
	// Prepared, when set, is Prepare's result for this instance's data,
	// reused instead of derived again (an error where it belongs to other
	// data).
	Prepared *Prepared
	// MaxStarts bounds how many starting tours ImproveFrom searches (the
	// best ones); 0 means all.
	MaxStarts int
	// NoMerge turns off the recombination of local optima (state.merge):
	// of the descents from the starts with the best of them, and of each
	// kick's local optimum that is not better than the best tour with it.
	NoMerge bool
	// Shuffle randomises the scan order of neighbourhoods and start
	// positions with Seed.
	Shuffle bool
	// Seed drives Shuffle and Kicks.
	Seed uint64
	// Fixed keeps the first Fixed positions of the tour (the depot and the
	// Fixed−1 nodes after it) in place: only the rest is searched, so the
	// result completes a given prefix. Every start must share that prefix.
	// 0 and 1 fix the depot alone; merges are off while Fixed > 1.
	Fixed int
	// UntilFeasible ends the search at its first feasible tour, once that
	// has descended to a local optimum (a feasibility search: the rescue).
	UntilFeasible bool
	// Prove, when set on a TSPTW search under a TimeLimit, is called once
	// the starts have descended to a feasible best tour (no fixed prefix):
	// given that tour's cost, a deadline (ProveShare of the time left) and
	// whether the matrix keeps the triangle inequality, it returns an
	// optimal tour, of cost at most upper, and true, or false when it could
	// not prove one by the deadline. A proof ends the search there
	// (Result.Optimal), leaving the rest of its time unspent.
	Prove func(upper float64, deadline time.Time, metric bool) (tour []int, ok bool)
	// Redecoder, when set, makes every NeuralEvery-th kick a neural kick
	// (neural.go): the Redecoder completes a kept prefix of the tour the
	// kicks start from, and the search descends from its tour. nil: no
	// neural kicks. Reproducible under a kick budget where the Redecoder
	// is (its seed comes from Seed).
	Redecoder Redecoder
	// NeuralEvery is how often a kick is a neural one, with a Redecoder
	// (0: every tenth, the default of the search's parameters).
	NeuralEvery int

	// tune, when set, changes the search's tunables after defaultParams
	// (tests compare a part of the search with and without it this way).
	tune func(*params)
}

// ProveShare is the part of a search's time left after its starts'
// descents that Options.Prove may take. Why a fifth: where the proof
// fails (wide windows) the kicks lose little, as the dynamic program stops
// early when its pace shows it will not finish (docs/experiments.md,
// "Proofs of optimality inside the search").
const ProveShare = 0.2

// validate rejects unknown neighbourhoods and negative budgets.
func (o *Options) validate() error {
	for _, k := range o.Moves {
		if k < 0 || k >= numKinds {
			return fmt.Errorf("options: unknown move kind %d", int(k))
		}
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"max segment", int64(o.MaxSegment)}, {"max moves", int64(o.MaxMoves)}, {"max iterations", int64(o.MaxIterations)},
		{"time limit", int64(o.TimeLimit)}, {"kicks", int64(o.Kicks)}, {"max starts", int64(o.MaxStarts)},
		{"fixed", int64(o.Fixed)}, {"neural every", int64(o.NeuralEvery)}} {
		if f.v < 0 {
			return fmt.Errorf("options: %s is negative (%d)", f.name, f.v)
		}
	}
	return nil
}

// StopReason says why a search ended.
type StopReason int

const (
	// LocalOptimum: no neighbour improves the (violation, cost) key.
	LocalOptimum StopReason = iota
	// MoveBudget: Options.MaxMoves was reached.
	MoveBudget
	// IterationBudget: Options.MaxIterations was reached.
	IterationBudget
	// TimeBudget: Options.TimeLimit was reached.
	TimeBudget
	// Canceled: the context of ImproveFromContext was done.
	Canceled
)

// String names the reason.
func (r StopReason) String() string {
	switch r {
	case LocalOptimum:
		return "local-optimum"
	case MoveBudget:
		return "move-budget"
	case IterationBudget:
		return "iteration-budget"
	case TimeBudget:
		return "time-budget"
	case Canceled:
		return "canceled"
	}
	return fmt.Sprintf("stop(%d)", int(r))
}

// Result reports one call of Improve. Costs and violations are in
// normalised units (multiply by Instance.Scale for original units) and are
// the values lazymask.Check computes.
type Result struct {
	// Tour is the improved tour (a fresh slice, starting at the depot). It
	// is never worse than the start in the (feasible first, then cost)
	// order: a feasible start yields a feasible tour of no higher cost.
	Tour []int
	// StartCost and Cost are closed tour lengths before and after.
	StartCost, Cost float64
	// StartViolation and Violation are lazymask.Result.TotalViolation
	// before and after.
	StartViolation, Violation float64
	// StartFeasible and Feasible are the checker's verdicts before and
	// after.
	StartFeasible, Feasible bool
	// Repaired is true when an infeasible start became feasible.
	Repaired bool
	// Moves counts applied moves; MovesByKind splits them by neighbourhood
	// (indexed by MoveKind).
	Moves       int
	MovesByKind [numKinds]int
	// Iterations counts neighbourhood scans; Evaluations counts the moves
	// evaluated.
	Iterations, Evaluations int
	// Starts counts the starting tours searched (ImproveFrom);
	// StartIndex is the index, in the starts given, of the best one.
	Starts, StartIndex int
	// Kicks counts perturbations tried; KicksAccepted those after which
	// the best tour improved (by the kick's local optimum or by its merge
	// with the best tour).
	Kicks, KicksAccepted int
	// LastAccepted is the value of Kicks at the last kick that improved
	// the best tour (0: none did), so that a caller can tell a search
	// still improving when its time ran out from one that had stalled.
	LastAccepted int
	// Resume is what a search resumed from Tour takes as Options.Resume
	// to go on where this one stopped.
	Resume ResumeState
	// Merged counts merges of local optima (of the starts' descents and of
	// the kicks') that improved the best tour.
	Merged int
	// RevPairs counts applied moves that reverse two adjacent runs (part
	// of Moves, not of MovesByKind).
	RevPairs int
	// KnownOptima counts the descents after kicks that came back to the
	// tour kicked from and stopped there, sparing the scan that proves it
	// a local optimum again.
	KnownOptima int
	// Windows counts the windows that windowSweep re-optimised to a
	// shorter order.
	Windows int
	// Restarts counts the TSPTW kick phase's restarts away from a best
	// tour that stalled (search.restart).
	Restarts int
	// NeuralKicks counts the Redecoder's calls (Options.Redecoder), and
	// NeuralFailed those that gave no feasible tour other than the
	// current one (the kick then fell back to the other perturbations).
	NeuralKicks, NeuralFailed int
	// Optimal: Options.Prove proved Tour optimal.
	Optimal bool
	// Stop says why the search ended.
	Stop StopReason
	// Elapsed is the wall time of the call.
	Elapsed time.Duration
	// Check is lazymask.Check's replay of Tour, the final verification.
	Check lazymask.Result
}

// ResumeState is what a search hands on to a search resumed from its best
// tour (Result.Resume to Options.Resume). Its fields are the search's own;
// the zero value starts afresh.
type ResumeState struct {
	// warpStall is how many kicks in a row had not improved the tour the
	// kicks started from when the search ended, where the tour was walled
	// by windows (the walled regime of its bridge kicks); 0 elsewhere.
	// Where it is not zero the resumed search's warp kicks start at once,
	// counting on from at least warpAfter (the restarts count from zero):
	// a second pass is a few dozen kicks, and the first pass's bridge
	// kicks already failed on this tour; where nearly all bridges fit, or
	// few, the resume's bridge or ruin kicks gained more
	// (docs/experiments.md, "Warp kicks in the resumed search").
	warpStall int
	// warpOff: a warp kick outlasted its cap (warpKickCap times the mean
	// kick, under a time limit), which paused the warp kicks; the resumed
	// search starts with them paused.
	warpOff bool
}

// WarpStalled reports whether the search ended stalled on a tour walled by
// windows, so that a search resumed from it starts with warp kicks.
func (r ResumeState) WarpStalled() bool { return r.warpStall > 0 }
