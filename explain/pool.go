package explain

import (
	"context"
	"runtime"
	"sync"

	"github.com/lmask/lmask/lazymask"
)

// All explains every instance on workers goroutines (0 or less: one per
// core, GOMAXPROCS), each
// instance with its own copy, so the results do not depend on the worker
// count (up to the time limits). errs[i] is Explain's error for insts[i].
func All(insts []*lazymask.Instance, opt Options, workers int) ([]Explanation, []error) {
	return AllContext(context.Background(), insts, opt, workers)
}

// AllContext is All, ended early when ctx is done: the explanations under
// way return what they had decided (ExplainContext), and the instances not
// begun get ctx's error.
func AllContext(ctx context.Context, insts []*lazymask.Instance, opt Options, workers int) ([]Explanation, []error) {
	out := make([]Explanation, len(insts))
	errs := make([]error, len(insts))
	next := make(chan int)
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := ctx.Err(); err != nil {
					errs[i] = err
					continue
				}
				out[i], errs[i] = ExplainContext(ctx, insts[i].Clone(), opt)
			}
		}()
	}
	for i := range insts {
		next <- i
	}
	close(next)
	wg.Wait()
	return out, errs
}
