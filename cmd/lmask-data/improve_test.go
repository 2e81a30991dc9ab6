package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
)

// TestImprove improves generated instances' known tours and reversed
// (mostly infeasible) known tours, then checks the written file by replay.
func TestImprove(t *testing.T) {
	dir, ip, sp, d, sols := improveFixture(t)
	op := filepath.Join(dir, "o.parquet")
	out, err := runCLI(t, "improve", "--instances", ip, "--solutions", sp, "--reference", sp, "--out", op, "--kicks", "5", "--workers", "2")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "tours            60 improved") || !strings.Contains(out, "1 rows without a tour") {
		t.Fatalf("summary:\n%s", out)
	}
	got, meta, err := datasets.ReadSolutions(op)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(sols) || !strings.Contains(meta.Extra["lmask.localsearch"], "kicks=5") {
		t.Fatalf("%d rows, metadata %v", len(got), meta.Extra)
	}
	feasibleBefore, feasibleAfter := 0, 0
	for r, s := range got {
		if s.Instance != sols[r].Instance {
			t.Fatalf("row %d: instance %d, want %d", r, s.Instance, sols[r].Instance)
		}
		if sols[r].Tour == nil {
			if s.Tour != nil || s.Source != "none" {
				t.Fatalf("row %d: tourless row changed: %+v", r, s)
			}
			continue
		}
		res, _ := lazymask.Check(d.Instances[s.Instance], s.Tour)
		if res.Feasible != s.Feasible || math.Abs(res.Cost-s.Cost) > 1e-9 || s.Source != sols[r].Source+"+ls" {
			t.Fatalf("row %d: recorded %+v, replay %+v", r, s, res)
		}
		if sols[r].Feasible {
			feasibleBefore++
			if !s.Feasible || s.Cost > sols[r].Cost+1e-9 {
				t.Fatalf("row %d: feasible tour got worse: %v -> %v (feasible %v)", r, sols[r].Cost, s.Cost, s.Feasible)
			}
		}
		if s.Feasible {
			feasibleAfter++
		}
	}
	if feasibleBefore >= 60 || feasibleAfter != 60 {
		t.Fatalf("feasible tours %d before, %d after; want some infeasible before and all repaired", feasibleBefore, feasibleAfter)
	}
	// Bad flags and malformed tours are errors that name the problem, and
	// leave no output behind.
	bad := filepath.Join(dir, "bad.parquet")
	expectFailure(t, bad, []string{"--moves", "3opt"}, "improve", "--instances", ip, "--solutions", sp, "--out", bad, "--moves", "3opt")
	sols[1].Tour = sols[1].Tour[:5]
	if err := datasets.WriteSolutions(sp, datasets.Metadata{}, sols, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	expectFailure(t, bad, []string{sp, "row 1", "tour"}, "improve", "--instances", ip, "--solutions", sp, "--out", bad)
	if _, err := os.Stat(bad); err == nil {
		t.Fatal("output written despite the error")
	}
}

// improveFixture writes 30 generated TSPTW-20 hard instances and a
// solutions file with two rows per instance (the known tour, feasible, and
// its reversal, mostly infeasible) plus a tourless row for instance 3.
func improveFixture(t *testing.T) (dir, ip, sp string, d *datasets.Dataset, sols []datasets.Solution) {
	dir = t.TempDir()
	ip = filepath.Join(dir, "i.parquet")
	if out, err := runCLI(t, "generate", "--problem", "tsptw", "--size", "20", "--hardness", "hard", "--count", "30", "--seed", "5", "--out", ip); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	d, err := datasets.ReadInstances(ip)
	if err != nil {
		t.Fatal(err)
	}
	for i, in := range d.Instances {
		s, _ := datasets.Checked(in, int64(i), d.KnownTours[i], "known")
		sols = append(sols, s)
		rev := append([]int{0}, d.KnownTours[i][1:]...)
		for a, b := 1, len(rev)-1; a < b; a, b = a+1, b-1 {
			rev[a], rev[b] = rev[b], rev[a]
		}
		s, _ = datasets.Checked(in, int64(i), rev, "reversed")
		sols = append(sols, s)
	}
	sols = append(sols, datasets.Solution{Instance: 3, Cost: math.Inf(1), Source: "none"})
	sp = filepath.Join(dir, "s.parquet")
	if err := datasets.WriteSolutions(sp, datasets.Metadata{}, sols, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	return dir, ip, sp, d, sols
}

// TestImprovePerInstance: --per-instance writes one row per instance, in
// order, holding exactly what localsearch.ImproveFrom finds from all of the
// instance's tours with the row's seed.
func TestImprovePerInstance(t *testing.T) {
	dir, ip, sp, d, sols := improveFixture(t)
	op := filepath.Join(dir, "o.parquet")
	for _, noMerge := range []bool{false, true} {
		if out, err := runCLI(t, "improve", "--per-instance", "--instances", ip, "--solutions", sp, "--out", op,
			"--kicks", "3", "--seed", "7", "--workers", "2", fmt.Sprintf("--no-merge=%v", noMerge)); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		got, meta, err := datasets.ReadSolutions(op)
		if err != nil {
			t.Fatal(err)
		}
		desc := meta.Extra["lmask.localsearch"]
		if len(got) != len(d.Instances) || !strings.Contains(desc, "per_instance=true") || !strings.Contains(desc, fmt.Sprintf("no_merge=%v", noMerge)) {
			t.Fatalf("%d rows for %d instances, metadata %v", len(got), len(d.Instances), meta.Extra)
		}
		for i, s := range got {
			var starts [][]int
			for _, r := range sols {
				if r.Instance == int64(i) && r.Tour != nil {
					starts = append(starts, r.Tour)
				}
			}
			want, err := localsearch.ImproveFrom(d.Instances[i], starts, localsearch.Options{Kicks: 3, Seed: 7 + uint64(i), NoMerge: noMerge})
			if err != nil {
				t.Fatal(err)
			}
			if s.Instance != int64(i) || !slices.Equal(s.Tour, want.Tour) || !s.Feasible || s.Source != "known+ls" {
				t.Fatalf("no merge %v, row %d: instance %d tour %v feasible %v source %q; want %v", noMerge, i, s.Instance, s.Tour, s.Feasible, s.Source, want.Tour)
			}
		}
	}
	bad := filepath.Join(dir, "bad.parquet")
	expectFailure(t, bad, []string{"--starts", "-1"}, "improve", "--per-instance", "--starts", "-1", "--instances", ip, "--solutions", sp, "--out", bad)
}
