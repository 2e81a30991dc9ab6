package engine

import (
	"fmt"
	"testing"

	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
	"github.com/lmask/lmask/models/onnx"
)

// defaultModel exports the reference-size TSPTW model (random weights).
func defaultModel(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	cfg := features.DefaultConfig(lazymask.TSPTW)
	cfg.TrainSize = 50
	if err := onnx.ExportDir(dir, cfg, features.RandomWeights(cfg, 1)); err != nil {
		b.Fatal(err)
	}
	return dir
}

// BenchmarkEncoder measures encoder.onnx per instance (N=50, d=128, 6
// layers) for several chunk sizes and thread counts.
func BenchmarkEncoder(b *testing.B) {
	if err := Available(); err != nil {
		b.Skipf("onnxruntime not available (set %s): %v", LibraryEnv, err)
	}
	dir := defaultModel(b)
	insts := randomInstances(lazymask.TSPTW, 256, 50, 1)
	for _, threads := range []int{1, 2} {
		e, err := Open(dir, Options{Threads: threads, Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		for _, chunk := range []int{8, 16, 64} {
			b.Run(fmt.Sprintf("threads=%d/chunk=%d", threads, chunk), func(b *testing.B) {
				p := e.NewPolicy()
				p.EncodeChunk = chunk
				defer p.Close()
				for i := 0; i < b.N; i++ {
					if err := p.Begin(insts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(insts)), "µs/inst")
			})
		}
		e.Close()
	}
}

// BenchmarkDecoderStep measures one decoder.onnx run for R rows over B
// encoded instances.
func BenchmarkDecoderStep(b *testing.B) {
	if err := Available(); err != nil {
		b.Skipf("onnxruntime not available (set %s): %v", LibraryEnv, err)
	}
	dir := defaultModel(b)
	e, err := Open(dir, Options{Threads: 1, Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	for _, bb := range []int{64, 512} {
		insts := randomInstances(lazymask.TSPTW, bb, 50, 2)
		p := e.NewPolicy()
		if err := p.Begin(insts); err != nil {
			b.Fatal(err)
		}
		for _, r := range []int{64, 512} {
			b.Run(fmt.Sprintf("B=%d/R=%d", bb, r), func(b *testing.B) {
				sb := syntheticBatch(insts, r, 3)
				out := make([]float32, r*50)
				for i := 0; i < b.N; i++ {
					if err := p.Scores(sb, out); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*r), "µs/row")
			})
		}
		p.Close()
	}
}
