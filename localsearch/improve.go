package localsearch

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// ErrVerify is wrapped by the error Improve returns when the final replay by
// lazymask.Check contradicts the search (a feasible start made infeasible or
// a higher cost). It signals a defect, never a property of the input.
var ErrVerify = errors.New("local search result failed verification")

// costEps is the least cost decrease (normalised units) a move must bring.
const costEps = 1e-9

// Improve runs local search on tour (all N nodes, starting at the depot)
// and returns the improved tour with before/after metrics.
//
// A feasible start stays feasible: only moves that keep every arrival
// (TSPTW) or load (TSPDL) within the checker's tolerance are applied, found
// with O(1) tests per move, and each applied move is confirmed by an exact
// replay. An infeasible start is first repaired (unless Options.NoRepair)
// by descending on (excess violation, cost) lexicographically, where the
// excess Σ max(0, v − Tol) over nodes is zero exactly when lazymask.Check
// accepts the tour; once feasible, the search continues on cost.
//
// The returned tour is verified by lazymask.Check (Result.Check). Invalid
// instances and malformed tours yield wrapped *lazymask.FieldError or
// *lazymask.TourError errors. Improve computes inst's travel-time matrix
// on first use (Instance.Matrix); call it once before sharing an instance
// between goroutines.
func Improve(inst *lazymask.Instance, tour []int, opt Options) (Result, error) {
	return ImproveFromContext(context.Background(), inst, [][]int{tour}, opt)
}

// ImproveContext is Improve, ended early when ctx is done (see
// ImproveFromContext).
func ImproveContext(ctx context.Context, inst *lazymask.Instance, tour []int, opt Options) (Result, error) {
	return ImproveFromContext(ctx, inst, [][]int{tour}, opt)
}

// ImproveFrom runs local search from several starting tours of one
// instance (for example the tours of the eight dihedral transforms a model
// decodes) and returns the best tour found, as Improve does for one.
//
// Repeated tours are searched once. When any start is feasible the
// infeasible ones are skipped; otherwise each is repaired. The starts are
// taken best first in the order of lazymask.Compare (feasible ones by
// cost; infeasible ones by excess violation, the measure repair minimises),
// at most Options.MaxStarts of them (0 = all); each descends to
// a local optimum of every neighbourhood, and the best of those is
// perturbed Options.Kicks times. Result.Start*
// describe the best start (Result.StartIndex is its index in starts) and
// Result.Starts counts the starts searched; the result is never worse than
// the best start.
func ImproveFrom(inst *lazymask.Instance, starts [][]int, opt Options) (Result, error) {
	return ImproveFromContext(context.Background(), inst, starts, opt)
}

