package localsearch

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// TestMinKicksFloor: with a time limit that has passed before the first
// kick, MinKicks kicks still run to their local optima (the one after them
// may start and be cut), none without the floor, and the tour stays
// feasible by lazymask.Check either way.
func TestMinKicksFloor(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 9))
	in, hidden := randTSPTW(rng, 30, euclid, 0.8)
	for _, tc := range []struct{ floor, lo, hi int }{{0, 0, 1}, {7, 7, 8}, {25, 25, 26}} {
		res, err := Improve(in, hidden, Options{Kicks: 1 << 20, MinKicks: tc.floor, Seed: 3,
			TimeLimit: time.Nanosecond, FinishDescent: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Kicks < tc.lo || res.Kicks > tc.hi {
			t.Errorf("MinKicks %d: %d kicks, want %d–%d", tc.floor, res.Kicks, tc.lo, tc.hi)
		}
		chk, err := lazymask.Check(in, res.Tour)
		if err != nil || !chk.Feasible || !res.Feasible {
			t.Fatalf("MinKicks %d: tour not feasible: %v", tc.floor, err)
		}
	}
	// A floor at or above Kicks makes the limit never bind: the same
	// search as without a limit.
	free, err := Improve(in, hidden, Options{Kicks: 6, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Improve(in, hidden, Options{Kicks: 6, MinKicks: 25, Seed: 3, TimeLimit: time.Nanosecond, FinishDescent: true})
	if err != nil || res.Kicks != free.Kicks || !slices.Equal(res.Tour, free.Tour) {
		t.Errorf("Kicks 6, MinKicks 25: %d kicks, cost %v (err %v); without a limit %d kicks, cost %v", res.Kicks, res.Cost, err, free.Kicks, free.Cost)
	}
}
