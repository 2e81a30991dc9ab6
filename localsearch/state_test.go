package localsearch

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// TestStateAgreesWithReplay compares the O(1) feasibility test, the cost
// arithmetic and the prefix replay of every move against full
// lazymask.Check replays of the moved tour, over many random instances
// (Euclidean, integer matrices without triangle inequality, asymmetric).
func TestStateAgreesWithReplay(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	instances := 120
	if testing.Short() {
		instances = 40
	}
	for _, prob := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
		var moves, feasible, infeasible int
		for it := 0; it < instances; it++ {
			n := 4 + rng.IntN(9)
			kind := distKind(it % 3)
			var in *lazymask.Instance
			var hidden []int
			if prob == lazymask.TSPTW {
				in, hidden = randTSPTW(rng, n, kind, []float64{0.1, 1, 5, 20}[it%4])
			} else {
				in, hidden = randTSPDL(rng, n, kind, []float64{0.05, 0.3, 1}[(it/3)%3])
			}
			tour := hidden
			if it%3 == 2 {
				tour = perm(rng, n)
			}
			st := newState(in, nil)
			st.set(tour)
			sc := scanner{n: n, maxSeg: 3}
			var buf [maxPieces]piece
			for _, k := range AllMoves {
				sc.each(k, rng.IntN(n-1), func(m move) bool {
					moves++
					ps := m.pieces(n, &buf)
					nb := st.build(ps, nil)
					want, err := lazymask.Check(in, nb)
					if _, bad := err.(*lazymask.TourError); bad {
						t.Fatalf("%v %+v on %v: malformed %v: %v", prob, m, tour, nb, err)
					}
					if got := st.feasible(ps); got != want.Feasible {
						t.Fatalf("%v kind %d %+v on %v: fast feasible %v, Check %v (viol %v)",
							prob, kind, m, tour, got, want.Feasible, want.Violation)
					}
					if prob == lazymask.TSPTW && excessOf(st.check()) == 0 {
						// walkTW assumes a feasible current tour (its
						// suffixes have no time warp).
						st.walk = true
						got := st.feasible(ps)
						st.walk = false
						if got != want.Feasible {
							t.Fatalf("kind %d %+v on %v: walked feasible %v, Check %v (viol %v)",
								kind, m, tour, got, want.Feasible, want.Violation)
						}
					}
					if want.Feasible {
						feasible++
					} else {
						infeasible++
					}
					if got := st.pathCost(ps); math.Abs(got-want.Cost) > 1e-9 {
						t.Fatalf("%v %+v: cost %v, Check %v", prob, m, got, want.Cost)
					}
					if got := st.cost + st.delta(m); math.Abs(got-want.Cost) > 1e-9 {
						t.Fatalf("%v %+v: cost by delta %v, Check %v", prob, m, got, want.Cost)
					}
					ex := excessOf(want)
					if got := st.replay(ps, math.Inf(1)); math.Abs(got-ex) > 1e-12 {
						t.Fatalf("%v %+v: excess %v, Check %v", prob, m, got, ex)
					}
					// Under a limit (the scans pass the best excess so far)
					// a result within it is exact, and one above it proves
					// the true excess above it too (early exits and bounds).
					for _, limit := range []float64{st.excess, ex / 2, ex, 2 * ex} {
						got := st.replay(ps, limit)
						if got <= limit && math.Abs(got-ex) > 1e-9 || got > limit && ex <= limit-1e-9 {
							t.Fatalf("%v %+v on %v: replay under limit %v gave %v, Check %v", prob, m, tour, limit, got, ex)
						}
					}
					return false
				})
			}
		}
		t.Logf("%v: %d moves, %d feasible, %d infeasible", prob, moves, feasible, infeasible)
		if feasible < moves/10 || infeasible < moves/10 {
			t.Fatalf("%v: unbalanced verdicts (%d feasible, %d infeasible of %d)", prob, feasible, infeasible, moves)
		}
	}
}

// check replays the current tour with lazymask.Check.
func (s *state) check() lazymask.Result {
	r, _ := lazymask.Check(s.inst, s.tour)
	return r
}

