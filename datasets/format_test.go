package datasets

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestImportFormat(t *testing.T) {
	for _, c := range []struct{ in, format, want string }{
		{"tsptw50.npz", "", FormatNPZ},
		{"stops.csv", "", FormatCSV},
		{"bench/n20w20.001.txt", "", ""},
		{"bench", "", ""},
		{"stops.csv", FormatLIB, FormatLIB}, // a format given wins
		{"x.npz", "bogus", "bogus"},         // and is checked by the importer
		{"x.npz.gz", "", ""},
	} {
		if got := ImportFormat(c.in, c.format); got != c.want {
			t.Errorf("ImportFormat(%q, %q) = %q, want %q", c.in, c.format, got, c.want)
		}
	}
}

// TestImportNPZInstancesFile writes the paper's TSPTW-500 instances file
// and its pyvrp references, and reads back what was imported.
func TestImportNPZInstancesFile(t *testing.T) {
	in := sharedFile(t, "datasets", "lmask-paper", "tsptw500_test_hard_seed2025.npz")
	dir := t.TempDir()
	out := filepath.Join(dir, "test.parquet")
	d, err := ImportNPZInstancesFile(in, out)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ReadInstances(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Instances) != len(d.Instances) || back.Meta.Problem != "tsptw" || back.Meta.Size != 500 || back.Meta.Scale != d.Meta.Scale {
		t.Fatalf("read back %d instances, %+v; imported %d, %+v", len(back.Instances), back.Meta, len(d.Instances), d.Meta)
	}
	for i, inst := range d.Instances {
		if !slices.Equal(back.Instances[i].Late, inst.Late) || !slices.Equal(back.Instances[i].X, inst.X) {
			t.Fatalf("instance %d differs after the round trip", i)
		}
	}
	ref := sharedFile(t, "datasets", "lmask-paper", "pyvrp_500_hard.npz")
	r, err := ImportNPZReferenceFile(ref, out, filepath.Join(dir, "ref.parquet"))
	if err != nil || r.Rows != len(d.Instances) {
		t.Fatalf("references: %+v, %v; want a row per instance", r, err)
	}
	if _, err := ImportNPZInstancesFile(ref, filepath.Join(dir, "x.parquet")); err == nil {
		t.Fatal("a reference .npz imported as instances")
	}
}
