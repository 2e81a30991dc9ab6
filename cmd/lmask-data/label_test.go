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
	for _, c := range []struct {
		args []string
		want string // the flag-spelled start of the message
	}{
		{[]string{"label", "--dir", dir, "--problem", "vrp", "--count", "1"}, "label: --problem: "},
		{[]string{"label", "--dir", dir, "--problem", "tsptw", "--count", "0"}, "label: --count 0: want ≥ 1"},
		{[]string{"label", "--dir", dir, "--problem", "tsptw", "--relabel"}, "label: --relabel: needs --model"},
		{[]string{"label", "--dir", dir, "--problem", "tsptw", "--count", "1", "--prefixes"}, "label: --prefixes: needs --model"},
		{[]string{"label", "--dir", dir, "--problem", "tsptw", "--model", "tsptw50-easy", "--relabel", "--prefixes"},
			"label: --prefixes: needs --model and goes with neither --relabel nor --keep failed"},
		{[]string{"label", "--dir", filepath.Join(t.TempDir(), "new"), "--problem", "tsptw", "--hardness", "hrad", "--count", "1"}, "label: --hardness: "},
	} {
		if _, err := runCLI(t, c.args...); cliapp.ExitCode(err) != cliapp.ExitUsage || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%v: err %v, want a usage error %q...", c.args, err, c.want)
		}
	}
}

// writeSized writes count generated TSPTW hard instances of n nodes with
// the datasets writer.
func writeSized(t *testing.T, path string, n, count int, seed uint64) {
	t.Helper()
	if _, err := datasets.GenerateFile(path, datasets.GenConfig{Problem: lazymask.TSPTW, N: n, Hardness: "hard", Seed: seed}, count, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestLabelInstancesShardsMerge: lmask-data label --instances labels two
// files of sizes 10 and 15 (every label feasible, the same bytes in two
// runs), two shards in their own folders merge into the same set, a
// missing shard and flags against the files are refused.
func TestLabelInstancesShardsMerge(t *testing.T) {
	in := t.TempDir()
	a, b := filepath.Join(in, "a.parquet"), filepath.Join(in, "b.parquet")
	writeSized(t, a, 10, 9, 1)
	writeSized(t, b, 15, 6, 2)
	base := func(dir string) []string {
		return []string{"label", "--instances", a, "--instances", b, "--dir", dir, "--chunk", "4", "--kicks", "2", "--seed", "3"}
	}
	root := t.TempDir()
	one, two := filepath.Join(root, "one"), filepath.Join(root, "two")
	for _, d := range []string{one, two} {
		if out, err := runCLI(t, base(d)...); err != nil || !strings.Contains(out, "4 chunks written") {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	l, err := datasets.ReadLabels(one, 0)
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[int]int{}
	for i, inst := range l.Insts {
		if r, err := lazymask.Check(inst, l.Tours[i]); err != nil || !r.Feasible {
			t.Fatalf("label %d infeasible: %v", i, err)
		}
		sizes[inst.N]++
	}
	if len(l.Insts) != 15 || len(l.Chunks) != 4 || sizes[10] != 9 || sizes[15] != 6 {
		t.Fatalf("%d labels in %d chunks, sizes %v; want 15 in 4, 9 of 10 and 6 of 15", len(l.Insts), len(l.Chunks), sizes)
	}
	for c := 0; c < 4; c++ {
		for _, f := range []int{0, 1} {
			pa, pb := chunkFile(one, c, f), chunkFile(two, c, f)
			x, _ := os.ReadFile(pa)
			y, _ := os.ReadFile(pb)
			if len(x) == 0 || string(x) != string(y) {
				t.Fatalf("two runs wrote different %s", filepath.Base(pa))
			}
		}
	}
	s0, s1 := filepath.Join(root, "s0"), filepath.Join(root, "s1")
	if out, err := runCLI(t, append(base(s0), "--shard", "0/2")...); err != nil || !strings.Contains(out, "2 chunks written") {
		t.Fatalf("shard 0/2: %v\n%s", err, out)
	}
	merged := filepath.Join(root, "merged")
	if out, err := runCLI(t, "merge-labels", "--out", merged, s0); err == nil || !strings.Contains(out+err.Error(), "chunk 1, 3 missing") {
		t.Fatalf("merge without shard 1: %v\n%s", err, out)
	}
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	if out, err := runCLI(t, append(base(s1), "--shard", "auto/2")...); err != nil || !strings.Contains(out, "2 chunks written") {
		t.Fatalf("shard auto/2: %v\n%s", err, out)
	}
	out, err := runCLI(t, "merge-labels", "--out", merged, s0, s1)
	if err != nil || !strings.Contains(out, "4 chunks (4 copied), 15 labels checked feasible, 0 instances without one, sizes [10 15]") {
		t.Fatalf("merge: %v\n%s", err, out)
	}
	for c := 0; c < 4; c++ {
		x, _ := os.ReadFile(chunkFile(one, c, 1))
		y, _ := os.ReadFile(chunkFile(merged, c, 1))
		if string(x) != string(y) {
			t.Fatalf("merged chunk %d differs from one run's", c)
		}
	}
	for _, args := range [][]string{
		append(base(filepath.Join(root, "x")), "--size", "10"),
		append(base(filepath.Join(root, "x")), "--problem", "tspdl"),
		append(base(filepath.Join(root, "x")), "--hardness", "hard"),
		append(base(filepath.Join(root, "x")), "--shard", "2/2"),
	} {
		if _, err := runCLI(t, args...); cliapp.ExitCode(err) != cliapp.ExitUsage {
			t.Errorf("%v: err %v, want a usage error", args[len(args)-2:], err)
		}
	}
}

// chunkFile is chunk c's instances (f 0) or solutions (f 1) file in dir.
func chunkFile(dir string, c, f int) string {
	ip, sp := datasets.LabelChunkPaths(dir, c)
	if f == 0 {
		return ip
	}
	return sp
}