// TestScannerCoversNeighbourhood checks that the scanned moves produce
// exactly the neighbours built by direct slice edits (minus in-place
// segment reversals, which are 2-opt moves, and duplicates).
func TestScannerCoversNeighbourhood(t *testing.T) {
	t.Parallel()
	for n := 3; n <= 9; n++ {
		rng := rand.New(rand.NewPCG(uint64(n), 3))
		tour := perm(rng, n)
		in, _ := randTSPDL(rng, n, euclid, 0.1)
		st := newState(in, nil)
		st.set(tour)
		got := map[string]bool{}
		sc := scanner{n: n, maxSeg: 3}
		var buf [maxPieces]piece
		for _, k := range AllMoves {
			sc.each(k, 0, func(m move) bool {
				got[fmt.Sprint(st.build(m.pieces(n, &buf), nil))] = true
				return false
			})
		}
		want := map[string]bool{}
		for _, nb := range neighbours(tour, 3) {
			want[fmt.Sprint(nb)] = true
		}
		delete(got, fmt.Sprint(tour))
		delete(want, fmt.Sprint(tour))
		if len(got) != len(want) {
			t.Fatalf("n=%d: %d distinct neighbours scanned, %d expected", n, len(got), len(want))
		}
		for k := range want {
			if !got[k] {
				t.Fatalf("n=%d: neighbour %s not scanned", n, k)
			}
		}
	}
}

// TestRangeMin compares the sparse table with a linear scan.
func TestRangeMin(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	var r rangeMin
	for n := 1; n <= 40; n++ {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		r.build(v)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				if got, want := r.min(i, j), slices.Min(v[i:j+1]); got != want {
					t.Fatalf("n=%d min(%d,%d) = %v, want %v", n, i, j, got, want)
				}
			}
		}
	}
}

// TestRangeMinRebuild changes random runs of a slice and checks that the
// partial rebuild leaves the same table as a full build.
func TestRangeMinRebuild(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 5))
	for n := 1; n <= 40; n++ {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		var inc, full rangeMin
		inc.build(v)
		for step := 0; step < 20; step++ {
			lo := rng.IntN(n)
			hi := lo + rng.IntN(n-lo)
			for i := lo; i <= hi; i++ {
				v[i] = rng.NormFloat64()
			}
			inc.rebuild(v, lo, hi)
			full.build(v)
			if !sameLevels(inc, full) {
				t.Fatalf("n=%d step %d: rebuild of %d..%d differs from a full build", n, step, lo, hi)
			}
		}
	}
}

func sameLevels(a, b rangeMin) bool {
	return slices.EqualFunc(a.levels, b.levels, func(x, y []float64) bool { return slices.Equal(x, y) })
}

// pathCost is the closed length, from the pieces, of the tour the pieces describe.
func (s *state) pathCost(ps []piece) float64 {
	c := 0.0
	prev := -1
	for _, p := range ps {
		if p.rev {
			c += s.bwdCost[p.to] - s.bwdCost[p.from]
		} else {
			c += s.fwdCost[p.to] - s.fwdCost[p.from]
		}
		if prev >= 0 {
			c += s.d(prev, s.first(p))
		}
		prev = s.last(p)
	}
	return c + s.d(prev, 0)
}

// TestIncrementalUpdate applies random moves through the incremental table
// update and compares every table with a full rebuild.
func TestIncrementalUpdate(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 4))
	for it := 0; it < 30; it++ {
		n := 5 + rng.IntN(20)
		in, tour := randTSPTW(rng, n, distKind(it%3), 1)
		if it%2 == 1 {
			in, tour = randTSPDL(rng, n, distKind(it%3), 0.2)
		}
		inc, full := newState(in, nil), newState(in, nil)
		inc.set(tour)
		var buf [maxPieces]piece
		for step := 0; step < 20; step++ {
			var m move
			switch kind := AllMoves[rng.IntN(len(AllMoves))]; kind {
			case TwoOpt, Swap:
				i := 1 + rng.IntN(n-2)
				m = move{kind: kind, i: i, j: i + 1 + rng.IntN(n-1-i)}
			default:
				i := 1 + rng.IntN(n-2)
				j := rng.IntN(n)
				if j == i-1 || j == i {
					continue
				}
				m = move{kind: Relocate, i: i, j: j, k: 1}
			}
			next := inc.build(m.pieces(n, &buf), nil)
			inc.update(next, false)
			full.set(next)
			if inc.tsptw {
				for r := range n {
					for _, rev := range []bool{false, true} {
						inc.fill(r, n-1, rev)
						full.fill(r, n-1, rev)
					}
				}
			}
			if !slices.Equal(inc.fwdSeg, full.fwdSeg) || !slices.Equal(inc.revSeg, full.revSeg) ||
				!slices.Equal(inc.suffix, full.suffix) || !slices.Equal(inc.load, full.load) || inc.cost != full.cost || inc.excess != full.excess ||
				!sameLevels(inc.slackFwd, full.slackFwd) || !sameLevels(inc.slackRev, full.slackRev) ||
				!slices.Equal(inc.fwdCost, full.fwdCost) || !slices.Equal(inc.bwdCost, full.bwdCost) ||
				!slices.Equal(inc.preTime, full.preTime) || !slices.Equal(inc.preExcess, full.preExcess) {
				t.Fatalf("instance %d step %d (%+v): incremental tables differ from a rebuild", it, step, m)
			}
		}
	}
}

