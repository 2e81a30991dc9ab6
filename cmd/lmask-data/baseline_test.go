package main

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
)

// TestBaseline: the written rows are what lazymask.Decode gives with the
// instance's seed (best first), every verdict agrees with the checker,
// the output does not depend on the worker count, and another seed gives
// other tours.
func TestBaseline(t *testing.T) {
	dir := t.TempDir()
	ip := filepath.Join(dir, "i.parquet")
	if out, err := runCLI(t, "generate", "--problem", "tspdl", "--size", "15", "--hardness", "hard", "--count", "12", "--seed", "3", "--out", ip); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	d, err := datasets.ReadInstances(ip)
	if err != nil {
		t.Fatal(err)
	}
	solve := func(name string, args ...string) []datasets.Solution {
		t.Helper()
		p := filepath.Join(dir, name)
		out, err := runCLI(t, append([]string{"baseline", "--instances", ip, "--out", p}, args...)...)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if !strings.Contains(out, "inst_infeasible") {
			t.Fatalf("no metrics table:\n%s", out)
		}
		sols, _, err := datasets.ReadSolutions(p)
		if err != nil {
			t.Fatal(err)
		}
		return sols
	}
	all := solve("all.parquet", "--samples", "4", "--budget", "5", "--seed", "11", "--all-tours", "--workers", "2")
	best := solve("best.parquet", "--samples", "4", "--budget", "5", "--seed", "11", "--workers", "1")
	other := solve("other.parquet", "--samples", "4", "--budget", "5", "--seed", "12", "--workers", "2")
	if len(all) != 4*len(d.Instances) || len(best) != len(d.Instances) {
		t.Fatalf("%d and %d rows for %d instances", len(all), len(best), len(d.Instances))
	}
	differs, tourless := false, 0
	for i, in := range d.Instances {
		trajs, err := lazymask.Decode(&lazymask.RandomL{}, []*lazymask.Instance{in}, 4,
			lazymask.Config{Lookahead: lazymask.LookTSL, Budget: 5, Seed: 11 + uint64(i)})
		if err != nil {
			t.Fatal(err)
		}
		rows := all[4*i : 4*i+4]
		seen := make([]bool, 4)
		for k, s := range rows {
			if s.Instance != int64(i) || s.Source != "random-l" || s.Sample < 0 || s.Sample >= 4 || seen[s.Sample] {
				t.Fatalf("row %d of instance %d: %+v", k, i, s)
			}
			seen[s.Sample] = true
			if tr := trajs[s.Sample]; !slices.Equal(tr.Tour, s.Tour) || tr.Backtracks != s.Backtracks {
				t.Fatalf("instance %d sample %d: written tour %v (%d backtracks), decoded %v (%d)", i, s.Sample, s.Tour, s.Backtracks, tr.Tour, tr.Backtracks)
			}
			if k > 0 && rows[k-1].Tour == nil && s.Tour != nil {
				t.Fatalf("instance %d: a tourless row before a row with a tour", i)
			}
			if s.Tour == nil {
				if !math.IsInf(s.Cost, 1) {
					t.Fatalf("instance %d: tourless row with cost %v", i, s.Cost)
				}
				tourless++
				continue
			}
			res, err := lazymask.Check(in, s.Tour)
			if err != nil || res.Feasible != s.Feasible || math.Abs(res.Cost-s.Cost) > 1e-12 {
				t.Fatalf("instance %d row %d: recorded %v/%v, checker %v/%v (%v)", i, k, s.Feasible, s.Cost, res.Feasible, res.Cost, err)
			}
			if k > 0 && rows[k-1].Tour != nil && rows[k-1].Feasible == s.Feasible && s.Feasible && rows[k-1].Cost > s.Cost {
				t.Fatalf("instance %d: rows not best first: %v then %v", i, rows[k-1].Cost, s.Cost)
			}
			if k > 0 && !rows[k-1].Feasible && s.Feasible {
				t.Fatalf("instance %d: infeasible row before a feasible one", i)
			}
		}
		if !slices.Equal(best[i].Tour, rows[0].Tour) {
			t.Fatalf("instance %d: best row %v, first of all rows %v (workers 1 against 2)", i, best[i].Tour, rows[0].Tour)
		}
		differs = differs || !slices.Equal(other[i].Tour, best[i].Tour)
	}
	t.Logf("%d of %d trajectories without a tour", tourless, len(all))
	if !differs {
		t.Fatal("seeds 11 and 12 gave the same tours on every instance")
	}
	urg := solve("urg.parquet", "--policy", "urgency")
	for i, in := range d.Instances {
		if !slices.Equal(urg[i].Tour, localsearch.OrderTour(in)) || urg[i].Source != "urgency" {
			t.Fatalf("instance %d: urgency row %+v", i, urg[i])
		}
	}
	bad := filepath.Join(dir, "bad.parquet")
	expectFailure(t, bad, []string{"--policy", `"greedy"`}, "baseline", "--instances", ip, "--out", bad, "--policy", "greedy")
	expectFailure(t, bad, []string{"--samples", "0"}, "baseline", "--instances", ip, "--out", bad, "--samples", "0")
	expectFailure(t, bad, []string{"--lookahead"}, "baseline", "--instances", ip, "--out", bad, "--lookahead", "x")
	expectFailure(t, bad, []string{"nope.parquet"}, "baseline", "--instances", filepath.Join(dir, "nope.parquet"), "--out", bad)
}

