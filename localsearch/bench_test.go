package localsearch

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

// BenchmarkImproveTSPTW50 measures one descent from a feasible but poor
// TSPTW-50 tour (wide windows around a hidden random tour) per operation.
func BenchmarkImproveTSPTW50(b *testing.B) {
	benchImprove(b, lazymask.TSPTW, 50, Options{})
}

// BenchmarkImproveTSPTW50Kicks adds 50 perturbation rounds.
func BenchmarkImproveTSPTW50Kicks(b *testing.B) {
	benchImprove(b, lazymask.TSPTW, 50, Options{Kicks: 50, Seed: 1})
}

// BenchmarkImproveTSPTW50KicksFullScans is BenchmarkImproveTSPTW50Kicks
// with the neighbour lists off (every scan a full one): the lists' speed-up.
func BenchmarkImproveTSPTW50KicksFullScans(b *testing.B) {
	benchImprove(b, lazymask.TSPTW, 50, Options{Kicks: 50, Seed: 1, tune: noNear})
}

// BenchmarkImproveTSPDL50 measures one descent from a feasible TSPDL-50
// tour per operation.
func BenchmarkImproveTSPDL50(b *testing.B) {
	benchImprove(b, lazymask.TSPDL, 50, Options{})
}

// BenchmarkImproveTSPDL50Kicks adds 50 kicks (bridgesDL and the descents
// after them) to each descent.
func BenchmarkImproveTSPDL50Kicks(b *testing.B) {
	benchImprove(b, lazymask.TSPDL, 50, Options{Kicks: 50, Seed: 1})
}

func benchImprove(b *testing.B, prob lazymask.Problem, n int, opt Options) {
	rng := rand.New(rand.NewPCG(9, 9))
	const pool = 32
	insts := make([]*lazymask.Instance, pool)
	tours := make([][]int, pool)
	for i := range insts {
		if prob == lazymask.TSPTW {
			insts[i], tours[i] = randTSPTW(rng, n, euclid, 5)
		} else {
			insts[i], tours[i] = randTSPDL(rng, n, euclid, 0.3)
		}
		insts[i].Matrix()
	}
	b.ResetTimer()
	moves := 0
	for i := 0; i < b.N; i++ {
		res, err := Improve(insts[i%pool], tours[i%pool], opt)
		if err != nil {
			b.Fatal(err)
		}
		moves += res.Moves
	}
	b.ReportMetric(float64(moves)/float64(b.N), "moves/op")
}

// BenchmarkImproveFromTSPTW50 measures one multi-start search per
// operation: eight feasible starts (the hidden tour of a wide-window
// TSPTW-50 instance under random feasible relocations), as lmask-infer
// --improve runs on the eight decoded tours.
func BenchmarkImproveFromTSPTW50(b *testing.B) {
	rng := rand.New(rand.NewPCG(10, 10))
	const pool = 16
	insts := make([]*lazymask.Instance, pool)
	starts := make([][][]int, pool)
	for i := range insts {
		var hidden []int
		insts[i], hidden = randTSPTW(rng, 50, euclid, 5)
		insts[i].Matrix()
		for s := 0; s < 8; s++ {
			starts[i] = append(starts[i], relocateFeasibly(rng, insts[i], hidden, 20))
		}
	}
	b.ResetTimer()
	moves := 0
	for i := 0; i < b.N; i++ {
		res, err := ImproveFrom(insts[i%pool], starts[i%pool], Options{})
		if err != nil {
			b.Fatal(err)
		}
		moves += res.Moves
	}
	b.ReportMetric(float64(moves)/float64(b.N), "moves/op")
}

// relocateFeasibly returns tour with up to count random single-node
// relocations, each kept only if the tour stays feasible.
func relocateFeasibly(rng *rand.Rand, in *lazymask.Instance, tour []int, count int) []int {
	t := append([]int(nil), tour...)
	n := len(t)
	for c := 0; c < count; c++ {
		i, j := 1+rng.IntN(n-1), 1+rng.IntN(n-1)
		next := slices.Insert(slices.Delete(append([]int(nil), t...), i, i+1), j, t[i])
		if r, _ := lazymask.Check(in, next); r.Feasible {
			t = next
		}
	}
	return t
}

// BenchmarkMergeTSPTW50 measures one merge (state.merge) of two feasible
// TSPTW-50 local optima that differ in places, per operation.
func BenchmarkMergeTSPTW50(b *testing.B) {
	rng := rand.New(rand.NewPCG(11, 11))
	const pool = 16
	type pair struct {
		st   *state
		a, c []int
	}
	pairs := make([]pair, 0, pool)
	for len(pairs) < pool {
		in, hidden := randTSPTW(rng, 50, euclid, 4)
		in.Matrix()
		ra, err := Improve(in, relocateFeasibly(rng, in, hidden, 20), Options{NoMerge: true})
		if err != nil {
			b.Fatal(err)
		}
		rc, err := Improve(in, relocateFeasibly(rng, in, hidden, 20), Options{NoMerge: true})
		if err != nil {
			b.Fatal(err)
		}
		pairs = append(pairs, pair{newState(in, nil), ra.Tour, rc.Tour})
	}
	var mg merger
	var dst []int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := pairs[i%pool]
		dst, _ = p.st.merge(&mg, p.a, p.c, dst)
	}
}

// BenchmarkTriangleDefect250 measures the O(N³) triangle-defect pass of a
// 251-node explicit matrix (newState runs it once per search).
func BenchmarkTriangleDefect250(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 251
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], y[i] = rng.Float64(), rng.Float64()
	}
	m := randMatrix(rng, n, rounded, x, y)
	for i := 0; i < b.N; i++ {
		triangleDefect(m, n)
	}
}

// BenchmarkNewState250 measures a search's setup on a 250-node TSPTW
// instance with an explicit matrix, deriving its data itself (plain) and
// from a Prepared (the checksum compared, the neighbour lists built).
func BenchmarkNewState250(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	in, _ := randTSPTW(rng, 250, rounded, 4)
	prep := Prepare(in)
	b.Run("plain", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			newState(in, nil)
		}
	})
	b.Run("prepared", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if !prep.matches(in) {
				b.Fatal("the Prepared does not match its instance")
			}
			newState(in, prep)
		}
	})
}
