package localsearch

import (
	"math/rand/v2"
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

// BenchmarkImproveTSPDL50 measures one descent from a feasible TSPDL-50
// tour per operation.
func BenchmarkImproveTSPDL50(b *testing.B) {
	benchImprove(b, lazymask.TSPDL, 50, Options{})
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
