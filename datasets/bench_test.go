package datasets

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

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

// BenchmarkImportCSV imports stops CSVs of TSPTW instances of 100 stops
// (service times, 6-decimal coordinates) with ImportCSV and reports
// instances per second and the peak heap, sampled every 10 ms: the heap
// stays flat as the file grows (one instance and one row group held).
// instances/cpu-s divides by the process's CPU time (user + system), the
// per-core figure on a machine shared with other work.
func BenchmarkImportCSV(b *testing.B) {
	for _, count := range []int{5000, 20000} {
		b.Run(fmt.Sprintf("instances=%d", count), func(b *testing.B) {
			dir := b.TempDir()
			in := filepath.Join(dir, "stops.csv")
			writeBenchCSV(b, in, count, 100)
			st, _ := os.Stat(in)
			b.SetBytes(st.Size())
			b.ReportAllocs()
			var peak uint64
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				var ms runtime.MemStats
				for {
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapInuse)
					select {
					case <-stop:
						return
					case <-time.After(10 * time.Millisecond):
					}
				}
			}()
			cpu0 := cpuSeconds()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				out := filepath.Join(dir, fmt.Sprintf("i%d.parquet", i))
				sum, err := ImportCSV(in, "", out, CSVOptions{})
				if err != nil || sum.Instances != int64(count) {
					b.Fatal(sum, err)
				}
				os.Remove(out)
			}
			b.StopTimer()
			cpu := cpuSeconds() - cpu0
			close(stop)
			<-done
			b.ReportMetric(float64(count)*float64(b.N)/b.Elapsed().Seconds(), "instances/s")
			b.ReportMetric(float64(count)*float64(b.N)/cpu, "instances/cpu-s")
			b.ReportMetric(float64(peak)/(1<<20), "MiB-peak-heap")
		})
	}
}

// writeBenchCSV writes count random TSPTW instances of n stops.
func writeBenchCSV(b *testing.B, path string, count, n int) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	w.WriteString("instance,node,x,y,ready,due,service\n")
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < count; i++ {
		for k := 0; k < n; k++ {
			ready, width, service := float64(r.IntN(400)), 30+float64(r.IntN(120)), float64(5+r.IntN(10))
			if k == 0 {
				ready, width, service = 0, 2000, 0
			}
			fmt.Fprintf(w, "day-%d,%d,%.6f,%.6f,%g,%g,%g\n", i, k, r.Float64()*100, r.Float64()*100, ready, ready+width, service)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
}

// cpuSeconds is the process's user and system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