// ImproveFromContext is ImproveFrom, ended early when ctx is done: the
// search stops at its next check (every 1,024 move evaluations, and between
// moves and kicks), past FinishDescent and MinKicks, and returns its best
// tour so far, verified as always, with Result.Stop = Canceled and a nil
// error. A caller tells a cut search by Stop or by ctx.Err.
func ImproveFromContext(ctx context.Context, inst *lazymask.Instance, starts [][]int, opt Options) (Result, error) {
	began := time.Now()
	if inst == nil {
		return Result{}, errors.New("improve: nil instance")
	}
	if err := inst.Validate(); err != nil {
		return Result{}, fmt.Errorf("improve %s: %w", inst.Name, err)
	}
	if err := opt.validate(); err != nil {
		return Result{}, fmt.Errorf("improve %s: %w", inst.Name, err)
	}
	if len(starts) == 0 {
		return Result{}, fmt.Errorf("improve %s: no starting tour", inst.Name)
	}
	if opt.Prepared != nil && !opt.Prepared.matches(inst) {
		return Result{}, fmt.Errorf("improve %s: options: %w", inst.Name, ErrPrepared)
	}
	if opt.Fixed > inst.N || len(starts[0]) < opt.Fixed {
		return Result{}, fmt.Errorf("improve %s: options: fixed prefix of %d positions in a tour of %d nodes (start 0 has %d)", inst.Name, opt.Fixed, inst.N, len(starts[0]))
	}
	for k, tour := range starts[1:] {
		if opt.Fixed > 1 && (len(tour) < opt.Fixed || !slices.Equal(tour[:opt.Fixed], starts[0][:opt.Fixed])) {
			return Result{}, fmt.Errorf("improve %s: start %d does not share start 0's fixed prefix of %d positions", inst.Name, k+1, opt.Fixed)
		}
	}
	type cand struct {
		tour  []int
		chk   lazymask.Result
		v     lazymask.Verdict
		index int
	}
	var cands []cand
	anyFeasible := false
	for k, tour := range starts {
		chk, err := lazymask.Check(inst, tour)
		var te *lazymask.TourError
		if errors.As(err, &te) {
			if len(starts) == 1 {
				return Result{}, fmt.Errorf("improve %s: %w", inst.Name, err)
			}
			return Result{}, fmt.Errorf("improve %s: start %d: %w", inst.Name, k, err)
		}
		if slices.ContainsFunc(cands, func(c cand) bool { return slices.Equal(c.tour, tour) }) {
			continue
		}
		cands = append(cands, cand{tour, chk, chk.Verdict(), k})
		anyFeasible = anyFeasible || chk.Feasible
	}
	if anyFeasible {
		cands = slices.DeleteFunc(cands, func(c cand) bool { return !c.chk.Feasible })
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return lazymask.Compare(a.v, b.v) })
	if opt.MaxStarts > 0 && len(cands) > opt.MaxStarts {
		cands = cands[:opt.MaxStarts]
	}
	start := cands[0].chk
	res := Result{
		StartCost: start.Cost, StartViolation: start.TotalViolation, StartFeasible: start.Feasible,
		StartIndex: cands[0].index,
	}
	tours := make([][]int, len(cands))
	for k, c := range cands {
		tours[k] = c.tour
	}
	se := newSearch(inst, opt, began, &res)
	if done := ctx.Done(); done != nil {
		se.done = done
		se.sc.expired = se.pastDeadline
	}
	se.repairAll = opt.FinishDescent && !anyFeasible
	best := se.run(tours)
	res.Resume.warpOff = se.warpOff
	if se.canceled {
		res.Stop = Canceled
	}
	if r := se.regime(); r == walledRegime || r == unprobed && opt.Resume.warpStall > 0 {
		res.Resume.warpStall = se.warpStall // unprobed: all warp kicks, the regime as before
	}

	if se.neuralErr != nil {
		return Result{}, fmt.Errorf("improve %s: neural kick: %w", inst.Name, se.neuralErr)
	}
	final, err := lazymask.Check(inst, best)
	res.Tour, res.Check = best, final
	res.Cost, res.Violation, res.Feasible = final.Cost, final.TotalViolation, final.Feasible
	res.Repaired = !start.Feasible && final.Feasible
	res.Elapsed = time.Since(began)
	var te *lazymask.TourError
	switch {
	case errors.As(err, &te):
		return res, fmt.Errorf("improve %s: %w: %w", inst.Name, ErrVerify, err)
	case start.Feasible && !final.Feasible:
		return res, fmt.Errorf("improve %s: %w: feasible start became infeasible: %w", inst.Name, ErrVerify, err)
	case start.Feasible && final.Cost > start.Cost+costEps:
		return res, fmt.Errorf("improve %s: %w: cost rose from %v to %v", inst.Name, ErrVerify, start.Cost, final.Cost)
	case opt.Fixed > 1 && !slices.Equal(best[:opt.Fixed], cands[0].tour[:opt.Fixed]):
		return res, fmt.Errorf("improve %s: %w: the fixed prefix of %d positions changed", inst.Name, ErrVerify, opt.Fixed)
	}
	return res, nil
}

