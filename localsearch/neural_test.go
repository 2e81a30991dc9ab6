package localsearch

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// toyRedecoder completes a prefix by a LazyMask decode with the Random-L
// heuristic (next node drawn ∝ 1/d from the look-ahead's candidates, the
// stream seeded by the call's seed, 20 backtracks): a Redecoder whose
// tours depend only on the instance, the prefix and the seed, as a
// network's sampled decode does. It records the prefixes it was given and
// the tours it returned.
type toyRedecoder struct {
	prefixes, tours [][]int
}

func (r *toyRedecoder) Redecode(in *lazymask.Instance, prefix []int, seed uint64) ([]int, error) {
	r.prefixes = append(r.prefixes, slices.Clone(prefix))
	trs, err := lazymask.Decode(&lazymask.RandomL{}, []*lazymask.Instance{in}, 1,
		lazymask.Config{Budget: 20, Streams: []uint64{seed}, Prefixes: [][]int{prefix}})
	if err != nil {
		return nil, err
	}
	r.tours = append(r.tours, trs[0].Tour)
	return trs[0].Tour, nil
}

// fixedRedecoder returns the same answer whatever it is asked.
type fixedRedecoder struct {
	tour  []int
	err   error
	calls int
}

func (r *fixedRedecoder) Redecode(*lazymask.Instance, []int, uint64) ([]int, error) {
	r.calls++
	return slices.Clone(r.tour), r.err
}

// neuralInstances returns TSPTW and TSPDL instances with a hidden feasible
// tour each.
func neuralInstances(seed uint64) (ins []*lazymask.Instance, hidden [][]int) {
	rng := rand.New(rand.NewPCG(seed, 73))
	for i := range 6 {
		n := []int{20, 35, 50}[i%3]
		var in *lazymask.Instance
		var h []int
		if i%2 == 0 {
			in, h = randTSPTW(rng, n, distKind(i%5), 1)
		} else {
			in, h = randTSPDL(rng, n, distKind(i%5), 0.2)
		}
		ins, hidden = append(ins, in), append(hidden, h)
	}
	return ins, hidden
}

// TestNeuralKickAppliesFeasibleTours: at the perturber, a neural kick
// keeps a prefix within the kept range (the first 20–80% of the
// customers) and, where it reports a change, the current tour is the
// Redecoder's tour and lazymask.Check finds it feasible; where it reports
// none, the tour is as before.
func TestNeuralKickAppliesFeasibleTours(t *testing.T) {
	t.Parallel()
	ins, hidden := neuralInstances(1)
	applied, refused := 0, 0
	for i, in := range ins {
		toy := &toyRedecoder{}
		se := newSearch(in, Options{Seed: uint64(i), Redecoder: toy}, time.Now(), &Result{})
		se.st.set(hidden[i])
		n := in.N
		lo, hi := int(math.Round(0.2*float64(n-1))), min(n-3, int(math.Round(0.8*float64(n-1))))
		for k := range 30 {
			before := slices.Clone(se.st.tour)
			ok := se.neuralKick()
			prefix := toy.prefixes[len(toy.prefixes)-1]
			if kept := len(prefix) - 1; kept < lo || kept > hi || !slices.Equal(prefix, before[:len(prefix)]) {
				t.Fatalf("%d kick %d: prefix %v of tour %v: want the first %d–%d customers", i, k, prefix, before, lo, hi)
			}
			if !ok {
				if !slices.Equal(se.st.tour, before) {
					t.Fatalf("%d kick %d: no kick reported, the tour changed from %v to %v", i, k, before, se.st.tour)
				}
				refused++
				continue
			}
			applied++
			got := toy.tours[len(toy.tours)-1]
			if !slices.Equal(se.st.tour, got) || slices.Equal(got, before) {
				t.Fatalf("%d kick %d: the tour is %v, the Redecoder gave %v (before %v)", i, k, se.st.tour, got, before)
			}
			chk, err := lazymask.Check(in, se.st.tour)
			if err != nil || !chk.Feasible {
				t.Fatalf("%d kick %d: applied tour %v: feasible %v, %v", i, k, se.st.tour, chk.Feasible, err)
			}
			if math.Abs(chk.Cost-se.st.cost) > 1e-9*max(1, chk.Cost) {
				t.Fatalf("%d kick %d: the search's cost %v, the replay's %v", i, k, se.st.cost, chk.Cost)
			}
		}
		if se.res.NeuralKicks != 30 || se.res.NeuralFailed > 30 {
			t.Fatalf("%d: counted %d neural kicks (%d failed), want 30", i, se.res.NeuralKicks, se.res.NeuralFailed)
		}
	}
	t.Logf("%d applied, %d refused", applied, refused)
	if applied < 60 {
		t.Fatalf("only %d of 180 neural kicks applied", applied)
	}
}

