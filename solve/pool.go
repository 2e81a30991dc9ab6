package solve

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers returns the worker count n stands for: n itself when positive,
// else runtime.GOMAXPROCS.
func Workers(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// ForEach calls f(0), …, f(n−1) on Workers(workers) goroutines, handing
// out indices in order as the goroutines become free, and returns when all
// calls have returned.
func ForEach(n, workers int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(Workers(workers), max(n, 1)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		}()
	}
	wg.Wait()
}
