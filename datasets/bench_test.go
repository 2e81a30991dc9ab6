package datasets

import (
	"path/filepath"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

// BenchmarkGenerateWrite100k generates and writes 100,000 hard TSPTW-50
// instances (with their known tours) to a Parquet file.
func BenchmarkGenerateWrite100k(b *testing.B) {
	dir := b.TempDir()
	for i := 0; i < b.N; i++ {
		path := filepath.Join(dir, "g.parquet")
		if _, err := GenerateFile(path, GenConfig{Problem: lazymask.TSPTW, N: 50, Hardness: Hard, Seed: uint64(i)}, 100000, WriterOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheck100k replays 100,000 TSPTW-50 tours with Evaluate.
func BenchmarkCheck100k(b *testing.B) {
	insts, tours, err := Generate(GenConfig{Problem: lazymask.TSPTW, N: 50, Hardness: Hard, Seed: 1}, 100000)
	if err != nil {
		b.Fatal(err)
	}
	sols := make([]Solution, len(insts))
	for i := range sols {
		sols[i] = Solution{Instance: int64(i), Tour: tours[i]}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := Evaluate(insts, sols, nil)
		if err != nil || m.FeasibleTours != len(insts) {
			b.Fatalf("%v %d", err, m.FeasibleTours)
		}
	}
}