// TestNeuralKickFailureLeavesTour: a Redecoder that gives no tour, an
// infeasible tour, a malformed one, the current one or one that changes
// the fixed prefix makes no kick, and the tour stays as it was; an error
// ends the search with that error.
func TestNeuralKickFailureLeavesTour(t *testing.T) {
	t.Parallel()
	ins, hidden := neuralInstances(2)
	in, tour := ins[0], hidden[0] // TSPTW, 20 nodes
	// The hidden tour reversed.
	infeasible := []int{0}
	for k := in.N - 1; k >= 1; k-- {
		infeasible = append(infeasible, tour[k])
	}
	if chk, _ := lazymask.Check(in, infeasible); chk.Feasible {
		t.Fatal("the reversed tour is feasible: pick another instance")
	}
	swapped := slices.Clone(tour)
	swapped[1], swapped[2] = swapped[2], swapped[1]
	for _, c := range []struct {
		name  string
		tour  []int
		fixed int
	}{
		{"none", nil, 0},
		{"infeasible", infeasible, 0},
		{"short", tour[:in.N-1], 0},
		{"repeated", append(slices.Clone(tour[:in.N-1]), tour[1]), 0},
		{"current", tour, 0},
		{"fixed prefix changed", swapped, 3},
	} {
		r := &fixedRedecoder{tour: c.tour}
		res := Result{}
		se := newSearch(in, Options{Seed: 1, Redecoder: r, Fixed: c.fixed}, time.Now(), &res)
		se.st.set(tour)
		if se.neuralKick() {
			t.Fatalf("%s: a kick was reported", c.name)
		}
		if !slices.Equal(se.st.tour, tour) || r.calls != 1 || res.NeuralKicks != 1 || res.NeuralFailed != 1 {
			t.Fatalf("%s: tour %v (want %v), %d calls, %d kicks, %d failed", c.name, se.st.tour, tour, r.calls, res.NeuralKicks, res.NeuralFailed)
		}
	}
	boom := errors.New("the network failed")
	_, err := ImproveFrom(in, [][]int{tour}, Options{Kicks: 20, Seed: 1, Redecoder: &fixedRedecoder{err: boom}, NeuralEvery: 2})
	if !errors.Is(err, boom) {
		t.Fatalf("a failing Redecoder: error %v, want %v", err, boom)
	}
}

// TestNeuralKickSearchesReproducible: fixed-kick searches with neural
// kicks end feasible (the replay's verdict), give identical tours and
// counters in two runs, and differ from the same searches without them.
func TestNeuralKickSearchesReproducible(t *testing.T) {
	t.Parallel()
	ins, _ := neuralInstances(3)
	rng := rand.New(rand.NewPCG(3, 3))
	differ := 0
	for i, in := range ins {
		starts := [][]int{perm(rng, in.N), OrderTour(in)}
		run := func(r Redecoder) Result {
			res, err := ImproveFrom(in, starts, Options{Kicks: 60, Seed: uint64(i), Redecoder: r, NeuralEvery: 3})
			if err != nil {
				t.Fatalf("%d: %v", i, err)
			}
			return res
		}
		a, b, off := run(&toyRedecoder{}), run(&toyRedecoder{}), run(nil)
		if !a.Feasible || !a.Check.Feasible || a.NeuralKicks == 0 {
			t.Fatalf("%d: feasible %v, %d neural kicks", i, a.Check.Feasible, a.NeuralKicks)
		}
		if !slices.Equal(a.Tour, b.Tour) || a.Kicks != b.Kicks || a.NeuralKicks != b.NeuralKicks || a.NeuralFailed != b.NeuralFailed ||
			a.Evaluations != b.Evaluations || a.KicksAccepted != b.KicksAccepted {
			t.Fatalf("%d: two runs differ: %v (%d kicks, %d neural, %d evaluations) and %v (%d, %d, %d)",
				i, a.Tour, a.Kicks, a.NeuralKicks, a.Evaluations, b.Tour, b.Kicks, b.NeuralKicks, b.Evaluations)
		}
		if off.NeuralKicks != 0 {
			t.Fatalf("%d: %d neural kicks without a Redecoder", i, off.NeuralKicks)
		}
		// Every third kick: one neural kick at least for each third kick
		// counted, and at most one more for each of the loop's steps that
		// was not a counted kick (an escalation, or a kick that found no
		// perturbation at all and is tried again).
		if lo, hi := a.Kicks/3, a.Kicks/3+1+60-a.Kicks; a.NeuralKicks < lo || a.NeuralKicks > hi {
			t.Fatalf("%d: %d neural kicks of %d kicks, want %d to %d", i, a.NeuralKicks, a.Kicks, lo, hi)
		}
		if !slices.Equal(a.Tour, off.Tour) || a.Evaluations != off.Evaluations {
			differ++
		}
	}
	if differ == 0 {
		t.Fatal("the neural kicks changed no search")
	}
}
