package localsearch

import (
	"math/rand/v2"
	"testing"
)

// TestLocalKicks: on a 200-node TSPTW instance, descents after kicks that
// scan only around the kicks' changes cost fewer move evaluations per kick
// than full descents, and the tour the search returns is still a local
// optimum of the whole neighbourhood (a full descent from it finds no move).
func TestLocalKicks(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	in, hidden := randTSPTW(rng, 200, euclid, 0.5) // at least localKicksN nodes
	perKick := map[bool]float64{}
	for _, on := range []bool{false, true} {
		r, err := Improve(in, hidden, Options{Kicks: 40, Seed: 3, tune: func(p *params) { p.localKicks = on }})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Feasible || r.Kicks == 0 {
			t.Fatalf("local %v: feasible %v after %d kicks", on, r.Feasible, r.Kicks)
		}
		perKick[on] = float64(r.Evaluations) / float64(r.Kicks)
		again, err := Improve(in, r.Tour, Options{Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if again.Moves != 0 || again.Cost < r.Cost {
			t.Errorf("local %v: a full descent from the result made %d moves (%v → %v)", on, again.Moves, r.Cost, again.Cost)
		}
	}
	if perKick[true] > 0.7*perKick[false] {
		t.Errorf("move evaluations per kick: %.0f with local descents, %.0f without", perKick[true], perKick[false])
	}
	t.Logf("move evaluations per kick: %.0f with local descents, %.0f without", perKick[true], perKick[false])
}
