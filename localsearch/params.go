package localsearch

import "github.com/lmask/lmask/lazymask"

// params holds every tunable of a search, each with the reason for its
// value. defaultParams gives the values a search runs with; a test that
// compares a part of the search with and without it changes its own copy
// (Options.tune), so tests do not share state and run in parallel. The
// data each value was tuned on is recorded in docs/experiments.md
// ("Tunables of the search").
//
// Fixed, not tunable here: the numerical slacks (costEps, nearSlack,
// filterSlack), windowLen (the dynamic program's arrays are sized by it),
// maxPieces and the feasibility search's own constants (feasible.go,
// grow.go).
type params struct {
	// Parts of the search that can be left out: each one is on by default
	// and each one's test compares the search without it.

	// costFilter: scans skip moves whose length change cannot beat the
	// best candidate before any feasibility test (changes only speed).
	costFilter bool
	// near: TSPTW scans walk the neighbour lists where the matrix allows
	// them (near.go); fewer tests per applied move than the full scan.
	near bool
	// stopAtKnown: a descent after a kick that comes back to the tour
	// kicked from stops there (that tour is a local optimum already).
	stopAtKnown bool
	// revPairs: a TSPTW local optimum is also scanned for the reversal of
	// two adjacent runs, the one 3-opt move no other move reaches.
	revPairs bool
	// windows: a TSPTW tour that resisted windowAfter kicks has every
	// window of windowLen positions re-optimised exactly (window.go).
	windows bool
	// warpKicks: a stalled TSPTW search crosses its windows by warp kicks
	// (warp.go).
	warpKicks bool
	// restarts: a search stalled for stallKicks kicks restarts from a new
	// local optimum (restart.go).
	restarts bool
	// fastKickDL: TSPDL bridge kicks test their bridges on a load array
	// (bridgesDL) instead of the general loop; the same kicks, faster.
	fastKickDL bool
	// localKicks: after a kick the search first descends over the moves
	// that start within localMargin positions of the kick's changes and of
	// the moves it applies (descendLocal), and runs the full descent only
	// where that beat the tour kicked from, so kept tours stay full local
	// optima; TSPTW from localKicksN nodes.
	localKicks bool
	// shuffledKicksDL: a stalled TSPDL search descends in a random scan
	// order every shuffleDL-th kick.
	shuffledKicksDL bool

	// Scans.

	// nearMaxTests bounds the feasibility tests per node of a neighbour-
	// list scan before the search goes on with full scans: lists pay where
	// few shortening moves break windows (tens of tests per node), not
	// where most do (thousands).
	nearMaxTests int
	// revPairRun bounds each run a reversal pair reverses: the scan costs
	// O(N·L²), and the stuck optima it frees need runs of a few nodes.
	revPairRun int

	// Kicks.

	// kickMoves is how many double bridges a kick applies (tuned per
	// problem on the paper's n = 50 sets).
	kickMoves int
	// kickBridge bounds each run a TSPDL double bridge exchanges (the
	// load test of bridgesDL), and bridgeRun each run of a kick's general
	// loop and of a warp kick: kickBridge, and for TSPTW growing in
	// proportion to N above kickBridgeN nodes.
	kickBridge, bridgeRun int
	// kickTries is how many random bridges a kick draws before falling
	// back to nearby moves, and kickReach how far those reach.
	kickTries, kickReach int
	// kickGiveUp is how many kicks in a row must find no feasible
	// perturbation before the kicks end (a ruin kick that failed its
	// draws may succeed with the next).
	kickGiveUp int
	// bridgeProbe is how many TSPTW bridge kicks measure how well bridges
	// fit before the regime decides the kind of kick.
	bridgeProbe int
	// ruinFit and openFit split the kick regimes, in tenths of bridges
	// that fitted: below ruinFit ruin and recreate, from openFit open
	// windows, between walled (regime).
	ruinFit, openFit int
	// ruinMax bounds the customers a ruin-and-recreate kick removes, and
	// ruinTries the draws it makes before it gives up.
	ruinMax, ruinTries int
	// localMargin is how many positions around each change of a kick a
	// local descent scans (localKicks).
	localMargin int
	// neuralEvery: with a Redecoder (Options.Redecoder), every
	// neuralEvery-th kick is a neural kick (neural.go); Options.NeuralEvery
	// replaces it. Why 10: about three per instance in a search of the
	// paper's n = 50 sets at --preset best (about 30 kicks), where at 40
	// most searches made none; at neither cadence did it win at equal CPU
	// time, so no Redecoder is set by default (docs/experiments.md, "A
	// neural kick inside the search"). neuralKeep is the range of the
	// share of the customers it keeps, as after the search
	// (solve.KickOptions; 60–95% did no better).
	neuralEvery int
	neuralKeep  [2]float64

	// Acceptance.

	// acceptDL lets a TSPDL kick start from the last kick's local optimum
	// within this fraction of the best length (record-to-record); TSPTW
	// gained from no band.
	acceptDL float64
	// shuffleDL and shuffleAfterDL: every shuffleDL-th TSPDL kick descends
	// in a random order once shuffleAfterDL kicks in a row gained nothing.
	shuffleDL, shuffleAfterDL int

	// Escalation (schedule.go): stall → window → warp → restart.

	// windowAfter is how many kicks without a gain a tour resists before
	// its windows are re-optimised: a sweep costs about a kick, too much
	// for every new tour to kick from, and after 30 kicks it came too
	// seldom.
	windowAfter int
	// warpAfter is how many kicks without a gain a TSPTW search makes
	// before its kicks become warp kicks: the bridge kicks gain more per
	// second until they stall (fewer stalled kicks cost the paper's easy
	// set length at equal time).
	warpAfter int
	// stallKicks is how many kicks without a gain make a search restart:
	// TSPTW about twice the kicks the paper's n = 50 time share allows,
	// so that those searches run as without restarts; TSPDL's basins are
	// fewer and wider, so it restarts sooner.
	stallKicks int
	// restartRepair is how many mean kicks' evaluations the first
	// restart's repair of the urgency order may take before an insertion
	// tour replaces it, and restartTries the insertion orders that draws.
	restartRepair, restartTries int

	// Warp kicks (warp.go).

	// warpBridges is the least number of unchecked bridges a warp kick
	// applies (it stops at the first that breaks a window).
	warpBridges int
	// warpWeight is the first weight of a unit of time warp against one
	// of length (lighter ones went so far into lateness that kicks cost
	// many times more; heavier ones crossed fewer walls), warpWeightMax
	// the last before the kick is undone and warpStep the factor between.
	warpWeight, warpWeightMax, warpStep float64
	// warpReach caps, in mean tour edges, how much longer than the edge it
	// replaces a warp descent's added edge may be.
	warpReach float64
	// warpWindow is how many positions around the breaking bridge a warp
	// descent anchors its moves at (whole-tour scans grew with N).
	warpWindow int
	// warpKickCap bounds a warp kick under a time limit to this many mean
	// kicks: with wide windows at 200–250 nodes one warp kick can cost a
	// thousand bridge kicks, where warp kicks that pay cost a few. A cut
	// warp kick is undone and pauses the warp kicks for warpPauseFirst
	// kicks, doubled at each further cut (a pause, not an end: one costly
	// warp kick early must not end them for good). Searches under a kick
	// budget alone keep every warp kick (reproducible).
	warpKickCap, warpPauseFirst int

	// proveShare is the part of the time left after the starts' descents
	// that Options.Prove may take (ProveShare).
	proveShare float64
}

