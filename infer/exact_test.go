package infer

import (
	"math"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/exact"
	"github.com/lmask/lmask/lazymask"
)

// bruteForce is the least cost of a feasible tour of in over every order
// of its customers (+Inf where none is feasible).
func bruteForce(in *lazymask.Instance) float64 {
	best := math.Inf(1)
	perm := make([]int, in.N-1)
	for i := range perm {
		perm[i] = i + 1
	}
	var rec func(k int)
	rec = func(k int) {
		if k == len(perm) {
			if res, err := lazymask.Check(in, append([]int{0}, perm...)); err == nil && res.Feasible && res.Cost < best {
				best = res.Cost
			}
			return
		}
		for i := k; i < len(perm); i++ {
			perm[k], perm[i] = perm[i], perm[k]
			rec(k + 1)
			perm[k], perm[i] = perm[i], perm[k]
		}
	}
	rec(0)
	return best
}

// TestExactReferences: each row is a checked tour as short as the best of
// all orders, on two workers as on one; an instance too large for the
// labels is an error naming the file and its row.
func TestExactReferences(t *testing.T) {
	cfg := datasets.GenConfig{Problem: lazymask.TSPTW, N: 7, Hardness: datasets.Hard, Seed: 5}
	insts, known, err := datasets.Generate(cfg, 4)
	if err != nil {
		t.Fatal(err)
	}
	d := &datasets.Dataset{Meta: datasets.Metadata{Kind: datasets.KindInstances, Problem: "tsptw", Size: 7, Hardness: datasets.Hard, Scale: 100},
		Instances: insts, KnownTours: known}
	sols, meta, err := ExactReferences(d, "in.parquet", 2, exact.Options{MaxLabels: exact.DefaultMaxLabels})
	if err != nil {
		t.Fatal(err)
	}
	if len(sols) != len(insts) || meta.Kind != datasets.KindSolutions || meta.Source != "optimal" || meta.Instances != "in.parquet" ||
		meta.Problem != "tsptw" || meta.Size != 7 || meta.Scale != 100 {
		t.Fatalf("%d rows, metadata %+v", len(sols), meta)
	}
	for i, s := range sols {
		want := bruteForce(insts[i])
		if s.Instance != int64(i) || !s.Feasible || s.Source != "optimal" || math.Abs(s.Cost-want) > 1e-9 {
			t.Errorf("row %d: %+v, want a feasible tour of cost %v", i, s, want)
		}
	}
	one, _, err := ExactReferences(d, "in.parquet", 1, exact.Options{MaxLabels: exact.DefaultMaxLabels})
	if err != nil {
		t.Fatal(err)
	}
	for i := range one {
		if one[i].Cost != sols[i].Cost {
			t.Errorf("row %d: cost %v on one worker, %v on two", i, one[i].Cost, sols[i].Cost)
		}
	}
	if _, _, err := ExactReferences(d, "in.parquet", 1, exact.Options{MaxLabels: 1}); err == nil || !strings.HasPrefix(err.Error(), "in.parquet row 0: ") {
		t.Errorf("too few labels: %v", err)
	}
}
