package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"

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

// BenchmarkDecoderStepFormats measures one decoder step (64 encoded
// TSPTW-50 instances, 512 rows, the reference size: d 128, 8 heads) in
// format 1 and in each format-2 decoder on the same rows, and reports the
// time per row, the ratio to format 1 and the share of it spent building
// the candidate features on the Go side. Ratios compare within one run;
// the machine's speed varies between runs. (Whole greedy decodes with
// random weights would time their backtracking instead.)
func BenchmarkDecoderStepFormats(b *testing.B) {
	if err := Available(); err != nil {
		b.Skipf("onnxruntime not available (set %s): %v", LibraryEnv, err)
	}
	base := features.DefaultConfig(lazymask.TSPTW)
	base.TrainSize = 50
	insts := randomInstances(lazymask.TSPTW, 64, 50, 5)
	sb := syntheticBatch(insts, 512, 6)
	out := make([]float32, 512*50)
	var first float64
	for _, v := range []struct {
		name string
		reld bool
		cand string
	}{{"format1", false, ""}, {"reld", true, ""}, {"bias", false, features.CandBias}, {"keys", false, features.CandKeys},
		{"both", false, features.CandBoth}, {"reld+both", true, features.CandBoth}} {
		cfg := base.WithDecoder(v.reld, v.cand)
		dir := b.TempDir()
		if err := onnx.ExportDir(dir, cfg, features.DenseRandomWeights(cfg, 1)); err != nil {
			b.Fatal(err)
		}
		e, err := Open(dir, Options{Threads: 1, Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		p := e.NewPolicy()
		if err := p.Begin(insts); err != nil {
			b.Fatal(err)
		}
		b.Run(v.name, func(b *testing.B) {
			p.Timing = Timing{}
			for i := 0; i < b.N; i++ {
				if err := p.Scores(sb, out); err != nil {
					b.Fatal(err)
				}
			}
			us := float64(b.Elapsed().Microseconds()) / float64(b.N*sb.Rows())
			if v.name == "format1" {
				first = us
			}
			b.ReportMetric(us, "µs/row")
			if first > 0 {
				b.ReportMetric(us/first, "×format1")
			}
			b.ReportMetric(100*p.Timing.Features.Seconds()/b.Elapsed().Seconds(), "%features")
		})
		p.Close()
		e.Close()
	}
}

// BenchmarkInt8Decode decodes 64 random TSPTW-50 instances greedily under
// 2 transforms (the network part of --preset best) with the shipped
// TSPTW-50 medium network in float32 and in its int8 copies (encoder only;
// encoder and decoder), and in float32 under other session options; the
// variants alternate within each iteration and the metrics are the
// process's CPU time (user + sys) per instance and the median ratio to
// float32 of the same iteration.
func BenchmarkInt8Decode(b *testing.B) {
	if err := Available(); err != nil {
		b.Skipf("onnxruntime not available (set %s): %v", LibraryEnv, err)
	}
	dir := filepath.Join("..", "models", "pretrained", "tsptw50-medium")
	if _, err := os.Stat(filepath.Join(dir, features.EncoderFile)); err != nil {
		b.Skipf("shipped model not present: %v", err)
	}
	enc, both := b.TempDir(), b.TempDir()
	if _, err := onnx.QuantizeDir(dir, enc, onnx.QuantOptions{}, false); err != nil {
		b.Fatal(err)
	}
	if _, err := onnx.QuantizeDir(dir, both, onnx.QuantOptions{Decoder: true}, false); err != nil {
		b.Fatal(err)
	}
	variants := []struct {
		name string
		dir  string
		opts Options
	}{
		{"float32", dir, Options{Threads: 1, Workers: 2}},
		{"int8-encoder", enc, Options{Threads: 1, Workers: 2}},
		{"int8-both", both, Options{Threads: 1, Workers: 2}},
		{"float32-opt-basic", dir, Options{Threads: 1, Workers: 2, GraphOptimization: "basic"}},
		{"float32-threads2", dir, Options{Threads: 2, Workers: 2}},
		{"float32-threads2-nospin", dir, Options{Threads: 2, Workers: 2, NoSpinning: true}},
		{"int8-encoder-threads2-nospin", enc, Options{Threads: 2, Workers: 2, NoSpinning: true}},
	}
	engines := make([]*Engine, len(variants))
	for i, v := range variants {
		e, err := Open(v.dir, v.opts)
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		engines[i] = e
	}
	insts := randomInstances(lazymask.TSPTW, 64, 50, 17)
	so := SolveOptions{Aug: 2, Budget: 100}
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	per := make([][]float64, len(variants))
	ratios := make([][]float64, len(variants))
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		for i, e := range engines {
			c0 := cpu()
			if _, err := e.Solve(insts, so); err != nil {
				b.Fatal(err)
			}
			per[i] = append(per[i], float64((cpu()-c0).Microseconds())/float64(len(insts)))
		}
		for i := range variants {
			ratios[i] = append(ratios[i], per[i][it]/per[0][it])
		}
	}
	for i, v := range variants {
		b.ReportMetric(median(per[i]), "cpu-µs/inst-"+v.name)
		b.ReportMetric(median(ratios[i]), "ratio-"+v.name)
	}
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
