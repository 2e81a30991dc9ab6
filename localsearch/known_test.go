package localsearch

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

// TestStopAtKnown: a descent after a kick that comes back to the tour
// kicked from stops there (stopAtKnown). That tour is a local optimum, so
// the stop spares its proof scan and changes nothing else on TSPTW: the
// searches give the same tours with it as without, one scan fewer per
// stop, and many kicks on wide windows come back. (TSPDL's shuffled scans
// draw from the seed, so sparing one shifts the later kicks: there the
// test asks for feasible tours, the same for the same seed.)
func TestStopAtKnown(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 21))
	const tsptw = 4 // the first four instances
	var insts []*lazymask.Instance
	var starts [][]int
	for i := range 6 {
		var in *lazymask.Instance
		var hidden []int
		if i < tsptw {
			in, hidden = randTSPTW(rng, 20+10*i, euclid, 3)
		} else {
			in, hidden = randTSPDL(rng, 30, euclid, 0.3)
		}
		insts, starts = append(insts, in), append(starts, relocateFeasibly(rng, in, hidden, 20))
	}
	known, scansOn, scansOff := 0, 0, 0
	for i, in := range insts {
		for seed := range uint64(4) {
			off, err := Improve(in, starts[i], Options{Kicks: 60, Seed: seed, tune: func(p *params) { p.stopAtKnown = false }})
			if err != nil {
				t.Fatal(err)
			}
			on, err := Improve(in, starts[i], Options{Kicks: 60, Seed: seed})
			if err != nil {
				t.Fatal(err)
			}
			if off.KnownOptima != 0 {
				t.Fatalf("instance %d: %d stops counted with the stop off", i, off.KnownOptima)
			}
			if i >= tsptw {
				again, err := Improve(in, starts[i], Options{Kicks: 60, Seed: seed})
				if err != nil || !on.Feasible || !slices.Equal(again.Tour, on.Tour) {
					t.Fatalf("TSPDL instance %d seed %d: feasible %v, %v then %v (%v)", i, seed, on.Feasible, on.Tour, again.Tour, err)
				}
				continue
			}
			if !slices.Equal(on.Tour, off.Tour) || on.Cost != off.Cost || on.Kicks != off.Kicks {
				t.Fatalf("instance %d seed %d: %v (%v, %d kicks) with the stop, %v (%v, %d kicks) without",
					i, seed, on.Tour, on.Cost, on.Kicks, off.Tour, off.Cost, off.Kicks)
			}
			known += on.KnownOptima
			scansOn += on.Iterations
			scansOff += off.Iterations
		}
	}
	t.Logf("%d of %d TSPTW kicks came back; scans %d with the stop, %d without", known, tsptw*4*60, scansOn, scansOff)
	if known < tsptw*4*60/4 || scansOn+known != scansOff {
		t.Errorf("%d TSPTW kicks came back (of %d); scans %d with the stop, %d without", known, tsptw*4*60, scansOn, scansOff)
	}
}
