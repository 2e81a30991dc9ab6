package infer

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/solve"
)

func TestWriteImproveTable(t *testing.T) {
	st := solve.Stats{Starts: 4, Moves: 9, Changed: 3, Repaired: 1, Elapsed: 20 * time.Millisecond}
	b := datasets.Metrics{FeasibleTours: 3, MissingTours: 1, SolInfeasible: 0.25, InstInfeasible: 0.25, Obj: 5.5, Gap: math.NaN(), MeanLength: 6}
	a := datasets.Metrics{FeasibleTours: 4, Obj: 5, Gap: 0.01, GapFeasibleRef: 0.02, RefInfeasible: 1, MeanLength: 5}
	var w strings.Builder
	WriteImproveTable(&w, st, 2*time.Second, b, a, true)
	want := "tours            4 improved by 9 moves (3 changed, 1 repaired); 1 rows without a tour\n" +
		"time             2.000s wall, 5.000 ms per tour\n" +
		"                         before          after\n" +
		"feasible tours                3              4\n" +
		"sol_infeasible         25.0000%        0.0000%\n" +
		"inst_infeasible        25.0000%        0.0000%\n" +
		"obj                         5.5              5\n" +
		"gap                     0.0000%        1.0000%\n" +
		"gap_feasible_ref        0.0000%        2.0000% (1 reference tours break a constraint)\n" +
		"mean_length                   6              5\n"
	if w.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", w.String(), want)
	}
	w.Reset()
	WriteImproveTable(&w, solve.Stats{}, 0, b, a, false)
	if strings.Contains(w.String(), "gap") || !strings.Contains(w.String(), "0.000 ms per tour") {
		t.Fatalf("without gap or starts:\n%s", w.String())
	}
}

func TestWriteBaselineTable(t *testing.T) {
	m := datasets.Metrics{Instances: 2, Rows: 2, Tours: 2, FeasibleTours: 2, ObjCount: 2, Obj: 5.5, ObjOrig: 550}
	var w, table strings.Builder
	WriteBaselineTable(&w, "policy=urgency", 1500*time.Millisecond, m, false)
	m.WriteTable(&table, false)
	want := "policy           policy=urgency\n" + "time             1.500s wall\n" + table.String()
	if w.String() != want || !strings.Contains(want, "obj") {
		t.Fatalf("got\n%s\nwant\n%s", w.String(), want)
	}
}

func TestImprovedMeta(t *testing.T) {
	in := datasets.Metadata{Source: "lmask", Extra: map[string]string{"k": "v"}}
	opt := solve.Options{Urgency: true}
	got := ImprovedMeta(in, "i.parquet", opt, 3, true)
	want := DescribeSearch(opt.Search, 3) + " per_instance=true urgency=true"
	if got.Extra["lmask.localsearch"] != want || got.Extra["k"] != "v" || got.Instances != "i.parquet" || got.Source != "lmask" {
		t.Fatalf("per instance: %+v", got)
	}
	if _, ok := in.Extra["lmask.localsearch"]; ok {
		t.Fatal("the input's metadata was changed")
	}
	got = ImprovedMeta(datasets.Metadata{Instances: "a.parquet"}, "i.parquet", opt, 3, false)
	if got.Extra["lmask.localsearch"] != DescribeSearch(opt.Search, 3) || got.Instances != "a.parquet" {
		t.Fatalf("per row: %+v", got)
	}
}
