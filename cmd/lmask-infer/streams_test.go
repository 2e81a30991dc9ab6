package main

import (
	"reflect"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// With the same --seed, sampled tours are the same whatever --batch (1, 7,
// the default) and --workers; --limit keeps the first rows' tours. The file
// has row groups of 7, so the batches cut across them differently.
func TestInferSampledToursReproducible(t *testing.T) {
	needRuntime(t)
	data, _, _ := fixture(t, lazymask.TSPTW, datasets.Hard, 10, 16)
	tours := func(args ...string) [][]int {
		var out [][]int
		for _, s := range solveTiny(t, data, append([]string{"--samples", "3", "--aug", "2", "--all-tours", "--seed", "5", "--budget", "3"}, args...)...) {
			out = append(out, s.Tour)
		}
		return out
	}
	want := tours()
	if len(want) != 16*6 {
		t.Fatalf("%d rows, want %d", len(want), 16*6)
	}
	for _, args := range [][]string{{"--batch", "1"}, {"--batch", "7"}, {"--batch", "7", "--workers", "1"}, {"--batch", "1", "--workers", "2"}, {"--workers", "1"}} {
		if got := tours(args...); !reflect.DeepEqual(got, want) {
			t.Errorf("%v: sampled tours differ from the default batching", args)
		}
	}
	if got := tours("--limit", "9", "--batch", "2"); !reflect.DeepEqual(got, want[:9*6]) {
		t.Error("--limit 9 changes the first 9 instances' tours")
	}
}