// search is one run of Improve.
type search struct {
	st       *state
	sc       scanner
	opt      Options
	rng      *rand.Rand
	pcg      *rand.PCG // rng's source
	deadline time.Time
	res      *Result
	// done is the context's Done channel (nil: none), and canceled says
	// that it closed: the search stops as at its time limit.
	done     <-chan struct{}
	canceled bool
	p        params // the tunables (params.go)

	buf      [maxPieces]piece
	scratch  []int
	old      []int
	rejected map[move]bool
	timeUp   bool
	kinds    []MoveKind
	lastPos  int  // scan offset: where the last applied move started
	kicking  bool // the starts are done; the kicks run
	shuffle  bool // scans start at random (Options.Shuffle; shuffleDL)
	// repairAll: FinishDescent with no feasible start; every start is
	// repaired, past the time limit if need be, until one ends feasible
	// (repaired): the others then keep the limit (a 251-node urgency order
	// took 16 s more after a feasible repair).
	repairAll, repaired bool
	mg                  merger
	child               []int
	// kickLoad and kickRun are bridgesDL's scratch space.
	kickLoad []float64
	kickRun  []int
	// ins and rel are ruinKick's inserter and related-customer lists.
	ins *inserter
	rel [][]int
	// reach is scanRevPair's scratch space.
	reach []int
	// bridgeKicks counts the TSPTW bridge kicks and bridgesApplied the
	// bridges they applied.
	bridgeKicks, bridgesApplied int
	// warpStall is the kicks since the tour kicked from last improved,
	// counted on from Options.Resume (the warp kicks start at warpAfter).
	warpStall int
	// warpUntil ends the warp kick under way (warpCut); a cut pauses the
	// search's warp kicks until Kicks reach warpResume, for warpPause
	// kicks, which doubles at each cut (warpOff: one was cut); kicksBegan
	// is when the kicks began.
	warpUntil             time.Time
	warpCut, warpOff      bool
	warpResume, warpPause int
	kicksBegan            time.Time
	// kickEvals is Result.Evaluations when the kicks began; repairCap, when
	// set, ends a descent (budgetHit, capHit) once Evaluations reach it
	// (restart).
	kickEvals, repairCap int
	capHit               bool
	// marks are the start positions a local descent scans (localKicks),
	// marked says the kick's changes are marked, and succ is markDiff's
	// successor table.
	marks  []bool
	marked bool
	succ   []int
	// known is the tour a kick started from (a local optimum) and
	// knownCost its length: a descent after the kick that comes back to it
	// stops there (most kicks on small instances do).
	known     []int
	knownCost float64
	// win is windowSweep's dynamic program (window.go).
	win windowDP
	// neuralErr is the Redecoder's error, which ends the search
	// (neural.go).
	neuralErr error

	// The search's tours (accept.go). best is the best tour found, of key
	// bestKey; other is the tour last compared with it (keep). cur is
	// where the next kick starts, of length curCost: the best tour, or
	// (TSPDL) a kick's local optimum within acceptDL of it, or a restart's
	// local optimum, which its own kicks then improve. stall counts the
	// kicks since cur last improved, and swept says that cur's windows
	// were re-optimised (schedule.go).
	best, other []int
	bestKey     key
	cur         []int
	curCost     float64
	stall       int
	swept       bool
}

func newSearch(inst *lazymask.Instance, opt Options, began time.Time, res *Result) *search {
	if opt.MaxSegment <= 0 {
		opt.MaxSegment = 3
	}
	kinds := opt.Moves
	if kinds == nil {
		kinds = AllMoves
	}
	se := &search{
		st:       newState(inst, opt.Prepared),
		sc:       scanner{n: inst.N, maxSeg: opt.MaxSegment},
		opt:      opt,
		pcg:      rand.NewPCG(opt.Seed, 0x6c6d61736b),
		res:      res,
		scratch:  make([]int, 0, inst.N),
		old:      make([]int, inst.N),
		rejected: map[move]bool{},
		kinds:    append([]MoveKind(nil), kinds...),
		shuffle:  opt.Shuffle,
		warpOff:  opt.Resume.warpOff,
	}
	se.p = defaultParams(inst.Problem, inst.N)
	if opt.tune != nil {
		opt.tune(&se.p)
	}
	if opt.NeuralEvery > 0 {
		se.p.neuralEvery = opt.NeuralEvery
	}
	if opt.Resume.warpOff {
		se.warpPause, se.warpResume = se.p.warpPauseFirst, se.p.warpPauseFirst
	}
	se.rng = rand.New(se.pcg)
	if se.p.localKicks {
		se.marks, se.succ = make([]bool, inst.N), make([]int, inst.N)
	}
	// TSPTW scans go through the neighbour lists, which test few moves
	// per applied one: walking those beats filling the run tables. TSPDL
	// scans stay full: their blocked tests end each insertion walk early,
	// and the lists cost more per kick there (docs/experiments.md).
	se.st.walk = se.p.near && se.p.costFilter && se.st.nearOK && se.st.tsptw
	if opt.TimeLimit > 0 {
		se.deadline = began.Add(opt.TimeLimit)
		se.sc.expired = se.pastDeadline
	}
	return se
}