// defaultParams returns the tunables of a search of an instance of the
// given problem and size. The values are those of docs/experiments.md's
// decision records; where the two problems differ, each value was tuned on
// its own problem's sets.
func defaultParams(problem lazymask.Problem, n int) params {
	tsptw := problem == lazymask.TSPTW
	p := params{
		costFilter: true, near: true, stopAtKnown: true, revPairs: true, windows: true, warpKicks: true,
		restarts: true, fastKickDL: true, shuffledKicksDL: true,

		nearMaxTests: 20,
		revPairRun:   8,

		kickMoves:   22,
		kickBridge:  kickBridge,
		bridgeRun:   kickBridge,
		kickTries:   100,
		kickReach:   30,
		kickGiveUp:  3,
		bridgeProbe: 3,
		ruinFit:     3,
		openFit:     9,
		ruinMax:     12,
		ruinTries:   20,
		localMargin: 3,
		neuralEvery: 10,
		neuralKeep:  [2]float64{0.2, 0.8},

		acceptDL:       0.015,
		shuffleDL:      3,
		shuffleAfterDL: 5,

		windowAfter:   10,
		warpAfter:     30,
		stallKicks:    15,
		restartRepair: 10,
		restartTries:  4,

		warpBridges:    1,
		warpWeight:     1.0,
		warpWeightMax:  1e4,
		warpStep:       10.0,
		warpReach:      1.0,
		warpWindow:     8,
		warpKickCap:    32,
		warpPauseFirst: 2 * 32,

		proveShare: ProveShare,
	}
	if tsptw {
		p.kickMoves = 20
		p.stallKicks = 100
		p.bridgeRun = max(kickBridge, kickBridge*n/kickBridgeN)
		p.localKicks = n >= localKicksN
	}
	return p
}

const (
	// kickBridge: runs of 1–8 nodes, tuned per problem on the paper's
	// n = 50 sets.
	kickBridge = 8
	// kickBridgeN is the size above which TSPTW bridge runs grow in
	// proportion to N: windows of a given share of the horizon hold more
	// customers, and stuck tours of 150 nodes and more differed from the
	// best known ones by exchanges of longer runs.
	kickBridgeN = 50
	// localKicksN is the size from which a TSPTW search descends near a
	// kick first: there a full scan is O(N²) while a kick changes a few
	// places; at N = 101 local descents did no better.
	localKicksN = 150
)