// TestBlockedIsSound: whenever insBlocked or swapBlocked stops a scan, the
// move it was asked about and every move further along that scan are
// infeasible when replayed by lazymask.Check.
func TestBlockedIsSound(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(17, 4))
	var buf [maxPieces]piece
	infeasible := func(st *state, m move) bool {
		r, err := lazymask.Check(st.inst, st.build(m.pieces(st.n, &buf), nil))
		var te *lazymask.TourError
		if errors.As(err, &te) {
			t.Fatal(err)
		}
		return !r.Feasible
	}
	hits := map[lazymask.Problem]int{}
	hitsTW := map[distKind]int{}
	for it := 0; it < 240; it++ {
		n := 8 + rng.IntN(18)
		prob := lazymask.TSPTW
		kind := distKind((it / 2) % 4)
		in, tour := randTSPTW(rng, n, kind, []float64{0.1, 0.5, 2}[it%3])
		if it%2 == 1 {
			prob = lazymask.TSPDL
			in, tour = randTSPDL(rng, n, kind, []float64{0.02, 0.1}[it%2])
		}
		st := newState(in, nil)
		st.set(tour)
		for i := 1; i < n; i++ {
			for k := 1; k <= 3 && i+k-1 < n; k++ {
				for _, rev := range []bool{false, true} {
					if rev && k == 1 {
						continue
					}
					end := i + k - 1
					for _, side := range [][2]int{{end + 1, 1}, {i - 2, -1}} {
						for j := side[0]; j >= 0 && j < n; j += side[1] {
							if !st.insBlocked(i, k, rev, j) {
								continue
							}
							hits[prob]++
							if prob == lazymask.TSPTW {
								hitsTW[kind]++
							}
							for q := j; q >= 0 && q < n; q += side[1] {
								if m := (move{kind: OrOpt, i: i, j: q, k: k, rev: rev}); !infeasible(st, m) {
									t.Fatalf("%v #%d: run %d..%d rev %v blocked at %d, but insertion after %d is feasible", prob, it, i, end, rev, j, q)
								}
							}
							break
						}
					}
				}
			}
			for j := i + 1; j < n; j++ {
				if !st.swapBlocked(i, j) {
					continue
				}
				hits[prob]++
				for q := j; q < n; q++ {
					if !infeasible(st, move{kind: Swap, i: i, j: q}) {
						t.Fatalf("%v #%d: swap %d blocked at %d, but swap with %d is feasible", prob, it, i, j, q)
					}
				}
				break
			}
		}
	}
	if hits[lazymask.TSPTW] < 100 || hits[lazymask.TSPDL] < 100 {
		t.Fatalf("too few blocked scans to test: %v", hits)
	}
	// Matrices that break the triangle inequality stop scans too, by a
	// margin of their defect (rounded distances: most of the time).
	if hitsTW[rounded] < 50 || hitsTW[intMatrix] == 0 {
		t.Fatalf("too few TSPTW blocked scans on non-metric matrices: %v", hitsTW)
	}
}

// TestBridgeAgreesWithReplay: every double bridge of the kicks (runs
// i..j−1 and j..k−1 exchanged) builds the tour a direct slice edit does,
// and its O(1) feasibility verdict and length match lazymask.Check.
func TestBridgeAgreesWithReplay(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 8))
	for _, prob := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
		feasible, total := 0, 0
		for it := 0; it < 40; it++ {
			n := 4 + rng.IntN(9)
			var in *lazymask.Instance
			var tour []int
			if prob == lazymask.TSPTW {
				in, tour = randTSPTW(rng, n, distKind(it%3), []float64{1, 5, 20}[it%3])
			} else {
				in, tour = randTSPDL(rng, n, distKind(it%3), []float64{0.3, 1}[it%2])
			}
			st := newState(in, nil)
			st.set(tour)
			var buf [maxPieces]piece
			for i := 1; i < n; i++ {
				for j := i + 1; j < n; j++ {
					for k := j + 1; k <= n; k++ {
						want := slices.Concat(tour[:i], tour[j:k], tour[i:j], tour[k:])
						ps := move{kind: bridge, i: i, j: j, k: k}.pieces(n, &buf)
						got := st.build(ps, nil)
						if !slices.Equal(got, want) {
							t.Fatalf("bridge %d,%d,%d of %v: built %v, want %v", i, j, k, tour, got, want)
						}
						chk, err := lazymask.Check(in, want)
						if _, bad := err.(*lazymask.TourError); bad {
							t.Fatalf("check %v: %v", want, err)
						}
						if f := st.feasible(ps); f != chk.Feasible {
							t.Fatalf("%v bridge %d,%d,%d of %v: fast feasible %v, Check %v", prob, i, j, k, tour, f, chk.Feasible)
						}
						if c := st.pathCost(ps); math.Abs(c-chk.Cost) > 1e-9 {
							t.Fatalf("%v bridge %d,%d,%d: cost %v, Check %v", prob, i, j, k, c, chk.Cost)
						}
						total++
						if chk.Feasible {
							feasible++
						}
					}
				}
			}
		}
		t.Logf("%v: %d bridges, %d feasible", prob, total, feasible)
		if feasible < total/10 || feasible > total*9/10 {
			t.Fatalf("%v: unbalanced verdicts (%d feasible of %d)", prob, feasible, total)
		}
	}
}

