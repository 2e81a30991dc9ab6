package infer

import (
	"reflect"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// With the same seed, sampled tours are the same whatever the batch (1, 7,
// the default) and the workers; Limit keeps the first rows' tours. The
// file has row groups of 7, so the batches cut across them differently.
func TestRunSampledToursReproducible(t *testing.T) {
	needRuntime(t)
	data, _, _ := fixture(t, lazymask.TSPTW, datasets.Hard, 10, 16)
	tours := func(edit func(o *Options)) [][]int {
		var out [][]int
		for _, s := range solveTiny(t, data, func(o *Options) {
			o.Decode.Samples, o.Decode.Aug, o.AllTours, o.Decode.Seed, o.Decode.Budget, o.PaperBudget = 3, 2, true, 5, 3, false
			edit(o)
		}) {
			out = append(out, s.Tour)
		}
		return out
	}
	want := tours(func(*Options) {})
	if len(want) != 16*6 {
		t.Fatalf("%d rows, want %d", len(want), 16*6)
	}
	for _, c := range []struct{ batch, workers int }{{1, 0}, {7, 0}, {7, 1}, {1, 2}, {4, 1}} {
		if got := tours(func(o *Options) { o.Decode.Batch, o.Engine.Workers = c.batch, c.workers }); !reflect.DeepEqual(got, want) {
			t.Errorf("batch %d, workers %d: sampled tours differ from the default batching", c.batch, c.workers)
		}
	}
	if got := tours(func(o *Options) { o.Limit, o.Decode.Batch = 9, 2 }); !reflect.DeepEqual(got, want[:9*6]) {
		t.Error("Limit 9 changes the first 9 instances' tours")
	}
}
