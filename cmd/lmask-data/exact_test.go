package main

import (
	"path/filepath"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// TestStressExact draws a stress class, proves its optima and checks that
// each is feasible and no longer than the reference tour the windows were
// built around; too few labels and unknown classes fail, naming the cause,
// and write nothing.
func TestStressExact(t *testing.T) {
	dir := t.TempDir()
	ip, op := filepath.Join(dir, "s.parquet"), filepath.Join(dir, "opt.parquet")
	if out, err := runCLI(t, "stress", "--class", "RM", "--size", "11", "--count", "6", "--seed", "2", "--out", ip); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if out, err := runCLI(t, "exact", "--instances", ip, "--out", op, "--workers", "2"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	d, err := datasets.ReadInstances(ip)
	if err != nil {
		t.Fatal(err)
	}
	sols, meta, err := datasets.ReadSolutions(op)
	if err != nil || len(sols) != 6 || meta.Source != "optimal" {
		t.Fatalf("%d rows, source %q, %v", len(sols), meta.Source, err)
	}
	shorter := 0
	for i, s := range sols {
		chk, err := lazymask.Check(d.Instances[i], s.Tour)
		known, _ := lazymask.Check(d.Instances[i], d.KnownTours[i])
		if err != nil || chk.Cost != s.Cost || chk.Cost > known.Cost+1e-12 {
			t.Fatalf("instance %d: optimum %v (stored %v, %v), reference tour %v", i, chk.Cost, s.Cost, err, known.Cost)
		}
		if chk.Cost < known.Cost-1e-9 {
			shorter++
		}
	}
	if shorter == 0 {
		t.Fatal("no optimum is shorter than its reference tour: the reference tours are no test")
	}
	bad := filepath.Join(dir, "bad.parquet")
	expectFailure(t, bad, []string{"row 0", "labels"}, "exact", "--instances", ip, "--out", bad, "--max-labels", "2")
	expectFailure(t, bad, []string{"R9"}, "stress", "--class", "R9", "--size", "11", "--count", "1", "--seed", "1", "--out", bad)
}
