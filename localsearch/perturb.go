package localsearch

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

// A perturber is one kind of kick: it changes the current feasible tour
// (search.st) so that the descent after it can reach another local optimum,
// and reports whether it did (false: the tour is unchanged). Each kind is
// in its own file: bridge.go, ruin.go, warp.go, neural.go. (The window sweep and the
// restart, which yield local optima themselves, are steps of the schedule:
// schedule.go.)
type perturber interface {
	perturb(se *search) bool
}

// kickOrder lists the perturbers of the next kick in the order they are
// tried, the first that changes the tour making the kick: a neural kick
// first when one is due (neuralDue), then a warp kick when
// warp is set (warpDue), else for TSPTW double bridges while those fit (at
// least ruinFit tenths of the kick's bridges found feasible, on average,
// over the kicks so far) and ruin and recreate otherwise, each falling back
// to the other; TSPDL bridges alone. Why: bridges win on the paper's
// distributions, where most of them fit; on tours pinned by tight windows
// spread among open ones few fit, the descents undo most kicks and the
// search stays stuck however many kicks it makes, where ruin and recreate
// moves customers across the whole tour (docs/experiments.md, "Where the
// search stalled").
func (se *search) kickOrder(warp bool) [3]perturber {
	var first perturber
	if se.neuralDue() {
		first = neuralKicker{}
	}
	switch {
	case !se.st.tsptw:
		return [3]perturber{first, bridgeKick{}}
	case warp:
		return [3]perturber{first, warpKicker{}, bridgeKick{}}
	case se.regime() == ruinRegime:
		return [3]perturber{first, ruinKicker{}, bridgeKick{}}
	}
	return [3]perturber{first, bridgeKick{}, ruinKicker{}}
}

// perturb applies one kick to the current feasible tour (kickOrder).
func (se *search) perturb(warp bool) bool {
	for _, p := range se.kickOrder(warp) {
		if p != nil && p.perturb(se) {
			return true
		}
	}
	return false
}
