package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/internal/cliapp"
	"github.com/lmask/lmask/lazymask"
)

// lmask-data merge joins two halves of a solutions file into the whole,
// prints check's metrics with --instances, and exits 1 (nothing written)
// when an instance is in two parts, 2 without --out.
func TestMerge(t *testing.T) {
	dir := t.TempDir()
	ip := filepath.Join(dir, "i.parquet")
	cfg := datasets.GenConfig{Problem: lazymask.TSPDL, N: 12, Hardness: datasets.Hard, Seed: 9}
	meta, err := datasets.GenerateFile(ip, cfg, 10, datasets.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	insts, known, _ := datasets.Generate(cfg, 10)
	part := func(name string, lo, hi int) string {
		var sols []datasets.Solution
		for i := lo; i < hi; i++ {
			s, err := datasets.Checked(insts[i], int64(i), known[i], "known")
			if err != nil {
				t.Fatal(err)
			}
			sols = append(sols, s)
		}
		m := meta
		m.Kind, m.Instances = datasets.KindSolutions, ip
		p := filepath.Join(dir, name)
		if err := datasets.WriteSolutions(p, m, sols, datasets.WriterOptions{}); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := part("a.parquet", 0, 6), part("b.parquet", 6, 10)
	out := filepath.Join(dir, "all.parquet")
	stdout, err := runCLI(t, "merge", "--out", out, "--instances", ip, b, a)
	if err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	for _, w := range []string{"joined            2 parts, 10 rows of 10 of 10 instances", "inst_infeasible   0.0000%", "obj "} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, stdout)
		}
	}
	if sols, _, err := datasets.ReadSolutions(out); err != nil || len(sols) != 10 || sols[9].Instance != 9 {
		t.Fatalf("joined %d rows: %v", len(sols), err)
	}
	os.Remove(out)
	_, err = runCLI(t, "merge", "--out", out, a, part("c.parquet", 5, 10))
	if cliapp.ExitCode(err) != cliapp.ExitFailure || !strings.Contains(err.Error(), "instance 5 is in both") {
		t.Errorf("overlap: %v (exit %d)", err, cliapp.ExitCode(err))
	}
	if _, serr := os.Stat(out); serr == nil {
		t.Error("joined file written despite the overlap")
	}
	if _, err := runCLI(t, "merge", a, b); cliapp.ExitCode(err) != cliapp.ExitUsage {
		t.Errorf("no --out: %v (exit %d)", err, cliapp.ExitCode(err))
	}
}