// TestImproveUrgency: with --urgency an instance whose tours are all
// infeasible or missing also starts from the urgency order, so every
// instance ends with a row holding what ImproveFrom finds from those
// starts; without the flag a tourless instance stays tourless.
func TestImproveUrgency(t *testing.T) {
	dir := t.TempDir()
	ip := filepath.Join(dir, "i.parquet")
	if out, err := runCLI(t, "generate", "--problem", "tsptw", "--size", "12", "--hardness", "hard", "--count", "6", "--seed", "8", "--out", ip); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	d, err := datasets.ReadInstances(ip)
	if err != nil {
		t.Fatal(err)
	}
	// Instance 0: no tour; 1: the reversed known tour (infeasible);
	// the others: their known tours.
	var sols []datasets.Solution
	for i, in := range d.Instances {
		switch i {
		case 0:
			sols = append(sols, datasets.Solution{Instance: 0, Cost: math.Inf(1), Source: "none"})
		case 1:
			rev := slices.Clone(d.KnownTours[i])
			slices.Reverse(rev[1:])
			s, _ := datasets.Checked(in, 1, rev, "reversed")
			if s.Feasible {
				t.Fatal("reversed known tour of instance 1 is feasible; pick another fixture")
			}
			sols = append(sols, s)
		default:
			s, _ := datasets.Checked(in, int64(i), d.KnownTours[i], "known")
			sols = append(sols, s)
		}
	}
	sp := filepath.Join(dir, "s.parquet")
	if err := datasets.WriteSolutions(sp, datasets.Metadata{}, sols, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	improve := func(name string, extra ...string) []datasets.Solution {
		t.Helper()
		p := filepath.Join(dir, name)
		args := append([]string{"improve", "--per-instance", "--instances", ip, "--solutions", sp, "--out", p, "--seed", "4"}, extra...)
		if out, err := runCLI(t, args...); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		got, _, err := datasets.ReadSolutions(p)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	plain := improve("plain.parquet")
	if plain[0].Tour != nil {
		t.Fatalf("without --urgency the tourless instance got %v", plain[0].Tour)
	}
	got := improve("urg.parquet", "--urgency")
	for i, s := range got {
		var starts [][]int
		switch i {
		case 0:
			starts = [][]int{localsearch.OrderTour(d.Instances[0])}
		case 1:
			starts = [][]int{sols[1].Tour, localsearch.OrderTour(d.Instances[1])}
		default:
			starts = [][]int{sols[i].Tour}
		}
		want, err := localsearch.ImproveFrom(d.Instances[i], starts, localsearch.Options{Seed: 4 + uint64(i)})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s.Tour, want.Tour) || !s.Feasible {
			t.Fatalf("instance %d: tour %v (feasible %v), want %v", i, s.Tour, s.Feasible, want.Tour)
		}
		wantSource := map[int]string{0: "urgency+ls"}[i]
		if i == 1 {
			wantSource = []string{"reversed+ls", "urgency+ls"}[want.StartIndex]
		} else if i > 1 {
			wantSource = "known+ls"
		}
		if s.Source != wantSource {
			t.Fatalf("instance %d: source %q, want %q", i, s.Source, wantSource)
		}
	}
	bad := filepath.Join(dir, "bad.parquet")
	expectFailure(t, bad, []string{"--urgency", "--per-instance"}, "improve", "--urgency", "--instances", ip, "--solutions", sp, "--out", bad)
}
