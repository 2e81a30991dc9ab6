package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
	"github.com/lmask/lmask/models/onnx"
)

// cpuTime returns the user+system CPU time of the process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadAvg returns the first field of /proc/loadavg ("?" if unreadable).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil || len(b) == 0 {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

// envInt reads an integer knob of the benchmark from the environment.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkSolveTSPTW50Hard solves generated TSPTW-50 hard instances with
// the reference-size model (d=128, 6 layers, random weights): greedy ×8
// augmentations, R=200, TSL, test semantics — the paper's evaluation
// setting. It reports the time split and extrapolates to 10,000 instances.
// Knobs: LMASK_BENCH_INSTANCES (default 1000), LMASK_BENCH_BATCH,
// LMASK_BENCH_WORKERS, LMASK_BENCH_THREADS, LMASK_BENCH_CHUNK.
func BenchmarkSolveTSPTW50Hard(b *testing.B) {
	if err := engine.Available(); err != nil {
		b.Skipf("onnxruntime not available (set %s): %v", engine.LibraryEnv, err)
	}
	count := envInt("LMASK_BENCH_INSTANCES", 1000)
	insts, _, err := datasets.Generate(datasets.GenConfig{Problem: lazymask.TSPTW, N: 50, Hardness: datasets.Hard, Seed: 2025}, count)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	cfg := features.DefaultConfig(lazymask.TSPTW)
	cfg.TrainSize = 50
	if err := onnx.ExportDir(dir, cfg, features.RandomWeights(cfg, 1)); err != nil {
		b.Fatal(err)
	}
	e, err := engine.Open(dir, engine.Options{Workers: envInt("LMASK_BENCH_WORKERS", 0), Threads: envInt("LMASK_BENCH_THREADS", 0)})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	b.ResetTimer()
	for it := 0; it < b.N; it++ {
		s, err := e.NewSolver(engine.SolveOptions{Aug: 8, Budget: 200, Lookahead: lazymask.LookTSL,
			Batch: envInt("LMASK_BENCH_BATCH", engine.DefaultBatch)})
		if err != nil {
			b.Fatal(err)
		}
		start, cpu0 := time.Now(), cpuTime()
		sols, err := s.Solve(insts)
		if err != nil {
			b.Fatal(err)
		}
		wall, cpu := time.Since(start), cpuTime()-cpu0
		s.Close()
		st := s.Stats()
		feas := 0
		for _, sol := range sols {
			if sol.Best.Feasible {
				feas++
			}
		}
		busy := st.Decode + st.Check
		pct := func(d time.Duration) float64 { return 100 * d.Seconds() / busy.Seconds() }
		b.ReportMetric(wall.Seconds()*10000/float64(count), "s/10k")
		fmt.Printf("instances %d (×8 aug, greedy, R=200, TSL), workers %d, threads %d, batch %d: wall %.2f s → %.1f s per 10k\n",
			count, st.Workers, e.Options().Threads, envInt("LMASK_BENCH_BATCH", engine.DefaultBatch), wall.Seconds(), wall.Seconds()*10000/float64(count))
		fmt.Printf("  process CPU time %.2f s (%.1f CPU-s per 10k; %.1f s per 10k if both cores were free), load average during the run: %s\n",
			cpu.Seconds(), cpu.Seconds()*10000/float64(count), cpu.Seconds()*10000/float64(count)/2, loadAvg())
		fmt.Printf("  worker time %.2f s: encoder %.2f s (%.0f%%), decoder %.2f s (%.0f%%), go-side lazymask %.2f s (%.0f%%)\n",
			busy.Seconds(), st.Encoder.Seconds(), pct(st.Encoder), st.Decoder.Seconds(), pct(st.Decoder), st.GoSide().Seconds(), pct(st.GoSide()))
		fmt.Printf("  decoder runs %d, rows %d (%.0f rows/run, %.2f µs/row); instances with a feasible tour: %d\n",
			st.Runs, st.Rows, float64(st.Rows)/float64(st.Runs), st.Decoder.Seconds()*1e6/float64(st.Rows), feas)
	}
}
