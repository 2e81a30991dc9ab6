package localsearch

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// TestImproveContextCancel: a search of unbounded kicks without a time
// limit ends when its context is cancelled, with Stop = Canceled and its
// best tour so far (feasible, no longer than the start, verified); a
// context cancelled before the call ends the search before any move, past
// FinishDescent, and returns the best start.
func TestImproveContextCancel(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 76))
	in, hidden := randTSPTW(rng, 80, euclid, 2)
	start := relocateFeasibly(rng, in, hidden, 30)
	before, _ := lazymask.Check(in, start)
	if !before.Feasible {
		t.Fatal("the start is infeasible")
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(100 * time.Millisecond)
		cancel()
	}()
	r, err := ImproveContext(ctx, in, start, Options{Kicks: math.MaxInt32, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Stop != Canceled || !r.Feasible || r.Cost > before.Cost+costEps || r.Check.Cost != r.Cost {
		t.Fatalf("cancelled search: stop %v, feasible %v, cost %v (start %v)", r.Stop, r.Feasible, r.Cost, before.Cost)
	}
	t.Logf("cancelled after %d kicks, %v → %v", r.Kicks, before.Cost, r.Cost)

	done, stop := context.WithCancel(context.Background())
	stop()
	other := perm(rng, in.N)
	r, err = ImproveFromContext(done, in, [][]int{other, start}, Options{Kicks: 10, FinishDescent: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Stop != Canceled || r.Moves != 0 || r.Kicks != 0 || !slices.Equal(r.Tour, start) {
		t.Fatalf("search under a done context: stop %v, %d moves, %d kicks, tour %v (want the feasible start)", r.Stop, r.Moves, r.Kicks, r.Tour)
	}
}