// pastDeadline reports, and remembers, that the time limit has passed;
// under Options.FinishDescent it holds the limit back until the best start
// (with no feasible start: every start) has descended to a local optimum.
// Why: with the limit binding once a repair became feasible, that tour was
// kept as it stood, far from a local optimum (docs/experiments.md, "Where
// the search stalled"); and an instance whose share the ones before it
// used up kept its decoded tour unimproved (docs/experiments.md, "The
// time share of a file of mixed sizes", "A floor").
func (se *search) pastDeadline() bool {
	if se.timeUp {
		return true
	}
	if se.done != nil {
		select {
		case <-se.done:
			se.timeUp, se.canceled = true, true
			return true
		default:
		}
	}
	if se.deadline.IsZero() || !time.Now().After(se.deadline) {
		return false
	}
	if !se.kicking && (se.repairAll && !se.repaired || se.opt.FinishDescent && se.res.Starts == 0) {
		return false
	}
	if se.kicking && se.opt.MinKicks > 0 && se.res.Kicks <= min(se.opt.MinKicks, se.opt.Kicks) {
		return false // the floor: kick MinKicks descends to its end
	}
	se.timeUp = true
	return true
}

// key orders tours: lower excess first, then lower cost.
type key struct{ excess, cost float64 }

func (a key) better(b key) bool {
	return a.excess < b.excess || (a.excess == b.excess && a.cost < b.cost-costEps)
}

// prove asks Options.Prove for an optimal tour at most as long as the
// feasible best tour of key best, within ProveShare of the time left; ok
// reports a proof (Result.Optimal).
func (se *search) prove(best key) ([]int, bool) {
	st := se.st
	if se.opt.Prove == nil || !st.tsptw || best.excess > 0 || se.opt.Fixed > 1 || se.deadline.IsZero() {
		return nil, false
	}
	now := time.Now()
	left := se.deadline.Sub(now)
	if left <= 0 {
		return nil, false
	}
	t, ok := se.opt.Prove(best.cost, now.Add(time.Duration(se.p.proveShare*float64(left))), st.defect == 0)
	if ok && t != nil && (len(t) != st.n || t[0] != 0) {
		return nil, false // not a tour of this instance: no proof
	}
	se.res.Optimal = ok
	return t, ok
}

// run descends from each start (best first) to a local optimum, keeps the
// best, then tries the kicks; it returns the best tour found. Unless
// Options.NoMerge, every feasible local optimum that is not kept as the
// best is merged with it (mergeInto), and so is a best tour that a better
// one replaces. Each kick first escalates where the schedule says so
// (schedule.go: a restart, a window sweep), else perturbs the tour the
// kicks start from (perturb.go), descends and accepts or not (accept.go).
func (se *search) run(starts [][]int) []int {
	if !se.descendStarts(starts) || !se.kicksDue() {
		return se.best
	}
	if t, ok := se.prove(se.bestKey); ok {
		if t != nil {
			se.st.set(t)
			se.keep()
		}
		return se.best
	}
	se.beginKicks()
	failed := 0 // kicks in a row that found no feasible perturbation
	for k := 0; k < se.opt.Kicks; k++ {
		if se.budgetHit() {
			break
		}
		if se.escalate(starts) {
			if se.stopped() {
				return se.best
			}
			continue
		}
		if !se.kickStep() {
			// No feasible perturbation in many random tries (bridges,
			// nearby moves, ruin and recreate): the tour is too tight to
			// move (a random kick would only be repaired back at great
			// cost), so the kicks end here once that happens kickGiveUp
			// times in a row. Why not at once: a ruin and recreate kick
			// that failed its draws may succeed with the next ones.
			if failed++; failed >= se.p.kickGiveUp {
				break
			}
			continue
		}
		failed = 0
		if se.stopped() || se.opt.UntilFeasible && se.bestKey.excess == 0 {
			return se.best
		}
	}
	return se.best
}

// stopped reports that the last descent ended on a budget, not at a local
// optimum: the search ends.
func (se *search) stopped() bool { return se.res.Stop != LocalOptimum }

