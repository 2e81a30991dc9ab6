package localsearch

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// reversed returns a copy of s in reverse order.
func reversed(s []int) []int {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

// TestRevPairAgreesWithReplay: for every pair of adjacent runs of random
// tours (symmetric, integer and asymmetric matrices, tight to wide
// windows), the revPair move builds the tour with both runs reversed in
// place, its O(1) length change and O(pieces) feasibility verdict match
// lazymask.Check's replay, and scanRevPair's run bound never cuts off a
// feasible move.
func TestRevPairAgreesWithReplay(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 21))
	feasible, total := 0, 0
	for it := 0; it < 60; it++ {
		n := 5 + rng.IntN(10)
		in, tour := randTSPTW(rng, n, distKind(it%4), []float64{0.5, 3, 20}[it%3])
		se := newSearch(in, Options{}, time.Now(), &Result{})
		st := se.st
		st.set(tour)
		base, _ := lazymask.Check(in, tour)
		var buf [maxPieces]piece
		se.scanRevPair() // fills se.reach for this tour
		for i := 1; i < n-1; i++ {
			for j := i; j < n-1; j++ {
				for k := j + 1; k < n; k++ {
					want := slices.Concat(tour[:i], reversed(tour[i:j+1]), reversed(tour[j+1:k+1]), tour[k+1:])
					m := move{kind: revPair, i: i, j: j, k: k}
					ps := m.pieces(n, &buf)
					if got := st.build(ps, nil); !slices.Equal(got, want) {
						t.Fatalf("revPair %d,%d,%d of %v: built %v, want %v", i, j, k, tour, got, want)
					}
					chk, err := lazymask.Check(in, want)
					if _, bad := err.(*lazymask.TourError); bad {
						t.Fatalf("check %v: %v", want, err)
					}
					if f := st.feasible(ps); f != chk.Feasible {
						t.Fatalf("revPair %d,%d,%d of %v: fast feasible %v, Check %v", i, j, k, tour, f, chk.Feasible)
					}
					if d := st.delta(m); math.Abs(base.Cost+d-chk.Cost) > 1e-9 {
						t.Fatalf("revPair %d,%d,%d: delta %v, Check %v − %v", i, j, k, d, chk.Cost, base.Cost)
					}
					inReach := j-i < se.p.revPairRun && k-j <= se.p.revPairRun && j <= se.reach[i] && k <= se.reach[j+1]
					if chk.Feasible && j-i < se.p.revPairRun && k-j <= se.p.revPairRun && !inReach {
						t.Fatalf("revPair %d,%d,%d of %v feasible but outside the scan's reach %v", i, j, k, tour, se.reach)
					}
					total++
					if chk.Feasible {
						feasible++
					}
				}
			}
		}
	}
	t.Logf("%d moves, %d feasible", total, feasible)
	if feasible < total/20 || feasible > total*9/10 {
		t.Fatalf("unbalanced verdicts (%d feasible of %d)", feasible, total)
	}
}

// TestRevPairEscapes: on random wide-window instances, some local optima
// of 2-opt, or-opt, relocate and swap are shortened by reversing two
// adjacent runs at once; the descent with revPair then ends at a feasible
// tour, shorter than the one without it, that no revPair move improves.
func TestRevPairEscapes(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 99))
	gains := 0
	for it := 0; it < 300 && gains < 3; it++ {
		in, _ := randTSPTW(rng, 30, euclid, 30)
		start := perm(rng, in.N)
		without, err := Improve(in, start, Options{tune: func(p *params) { p.revPairs = false }})
		if err != nil {
			t.Fatal(err)
		}
		if !without.Feasible {
			continue
		}
		with, err := Improve(in, without.Tour, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if with.RevPairs == 0 {
			if with.Moves != 0 {
				t.Fatalf("instance %d: a local optimum of the scans moved without a revPair: %d moves", it, with.Moves)
			}
			continue
		}
		gains++
		if !with.Feasible || with.Cost >= without.Cost-costEps {
			t.Fatalf("instance %d: revPair descent %v (feasible %v) from %v", it, with.Cost, with.Feasible, without.Cost)
		}
		se := newSearch(in, Options{}, time.Now(), &Result{})
		se.st.set(with.Tour)
		if m, ok := se.scanRevPair(); ok {
			t.Fatalf("instance %d: the result still has the improving move %+v", it, m)
		}
	}
	if gains < 3 {
		t.Fatalf("only %d local optima improved by revPair moves", gains)
	}
}
