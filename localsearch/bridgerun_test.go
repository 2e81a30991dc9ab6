package localsearch

import (
	"slices"
	"testing"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// TestBridgeRunsGrowWithN: the runs a TSPTW double bridge exchanges are
// kickBridge up to kickBridgeN nodes and grow in proportion beyond; TSPDL
// keeps kickBridge.
func TestBridgeRunsGrowWithN(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		prob lazymask.Problem
		n    int
		want int
	}{{lazymask.TSPTW, 21, 8}, {lazymask.TSPTW, 51, 8}, {lazymask.TSPTW, 101, 16}, {lazymask.TSPTW, 251, 40}, {lazymask.TSPDL, 251, 8}} {
		in := &lazymask.Instance{Problem: c.prob, N: c.n, X: make([]float64, c.n), Y: make([]float64, c.n)}
		in.Early, in.Late, in.Service = make([]float64, c.n), make([]float64, c.n), make([]float64, c.n)
		in.Demand, in.Draft = make([]float64, c.n), make([]float64, c.n)
		for v := range c.n {
			in.X[v], in.Late[v], in.Draft[v] = float64(v), 1e9, 1e9
		}
		var res Result
		if got := newSearch(in, Options{}, time.Now(), &res).p.bridgeRun; got != c.want {
			t.Errorf("%v, N = %d: runs of up to %d, want %d", c.prob, c.n, got, c.want)
		}
	}
}

// TestLongBridgesLeaveBasin: from a tour of Ohlmann-Thomas n150w160.003
// (151 nodes) that a search stalled at, 2.3% above the best known 608, 100
// kicks of runs of up to kickBridge nodes stay at 618 or above in each of
// eight seeds; runs that grow with N end no worse in every seed and within
// 0.2% of 608 in some: the way out exchanges runs longer than kickBridge.
func TestLongBridgesLeaveBasin(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a search of 151 nodes per seed and setting")
	}
	in := benchmarkInstance(t, "tsptw-ohlmann-thomas", "n150w160.003")
	start := stuckOT
	run := func(grow bool) []float64 {
		tune := func(p *params) { p.bridgeRun = p.kickBridge }
		if grow {
			tune = nil
		}
		return seedCostsTuned(t, in, start, stuckKicks, stuckSeeds, tune)
	}
	fixed, grown := run(false), run(true)
	t.Logf("runs of %d: %v; growing runs: %v", kickBridge, fixed, grown)
	for seed := range fixed {
		if grown[seed] > fixed[seed] {
			t.Errorf("seed %d: growing runs ended at %v, runs of %d at %v", seed, grown[seed], kickBridge, fixed[seed])
		}
	}
	if m := slices.Min(fixed); m < 618 {
		t.Errorf("runs of %d reached %v: the test no longer shows the basin", kickBridge, m)
	}
	if m := slices.Min(grown); m > 609 {
		t.Errorf("growing runs reached %v at best, want within 0.2%% of 608", m)
	}
}

const stuckSeeds, stuckKicks = 8, 100

// stuckOT is the 622 tour of n150w160.003 that a --preset best search
// ended at (seed 1): a local optimum of every move, 2.3% above 608.
var stuckOT = []int{0, 90, 86, 127, 10, 113, 94, 96, 143, 27, 24, 74, 123, 21, 37, 40, 66, 148, 129, 72, 142, 31, 63, 67, 147, 49, 88, 104, 126, 120, 137, 125, 107, 46, 44, 131, 38, 65, 59, 83, 36, 19, 30, 73, 135, 145, 115, 102, 45, 87, 2, 99, 17, 110, 16, 71, 25, 136, 47, 57, 138, 111, 34, 48, 109, 61, 81, 132, 78, 56, 22, 133, 85, 55, 4, 29, 128, 50, 6, 52, 101, 130, 97, 134, 82, 13, 121, 53, 18, 42, 108, 141, 75, 64, 33, 146, 12, 5, 76, 117, 92, 14, 80, 26, 28, 41, 54, 69, 8, 60, 11, 58, 35, 116, 79, 9, 3, 15, 51, 118, 98, 95, 122, 68, 100, 70, 23, 149, 106, 124, 144, 114, 32, 105, 93, 112, 20, 39, 84, 150, 7, 77, 140, 91, 103, 1, 89, 119, 62, 43, 139}
