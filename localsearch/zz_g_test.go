package localsearch

import (
	"os"
	"strconv"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/internal/testenv"
)

func TestZZG(t *testing.T) {
	name := os.Getenv("ZI")
	ref, _ := strconv.ParseFloat(os.Getenv("ZR"), 64)
	bm, _ := datasets.ImportBenchmark(testenv.SharedFile(t, "benchmarks", "tsptw-gendreau", name+".txt"), "", datasets.BenchmarkOptions{})
	in := bm.Dataset.Instances[0]
	ins, _ := InsertionTour(in, 20, 1)
	starts := [][]int{OrderTour(in)}
	if os.Getenv("ZS") == "ins" {
		starts = [][]int{ins}
	}
	for _, k := range []int{20, 50, 100, 200, 400, 800} {
		hits := 0
		sum := 0.0
		for seed := range 24 {
			r, _ := ImproveFrom(in, starts, Options{Kicks: k, Seed: uint64(seed)})
			g := r.Cost*in.Scale/ref - 1
			sum += g
			if g < 0.0001 {
				hits++
			}
		}
		t.Logf("kicks %d: %d/24 at ref, mean gap %.3f%%", k, hits, 100*sum/24)
	}
}
