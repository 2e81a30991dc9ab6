package infer

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
	"github.com/lmask/lmask/solve"
)

func verdictOf(s datasets.Solution) lazymask.Verdict {
	if s.Tour == nil {
		return lazymask.Verdict{}
	}
	ex := 0.0
	if !s.Feasible {
		ex = s.Violation // a tie-break only here: the rows compared are feasible or not
	}
	return lazymask.Verdict{Complete: true, Feasible: s.Feasible, Cost: s.Cost, Excess: ex, ViolatedNodes: s.ViolatedNodes}
}

// TestBaseline: the best row of an instance is its first best tour of all
// its tours in the order of lazymask.Compare, and every verdict is the
// checker's.
func TestBaseline(t *testing.T) {
	cfg := datasets.GenConfig{Problem: lazymask.TSPTW, N: 12, Hardness: datasets.Medium, Seed: 8}
	insts, _, err := datasets.Generate(cfg, 6)
	if err != nil {
		t.Fatal(err)
	}
	lc := lazymask.Config{Lookahead: lazymask.LookTSL, Budget: 5, Semantics: lazymask.Test, Seed: 3}
	all, err := Baseline(context.Background(), insts, "random-l", 4, lc, 2, true)
	if err != nil {
		t.Fatal(err)
	}
	best, err := Baseline(context.Background(), insts, "random-l", 4, lc, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 4*len(insts) || len(best) != len(insts) {
		t.Fatalf("%d and %d rows", len(all), len(best))
	}
	for i, b := range best {
		rows := all[4*i : 4*i+4]
		want := rows[0]
		for _, r := range rows[1:] {
			if lazymask.Compare(verdictOf(r), verdictOf(want)) < 0 {
				want = r
			}
		}
		if b.Instance != int64(i) || !slices.Equal(b.Tour, want.Tour) || b.Source != "random-l" {
			t.Fatalf("instance %d: best row %+v, want the tour %v", i, b, want.Tour)
		}
		if res, err := lazymask.Check(insts[i], b.Tour); b.Tour != nil && (res.Feasible != b.Feasible || math.Abs(res.Cost-b.Cost) > 1e-12 || (err == nil) != b.Feasible) {
			t.Fatalf("instance %d: row %+v, checker %+v", i, b, res)
		}
	}
	if got := BaselineSettings("random-l", 4, lc); got != "policy=random-l samples=4 budget=5 lookahead=tsl seed=3" {
		t.Errorf("settings %q", got)
	}
	if got := BaselineSettings("urgency", 4, lc); got != "policy=urgency" {
		t.Errorf("urgency settings %q", got)
	}
	im := datasets.Metadata{Kind: datasets.KindInstances, Problem: "tsptw", Size: 12, Hardness: "medium", Scale: 100, Source: "generator", Extra: map[string]string{"x": "y"}}
	want := datasets.Metadata{Kind: datasets.KindSolutions, Problem: "tsptw", Size: 12, Hardness: "medium", Scale: 100,
		Source: "random-l", Instances: "in.parquet", Extra: map[string]string{"lmask.baseline": "s"}}
	if got := BaselineMeta(im, "in.parquet", "random-l", "s"); !reflect.DeepEqual(got, want) {
		t.Errorf("metadata %+v, want %+v", got, want)
	}
	if _, err := Baseline(context.Background(), insts, "greedy", 1, lc, 1, false); err == nil || !strings.Contains(err.Error(), `unknown policy "greedy"`) {
		t.Errorf("unknown policy: %v", err)
	}
}

// TestImproveSolutions: row by row, each tour is searched with seed+row
// and a row without a tour is copied; per instance, one row each, the
// search from all the instance's tours; a row naming no instance is an
// error naming the file and the row.
func TestImproveSolutions(t *testing.T) {
	cfg := datasets.GenConfig{Problem: lazymask.TSPTW, N: 12, Hardness: datasets.Easy, Seed: 2}
	insts, _, err := datasets.Generate(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	lc := lazymask.Config{Lookahead: lazymask.LookTSL, Budget: 5, Semantics: lazymask.Test, Seed: 1}
	sols, err := Baseline(context.Background(), insts, "uniform", 3, lc, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	sols = append(sols, datasets.Solution{Instance: 1, Cost: math.Inf(1), Source: "none"})
	opt := solve.Options{Search: localsearch.Options{Kicks: 2}, Workers: 2}
	rows, st, err := ImproveSolutions(context.Background(), insts, sols, "s.parquet", opt, 10, false)
	if err != nil {
		t.Fatal(err)
	}
	withTour := 0
	for _, s := range sols {
		if s.Tour != nil {
			withTour++
		}
	}
	if len(rows) != len(sols) || st.Searched != withTour || withTour < 6 || rows[len(rows)-1].Source != "none" || rows[len(rows)-1].Tour != nil {
		t.Fatalf("%d rows, %d searched of %d with a tour, last %+v", len(rows), st.Searched, withTour, rows[len(rows)-1])
	}
	for r, s := range sols {
		if s.Tour == nil {
			if !reflect.DeepEqual(rows[r], s) {
				t.Fatalf("row %d without a tour changed: %+v", r, rows[r])
			}
			continue
		}
		want, err := localsearch.ImproveFrom(insts[s.Instance], [][]int{s.Tour}, localsearch.Options{Kicks: 2, Seed: 10 + uint64(r)})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rows[r].Tour, want.Tour) || rows[r].Source != "uniform+ls" || rows[r].Feasible != want.Feasible {
			t.Fatalf("row %d: %+v, want the tour %v", r, rows[r], want.Tour)
		}
	}
	per, _, err := ImproveSolutions(context.Background(), insts, sols, "s.parquet", opt, 10, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(per) != len(insts) {
		t.Fatalf("%d rows per instance", len(per))
	}
	for i, s := range per {
		var starts [][]int
		for _, r := range sols {
			if r.Instance == int64(i) && r.Tour != nil {
				starts = append(starts, r.Tour)
			}
		}
		want, _ := localsearch.ImproveFrom(insts[i], starts, localsearch.Options{Kicks: 2, Seed: 10 + uint64(i)})
		if s.Instance != int64(i) || !slices.Equal(s.Tour, want.Tour) {
			t.Fatalf("instance %d: %+v, want the tour %v", i, s, want.Tour)
		}
	}
	bad := append(slices.Clone(sols), datasets.Solution{Instance: 7, Tour: []int{0, 1}})
	var re *datasets.RowError
	if _, _, err := ImproveSolutions(context.Background(), insts, bad, "s.parquet", opt, 10, false); !errors.As(err, &re) || re.File != "s.parquet" || re.Row != int64(len(sols)) || re.Field != "instance" {
		t.Errorf("instance out of range: %v", err)
	}
}
