package localsearch

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

// TestWarpOfMatchesReplay: the warp that warpOf finds from the run tables
// for every move of random infeasible tours is the replayed warp of the
// tour the move builds.
func TestWarpOfMatchesReplay(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 6 {
		in, _ := randTSPTW(rng, 12+trial, distKind(trial%2), 0.3)
		tour := perm(rng, in.N)
		st := newState(in, nil)
		st.set(tour)
		sc := scanner{n: in.N, maxSeg: 3, need: math.Inf(1)}
		var buf [maxPieces]piece
		checked := 0
		sc.scan(AllMoves, 0, func(m move) bool {
			ps := m.pieces(in.N, &buf)
			got := st.warpOf(ps)
			want := replayLate(in, st.build(ps, nil), true)
			if math.Abs(got-want) > 1e-9*max(1, want) {
				t.Fatalf("trial %d, move %+v: warpOf %.12g, replay %.12g", trial, m, got, want)
			}
			checked++
			return false
		})
		if checked == 0 || replayLate(in, tour, true) == 0 {
			t.Fatalf("trial %d: %d moves, start warp %g", trial, checked, replayLate(in, tour, true))
		}
	}
}

// TestWarpKicksLeaveWindowBasin: on Gendreau n40w200.005 the bridge kicks
// stay at 300 (the optimum is 296) from the insertion start in every seed,
// since each part of the change that shortens the tour breaks a window;
// the warp kicks reach 296, and every result is feasible.
func TestWarpKicksLeaveWindowBasin(t *testing.T) {
	t.Parallel()
	in := benchmarkInstance(t, "tsptw-gendreau", "n40w200.005")
	start, ok := InsertionTour(in, 20, 1)
	if !ok {
		t.Fatal("no insertion tour")
	}
	run := func(on bool) []float64 {
		return seedCostsTuned(t, in, start, 200, 4, func(p *params) { p.warpKicks = on })
	}
	off, on := run(false), run(true)
	t.Logf("bridge kicks %v, warp kicks %v", off, on)
	for seed := range off {
		if off[seed] <= 296 {
			t.Errorf("seed %d: the bridge kicks reached %v: the test no longer shows the wall", seed, off[seed])
		}
		if on[seed] != 296 {
			t.Errorf("seed %d: warp kicks ended at %v, the optimum is 296", seed, on[seed])
		}
	}
}

// TestResumeContinuesWarpKicks: from a tour of Gendreau n40w180.002 that a
// search stalled at (355; the best known is 347), 20 kicks of a fresh
// search are bridge kicks and stay at 355 in every seed, and report the
// stall (the tour is walled: Result.Resume); a search resumed with
// a stall count of warpAfter, or 1, makes warp kicks from the first and
// reaches 347 in most seeds, every result feasible.
func TestResumeContinuesWarpKicks(t *testing.T) {
	t.Parallel()
	in := benchmarkInstance(t, "tsptw-gendreau", "n40w180.002")
	stuck := []int{0, 30, 6, 37, 27, 4, 19, 23, 17, 35, 8, 26, 18, 13, 14, 15, 39, 11, 21, 10, 1, 7, 24, 25, 2, 38, 32, 33, 3, 12, 16, 22, 34, 5, 36, 20, 28, 40, 29, 9, 31}
	reached := 0
	for seed := range uint64(8) {
		fresh, err := Improve(in, stuck, Options{Kicks: 20, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if c := math.Round(fresh.Cost * in.Scale); c != 355 || !fresh.Feasible {
			t.Errorf("seed %d: 20 bridge kicks ended at %v (feasible %v): the test no longer shows the wall", seed, c, fresh.Feasible)
		}
		if fresh.Resume.warpStall != 20 || !fresh.Resume.WarpStalled() {
			t.Errorf("seed %d: stall %d after 20 kicks without a gain on a walled tour, want 20", seed, fresh.Resume.warpStall)
		}
		// A walled search resumed with any stall count starts with warp
		// kicks: 1 as the count of a first pass that reached this tour
		// late, warpAfter as one that stalled on it.
		for _, stalled := range []int{1, defaultParams(lazymask.TSPTW, in.N).warpAfter} {
			resumed, err := Improve(in, stuck, Options{Kicks: 20, Seed: seed, Resume: ResumeState{warpStall: stalled}})
			if err != nil {
				t.Fatal(err)
			}
			if !resumed.Feasible {
				t.Fatalf("seed %d: infeasible result", seed)
			}
			if math.Round(resumed.Cost*in.Scale) == 347 {
				reached++
			}
		}
	}
	if reached < 10 {
		t.Errorf("the resumed searches reached 347 in %d of 16 runs, want at least 10", reached)
	}
}
