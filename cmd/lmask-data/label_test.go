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

// TestLabelGrowsAndRefuses: the command grows a set to the asked count in
// two calls, every label feasible, and refuses other settings on the same
// folder and bad flags with a usage error.
func TestLabelGrowsAndRefuses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	base := []string{"label", "--dir", dir, "--problem", "tspdl", "--size", "12", "--hardness", "hard", "--chunk", "10", "--kicks", "2"}
	if out, err := runCLI(t, append(base, "--count", "10")...); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err := runCLI(t, append(base, "--count", "25")...)
	if err != nil || !strings.Contains(out, "2 chunks written") {
		t.Fatalf("growing to 25: %v\n%s", err, out)
	}
	l, err := datasets.ReadLabels(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Insts) != 30 || l.Skipped != 0 || len(l.Chunks) != 3 {
		t.Fatalf("%d labels in chunks %v (%d skipped), want 30 in 3", len(l.Insts), l.Chunks, l.Skipped)
	}
	for i, in := range l.Insts {
		if r, err := lazymask.Check(in, l.Tours[i]); err != nil || !r.Feasible {
			t.Fatalf("label %d infeasible: %v", i, err)
		}
	}
	spec, err := os.ReadFile(filepath.Join(dir, datasets.LabelManifest))
	if err != nil || !strings.Contains(string(spec), "Random-L") {
		t.Fatalf("manifest %s (%v) does not name its starts", spec, err)
	}
	if _, err := runCLI(t, "label", "--dir", dir, "--problem", "tspdl", "--size", "13", "--hardness", "hard", "--chunk", "10", "--count", "10"); err == nil {
		t.Fatal("a set of size 12 was grown with size 13")
	}
	for _, args := range [][]string{
		{"label", "--dir", dir, "--problem", "vrp", "--count", "1"},
		{"label", "--dir", dir, "--problem", "tsptw", "--count", "0"},
		{"label", "--dir", dir, "--problem", "tsptw", "--relabel"},
		{"label", "--dir", dir, "--problem", "tsptw", "--count", "1", "--prefixes"},
		{"label", "--dir", dir, "--problem", "tsptw", "--model", "tsptw50-easy", "--relabel", "--prefixes"},
		{"label", "--dir", filepath.Join(t.TempDir(), "new"), "--problem", "tsptw", "--hardness", "hrad", "--count", "1"},
	} {
		if _, err := runCLI(t, args...); cliapp.ExitCode(err) != cliapp.ExitUsage {
			t.Errorf("%v: err %v, want a usage error", args, err)
		}
	}
}
