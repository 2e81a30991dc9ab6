package localsearch

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
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
		if se.restartDue() && se.restartStep(starts) || se.windowDue() && se.windowStep() {
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

// restart puts a new local optimum in the state, away from the basin the
// kicks stalled in, and reports whether it is feasible. The first restart
// descends from the urgency order (OrderTour), repaired where it is
// infeasible, when it is not one of the starts (Dumas n150w40.003: only
// that repair's basin holds the optimum). Where that repair and descent
// outlast restartRepair kicks and a feasible insertion tour (InsertionTour)
// that is not a start exists, the restart descends from that instead. Why: from
// 150 nodes the repair costs about fifty kicks, so a restart late in a
// search's time was cut inside it and its basin got no kicks
// (Ohlmann-Thomas n150w160.003; docs/experiments.md, "The first restart's
// repair, capped"). The other restarts, and the first where it ends
// infeasible, rebuild the best tour with r+1 ruin and recreate kicks in a
// row at the r-th restart, so each goes further from the best. TSPDL
// restarts build a new tour instead (restartDL).
func (se *search) restart(starts [][]int, best []int) bool {
	st := se.st
	se.res.Restarts++
	r := se.res.Restarts
	if !st.tsptw {
		return se.restartDL()
	}
	isStart := func(tour []int) bool {
		return slices.ContainsFunc(starts, func(t []int) bool { return slices.Equal(t, tour) })
	}
	if r == 1 && se.opt.Fixed <= 1 {
		order := OrderTour(st.inst)
		if !isStart(order) {
			st.set(order)
			se.lastPos = 0
			if st.excess > 0 && se.res.Kicks > 0 {
				perKick := max((se.res.Evaluations-se.kickEvals)/se.res.Kicks, 1)
				se.repairCap, se.capHit = se.res.Evaluations+se.p.restartRepair*perKick, false
			}
			se.descend()
			se.repairCap = 0
			if se.capHit {
				se.capHit = false
				// The seed does not draw from the search's stream, so that
				// where no insertion fits the repair goes on as before.
				if t, ok := InsertionTour(st.inst, se.p.restartTries, se.opt.Seed+uint64(r)); ok && !isStart(t) {
					st.set(t)
					se.lastPos = 0
				}
				se.descend()
			}
			if st.excess == 0 || se.res.Stop != LocalOptimum {
				return st.excess == 0
			}
		}
	}
	st.set(best)
	for range r + 1 {
		if !se.ruinKick() {
			break
		}
	}
	se.lastPos = 0
	se.descend()
	return st.excess == 0
}

// restartDL descends from a TSPDL tour built by cheapest feasible
// insertion of the customers in order of draft limits, each jittered by up
// to its own size (so each restart builds another), and reports whether it
// is feasible; false, the state unchanged, when ten draws find no tour.
// The k-th draw jitters by 1/k of that: with ten draws at full jitter a
// restart found a tour on 3% of generated TSPDL-50 hard instances, now 43%.
func (se *search) restartDL() bool {
	st := se.st
	in, n := st.inst, st.n
	if se.ins == nil {
		se.ins = newInserter(in, st.dist)
		se.ins.minAfter = max(se.opt.Fixed, 1) - 1
	}
	nodes := make([]int, 0, n)
	key := make([]float64, n)
	prefix := st.tour[:max(se.opt.Fixed, 1)]
	for try := range 10 {
		nodes = nodes[:0]
		for _, v := range st.tour[len(prefix):] {
			nodes = append(nodes, v)
			key[v] = in.Draft[v] * (1 + se.rng.Float64()/float64(1+try))
		}
		slices.SortStableFunc(nodes, func(a, b int) int { return cmp.Compare(key[a], key[b]) })
		if !se.ins.reset(prefix) || !se.ins.recreate(nodes, se.rng, 0.2) {
			continue
		}
		st.set(se.ins.tour)
		se.lastPos = 0
		se.descend()
		return st.excess == 0
	}
	return false
}

// The kick regimes of a TSPTW search, by the share of its bridge kicks'
// bridges that fitted (regime): under ruinFit tenths the kicks are ruin
// and recreate; from openFit tenths the windows hardly bind (the paper's
// sets); between, the tour is walled by windows, where a stalled search's
// way out is a warp kick more often than a bridge kick.
const (
	ruinFit = 3
	openFit = 9
)

const (
	unprobed = iota
	ruinRegime
	walledRegime
	openRegime
)

// regime tells the kick regime from the bridge kicks so far.
func (se *search) regime() int {
	a, tried := se.bridgesApplied, se.bridgeKicks*se.p.kickMoves
	switch {
	case se.bridgeKicks < se.p.bridgeProbe:
		return unprobed
	case 10*a < se.p.ruinFit*tried:
		return ruinRegime
	case 10*a < se.p.openFit*tried:
		return walledRegime
	}
	return openRegime
}

// perturb applies one kick to the current feasible tour: a warp kick when
// warp is set and one applies (warpKick), else for TSPTW double bridges
// while those fit (at least ruinFit tenths of the kick's kickMovesTW
// bridges found feasible, on average, over the kicks so far) and ruin and
// recreate otherwise, each falling back to the other. Why: bridges win on
// the paper's distributions, where most of them fit; on tours pinned by
// tight windows spread among open ones few fit, the descents undo most
// kicks and the search stays stuck however many kicks it makes, where
// ruin and recreate moves customers across the whole tour
// (docs/experiments.md, "Where the search stalled").
func (se *search) perturb(warp bool) bool {
	if !se.st.tsptw {
		return se.feasibleKick()
	}
	if warp {
		return se.warpKick() || se.feasibleKick()
	}
	if se.regime() == ruinRegime {
		return se.ruinKick() || se.feasibleKick()
	}
	return se.feasibleKick() || se.ruinKick()
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

// descend applies improving moves until a local optimum or a budget. Each
// scan covers the whole neighbourhood (starting where the last applied move
// did, or at a random position under Options.Shuffle; through the neighbour
// lists it skips only moves that cannot shorten the tour), so a scan that
// finds nothing proves a true local optimum. There are no don't-look bits: in a
// time-window tour a move anywhere shifts every later arrival, so a bit set
// earlier hides moves that became feasible; with bits the descents from the
// decoded tours needed a confirming full scan anyway and cost more, and the
// descents after kicks stopped short of local optima (worse per second).
// (Large TSPTW searches scan near a kick first, then descend in full where
// that gained: localKicks.)
func (se *search) descend() { se.descendOver(nil) }

// descendOver is descend, or with marks (descendLocal) a descent whose
// scans visit only the moves that start at a marked position, each applied
// move marking the positions it changed, and no reversal-pair scan.
func (se *search) descendOver(marks []bool) {
	st := se.st
	clear(se.rejected)
	se.res.Stop = LocalOptimum
	se.sc.only = marks
	defer func() { se.sc.only = nil }()
	for !se.budgetHit() {
		if se.p.stopAtKnown && se.known != nil && st.excess == 0 && math.Abs(st.cost-se.knownCost) <= costEps && slices.Equal(st.tour, se.known) {
			se.res.KnownOptima++
			return // no move improves a local optimum: its proof scan is spared
		}
		se.res.Iterations++
		m, ok := se.scan()
		if se.timeUp {
			se.res.Stop = TimeBudget
			return
		}
		if !ok && marks == nil && se.p.revPairs && se.st.tsptw && se.st.excess == 0 {
			m, ok = se.scanRevPair()
		}
		if !ok {
			se.res.Stop = LocalOptimum
			return
		}
		before := se.res.Moves
		se.apply(m)
		if marks != nil && se.res.Moves > before {
			se.mark(m.i-1, max(m.i, m.j, m.k))
		}
	}
}

// scan looks for an improving move of the current tour.
func (se *search) scan() (move, bool) {
	st := se.st
	cur := key{st.excess, st.cost}
	if cur.excess > 0 && se.opt.NoRepair {
		return move{}, false
	}
	kinds := se.kinds
	offset := se.lastPos
	if se.shuffle {
		se.rng.Shuffle(len(kinds), func(a, b int) { kinds[a], kinds[b] = kinds[b], kinds[a] })
		offset = se.rng.IntN(max(st.n-1, 1))
	}
	first := !se.opt.BestImprovement
	repair := cur.excess > 0
	// TSPDL descents take the best improving move of the first position
	// that has one (over all neighbourhoods), not its first: their local
	// optima are better and reached sooner. TSPTW did not gain from it
	// (docs/experiments.md).
	posBest := first && !repair && !st.tsptw
	se.sc.posFound = false
	se.sc.prune, se.sc.insBlocked, se.sc.swapBlocked, se.sc.infeasible = nil, nil, nil, false
	if !repair {
		se.sc.prune, se.sc.insBlocked, se.sc.swapBlocked = st.revInfeasible, st.insBlocked, st.swapBlocked
		// TSPDL's tests are two range-minimum lookups: ask them at every
		// insertion point. TSPTW's cost a concatenation: ask only after
		// an infeasible candidate.
		se.sc.eager = !st.tsptw
	}
	se.sc.st, se.sc.need, se.sc.filtered = st, math.Inf(1), 0
	if !repair && se.p.costFilter {
		se.sc.need = cur.cost - costEps - st.cost
	}
	best, found := cur, false
	var bestMove move
	evals, tests := 0, 0
	fixed, rejected := se.opt.Fixed, len(se.rejected) > 0
	visit := func(m move) bool {
		if fixed > 0 && m.lowest() < fixed || rejected && se.rejected[m] {
			return false
		}
		evals++
		if evals&1023 == 0 && se.pastDeadline() {
			return true
		}
		c := st.cost + st.delta(m)
		var cand key
		if repair {
			cand = key{st.replay(m.pieces(st.n, &se.buf), best.excess), c}
		} else {
			if c >= best.cost-costEps {
				return false
			}
			tests++
			if !st.feasible(m.pieces(st.n, &se.buf)) {
				se.sc.infeasible = true
				return false
			}
			cand = key{0, c}
		}
		if cand.better(best) {
			best, bestMove, found = cand, m, true
			if !repair && se.p.costFilter {
				se.sc.need = best.cost - costEps - st.cost
			}
			if posBest {
				se.sc.posFound = true // the scan ends with this position
				return false
			}
			return first
		}
		return false
	}
	if !repair && st.walk {
		se.sc.scanNear(kinds, offset, visit)
		if tests > se.p.nearMaxTests*st.n {
			// Most moves that shorten this tour break its windows: the
			// full scan's blocked tests discard them by the run.
			st.walk = false
		}
	} else {
		se.sc.scan(kinds, offset, visit)
	}
	se.res.Evaluations += evals + se.sc.filtered
	return bestMove, found && !se.timeUp
}

// apply makes m the current tour after an exact replay confirms that it
// improves the (excess, cost) key; otherwise m is rejected for this tour.
func (se *search) apply(m move) {
	st := se.st
	before := key{st.excess, st.cost}
	copy(se.old, st.tour)
	se.scratch = st.build(m.pieces(st.n, &se.buf), se.scratch)
	st.update(se.scratch, false)
	if !(key{st.excess, st.cost}).better(before) {
		st.update(se.old, false)
		se.rejected[m] = true
		return
	}
	clear(se.rejected)
	se.lastPos = m.i - 1
	se.res.Moves++
	if m.kind < numKinds {
		se.res.MovesByKind[m.kind]++
	} else {
		se.res.RevPairs++
	}
}

// kickBridge bounds the runs a kick exchanges (1–kickBridge nodes each;
// TSPTW: kickBridge·N/kickBridgeN above kickBridgeN nodes) and
// kickMovesTW / kickMovesDL how many exchanges a kick applies. Double
// bridges (A B C D → A C B D) keep every run's direction, which time
// windows and draft limits both favour, and a descent rarely undoes them;
// the sizes were tuned per problem on the paper's n = 50 sets
// (docs/experiments.md). Where kickTries random bridges find none feasible
// (tight windows, as on hard TSPTW), the kick falls back to as many tries
// of random moves of the scanned neighbourhoods reaching up to kickReach
// positions. The TSPTW runs grow with N: windows of a given share of the
// horizon hold more customers, and the stuck tours of 150 nodes and more
// differed from the best known ones by exchanges of longer runs
// (docs/experiments.md, "Bridge runs that grow with N").
// feasibleKick perturbs the current feasible tour by up to kickMovesTW or
// kickMovesDL random double bridges (two adjacent runs exchanged), or
// nearby moves where no bridge fits, each applied only when the O(1) test
// finds the result feasible. It reports whether any was applied.
func (se *search) feasibleKick() bool {
	st := se.st
	n := st.n
	if n < 4 {
		return false
	}
	if !st.tsptw && se.p.fastKickDL {
		if ok, done := se.bridgesDL(); done {
			return ok
		}
	}
	copy(se.old, st.tour)
	applied := 0
	if st.tsptw {
		defer func() { se.bridgeKicks++; se.bridgesApplied += applied }()
	}
	moves := se.p.kickMoves
	for try := 0; try < 2*se.p.kickTries && applied < moves; try++ {
		var m move
		i := 1 + se.rng.IntN(n-2)
		if applied > 0 || try < se.p.kickTries {
			j := i + 1 + se.rng.IntN(se.p.bridgeRun)
			k := j + 1 + se.rng.IntN(se.p.bridgeRun)
			if k > n {
				continue
			}
			m = move{kind: bridge, i: i, j: j, k: k}
		} else if nm, ok := se.nearbyMove(i); ok {
			m = nm
		} else {
			continue
		}
		if m.lowest() < se.opt.Fixed {
			continue
		}
		ps := m.pieces(n, &se.buf)
		if !st.feasible(ps) {
			continue
		}
		se.scratch = st.build(ps, se.scratch)
		st.update(se.scratch, false)
		if st.excess > 0 { // rounding at the tolerance: undo
			st.update(se.old, false)
			continue
		}
		copy(se.old, st.tour)
		applied++
	}
	return applied > 0
}

// bridgesDL is feasibleKick's bridge phase for TSPDL, on a copy of the
// tour with its loads: a bridge moves run B = j..k−1 before run A = i..j−1,
// which lowers B's loads and raises A's by B's load, so it is feasible when
// every node of A has that much slack. It draws the same bridges as the
// general loop (its fit test and its loads, recomputed over i..k−1 only,
// agree with the general loop's up to rounding at the tolerance, and the
// final update replays the whole tour), applies the kick with one update,
// and reports done = false (with the tour unchanged) when the general loop
// must run instead: no bridge fitted in kickTries tries, or the replay
// disagrees at the tolerance.
func (se *search) bridgesDL() (ok, done bool) {
	st := se.st
	n, in := st.n, st.inst
	t := append(se.scratch[:0], st.tour...)
	load := append(se.kickLoad[:0], st.load...)
	se.kickLoad = load
	tmp := se.kickRun[:0]
	applied := 0
	saved := *se.pcg // the draws are replayed by the general loop on a fallback
	for try := 0; try < 2*se.p.kickTries && applied < se.p.kickMoves; try++ {
		i := 1 + se.rng.IntN(n-2)
		if applied == 0 && try >= se.p.kickTries {
			*se.pcg = saved
			return false, false
		}
		j := i + 1 + se.rng.IntN(se.p.kickBridge)
		k := j + 1 + se.rng.IntN(se.p.kickBridge)
		if k > n || i < se.opt.Fixed {
			continue
		}
		loadB := load[k-1] - load[j-1]
		fits := true
		for q := i; q < j; q++ {
			if load[q]+loadB-in.Draft[t[q]] > lazymask.Tol {
				fits = false
				break
			}
		}
		if !fits {
			continue
		}
		tmp = append(append(tmp[:0], t[j:k]...), t[i:j]...)
		copy(t[i:k], tmp)
		for q := i; q < k; q++ {
			load[q] = load[q-1] + in.Demand[t[q]]
		}
		applied++
	}
	se.kickRun = tmp
	copy(se.old, st.tour)
	st.update(t, false)
	se.scratch = t
	if st.excess > 0 { // rounding at the tolerance
		st.update(se.old, false)
		*se.pcg = saved
		return false, false
	}
	return applied > 0, true
}

// nearbyMove draws a random move of the enabled neighbourhoods that starts
// at position i and reaches at most kickReach positions; false when the
// draw falls outside the tour.
func (se *search) nearbyMove(i int) (move, bool) {
	n := se.st.n
	off := 1 + se.rng.IntN(se.p.kickReach)
	switch kind := se.kinds[se.rng.IntN(len(se.kinds))]; kind {
	case TwoOpt, Swap:
		return move{kind: kind, i: i, j: min(i+off, n-1)}, true
	default:
		k := 1
		if kind == OrOpt {
			k = min(2+se.rng.IntN(max(se.opt.MaxSegment-1, 1)), n-i)
		}
		j := i - 1 - off
		if se.rng.IntN(2) == 1 {
			j = i + k - 1 + off
		}
		if j < 0 || j >= n || (j >= i-1 && j <= i+k-1) {
			return move{}, false
		}
		return move{kind: kind, i: i, j: j, k: k, rev: kind == OrOpt && se.rng.IntN(2) == 1}, true
	}
}

// kick returns a copy of tour with two random segments (1–3 nodes) moved
// to random nearby places.
func (se *search) kick(tour []int) []int {
	n := len(tour)
	out := append([]int(nil), tour...)
	if n < 4 {
		return out
	}
	fixed := max(se.opt.Fixed, 1)
	if n-fixed < 2 {
		return out
	}
	for r := 0; r < 2; r++ {
		k := 1 + se.rng.IntN(min(3, n-fixed-1))
		i := fixed + se.rng.IntN(n-fixed-k+1)
		seg := append([]int(nil), out[i:i+k]...)
		rest := append(append([]int(nil), out[:i]...), out[i+k:]...)
		lo, hi := max(fixed, i-8), min(len(rest), i+8)
		p := lo + se.rng.IntN(hi-lo+1)
		if se.rng.IntN(2) == 1 {
			for a, b := 0, len(seg)-1; a < b; a, b = a+1, b-1 {
				seg[a], seg[b] = seg[b], seg[a]
			}
		}
		out = append(append(append(out[:0], rest[:p]...), seg...), rest[p:]...)
	}
	return out
}

// mark marks positions lo..hi (widened by localMargin) for descendLocal.
func (se *search) mark(lo, hi int) {
	for p := max(lo-se.p.localMargin, 1); p <= min(hi+se.p.localMargin, se.st.n-1); p++ {
		se.marks[p] = true
	}
}

// descendLocal is descend over the marked start positions (descendOver).
func (se *search) descendLocal() { se.descendOver(se.marks) }

// markDiff marks the positions of the current tour around its edges that
// old lacks.
func (se *search) markDiff(old []int) {
	n := se.st.n
	for p := 0; p+1 < n; p++ {
		se.succ[old[p]] = old[p+1]
	}
	se.succ[old[n-1]] = -1
	t := se.st.tour
	for p := 1; p < n; p++ {
		if se.succ[t[p-1]] != t[p] {
			se.mark(p-1, p)
		}
	}
	se.marked = true
}
