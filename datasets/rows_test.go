package datasets

import (
	"errors"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

// TestSeekRowAndInstanceAt: SeekRow lands on the row group holding the row
// (groups of 7 here), and InstanceAt returns the row a full read gives.
func TestSeekRowAndInstanceAt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "i.parquet")
	cfg := GenConfig{Problem: lazymask.TSPTW, N: 8, Hardness: Hard, Seed: 4}
	if _, err := GenerateFile(path, cfg, 20, WriterOptions{RowGroupRows: 7}); err != nil {
		t.Fatal(err)
	}
	insts, _, err := Generate(cfg, 20)
	if err != nil {
		t.Fatal(err)
	}
	ir, err := OpenInstances(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ir.Close()
	if got := ir.RowGroupSizes(); !slices.Equal(got, []int64{7, 7, 6}) {
		t.Fatalf("row group sizes %v", got)
	}
	for _, tc := range []struct{ row, offset int64 }{{0, 0}, {6, 0}, {7, 7}, {13, 7}, {14, 14}, {19, 14}} {
		if err := ir.SeekRow(tc.row); err != nil {
			t.Fatal(err)
		}
		b, err := ir.Next()
		if err != nil || b.Offset != tc.offset || !slices.Equal(b.Instances[tc.row-b.Offset].X, insts[tc.row].X) {
			t.Fatalf("seek %d: batch at %v (%v), want %d", tc.row, b, err, tc.offset)
		}
	}
	if err := ir.SeekRow(20); err != nil {
		t.Fatal(err)
	}
	if _, err := ir.Next(); !errors.Is(err, io.EOF) {
		t.Fatalf("seek past the end: %v, want EOF", err)
	}
	in, _, n, err := InstanceAt(path, 15)
	if err != nil || n != 20 || !slices.Equal(in.X, insts[15].X) {
		t.Fatalf("InstanceAt 15: %v, %d, %v", in, n, err)
	}
	if in, _, n, err := InstanceAt(path, 20); in != nil || n != 20 || err != nil {
		t.Fatalf("InstanceAt 20: %v, %d, %v", in, n, err)
	}
}

// TestTallyRange: a tally of instances 1..2 of 4 gives the metrics of
// those instances alone, keeps the reference rows' numbers in its errors,
// and refuses other instances.
func TestTallyRange(t *testing.T) {
	insts := []*lazymask.Instance{squareInstance(), squareInstance(), squareInstance(), squareInstance()}
	refs := []Solution{{Instance: 0, Cost: 1}, {Instance: 1, Cost: 3.2}, {Instance: 2, Cost: 3.5, Tour: []int{0, 1, 2, 3}}, {Instance: 3, Cost: 2}}
	sols := []Solution{{Instance: 1, Tour: []int{0, 1, 2, 3}}, {Instance: 2, Tour: []int{0, 3, 2, 1}}, {Instance: 2, Tour: []int{0, 1, 2, 3}}}
	want, err := Evaluate(insts[1:3], []Solution{{Instance: 0, Tour: sols[0].Tour}, {Instance: 1, Tour: sols[1].Tour}, {Instance: 1, Tour: sols[2].Tour}},
		[]Solution{{Instance: 0, Cost: 3.2}, {Instance: 1, Cost: 3.5, Tour: []int{0, 1, 2, 3}}})
	if err != nil {
		t.Fatal(err)
	}
	tl, err := NewTallyRange(4, 1, 3, refs)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(1); i < 3; i++ {
		if err := tl.AddInstance(i, insts[i]); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range sols {
		if _, err := tl.AddRow(s.Instance, insts[s.Instance], s.Tour); err != nil {
			t.Fatal(err)
		}
	}
	got := tl.Metrics()
	want.Best = nil
	if got.Gap != want.Gap || got.Obj != want.Obj || got.Rows != 3 || got.Instances != 2 || got.GapCount != 2 || got.GapFeasibleRefCount != 1 {
		t.Fatalf("range metrics %+v, want %+v", got, want)
	}
	if math.Abs(got.Gap-((4-3.2)/3.2+(4-3.5)/3.5)/2) > 1e-12 || tl.Best(2) != 4 {
		t.Fatalf("gap %v, best %v", got.Gap, tl.Best(2))
	}
	if err := tl.AddInstance(3, insts[3]); err == nil || !strings.Contains(err.Error(), "instance 3 out of range [1,3)") {
		t.Errorf("instance outside the range: %v", err)
	}
	if _, err := NewTallyRange(4, 1, 3, []Solution{{Instance: 4, Cost: 1}}); err == nil || !strings.Contains(err.Error(), "reference: row 0: field instance") {
		t.Errorf("reference beyond the set: %v", err)
	}
	bad, _ := NewTallyRange(4, 2, 4, []Solution{{Instance: 0, Cost: 1}, {Instance: 3, Cost: 1, Tour: []int{0, 1, 1, 3}}})
	if err := bad.AddInstance(3, insts[3]); err == nil || !strings.Contains(err.Error(), "reference: row 1: field tour") {
		t.Errorf("malformed reference tour: %v", err)
	}
}

func TestCountViolating(t *testing.T) {
	sols := []Solution{{Tour: []int{0, 1}, Feasible: true}, {Tour: []int{0, 1}}, {}}
	if tours, viol, err := CountViolating(sols, "r", "i"); tours != 2 || viol != 1 || err != nil {
		t.Errorf("half violating: %d %d %v", tours, viol, err)
	}
	if _, _, err := CountViolating(sols[1:], "r.npz", "i.parquet"); err == nil || !strings.Contains(err.Error(), "1 of the 1 tours in r.npz break a constraint of the instances in i.parquet") {
		t.Errorf("all violating: %v", err)
	}
}
