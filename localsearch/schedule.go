package localsearch

// The escalation schedule of the kick phase. A kick perturbs the tour the
// kicks start from (search.cur) and descends; as kicks in a row fail to
// improve cur, the search escalates, each step tried before the kick in
// this order:
//
//  1. restart: after stallKicks kicks without a gain (TSPTW 100, TSPDL
//     15) the search restarts from a new local optimum (restart.go);
//  2. window: after windowAfter kicks without a gain (TSPTW) every window
//     of cur is re-optimised exactly, once per cur (window.go);
//  3. warp: after warpAfter kicks without a gain on cur (TSPTW, counted
//     on from a resumed search's state) the kicks are warp kicks
//     (warp.go), paused after a cut one; before, bridge or ruin kicks by
//     the regime (perturb.go).
//
// A step that yields a new local optimum takes the place of that kick; one
// that does not (a restart without a feasible tour, a sweep that found
// nothing) hands on to the next.

// An escalation is a step of the schedule: due says that the kicks stalled
// long enough for it, and run makes it, reporting whether it gave a new
// local optimum (then accepted: it takes the place of a kick).
type escalation interface {
	due(se *search) bool
	run(se *search, starts [][]int) bool
}

// The escalations, in the order they are tried before each kick.
type (
	restartEscalation struct{} // restart.go
	windowEscalation  struct{} // window.go
)

func (restartEscalation) due(se *search) bool                 { return se.restartDue() }
func (restartEscalation) run(se *search, starts [][]int) bool { return se.restartStep(starts) }
func (windowEscalation) due(se *search) bool                  { return se.windowDue() }
func (windowEscalation) run(se *search, _ [][]int) bool       { return se.windowStep() }

// escalate makes the first due escalation that gives a new local optimum
// and reports whether one did.
func (se *search) escalate(starts [][]int) bool {
	for _, e := range [...]escalation{restartEscalation{}, windowEscalation{}} {
		if e.due(se) && e.run(se, starts) {
			return true
		}
	}
	return false
}

// restartDue reports that the kicks stalled long enough for a restart.
func (se *search) restartDue() bool {
	return se.p.restarts && se.bestKey.excess == 0 && se.stall >= se.p.stallKicks
}

// windowDue reports that cur resisted enough kicks for a window sweep.
func (se *search) windowDue() bool {
	return se.p.windows && se.st.tsptw && se.bestKey.excess == 0 && !se.swept && se.stall >= se.p.windowAfter
}

// warpDue reports that the next kick is a warp kick.
func (se *search) warpDue() bool {
	return se.p.warpKicks && se.st.tsptw && se.warpStall >= se.p.warpAfter && se.res.Kicks >= se.warpResume
}

// restartStep restarts the stalled search (restart) and reports whether
// that gave a feasible local optimum, which it accepts (acceptRestart);
// the stall counts start again either way.
func (se *search) restartStep(starts [][]int) bool {
	se.stall, se.warpStall = 0, 0
	if !se.restart(starts, se.best) {
		return false
	}
	se.acceptRestart()
	return true
}

// windowStep re-optimises cur's windows (windowSweep) and, where that
// shortened it, descends and accepts the result; it reports whether it
// did. A tour to kick from that resisted windowAfter kicks has every
// window re-optimised once: about a kick's time.
func (se *search) windowStep() bool {
	se.swept = true
	se.st.update(se.cur, false)
	if !se.windowSweep() {
		return false
	}
	se.lastPos = 0
	se.descend()
	before := se.bestKey
	se.keepMerged()
	if !se.stopped() {
		se.follow(before)
	}
	return true
}
