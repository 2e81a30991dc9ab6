package datasets

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lmask/lmask/internal/opterr"
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
		{"", 1, ip + ": Index 1: row out of range [0,1)"},
		{sp, 2, sp + ": Index 2: row out of range [0,2)"},
		{sp, 1, sp + ": row 1: field instance: 3 out of range [0,1) (size mismatch with " + ip + ")"},
	} {
		_, _, err := TourToDraw(ip, c.sp, c.k)
		if err == nil || err.Error() != c.want {
			t.Errorf("row %d of %q: %v, want %s", c.k, c.sp, err, c.want)
		}
		if oe := opterr.As(err); (oe != nil && oe.Option == "Index" && oe.Value == fmt.Sprint(c.k)) != strings.Contains(c.want, "Index") {
			t.Errorf("row %d of %q: option error %+v", c.k, c.sp, oe)
		}
	}
}
