package datasets

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

// square: depot (0,0), nodes (0,1), (1,1), (1,0); windows make 0-1-2-3 the
// only feasible order among the two tested.
func squareInstance() *lazymask.Instance {
	return &lazymask.Instance{Problem: lazymask.TSPTW, N: 4, Scale: 1,
		X: []float64{0, 0, 1, 1}, Y: []float64{0, 1, 1, 0},
		Early: []float64{0, 0, 0, 0}, Late: []float64{10, 1, 2, 3}, Service: make([]float64, 4)}
}

func TestEvaluateMetrics(t *testing.T) {
	a, b := squareInstance(), squareInstance()
	insts := []*lazymask.Instance{a, b}
	sols := []Solution{
		{Instance: 0, Tour: []int{0, 1, 2, 3}},      // feasible, length 4
		{Instance: 0, Tour: []int{0, 3, 2, 1}},      // arrives at 1 at time 3 > 1
		{Instance: 1, Tour: nil, Cost: math.Inf(1)}, // decoder gave up
		{Instance: 1, Tour: []int{0, 2, 1, 3}},      // arr(2)=√2 ok, arr(1)=√2+1 > 1
	}
	refs := []Solution{{Instance: 0, Cost: 3.2}, {Instance: 1, Cost: math.Inf(1)}}
	m, err := Evaluate(insts, sols, refs)
	if err != nil {
		t.Fatal(err)
	}
	if m.Instances != 2 || m.Rows != 4 || m.Tours != 3 || m.FeasibleTours != 1 || m.ViolatingTours != 2 || m.MissingTours != 1 {
		t.Fatalf("counts %+v", m)
	}
	if m.SolInfeasible != 0.75 || m.InstInfeasible != 0.5 || m.Obj != 4 || m.ObjCount != 1 {
		t.Fatalf("rates %+v", m)
	}
	if math.Abs(m.Gap-(4-3.2)/3.2) > 1e-12 || m.GapCount != 1 {
		t.Fatalf("gap %v over %d", m.Gap, m.GapCount)
	}
	wantMean := (4 + 4 + (math.Sqrt2 + 1 + math.Sqrt2 + 1)) / 3
	if math.Abs(m.MeanLength-wantMean) > 1e-12 {
		t.Fatalf("mean_length %v, want %v", m.MeanLength, wantMean)
	}
	if math.Abs(m.MaxViolation-(3*math.Sqrt2-2)) > 1e-12 { // tour 0 2 1 3: late √2 at 1, 2√2−2 at 3
		t.Fatalf("max violation %v", m.MaxViolation)
	}
	js, _ := json.Marshal(m)
	for _, k := range []string{`"instances":2`, `"tours":3`, `"sol_infeasible":0.75`, `"inst_infeasible":0.5`, `"obj":4`, `"mean_length":`, `"violating_tours":2`} {
		if !strings.Contains(string(js), k) {
			t.Errorf("json %s lacks %s", js, k)
		}
	}
	if m.Unsolved != 0 || !strings.Contains(string(js), `"unsolved_instances":0`) {
		t.Errorf("unsolved %d, json %s", m.Unsolved, js)
	}
	m2, _ := Evaluate(insts, nil, nil)
	js, _ = json.Marshal(m2)
	if !strings.Contains(string(js), `"obj":null`) || m2.InstInfeasible != 1 || m2.Unsolved != 2 || m2.MissingTours != 0 {
		t.Errorf("empty evaluation: %s", js)
	}
	// An instance no row names is unsolved (and infeasible); one whose only
	// row has no tour is not unsolved but counts a missing tour.
	m3, _ := Evaluate(insts, sols[2:3], nil)
	if m3.Unsolved != 1 || m3.MissingTours != 1 || m3.InstInfeasible != 1 {
		t.Errorf("one row without a tour: %+v", m3)
	}
}

func TestMatchSolutions(t *testing.T) {
	inst := Metadata{Kind: KindInstances, Problem: "tsptw", Size: 50, Hardness: "hard"}
	for _, tc := range []struct {
		sol        Metadata
		want, note string
	}{
		{Metadata{Problem: "tsptw", Size: 50, Hardness: "hard", Instances: "dir/i.parquet"}, "", ""},
		{Metadata{}, "", ""}, // files without metadata (other tools) pass
		{Metadata{Problem: "tspdl"}, "s.parquet holds tspdl solutions, but dir/i.parquet holds tsptw instances", ""},
		{Metadata{Problem: "tsptw", Size: 20}, "solutions of 20-node instances, but dir/i.parquet holds 50-node", ""},
		{Metadata{Problem: "tsptw", Hardness: "easy"}, "solutions of easy instances, but dir/i.parquet holds hard", ""},
		{Metadata{Problem: "tsptw", Instances: "other/x.parquet"}, "", "written for the instances in other/x.parquet, here read with dir/i.parquet"},
	} {
		note, err := MatchSolutions("dir/i.parquet", inst, "s.parquet", tc.sol)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.sol, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: error %v, want %q", tc.sol, err, tc.want)
		case tc.note == "" && note != "", tc.note != "" && !strings.Contains(note, tc.note):
			t.Errorf("%+v: note %q, want %q", tc.sol, note, tc.note)
		}
	}
}

