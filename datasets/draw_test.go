package datasets

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

func TestTourToDraw(t *testing.T) {
	dir := t.TempDir()
	ip, sp := filepath.Join(dir, "i.parquet"), filepath.Join(dir, "s.parquet")
	inst := scheduleTW()
	inst.Name = "tw1"
	if err := WriteInstances(ip, Metadata{Problem: "tsptw"}, []*lazymask.Instance{inst}, [][]int{{0, 1, 2}}, WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteSolutions(sp, Metadata{}, []Solution{{Instance: 0, Tour: []int{0, 2, 1}, Source: "lmask"}, {Instance: 3, Tour: []int{0, 1, 2}}}, WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	d, _, err := TourToDraw(ip, "", 0)
	if err != nil || !slices.Equal(d.Tour, []int{0, 1, 2}) || d.Title != "i.parquet row 0 · known tour · tw1" {
		t.Fatalf("known tour: %+v, %v", d, err)
	}
	d, _, err = TourToDraw(ip, sp, 0)
	if err != nil || !slices.Equal(d.Tour, []int{0, 2, 1}) || d.Row != 0 || d.Title != "s.parquet row 0 (lmask) · instance 0 of i.parquet · tw1" {
		t.Fatalf("solution row: %+v, %v", d, err)
	}
	for _, c := range []struct {
		sp   string
		k    int64
		want string
	}{
		{"", 1, ip + ": flag --index: row 1 out of range [0,1)"},
		{sp, 2, sp + ": flag --index: row 2 out of range [0,2)"},
		{sp, 1, sp + ": row 1: field instance: 3 out of range [0,1) (size mismatch with " + ip + ")"},
	} {
		if _, _, err := TourToDraw(ip, c.sp, c.k); err == nil || err.Error() != c.want {
			t.Errorf("row %d of %q: %v, want %s", c.k, c.sp, err, c.want)
		}
	}
}
