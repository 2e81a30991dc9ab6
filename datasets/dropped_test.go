package datasets

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// solutionRowV1 is a solutions row as files written before the optional
// columns fixed and dropped have it.
type solutionRowV1 struct {
	Instance      int64   `parquet:"instance"`
	Tour          []int32 `parquet:"tour,list"`
	Cost          float64 `parquet:"cost"`
	CostOrig      float64 `parquet:"cost_orig"`
	Feasible      bool    `parquet:"feasible"`
	Violation     float64 `parquet:"violation"`
	ViolatedNodes int32   `parquet:"violated_nodes"`
	Backtracks    int32   `parquet:"backtracks"`
	SolveTime     float64 `parquet:"solve_time"`
	Source        string  `parquet:"source,dict"`
	Aug           int32   `parquet:"aug"`
	Sample        int32   `parquet:"sample"`
}

// TestSolutionsWithoutDroppedColumn: a file without the dropped column
// still reads, every row a tour of all its nodes.
func TestSolutionsWithoutDroppedColumn(t *testing.T) {
	p := filepath.Join(t.TempDir(), "old.parquet")
	if err := parquet.WriteFile(p, []solutionRowV1{{Instance: 0, Tour: []int32{0, 2, 1}, Cost: 3, Source: "x"}},
		parquet.KeyValueMetadata(KeyKind, KindSolutions), parquet.KeyValueMetadata(KeyCount, "1"), parquet.KeyValueMetadata(KeyFormat, "1")); err != nil {
		t.Fatal(err)
	}
	sols, _, err := ReadSolutions(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(sols) != 1 || !slices.Equal(sols[0].Tour, []int{0, 2, 1}) || sols[0].Dropped != nil || sols[0].Cost != 3 {
		t.Fatalf("read %+v", sols)
	}
}

// TestDroppedRoundTrip: dropped nodes are written and read back; a row
// that drops the depot, or drops without a served tour, is refused naming
// the file and the field.
func TestDroppedRoundTrip(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.parquet")
	meta := Metadata{Kind: KindSolutions, Problem: "tsptw"}
	rows := []Solution{{Instance: 0, Tour: []int{0, 3, 1}, Dropped: []int{2, 4}, Cost: 1, Feasible: true, Source: "lmask+drop"},
		{Instance: 1, Tour: []int{0, 1, 2}, Cost: 2, Source: "lmask"}}
	if err := WriteSolutions(p, meta, rows, WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadSolutions(p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got[0].Dropped, []int{2, 4}) || !slices.Equal(got[0].Tour, []int{0, 3, 1}) || got[1].Dropped != nil {
		t.Fatalf("read %+v", got)
	}
	for _, bad := range []Solution{{Instance: 0, Tour: []int{0, 1}, Dropped: []int{0}, Source: "x"}, {Instance: 0, Dropped: []int{1}, Source: "x"}} {
		q := filepath.Join(dir, "bad.parquet")
		err := WriteSolutions(q, meta, []Solution{bad}, WriterOptions{})
		if err == nil {
			_, _, err = ReadSolutions(q)
		}
		if err == nil || !strings.Contains(err.Error(), "field dropped") || !strings.Contains(err.Error(), "bad.parquet") {
			t.Fatalf("want an error naming the file and field dropped, got %v", err)
		}
	}
}
