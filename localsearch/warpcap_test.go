package localsearch

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// TestWarpKickCap: under a time limit, a warp kick that outlasts
// warpKickCap times the mean kick is undone and pauses the search's warp
// kicks, twice as long after a second cut (Result.Resume, carried by
// Options.Resume); without a limit the same kick runs to its end.
func TestWarpKickCap(t *testing.T) {
	t.Parallel()
	dp := defaultParams(lazymask.TSPTW, 40)
	rng := rand.New(rand.NewPCG(21, 4))
	in, hidden := randTSPTW(rng, 200, euclid, 0.6)
	r, err := Improve(in, hidden, Options{})
	if err != nil || !r.Feasible {
		t.Fatalf("descent: %v", err)
	}
	start := r.Tour
	cut := 0
	for seed := range uint64(20) {
		for _, limit := range []time.Duration{time.Minute, 0} {
			res := Result{}
			se := newSearch(in, Options{Seed: seed, TimeLimit: limit}, time.Now(), &res)
			se.st.set(start)
			se.kicking = true
			// A mean kick of a nanosecond: the cap is 32 ns.
			se.kicksBegan, se.res.Kicks = time.Now(), 1_000_000_000
			ok := se.warpKick()
			if limit == 0 {
				if se.warpOff || se.warpCut {
					t.Fatalf("seed %d: a search without a time limit cut its warp kick", seed)
				}
				continue
			}
			if !se.warpCut {
				continue // the bridges left no warp, or the scans stayed under 1,024 tests
			}
			cut++
			if ok || !se.warpOff {
				t.Fatalf("seed %d: cut warp kick reported %v, warp kicks off %v", seed, ok, se.warpOff)
			}
			if !slices.Equal(se.st.tour, start) || se.st.excess > 0 {
				t.Fatalf("seed %d: the cut warp kick left the tour changed", seed)
			}
			// The warp kicks pause for warpPauseFirst kicks, then twice
			// as long after each further cut.
			if se.warpPause != dp.warpPauseFirst || se.warpResume != se.res.Kicks+dp.warpPauseFirst {
				t.Fatalf("seed %d: after a cut the pause is %d kicks, to kick %d", seed, se.warpPause, se.warpResume)
			}
			se.res.Kicks += dp.warpPauseFirst
			if se.warpKick(); se.warpCut && (se.warpPause != 2*dp.warpPauseFirst || se.warpResume != se.res.Kicks+2*dp.warpPauseFirst) {
				t.Fatalf("seed %d: after a second cut the pause is %d kicks, to kick %d", seed, se.warpPause, se.warpResume)
			}
		}
	}
	if cut == 0 {
		t.Fatal("no warp kick was cut: the test shows nothing")
	}
	// The verdict is carried: a search resumed with its warp kicks paused kicks as one with the
	// warp kicks turned off for its first warpPauseFirst kicks.
	small, tour := randTSPTW(rng, 40, euclid, 0.6)
	opt := Options{Seed: 1, Kicks: dp.warpPauseFirst, TimeLimit: time.Minute}
	on, err := Improve(small, tour, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Resume = ResumeState{warpOff: true}
	noWarp, err := Improve(small, tour, opt)
	if err != nil || !noWarp.Resume.warpOff {
		t.Fatalf("resumed with warp kicks paused: paused at the end %v, %v", noWarp.Resume.warpOff, err)
	}
	opt.Resume = ResumeState{}
	opt.tune = func(p *params) { p.warpKicks = false }
	off, err := Improve(small, tour, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(noWarp.Tour, off.Tour) || noWarp.Kicks != off.Kicks {
		t.Fatalf("the paused resume searched otherwise than without warp kicks: %v against %v", noWarp.Cost, off.Cost)
	}
	if slices.Equal(on.Tour, off.Tour) && on.Evaluations == off.Evaluations {
		t.Fatal("warp kicks changed nothing here: the comparison shows nothing")
	}
}
