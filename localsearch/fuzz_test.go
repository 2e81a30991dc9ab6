package localsearch

import (
	"math/rand/v2"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

// FuzzImprove runs the search on random instances of both problems
// (coordinates, integer matrices without the triangle inequality,
// asymmetric matrices; tight to loose windows and draft limits) from a
// feasible and a random start, with kicks, and checks what every search
// must give: no verification error, a feasible start never made infeasible
// or longer, and an end that the full scan cannot improve (the neighbour
// lists and the position-best scans prove the same local optima).
func FuzzImprove(f *testing.F) {
	for s := uint64(0); s < 6; s++ {
		f.Add(s, uint8(10+5*s), uint8(s), uint8(s%4))
	}
	f.Fuzz(func(t *testing.T, seed uint64, size, flags, kicks uint8) {
		rng := rand.New(rand.NewPCG(seed, uint64(flags)))
		n := 4 + int(size)%40
		kind := distKind(flags % 3)
		var in *lazymask.Instance
		var hidden []int
		if flags&4 == 0 {
			in, hidden = randTSPTW(rng, n, kind, []float64{0.1, 1, 5, 20}[(flags>>3)%4])
		} else {
			in, hidden = randTSPDL(rng, n, kind, []float64{0.02, 0.1, 0.5}[(flags>>3)%3])
		}
		for _, start := range [][]int{hidden, perm(rng, n)} {
			res, err := Improve(in, start, Options{Kicks: int(kicks % 8), Seed: seed})
			if err != nil { // ErrVerify included: a search that breaks its own result
				t.Fatalf("improve: %v", err)
			}
			before, _ := lazymask.Check(in, start)
			if before.Feasible && (!res.Feasible || res.Cost > before.Cost+1e-9) {
				t.Fatalf("feasible start (cost %v) ended feasible=%v cost %v", before.Cost, res.Feasible, res.Cost)
			}
			if !res.Feasible || res.Stop != LocalOptimum {
				continue
			}
			again, err := Improve(in, res.Tour, Options{NoRepair: true, tune: noNear})
			if err != nil {
				t.Fatal(err)
			}
			if again.Moves != 0 {
				t.Fatalf("the full scan improved the search's end %v by %d moves (%v → %v)", res.Tour, again.Moves, res.Cost, again.Cost)
			}
		}
	})
}
