package localsearch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

// TestNearScanFindsEveryImprovingMove checks the argument behind scanNear:
// on symmetric TSPTW instances (coordinates, and integer matrices that
// break the triangle inequality) and on rounded ones with a service time
// folded into each node's outgoing arcs (asymmetric; tight to loose
// windows), every move of
// the full scan that shortens the tour by more than costEps and that
// lazymask.Check finds feasible is among the candidates the neighbour
// lists produce, from random tours, the feasible hidden tours and local
// optima (where the radii are small), for random anchor offsets and
// segments of up to 1, 3 and 4 nodes.
func TestNearScanFindsEveryImprovingMove(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 37))
	count := 240
	if testing.Short() {
		count = 60
	}
	found, improving, candidates, full := 0, 0, 0, 0
	optCandidates, optFull := 0, 0 // on the local optima
	var buf [maxPieces]piece
	for it := 0; it < count; it++ {
		n := 5 + rng.IntN(40)
		kind := []distKind{euclid, intMatrix, folded}[it%3]
		in, hidden := randTSPTW(rng, n, kind, []float64{1, 5, 20, 1000}[(it/3)%4])
		tour := perm(rng, n)
		switch it % 3 {
		case 0:
			tour = hidden
		case 1: // a local optimum reached from the feasible hidden tour
			res, err := Improve(in, hidden, Options{NoRepair: true})
			if err != nil {
				t.Fatal(err)
			}
			tour = res.Tour
		}
		maxSeg := []int{1, 3, 4}[(it/3)%3]
		st := newState(in, nil)
		if !st.nearOK {
			t.Fatalf("#%d: symmetric matrix (up to a node potential) not recognised", it)
		}
		st.set(tour)
		sc := scanner{n: n, maxSeg: maxSeg, st: st, need: math.Inf(1)}
		seen := map[move]bool{}
		sc.scanNear(AllMoves, rng.IntN(n), func(m move) bool {
			seen[m] = true
			return false
		})
		candidates += len(seen)
		if it%3 == 1 {
			optCandidates += len(seen)
		}
		sc.st = nil // the full scan, unfiltered
		sc.scan(AllMoves, 0, func(m move) bool {
			full++
			if it%3 == 1 {
				optFull++
			}
			if st.delta(m) >= -costEps {
				return false
			}
			improving++
			if r, _ := lazymask.Check(in, st.build(m.pieces(n, &buf), nil)); !r.Feasible {
				return false
			}
			found++
			if !seen[m] {
				t.Fatalf("#%d (n=%d, kind %d): improving feasible move %+v (delta %v) not among the neighbour-list candidates of %v",
					it, n, kind, m, st.delta(m), tour)
			}
			return false
		})
	}
	t.Logf("%d improving moves, %d of them feasible, all among %d candidates (full scan %d moves); on local optima %d candidates of %d moves",
		improving, found, candidates, full, optCandidates, optFull)
	if found < count {
		t.Fatalf("only %d improving feasible moves in %d tours: the test tours are too good", found, count)
	}
	// The pruning share needs the full sample: the 20 local optima of
	// -short gave 0.345.
	if !testing.Short() && optCandidates*3 > optFull {
		t.Fatalf("%d candidates of %d moves on local optima: the lists prune too little", optCandidates, optFull)
	}
}

// TestNearListsOnlyForSymmetricMatrices: an asymmetric matrix turns the
// neighbour lists (and the walked feasibility test) off, unless it is
// symmetric up to a node potential (a service time folded in: then the
// lists go by its symmetric part, and one arc changed turns them off); the
// lists of a symmetric one are sorted and leave out exactly edges that no
// feasible tour can have (tight windows leave out some).
func TestNearListsOnlyForSymmetricMatrices(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(41, 43))
	in, _ := randTSPTW(rng, 12, asymm, 5)
	if newState(in, nil).nearOK {
		t.Fatal("asymmetric matrix taken for symmetric")
	}
	fo, _ := randTSPTW(rng, 12, folded, 5)
	if symmetric(fo.Dist, 12) {
		t.Fatal("the folded matrix is symmetric: the test shows nothing")
	}
	st0 := newState(fo, nil)
	if !st0.nearOK {
		t.Fatal("a matrix symmetric up to a node potential not recognised")
	}
	for u := 0; u < 12; u++ {
		for v := 0; v < 12; v++ {
			if want := (fo.Dist[u*12+v] + fo.Dist[v*12+u]) / 2; st0.ndist[u*12+v] != want || st0.ndist[v*12+u] != want {
				t.Fatalf("ndist(%d, %d) = %v, want the symmetric part %v", u, v, st0.ndist[u*12+v], want)
			}
		}
	}
	fo.Dist[3*12+7] += 0.01
	if newState(fo, nil).nearOK {
		t.Fatal("one arc off the potential, and the lists stayed on")
	}
	in2, _ := randTSPTW(rng, 12, euclid, 0.5)
	st := newState(in2, nil)
	if !st.nearOK {
		t.Fatal("coordinates not taken for symmetric")
	}
	nl := st.near
	left := 0
	for v := 0; v < st.n; v++ {
		for side, row := range [][]int32{nl.out(v), nl.in(v)} {
			if slices.Contains(row, int32(v)) {
				t.Fatalf("node %d is its own neighbour", v)
			}
			for k := 1; k < len(row); k++ {
				if st.d(v, int(row[k-1])) > st.d(v, int(row[k])) {
					t.Fatalf("neighbours of %d out of order: %v", v, row)
				}
			}
			// A node left out can never follow (side 0) or precede (side
			// 1) v in a feasible tour.
			for w := 0; w < st.n; w++ {
				if w == v || slices.Contains(row, int32(w)) {
					continue
				}
				from, to := v, w
				if side == 1 {
					from, to = w, v
				}
				dep := 0.0
				if from != 0 {
					dep = in2.Early[from] + in2.Service[from]
				}
				if dep+st.d(from, to) <= in2.Late[to]+lazymask.Tol || to == 0 {
					t.Fatalf("edge %d→%d left out of the lists but can be feasible", from, to)
				}
				left++
			}
		}
	}
	if left == 0 {
		t.Fatal("tight windows but no edge left out of the lists")
	}
}

// TestNearAndFullScansReachLocalOptima: searches with the neighbour lists
// (TSPTW and TSPDL, n = 20…60, with kicks) end in tours that the full scan
// cannot improve either: Improve from them with the lists off applies no
// move.
func TestNearAndFullScansReachLocalOptima(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(47, 53))
	for it := 0; it < 24; it++ {
		prob := []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL}[it%2]
		n := 20 + rng.IntN(41)
		var in *lazymask.Instance
		var hidden []int
		if prob == lazymask.TSPTW {
			in, hidden = randTSPTW(rng, n, euclid, 5)
		} else {
			in, hidden = randTSPDL(rng, n, euclid, 0.3)
		}
		res, err := Improve(in, hidden, Options{Kicks: it % 4, Seed: uint64(it)})
		if err != nil {
			t.Fatal(err)
		}
		again, err := Improve(in, res.Tour, Options{tune: noNear})
		if err != nil {
			t.Fatal(err)
		}
		if again.Moves != 0 || again.Cost < res.Cost-1e-12 {
			t.Fatalf("#%d %v: the full scan improved the near scan's local optimum %v by %d moves (%v → %v)",
				it, prob, res.Tour, again.Moves, res.Cost, again.Cost)
		}
		if !res.Feasible {
			t.Fatalf("#%d: %s", it, fmt.Sprint("feasible start became infeasible"))
		}
	}
}