// TestReadMatchedSolutions reads a solutions file with its rows, metadata
// and MatchSolutions' note, and refuses one of other instances.
func TestReadMatchedSolutions(t *testing.T) {
	dir := t.TempDir()
	sp := filepath.Join(dir, "s.parquet")
	rows := []Solution{{Instance: 0, Tour: []int{0, 2, 1, 3}, Cost: 4.5, Feasible: true, Source: "x"}, {Instance: 1, Source: "x"}}
	if err := WriteSolutions(sp, Metadata{Kind: KindSolutions, Problem: "tsptw", Size: 4, Source: "x", Instances: "other/i.parquet"}, rows, WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	inst := Metadata{Kind: KindInstances, Problem: "tsptw", Size: 4}
	sols, meta, note, err := ReadMatchedSolutions(sp, "dir/i2.parquet", inst)
	if err != nil {
		t.Fatal(err)
	}
	if len(sols) != 2 || !slices.Equal(sols[0].Tour, []int{0, 2, 1, 3}) || sols[0].Cost != 4.5 || sols[1].Instance != 1 || sols[1].Tour != nil ||
		meta.Problem != "tsptw" || meta.Instances != "other/i.parquet" {
		t.Fatalf("rows %+v, metadata %+v", sols, meta)
	}
	if want := "note: " + sp + " was written for the instances in other/i.parquet, here read with dir/i2.parquet"; note != want {
		t.Errorf("note %q, want %q", note, want)
	}
	inst.Size = 5
	if sols, _, _, err := ReadMatchedSolutions(sp, "dir/i2.parquet", inst); err == nil || sols != nil ||
		err.Error() != sp+" holds solutions of 4-node instances, but dir/i2.parquet holds 5-node instances" {
		t.Errorf("other sizes: %v", err)
	}
	if _, _, _, err := ReadMatchedSolutions(filepath.Join(dir, "none.parquet"), "i.parquet", inst); err == nil || !strings.Contains(err.Error(), "none.parquet") {
		t.Errorf("missing file: %v", err)
	}
}

func TestEvaluateRejectsBadRows(t *testing.T) {
	insts := []*lazymask.Instance{squareInstance()}
	_, err := Evaluate(insts, []Solution{{Instance: 0, Tour: []int{0, 1, 1, 3}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "row 0: field tour") || !strings.Contains(err.Error(), "visited twice") {
		t.Errorf("non-permutation: %v", err)
	}
	_, err = Evaluate(insts, []Solution{{Instance: 0, Tour: []int{0, 1, 2, 3}}, {Instance: 3, Tour: []int{0, 1, 2, 3}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "row 1: field instance") {
		t.Errorf("out of range: %v", err)
	}
}

func TestNormaliseTourPicksFeasibleDirection(t *testing.T) {
	in := squareInstance()
	// stored reversed and rotated: 2 1 0 3 reversed is 2 3 0 1 -> from 0: 0 1 2 3
	tour, res, err := NormaliseTour(in, []int{2, 1, 0, 3})
	if err != nil || !res.Feasible || tour[1] != 1 || tour[3] != 3 {
		t.Fatalf("tour %v feasible %v err %v", tour, res.Feasible, err)
	}
	if _, _, err := NormaliseTour(in, []int{2, 1, 1, 3}); err == nil {
		t.Fatal("malformed cycle accepted")
	}
}

// TestTallyGapDefinitions pins the two gaps on a case where they differ.
// Every instance's best tour is 0-1-2-3 (length 4). The references: a
// feasible tour of cost 4 (gap 0), a tour that breaks a window with a
// recorded cost of 3.2 (gap 0.25: the paper keeps it), a cost without a
// tour (gap −0.2) and no finite cost (no gap). Gap averages the first three;
// GapFeasibleRef only the first, whose tour the checker accepts.
func TestTallyGapDefinitions(t *testing.T) {
	good, late := []int{0, 1, 2, 3}, []int{0, 3, 2, 1}
	refs := []Solution{
		{Instance: 0, Tour: good, Cost: 4},
		{Instance: 1, Tour: late, Cost: 3.2},
		{Instance: 1, Tour: good, Cost: 4}, // a dearer row of the same instance: not the reference
		{Instance: 2, Cost: 5},
		{Instance: 3, Cost: math.Inf(1)},
	}
	tl, err := NewTally(4, refs)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 4; i++ {
		in := squareInstance()
		if err := tl.AddInstance(i, in); err != nil {
			t.Fatal(err)
		}
		row := good
		if i == 1 {
			row = late // infeasible row; the feasible tour comes as a candidate
		}
		if _, err := tl.AddRow(i, in, row); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			if _, err := tl.AddCandidate(i, in, good); err != nil {
				t.Fatal(err)
			}
		}
	}
	m := tl.Metrics()
	wantGap := (0 + 0.25 - 0.2) / 3
	if math.Abs(m.Gap-wantGap) > 1e-12 || m.GapCount != 3 {
		t.Errorf("gap %v over %d, want %v over 3", m.Gap, m.GapCount, wantGap)
	}
	if m.GapFeasibleRef != 0 || m.GapFeasibleRefCount != 1 {
		t.Errorf("gap over feasible references %v over %d, want 0 over 1", m.GapFeasibleRef, m.GapFeasibleRefCount)
	}
	if m.References != 3 || m.RefInfeasible != 1 || m.RefWithoutTour != 1 {
		t.Errorf("references %d, infeasible %d, without tour %d; want 3, 1, 1", m.References, m.RefInfeasible, m.RefWithoutTour)
	}
	// The candidate sets instance 1's best but is no row: 1 of 4 rows is
	// infeasible, and every instance has a feasible tour.
	if m.Rows != 4 || m.FeasibleTours != 3 || m.SolInfeasible != 0.25 || m.InstInfeasible != 0 || m.Obj != 4 || m.ObjCount != 4 {
		t.Errorf("rows %+v", m)
	}
	js, _ := json.Marshal(m)
	for _, k := range []string{`"gap_feasible_ref":0,`, `"ref_infeasible":1`, `"gap_feasible_ref_count":1`, `"references":3`} {
		if !strings.Contains(string(js), k) {
			t.Errorf("json %s lacks %s", js, k)
		}
	}
	// Evaluate, with the candidate written as a row, gives the same gaps.
	insts := []*lazymask.Instance{squareInstance(), squareInstance(), squareInstance(), squareInstance()}
	sols := []Solution{{Instance: 0, Tour: good}, {Instance: 1, Tour: late}, {Instance: 1, Tour: good}, {Instance: 2, Tour: good}, {Instance: 3, Tour: good}}
	ev, err := Evaluate(insts, sols, refs)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Gap != m.Gap || ev.GapFeasibleRef != m.GapFeasibleRef || ev.RefInfeasible != 1 {
		t.Errorf("Evaluate: gap %v / %v, tally %v / %v", ev.Gap, ev.GapFeasibleRef, m.Gap, m.GapFeasibleRef)
	}
}

// TestTallyErrors: rows before their instance, instances added twice or
// out of range, malformed reference tours (named by file role and row) and
// WithPath's relabelling.
func TestTallyErrors(t *testing.T) {
	in := squareInstance()
	if _, err := NewTally(1, []Solution{{Instance: 2, Cost: 1}}); err == nil || !strings.Contains(err.Error(), "reference: row 0: field instance") {
		t.Errorf("reference out of range: %v", err)
	}
	tl, _ := NewTally(2, []Solution{{Instance: 0, Cost: 1}, {Instance: 1, Tour: []int{0, 1, 1, 3}, Cost: 4}})
	if _, err := tl.AddRow(0, in, []int{0, 1, 2, 3}); err == nil {
		t.Error("row before its instance accepted")
	}
	if err := tl.AddInstance(0, in); err != nil {
		t.Fatal(err)
	}
	if err := tl.AddInstance(0, in); err == nil {
		t.Error("instance added twice")
	}
	if err := tl.AddInstance(5, in); err == nil {
		t.Error("instance out of range accepted")
	}
	err := tl.AddInstance(1, in)
	var re *RowError
	if !errors.As(err, &re) || re.File != "reference" || re.Row != 1 || re.Field != "tour" {
		t.Fatalf("malformed reference tour: %v", err)
	}
	if got := WithPath(err, "reference", "refs.parquet").Error(); !strings.HasPrefix(got, "refs.parquet: row 1: field tour: instance 1: malformed tour") {
		t.Errorf("WithPath: %q", got)
	}
	if _, err := tl.AddRow(0, in, []int{0, 2}); err == nil {
		t.Error("malformed row accepted")
	}
}

func TestNearestRank(t *testing.T) {
	v := []float64{1, 2, 3, 4, 5}
	for _, tc := range []struct{ p, want float64 }{{0.2, 1}, {0.21, 2}, {0.4, 2}, {0.5, 3}, {0.95, 5}, {1, 5}} {
		if got := NearestRank(v, tc.p); got != tc.want {
			t.Errorf("NearestRank(1..5, %v) = %v, want %v", tc.p, got, tc.want)
		}
	}
	// 0.07·100 is 7.000000000000001 in floating point: still rank 7.
	h := make([]float64, 100)
	for i := range h {
		h[i] = float64(i + 1)
	}
	if got := NearestRank(h, 0.07); got != 7 {
		t.Errorf("NearestRank(1..100, 0.07) = %v, want 7", got)
	}
	if !math.IsNaN(NearestRank(nil, 0.5)) {
		t.Error("NearestRank of no values is not NaN")
	}
}

// TestTallyWorstGaps: 20 instances whose best tours (length 4) are i% above
// their references (i = 1..20, in a shuffled order), one more without a
// reference and one without a feasible tour, which count in neither.
func TestTallyWorstGaps(t *testing.T) {
	order := []int{7, 20, 3, 11, 1, 19, 5, 14, 9, 16, 2, 18, 12, 6, 15, 10, 4, 17, 8, 13}
	var insts []*lazymask.Instance
	var sols, refs []Solution
	for i, pct := range order {
		in := squareInstance()
		if pct%2 == 0 {
			in.Name = fmt.Sprintf("sq%02d", pct)
		}
		insts = append(insts, in)
		sols = append(sols, Solution{Instance: int64(i), Tour: []int{0, 1, 2, 3}})
		refs = append(refs, Solution{Instance: int64(i), Cost: 4 / (1 + float64(pct)/100)})
	}
	insts = append(insts, squareInstance(), squareInstance())
	sols = append(sols, Solution{Instance: 20, Tour: []int{0, 1, 2, 3}}, Solution{Instance: 21, Tour: []int{0, 3, 2, 1}})
	refs = append(refs, Solution{Instance: 21, Cost: 1})
	m, err := Evaluate(insts, sols, refs)
	if err != nil {
		t.Fatal(err)
	}
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-12 }
	if m.GapCount != 20 || !near(m.Gap, 0.105) || !near(m.GapP95, 0.19) || !near(m.GapP99, 0.20) || !near(m.GapMax, 0.20) {
		t.Fatalf("gap %v over %d, p95 %v, p99 %v, max %v; want 0.105 over 20, 0.19, 0.20, 0.20", m.Gap, m.GapCount, m.GapP95, m.GapP99, m.GapMax)
	}
	// Largest first: 20% (row 1), 19% (row 5, no name), 18% (row 11),
	// 17% (row 17, no name), 16% (row 9).
	want := []string{"sq20", "#5", "sq18", "#17", "sq16"}
	if len(m.Worst) != WorstCount {
		t.Fatalf("worst %+v", m.Worst)
	}
	for i, w := range m.Worst {
		if w.Label() != want[i] || !near(w.Gap, float64(20-i)/100) {
			t.Errorf("worst[%d] = %s %v, want %s %v", i, w.Label(), w.Gap, want[i], float64(20-i)/100)
		}
	}
	js, _ := json.Marshal(m)
	for _, k := range []string{`"gap_p95":0.18999`, `"gap_percentiles":"nearest-rank"`, `"worst_instances":[{"instance":1,"name":"sq20","gap":0.19999`, `{"instance":5,"gap":0.18999`} {
		if !strings.Contains(string(js), k) {
			t.Errorf("json %s lacks %s", js, k)
		}
	}
	var tb strings.Builder
	m.WriteTable(&tb, true)
	for _, k := range []string{"gap_p95, p99      19.0000%, 20.0000%", "gap_max           20.0000%", "worst_instances   sq20 20.0000%, #5 19.0000%, sq18 18.0000%, #17 17.0000%, sq16 16.0000%"} {
		if !strings.Contains(tb.String(), k) {
			t.Errorf("table lacks %q:\n%s", k, tb.String())
		}
	}
	// Ties keep the lower index first; without gaps the fields are NaN and
	// the list is empty.
	tie, err := Evaluate(insts[:3], sols[:3], []Solution{{Instance: 0, Cost: 2}, {Instance: 1, Cost: 2}, {Instance: 2, Cost: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(tie.Worst) != 3 || tie.Worst[0].Instance != 0 || tie.Worst[2].Instance != 2 || tie.GapMax != 1 || tie.GapP95 != 1 {
		t.Errorf("ties: %+v", tie.Worst)
	}
	none, _ := Evaluate(insts[:1], sols[:1], nil)
	js, _ = json.Marshal(none)
	if !math.IsNaN(none.GapMax) || len(none.Worst) != 0 || !strings.Contains(string(js), `"gap_max":null`) || !strings.Contains(string(js), `"worst_instances":[]`) {
		t.Errorf("no references: %s", js)
	}
}