// TestRunBlocksAgree: the TSPDL scan's runBlocks gives insBlocked's verdict
// at every insertion point of every run, walking away from the run as the
// scan does, on tours reached by incremental updates as well as on fresh
// ones.
func TestRunBlocksAgree(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(23, 5))
	var buf [maxPieces]piece
	blocked, asked := 0, 0
	for it := 0; it < 60; it++ {
		n := 6 + rng.IntN(30)
		in, tour := randTSPDL(rng, n, distKind(it%3), []float64{0.02, 0.1, 0.3}[it%3])
		st := newState(in, nil)
		st.set(tour)
		for step := 0; step < 4; step++ {
			for i := 1; i < n; i++ {
				for k := 1; k <= 3 && i+k-1 < n; k++ {
					for _, rev := range []bool{false, true} {
						end := i + k - 1
						rb := st.blocksOf(i, k, rev)
						// The scan's walks: after the run, then before it.
						for _, side := range []struct {
							name      string
							from, dir int
							verdict   func(int) bool
						}{{"after", end + 1, 1, rb.after}, {"before", i - 2, -1, rb.before}} {
							for j := side.from; j >= 0 && j < n; j += side.dir {
								want := st.insBlocked(i, k, rev, j)
								if got := side.verdict(j); got != want {
									t.Fatalf("#%d step %d: run %d..%d rev %v %s %d: runBlocks %v, insBlocked %v", it, step, i, end, rev, side.name, j, got, want)
								}
								asked++
								if want {
									blocked++
								}
							}
						}
					}
				}
			}
			// Move on to a neighbour (feasible or not) through the
			// incremental update.
			i := 1 + rng.IntN(n-1)
			j := 1 + rng.IntN(n-1)
			if i == j {
				continue
			}
			m := move{kind: TwoOpt, i: min(i, j), j: max(i, j)}
			st.update(st.build(m.pieces(n, &buf), nil), false)
		}
	}
	if blocked < 1000 || blocked == asked {
		t.Fatalf("verdicts not varied enough to test: %d blocked of %d", blocked, asked)
	}
}

// TestKickDLAgrees: the TSPDL kick's own bridge loop (bridgesDL) draws
// and applies the same bridges as the general loop, from loose instances
// (every kick applies all its bridges) to tight ones (kicks fall back to
// nearby moves or find nothing).
func TestKickDLAgrees(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 4))
	changed, fallbacks := 0, 0
	for it := 0; it < 60; it++ {
		n := 6 + rng.IntN(40)
		in, tour := randTSPDL(rng, n, distKind(it%3), []float64{0, 0.1, 0.3, 1}[it%4])
		var tours [2][][]int
		var oks [2][]bool
		for v, fast := range []bool{false, true} {
			var res Result
			se := newSearch(in, Options{Seed: uint64(it), tune: func(p *params) { p.fastKickDL = fast }}, time.Now(), &res)
			se.st.set(tour)
			for k := 0; k < 5; k++ {
				ok := se.feasibleKick()
				oks[v] = append(oks[v], ok)
				tours[v] = append(tours[v], slices.Clone(se.st.tour))
				if chk, _ := lazymask.Check(in, se.st.tour); !chk.Feasible {
					t.Fatalf("#%d kick %d (fast %v): infeasible tour %v", it, k, fast, se.st.tour)
				}
				if k == 0 && fast && !slices.Equal(se.st.tour, tour) {
					changed++
				}
			}
		}
		for k := range tours[0] {
			if oks[0][k] != oks[1][k] || !slices.Equal(tours[0][k], tours[1][k]) {
				t.Fatalf("#%d kick %d: general loop %v %v, bridgesDL %v %v", it, k, oks[0][k], tours[0][k], oks[1][k], tours[1][k])
			}
		}
		if !oks[1][0] {
			fallbacks++
		}
	}
	t.Logf("%d of 60 first kicks changed the tour, %d found nothing", changed, fallbacks)
	if changed < 20 {
		t.Fatalf("only %d kicks changed the tour", changed)
	}
}