// descendStarts descends from each start (best first) to a local optimum
// and keeps the best; false where a budget ended it. Under repairAll every
// start descends to a local optimum, past the time limit if need be
// (pastDeadline).
func (se *search) descendStarts(starts [][]int) bool {
	st := se.st
	for n, tour := range starts {
		if n > 0 && se.budgetHit() {
			break
		}
		st.set(tour)
		se.lastPos = 0
		se.descend()
		se.res.Starts++
		se.repaired = se.repaired || st.excess == 0
		if se.keep() && se.mergeable() {
			se.mergeInto(se.best, &se.bestKey, se.other)
		}
		if se.stopped() {
			return false
		}
	}
	return true
}

// kicksDue reports whether the kicks run after the starts' descents: not
// where a budget ended those, where the best tour stays infeasible under
// NoRepair, without kicks, or where a feasibility search found its tour.
func (se *search) kicksDue() bool {
	return !(se.stopped() || (se.bestKey.excess > 0 && se.opt.NoRepair) || se.opt.Kicks == 0 ||
		se.opt.UntilFeasible && se.bestKey.excess == 0)
}

// beginKicks starts the kick phase from the best tour.
func (se *search) beginKicks() {
	se.kicking = true
	se.kicksBegan, se.kickEvals = time.Now(), se.res.Evaluations
	se.cur = append([]int(nil), se.best...)
	se.curCost = se.bestKey.cost
	if se.opt.Resume.warpStall > 0 {
		// A resume of a walled search: its warp kicks start at once (a
		// second pass is a few dozen kicks, and the first pass's bridge
		// kicks already failed on this tour).
		se.warpStall = max(se.opt.Resume.warpStall, se.p.warpAfter)
	}
}

// kickStep makes one kick: it perturbs the tour kicks start from (or,
// while no feasible tour is known, moves random segments of the best),
// descends and accepts the result or not. It reports false, the kick not
// counted, where no perturbation applied.
func (se *search) kickStep() bool {
	st := se.st
	// From the first position the last kick changed: the rest of the
	// data, the run tables included, stands (TestIncrementalUpdate).
	st.update(se.cur, false)
	se.known, se.knownCost = se.cur, st.cost
	warp := se.warpDue()
	se.marked = false
	if se.marks != nil {
		clear(se.marks)
	}
	if se.bestKey.excess == 0 && !se.perturb(warp) {
		return false
	}
	se.res.Kicks++
	if !st.tsptw && se.p.shuffledKicksDL {
		se.shuffle = se.opt.Shuffle || se.stall >= se.p.shuffleAfterDL && se.res.Kicks%se.p.shuffleDL == 0
	}
	if se.marks != nil && se.bestKey.excess == 0 {
		se.markDiff(se.cur) // sets marked
	}
	if se.bestKey.excess > 0 {
		st.set(se.kick(se.best))
	}
	se.lastPos = 0
	if se.marked {
		// A local descent, then the full one only where that beat the
		// tour kicked from (localKicks).
		se.descendLocal()
		if se.res.Stop == LocalOptimum && st.excess == 0 && st.cost < se.curCost-costEps {
			se.descend()
		}
	} else {
		se.descend()
	}
	se.known = nil
	se.acceptKick()
	return true
}

// mergeInto merges the feasible best tour with other (state.merge); when
// that gives a cheaper tour, it descends from it and keeps the result in
// best.
func (se *search) mergeInto(best []int, bestKey *key, other []int) {
	st := se.st
	child, ok := st.merge(&se.mg, best, other, se.child)
	se.child = child
	if !ok {
		return
	}
	st.set(child)
	if st.excess > 0 { // rounding at the tolerance
		return
	}
	se.lastPos = 0
	se.descend()
	if now := (key{st.excess, st.cost}); now.better(*bestKey) {
		copy(best, st.tour)
		*bestKey = now
		se.res.Merged++
	}
}

// budgetHit records and reports an exhausted budget.
func (se *search) budgetHit() bool {
	r := se.res
	switch {
	case se.opt.MaxMoves > 0 && r.Moves >= se.opt.MaxMoves:
		r.Stop = MoveBudget
	case se.opt.MaxIterations > 0 && r.Iterations >= se.opt.MaxIterations:
		r.Stop = IterationBudget
	case se.pastDeadline():
		r.Stop = TimeBudget
	case se.repairCap > 0 && r.Evaluations >= se.repairCap:
		se.capHit = true // not a stop of the search: restart goes on
	default:
		return false
	}
	return true
}
