package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/internal/cliapp"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
	"github.com/lmask/lmask/solve"
)

const tinyTSPTW = "../../engine/testdata/tiny-tsptw"

func needRuntime(t *testing.T) {
	t.Helper()
	if err := engine.Available(); err != nil {
		t.Skipf("onnxruntime not available (set %s to libonnxruntime.so, e.g. after scripts/setup.sh): %v", engine.LibraryEnv, err)
	}
}

// fixture writes a generated dataset and a reference file built from the
// generator's known feasible tours.
func fixture(t *testing.T, p lazymask.Problem, hardness string, n, count int) (data, ref string, insts []*lazymask.Instance) {
	t.Helper()
	dir := t.TempDir()
	data = filepath.Join(dir, "data.parquet")
	cfg := datasets.GenConfig{Problem: p, N: n, Hardness: hardness, Seed: 3}
	meta, err := datasets.GenerateFile(data, cfg, count, datasets.WriterOptions{RowGroupRows: 7})
	if err != nil {
		t.Fatal(err)
	}
	insts, tours, err := datasets.Generate(cfg, count)
	if err != nil {
		t.Fatal(err)
	}
	var sols []datasets.Solution
	for i, in := range insts {
		if tours[i] == nil {
			continue
		}
		s, err := datasets.Checked(in, int64(i), tours[i], "known")
		if err != nil {
			t.Fatal(err)
		}
		sols = append(sols, s)
	}
	ref = filepath.Join(dir, "ref.parquet")
	meta.Kind = datasets.KindSolutions
	if err := datasets.WriteSolutions(ref, meta, sols, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	return data, ref, insts
}

func runCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), append([]string{"lmask-infer"}, args...), &out, &errb)
	return out.String(), errb.String(), err
}

func TestInferEndToEnd(t *testing.T) {
	needRuntime(t)
	for _, p := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
		t.Run(p.String(), func(t *testing.T) { inferEndToEnd(t, p) })
	}
}

// inferEndToEnd solves a generated dataset with the tiny model of problem p
// and recomputes every written verdict, cost and metric with the checker.
func inferEndToEnd(t *testing.T, p lazymask.Problem) {
	data, refPath, insts := fixture(t, p, datasets.Hard, 10, 20)
	dir := t.TempDir()
	out, mj := filepath.Join(dir, "sol.parquet"), filepath.Join(dir, "m.json")
	model := filepath.Join("..", "..", "engine", "testdata", "tiny-"+p.String())
	stdout, stderr, err := runCLI(t, "--model", model, "--data", data, "--out", out, "--reference", refPath,
		"--metrics-json", mj, "--budget", "50", "--batch", "3", "--all-tours")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	for _, w := range []string{"sol_infeasible", "inst_infeasible", "obj", "gap", "wall time"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("metrics table lacks %q:\n%s", w, stdout)
		}
	}
	sols, meta, err := datasets.ReadSolutions(out)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Problem != p.String() || len(sols) != 8*len(insts) {
		t.Fatalf("%d rows (problem %q), want %d", len(sols), meta.Problem, 8*len(insts))
	}
	refSols, _, err := datasets.ReadSolutions(refPath)
	if err != nil {
		t.Fatal(err)
	}
	refCost := map[int64]float64{}
	for _, s := range refSols {
		refCost[s.Instance] = s.Cost
	}
	// Recompute every metric from the written tours with the checker.
	best := make([]float64, len(insts))
	for i := range best {
		best[i] = math.Inf(1)
	}
	infeasibleTours := 0
	for _, s := range sols {
		in := insts[s.Instance]
		if s.Tour == nil {
			if s.Feasible {
				t.Errorf("instance %d: a row without a tour claims feasibility", s.Instance)
			}
			infeasibleTours++
			continue
		}
		res, cerr := lazymask.Check(in, s.Tour)
		if s.Feasible != (cerr == nil) {
			t.Errorf("instance %d aug %d: row says feasible=%v, Check says %v", s.Instance, s.Aug, s.Feasible, cerr)
		}
		if math.Abs(res.Cost-s.Cost) > 1e-9 || math.Abs(res.Cost*in.Scale-s.CostOrig) > 1e-6 {
			t.Errorf("instance %d aug %d: cost %v/%v, Check %v", s.Instance, s.Aug, s.Cost, s.CostOrig, res.Cost)
		}
		if cerr != nil {
			infeasibleTours++
			continue
		}
		best[s.Instance] = math.Min(best[s.Instance], res.Cost)
	}
	var objSum, gapSum float64
	var objN, gapN, noFeas int
	for i, c := range best {
		if math.IsInf(c, 1) {
			noFeas++
			continue
		}
		objSum += c
		objN++
		if r, ok := refCost[int64(i)]; ok {
			gapSum += (c - r) / r
			gapN++
		}
	}
	m := readMetrics(t, mj)
	near := func(name string, got, want float64) {
		if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %v, recomputed %v", name, got, want)
		}
	}
	near("sol_infeasible", m.SolInfeasible, float64(infeasibleTours)/float64(len(sols)))
	near("inst_infeasible", m.InstInfeasible, float64(noFeas)/float64(len(insts)))
	if objN > 0 {
		if m.Obj == nil {
			t.Fatal("obj is null")
		}
		near("obj", *m.Obj, objSum/float64(objN))
	}
	if gapN > 0 {
		if m.Gap == nil {
			t.Fatal("gap is null")
		}
		near("gap", *m.Gap, gapSum/float64(gapN))
		if *m.Gap < -1e-9 && gapN == objN {
			t.Logf("note: negative gap %v (the reference is a known tour, not an optimum)", *m.Gap)
		}
	}
	if m.Seconds <= 0 || m.Instances != len(insts) || m.Rows != len(sols) {
		t.Errorf("metrics %+v", m)
	}
	if objN == 0 || gapN == 0 {
		t.Errorf("no feasible instance (%d) or no gap (%d): the test exercises nothing", objN, gapN)
	}
	t.Logf("tiny untrained model on %d %s-10: %+v", len(insts), p, m)
}

func TestInferBestImproveAndLimit(t *testing.T) {
	needRuntime(t)
	data, _, insts := fixture(t, lazymask.TSPTW, datasets.Medium, 10, 15)
	out := filepath.Join(t.TempDir(), "sol.parquet")
	_, stderr, err := runCLI(t, "--model", tinyTSPTW, "--data", data, "--out", out, "--limit", "9",
		"--aug", "1", "--budget", "0", "--improve", "--workers", "1")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr)
	}
	sols, _, err := datasets.ReadSolutions(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(sols) != 9 {
		t.Fatalf("%d rows, want one per instance for the first 9", len(sols))
	}
	counts := map[string]int{}
	for i, s := range sols {
		counts[fmt.Sprintf("%s feasible=%v tour=%v", s.Source, s.Feasible, s.Tour != nil)]++
		if s.Instance != int64(i) {
			t.Fatalf("row %d is instance %d", i, s.Instance)
		}
		if s.Tour == nil {
			continue
		}
		res, cerr := lazymask.Check(insts[i], s.Tour)
		if s.Feasible != (cerr == nil) || math.Abs(res.Cost-s.Cost) > 1e-9 {
			t.Errorf("instance %d (%s): row feasible=%v cost=%v; Check %v cost %v", i, s.Source, s.Feasible, s.Cost, cerr, res.Cost)
		}
		if s.Source == SourceImproved && !s.Feasible {
			t.Errorf("instance %d: an improved tour must be feasible", i)
		}
	}
	t.Logf("rows by kind: %v", counts)
	if counts["lmask+ls feasible=true tour=true"] == 0 {
		t.Errorf("local search improved no instance: %v", counts)
	}
}

// metricsFile holds the keys of a --metrics-json file the tests read.
type metricsFile struct {
	SolInfeasible  float64      `json:"sol_infeasible"`
	InstInfeasible float64      `json:"inst_infeasible"`
	Obj            *float64     `json:"obj"`
	Gap            *float64     `json:"gap"`
	Seconds        float64      `json:"seconds"`
	Instances      int          `json:"instances"`
	Rows           int          `json:"rows"`
	Budget         int          `json:"budget"`
	Search         *solve.Stats `json:"local_search_stats"`
}

// readMetrics reads a --metrics-json file.
func readMetrics(t *testing.T, path string) metricsFile {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m metricsFile
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// solveTiny runs lmask-infer with the tiny TSPTW model on data and args
// and returns the solutions it wrote.
func solveTiny(t *testing.T, data string, args ...string) []datasets.Solution {
	t.Helper()
	out := filepath.Join(t.TempDir(), "sol.parquet")
	if _, stderr, err := runCLI(t, append([]string{"--model", tinyTSPTW, "--data", data, "--out", out}, args...)...); err != nil {
		t.Fatalf("run %v: %v\n%s", args, err, stderr)
	}
	sols, _, err := datasets.ReadSolutions(out)
	if err != nil {
		t.Fatal(err)
	}
	return sols
}

// TestInferImproveStarts: --improve searches from every decoded tour of an
// instance (here the eight transforms'), exactly as localsearch.ImproveFrom
// does on the tours written by --all-tours, and --improve-starts 1 from
// the best only; more starts are never worse and here sometimes better.
func TestInferImproveStarts(t *testing.T) {
	needRuntime(t)
	data, _, insts := fixture(t, lazymask.TSPTW, datasets.Easy, 12, 16)
	solveWith := func(extra ...string) []datasets.Solution {
		return solveTiny(t, data, append([]string{"--aug", "8", "--budget", "100", "--improve", "--workers", "1"}, extra...)...)
	}
	all, one := solveWith("--all-tours"), solveWith("--improve-starts", "1")
	final := func(sols []datasets.Solution) []float64 {
		best := make([]float64, len(insts))
		for i := range best {
			best[i] = math.Inf(1)
		}
		for _, s := range sols {
			if s.Feasible {
				best[s.Instance] = min(best[s.Instance], s.Cost)
			}
		}
		return best
	}
	fa, fo := final(all), final(one)
	better, starts := 0, 0
	for i, in := range insts {
		var decoded [][]int
		bestDecoded := math.Inf(1)
		var lsRow *datasets.Solution
		for r := range all {
			s := &all[r]
			switch {
			case s.Instance != int64(i):
			case s.Source == SourceImproved:
				lsRow = s
			case s.Tour != nil:
				decoded = append(decoded, s.Tour)
				if s.Feasible {
					bestDecoded = min(bestDecoded, s.Cost)
				}
			}
		}
		if len(decoded) == 0 {
			continue
		}
		starts++
		want, err := localsearch.ImproveFrom(in, decoded, localsearch.Options{Seed: 2025})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case want.Feasible && want.Cost < bestDecoded:
			if lsRow == nil || !slices.Equal(lsRow.Tour, want.Tour) {
				t.Fatalf("instance %d: improved row %v, want %v", i, lsRow, want.Tour)
			}
		case lsRow != nil:
			t.Fatalf("instance %d: improved row %v although local search found nothing better", i, lsRow.Tour)
		}
		if fa[i] > fo[i]+1e-9 {
			t.Errorf("instance %d: all starts %v worse than the best start alone %v", i, fa[i], fo[i])
		}
		if fa[i] < fo[i]-1e-9 {
			better++
		}
	}
	t.Logf("%d instances decoded; all eight starts beat the best alone on %d", starts, better)
	if starts < len(insts)/2 || better == 0 {
		t.Errorf("%d of %d instances decoded, %d better", starts, len(insts), better)
		t.Errorf("searching from all eight tours never beat the best tour alone: the test exercises nothing")
	}
}

// TestInferImproveNoMerge: --improve-no-merge runs the search without
// merging local optima, as localsearch.ImproveFrom does with NoMerge, and
// that changes the tours of some instances.
func TestInferImproveNoMerge(t *testing.T) {
	needRuntime(t)
	data, _, insts := fixture(t, lazymask.TSPTW, datasets.Medium, 30, 16)
	solveWith := func(extra ...string) []datasets.Solution {
		return solveTiny(t, data, append([]string{"--aug", "8", "--budget", "100", "--improve", "--all-tours",
			"--improve-kicks", "10", "--workers", "1"}, extra...)...)
	}
	mj, mjNo := filepath.Join(t.TempDir(), "m.json"), filepath.Join(t.TempDir(), "m-no.json")
	all := solveWith("--metrics-json", mj)
	differ := 0
	improvedRows := func(sols []datasets.Solution) map[int64][]int {
		m := map[int64][]int{}
		for _, s := range sols {
			if s.Source == SourceImproved {
				m[s.Instance] = s.Tour
			}
		}
		return m
	}
	merged, unmerged := improvedRows(all), improvedRows(solveWith("--improve-no-merge", "--metrics-json", mjNo))
	// The stats printed and written sum what ImproveFrom reports per instance.
	var want, wantNo solve.Stats
	for i, in := range insts {
		var decoded [][]int
		for _, s := range all {
			if s.Instance == int64(i) && s.Source != SourceImproved && s.Tour != nil {
				decoded = append(decoded, s.Tour)
			}
		}
		feasible := slices.ContainsFunc(all, func(s datasets.Solution) bool {
			return s.Instance == int64(i) && s.Source != SourceImproved && s.Feasible
		})
		if !feasible {
			decoded = append(decoded, localsearch.OrderTour(in)) // as improveAll does
		}
		for _, noMerge := range []bool{false, true} {
			want1, err := localsearch.ImproveFrom(in, decoded, localsearch.Options{Seed: 2025, Kicks: 10, NoMerge: noMerge})
			if err != nil {
				t.Fatal(err)
			}
			got := merged[int64(i)]
			sum := &want
			if noMerge {
				got, sum = unmerged[int64(i)], &wantNo
			}
			sum.Add(solve.Stats{Searched: 1, Starts: want1.Starts, Kicks: want1.Kicks, KicksAccepted: want1.KicksAccepted, Merged: want1.Merged, Moves: want1.Moves})
			if got != nil && !slices.Equal(got, want1.Tour) {
				t.Fatalf("instance %d, no merge %v: improved row %v, want %v", i, noMerge, got, want1.Tour)
			}
		}
		if !slices.Equal(merged[int64(i)], unmerged[int64(i)]) {
			differ++
		}
	}
	if differ == 0 {
		t.Errorf("--improve-no-merge changed no instance's tour: the test cannot tell whether it reaches the search")
	}
	m, mNo := readMetrics(t, mj), readMetrics(t, mjNo)
	if m.Search == nil || mNo.Search == nil {
		t.Fatalf("no local_search_stats in the metrics: %+v / %+v", m.Search, mNo.Search)
	}
	counts := func(s solve.Stats) [6]int {
		return [6]int{s.Searched, s.Starts, s.Kicks, s.KicksAccepted, s.Merged, s.Moves}
	}
	if counts(*m.Search) != counts(want) || counts(*mNo.Search) != counts(wantNo) || want.Merged == 0 || wantNo.Merged != 0 || want.Kicks == 0 {
		t.Fatalf("local-search stats %+v (no merge %+v), want %+v (%+v)", *m.Search, *mNo.Search, want, wantNo)
	}
}

// TestInferImproveFallback: with --improve, an instance whose decoding
// found no feasible tour still gets one whenever local search finds one
// from the urgency order (localsearch.OrderTour), and every tour it gets
// replays as feasible.
func TestInferImproveFallback(t *testing.T) {
	needRuntime(t)
	data, _, insts := fixture(t, lazymask.TSPTW, datasets.Medium, 10, 40)
	solveWith := func(extra ...string) []datasets.Solution {
		// --rescue-time 0: the escalation would add rows of its own.
		sols := solveTiny(t, data, append([]string{"--aug", "1", "--budget", "0", "--workers", "1", "--rescue-time", "0"}, extra...)...)
		if len(sols) != len(insts) {
			t.Fatalf("%d rows for %d instances", len(sols), len(insts))
		}
		return sols
	}
	plain, improved := solveWith(), solveWith("--improve")
	rescued := 0
	for i, in := range insts {
		if plain[i].Feasible {
			continue
		}
		want, err := localsearch.ImproveFrom(in, [][]int{localsearch.OrderTour(in)}, localsearch.Options{Seed: 2025})
		if err != nil {
			t.Fatal(err)
		}
		got := improved[i]
		if want.Feasible && !got.Feasible {
			t.Fatalf("instance %d: infeasible after --improve, but the repaired order start %v is feasible", i, want.Tour)
		}
		if got.Feasible {
			if chk, err := lazymask.Check(in, got.Tour); err != nil || !chk.Feasible || got.Source != SourceImproved {
				t.Fatalf("instance %d: row %+v does not replay as feasible: %v", i, got, err)
			}
			rescued++
		}
	}
	t.Logf("%d instances without a feasible decoded tour got one from the urgency order", rescued)
	if rescued == 0 {
		t.Fatal("no instance needed the fallback: the test exercises nothing")
	}
}

func TestInferRefusesOtherProblem(t *testing.T) {
	needRuntime(t)
	data, _, _ := fixture(t, lazymask.TSPDL, datasets.Hard, 10, 4)
	out := filepath.Join(t.TempDir(), "sol.parquet")
	_, _, err := runCLI(t, "--model", tinyTSPTW, "--data", data, "--out", out)
	if err == nil || !strings.Contains(err.Error(), "holds tspdl instances") || !strings.Contains(err.Error(), "trained for tsptw") {
		t.Fatalf("err = %v", err)
	}
	if _, serr := os.Stat(out); !os.IsNotExist(serr) {
		t.Errorf("output written despite the error")
	}
}

func TestInferWarnsFarSize(t *testing.T) {
	needRuntime(t)
	data, _, _ := fixture(t, lazymask.TSPTW, datasets.Hard, 30, 2)
	out := filepath.Join(t.TempDir(), "sol.parquet")
	_, stderr, err := runCLI(t, "--model", tinyTSPTW, "--data", data, "--out", out, "--aug", "1", "--budget", "5")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "N=30") || !strings.Contains(stderr, "training size 10") {
		t.Errorf("stderr lacks the size warning: %q", stderr)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--aug", "9"}, "--aug 9"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--aug", "0"}, "--aug 0"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--lookahead", "x"}, "--lookahead"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--device", "tpu"}, "--device"},
		{[]string{"--data", "d", "--out", "o"}, "model"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--improve-share", "0.5"}, "--improve-share needs --improve"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--improve", "--improve-share", "-1"}, "--improve-share -1"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--improve", "--improve-share", "NaN"}, "--improve-share NaN"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--bogus"}, "bogus"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--aug", "two"}, "-aug"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "extra"}, "unexpected arguments"},
	} {
		_, _, err := runCLI(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || cliapp.ExitCode(err) != cliapp.ExitUsage {
			t.Errorf("%v: err = %v (exit %d), want a usage error mentioning %q", tc.args, err, cliapp.ExitCode(err), tc.want)
		}
	}
	// A missing input is a failure, not a usage error; so is an interrupt
	// before the first row group.
	dir := t.TempDir()
	_, _, err := runCLI(t, "--model", tinyTSPTW, "--data", filepath.Join(dir, "none.parquet"), "--out", filepath.Join(dir, "o.parquet"))
	if cliapp.ExitCode(err) != cliapp.ExitFailure {
		t.Errorf("missing data file: err = %v, exit %d", err, cliapp.ExitCode(err))
	}
	var help bytes.Buffer
	if err := run(context.Background(), []string{"lmask-infer", "--help"}, &help, &help); err != nil || !strings.Contains(help.String(), "instances Parquet file (required)") {
		t.Errorf("help does not mark --data required (%v):\n%s", err, help.String())
	}
}

// TestInterruptExitCode: a cancelled run stops with context.Canceled,
// which exits with status 130, and writes no output.
func TestInterruptExitCode(t *testing.T) {
	needRuntime(t)
	data, _, _ := fixture(t, lazymask.TSPTW, datasets.Easy, 10, 4)
	out := filepath.Join(t.TempDir(), "sol.parquet")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var o, e bytes.Buffer
	err := run(ctx, []string{"lmask-infer", "--model", tinyTSPTW, "--data", data, "--out", out, "--aug", "1"}, &o, &e)
	if cliapp.ExitCode(err) != cliapp.ExitInterrupted {
		t.Fatalf("err = %v, exit %d, want %d", err, cliapp.ExitCode(err), cliapp.ExitInterrupted)
	}
	if _, serr := os.Stat(out); serr == nil {
		t.Error("output written despite the interrupt")
	}
}

func TestFarFromTrainSize(t *testing.T) {
	for _, tc := range []struct {
		n, train int
		want     bool
	}{{50, 50, false}, {100, 50, false}, {101, 50, true}, {25, 50, false}, {24, 50, true}, {500, 0, false}} {
		if got := farFromTrainSize(tc.n, tc.train); got != tc.want {
			t.Errorf("farFromTrainSize(%d, %d) = %v", tc.n, tc.train, got)
		}
	}
}

// TestInferImproveShare: with a share so large that time never runs out,
// --improve-share searches exactly as the same kicks without it (the
// options and starts are the same; only the time limit differs), and a
// small share still writes only checker-confirmed improvements.
func TestInferImproveShare(t *testing.T) {
	needRuntime(t)
	data, _, insts := fixture(t, lazymask.TSPTW, datasets.Easy, 12, 10)
	solveWith := func(extra ...string) ([]datasets.Solution, map[string]any) {
		dir := t.TempDir()
		out, mj := filepath.Join(dir, "sol.parquet"), filepath.Join(dir, "m.json")
		args := append([]string{"--model", tinyTSPTW, "--data", data, "--out", out, "--metrics-json", mj,
			"--aug", "8", "--budget", "100", "--improve", "--workers", "2"}, extra...)
		if _, stderr, err := runCLI(t, args...); err != nil {
			t.Fatalf("run %v: %v\n%s", extra, err, stderr)
		}
		sols, _, err := datasets.ReadSolutions(out)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		b, err := os.ReadFile(mj)
		if err != nil || json.Unmarshal(b, &m) != nil {
			t.Fatalf("metrics: %v", err)
		}
		return sols, m
	}
	fixed, _ := solveWith("--improve-kicks", "3")
	shared, _ := solveWith("--improve-kicks", "3", "--improve-share", "1000")
	if len(fixed) != len(shared) {
		t.Fatalf("%d rows with fixed kicks, %d with a share", len(fixed), len(shared))
	}
	improved := 0
	for r := range fixed {
		if fixed[r].Instance != shared[r].Instance || !slices.Equal(fixed[r].Tour, shared[r].Tour) || fixed[r].Source != shared[r].Source {
			t.Fatalf("row %d: fixed kicks %v %v, share %v %v", r, fixed[r].Source, fixed[r].Tour, shared[r].Source, shared[r].Tour)
		}
		if fixed[r].Source == SourceImproved {
			improved++
		}
	}
	if improved == 0 {
		t.Fatal("local search improved no instance: the comparison exercises nothing")
	}
	small, m := solveWith("--improve-share", "0.01")
	for _, s := range small {
		if s.Source != SourceImproved {
			continue
		}
		res, err := lazymask.Check(insts[s.Instance], s.Tour)
		if err != nil || !res.Feasible || math.Abs(res.Cost-s.Cost) > 1e-9 {
			t.Fatalf("instance %d: improved row %v cost %v; checker %v %v", s.Instance, s.Tour, s.Cost, res, err)
		}
	}
	if timing, _ := m["timing"].(map[string]any); timing == nil || timing["local_search"] == nil {
		t.Fatalf("metrics lack the local-search time: %v", m)
	}
}

// TestInferAugSubset: --aug 3 writes the first three transforms' tours of
// each instance, the same tours --aug 8 writes for them.
func TestInferAugSubset(t *testing.T) {
	needRuntime(t)
	data, _, insts := fixture(t, lazymask.TSPTW, datasets.Easy, 10, 5)
	tours := func(aug string) map[[2]int64][]int {
		out := filepath.Join(t.TempDir(), "sol.parquet")
		if _, stderr, err := runCLI(t, "--model", tinyTSPTW, "--data", data, "--out", out, "--aug", aug,
			"--budget", "20", "--workers", "1", "--all-tours"); err != nil {
			t.Fatalf("--aug %s: %v\n%s", aug, err, stderr)
		}
		sols, _, err := datasets.ReadSolutions(out)
		if err != nil {
			t.Fatal(err)
		}
		m := map[[2]int64][]int{}
		for _, s := range sols {
			m[[2]int64{s.Instance, int64(s.Aug)}] = s.Tour
		}
		return m
	}
	three, eight := tours("3"), tours("8")
	if len(three) != 3*len(insts) || len(eight) != 8*len(insts) {
		t.Fatalf("%d and %d tours, want %d and %d", len(three), len(eight), 3*len(insts), 8*len(insts))
	}
	for k, tour := range three {
		if k[1] >= 3 || !slices.Equal(tour, eight[k]) {
			t.Fatalf("instance %d, transform %d: --aug 3 tour %v, --aug 8 tour %v", k[0], k[1], tour, eight[k])
		}
	}
}

// Outputs that would overwrite an input, or whose folder is missing, are
// refused before the model is opened; nothing is written.
func TestInferRefusesBadOutputs(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.parquet")
	if _, err := datasets.GenerateFile(data, datasets.GenConfig{Problem: lazymask.TSPTW, N: 10, Hardness: datasets.Hard, Seed: 1}, 3, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(data)
	out := filepath.Join(dir, "sol.parquet")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", data}, "--out " + data + " is the --data file"},
		{[]string{"--out", "./" + filepath.Base(data)}, "is the --data file"},
		{[]string{"--out", out, "--reference", out}, "--out " + out + " is the --reference file"},
		{[]string{"--out", out, "--metrics-json", data}, "--metrics-json " + data + " is the --data file"},
		{[]string{"--out", out, "--metrics-json", out}, "--metrics-json " + out + " is the --out file"},
		{[]string{"--out", filepath.Join(dir, "no", "sol.parquet")}, "--out: create " + filepath.Join(dir, "no", "sol.parquet") + ": folder " + filepath.Join(dir, "no") + " does not exist"},
		{[]string{"--out", out, "--metrics-json", filepath.Join(dir, "no", "m.json")}, "--metrics-json: create"},
	} {
		t.Chdir(dir)
		_, _, err := runCLI(t, append([]string{"--model", "no-such-model", "--data", data}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want one with %q", tc.args, err, tc.want)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%v: %s was written", tc.args, out)
		}
	}
	if after, _ := os.ReadFile(data); !bytes.Equal(before, after) {
		t.Error("the data file changed")
	}
}

// A reference made for other instances (another hardness) is refused; one
// that covers only some instances says over how many the gap is.
func TestInferReferenceMismatch(t *testing.T) {
	needRuntime(t)
	data, ref, _ := fixture(t, lazymask.TSPTW, datasets.Hard, 10, 6)
	dir := t.TempDir()
	sols, meta, err := datasets.ReadSolutions(ref)
	if err != nil {
		t.Fatal(err)
	}
	easy := filepath.Join(dir, "easy-ref.parquet")
	meta.Hardness = datasets.Easy
	if err := datasets.WriteSolutions(easy, meta, sols, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "sol.parquet")
	_, _, err = runCLI(t, "--model", tinyTSPTW, "--data", data, "--out", out, "--reference", easy, "--aug", "1")
	if err == nil || !strings.Contains(err.Error(), "--reference: "+easy+" holds solutions of easy instances") {
		t.Fatalf("err = %v", err)
	}
	if _, serr := os.Stat(out); serr == nil {
		t.Errorf("output written despite the error")
	}
	part := filepath.Join(dir, "part-ref.parquet")
	meta.Hardness = datasets.Hard
	if err := datasets.WriteSolutions(part, meta, sols[:2], datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	stdout, _, err := runCLI(t, "--model", tinyTSPTW, "--data", data, "--out", out, "--reference", part, "--aug", "1", "--budget", "-1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "(over the 2 of 6 instances with a feasible tour that have a reference cost)") {
		t.Errorf("gap line does not say it covers 2 instances:\n%s", stdout)
	}
	got, gmeta, err := datasets.ReadSolutions(out)
	if err != nil || len(got) == 0 || gmeta.Hardness != datasets.Hard || gmeta.Scale != meta.Scale {
		t.Errorf("output metadata %+v (%v)", gmeta, err)
	}
}

// Without --budget the run uses the paper's R for the data's problem, size
// and hardness, and says which in the table and the metrics.
func TestDefaultBudgetFollowsTheData(t *testing.T) {
	for _, tc := range []struct {
		meta  datasets.Metadata
		model string
		want  int
	}{
		{datasets.Metadata{Problem: "tsptw", Size: 50, Hardness: "easy"}, "tsptw", 100},
		{datasets.Metadata{Problem: "tsptw", Size: 50, Hardness: "medium"}, "tsptw", 100},
		{datasets.Metadata{Problem: "tsptw", Size: 50, Hardness: "hard"}, "tsptw", 200},
		{datasets.Metadata{Problem: "tsptw", Size: 100, Hardness: "hard"}, "tsptw", 300},
		{datasets.Metadata{Problem: "tsptw", Size: 500, Hardness: "easy"}, "tsptw", 150},
		{datasets.Metadata{Problem: "tspdl", Size: 50, Hardness: "medium"}, "tspdl", 150},
		{datasets.Metadata{Size: 20}, "tspdl", 150},                  // the model's problem
		{datasets.Metadata{Problem: "tsptw", Size: 0}, "tsptw", 200}, // a benchmark: no hardness
	} {
		if got := dataBudget(tc.meta, tc.model); got != tc.want {
			t.Errorf("dataBudget(%+v, %s) = %d, want %d", tc.meta, tc.model, got, tc.want)
		}
	}
	needRuntime(t)
	data, _, _ := fixture(t, lazymask.TSPTW, datasets.Hard, 10, 3)
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want int
	}{{nil, 200}, {[]string{"--budget", "7"}, 7}, {[]string{"--budget", "-1"}, -1}} {
		mj := filepath.Join(dir, "m.json")
		stdout, stderr, err := runCLI(t, append([]string{"--model", tinyTSPTW, "--data", data, "--out", filepath.Join(dir, "s.parquet"),
			"--metrics-json", mj, "--aug", "1"}, tc.args...)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", tc.args, err, stderr)
		}
		if m := readMetrics(t, mj); m.Budget != tc.want {
			t.Errorf("%v: metrics budget %d, want %d", tc.args, m.Budget, tc.want)
		}
		want := fmt.Sprint(tc.want)
		if tc.want == -1 {
			want = "unlimited"
		}
		if !strings.Contains(stdout, "budget R") || !strings.Contains(stdout, " "+want+"\n") {
			t.Errorf("%v: table does not give the budget %s:\n%s", tc.args, want, stdout)
		}
	}
}

// TestGapMatchesCheck: the gap lmask-infer --reference reports (and writes
// for the eval scripts) is the one lmask-data check computes from the
// written tours (datasets.Evaluate), to 1e-12, also with reference tours
// that break a constraint: those instances count in the gap, and only
// gap_feasible_ref leaves them out.
func TestGapMatchesCheck(t *testing.T) {
	needRuntime(t)
	data, refPath, insts := fixture(t, lazymask.TSPDL, datasets.Hard, 10, 16)
	refs, meta, err := datasets.ReadSolutions(refPath)
	if err != nil {
		t.Fatal(err)
	}
	broken := 0
	for k := range refs {
		if k%2 == 1 { // a reference tour that breaks a draft limit, with its own recorded cost
			rev := slices.Clone(refs[k].Tour)
			slices.Reverse(rev[1:])
			if res, _ := lazymask.Check(insts[refs[k].Instance], rev); !res.Feasible {
				refs[k].Tour, refs[k].Cost, refs[k].Feasible = rev, res.Cost, false
				broken++
			}
		}
	}
	if broken == 0 {
		t.Fatal("no reversed reference tour breaks a limit; pick another fixture")
	}
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref.parquet")
	if err := datasets.WriteSolutions(ref, meta, refs, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	out, mj := filepath.Join(dir, "sol.parquet"), filepath.Join(dir, "m.json")
	if _, stderr, err := runCLI(t, "--model", "../../engine/testdata/tiny-tspdl", "--data", data, "--out", out, "--reference", ref,
		"--metrics-json", mj, "--aug", "8", "--budget", "50", "--improve", "--improve-kicks", "2"); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	raw, err := os.ReadFile(mj)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	sols, _, err := datasets.ReadSolutions(out)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := datasets.Evaluate(insts, sols, refs)
	if err != nil {
		t.Fatal(err)
	}
	num := func(k string) float64 {
		v, ok := m[k].(float64)
		if !ok {
			t.Fatalf("metrics %s = %v", k, m[k])
		}
		return v
	}
	if g := num("gap"); math.Abs(g-ev.Gap) > 1e-12 || int(num("gap_count")) != ev.GapCount {
		t.Errorf("gap %v over %v; check gives %v over %d", g, m["gap_count"], ev.Gap, ev.GapCount)
	}
	if g := num("gap_feasible_ref"); math.Abs(g-ev.GapFeasibleRef) > 1e-12 || int(num("ref_infeasible")) != broken || ev.RefInfeasible != broken {
		t.Errorf("gap over feasible references %v (%v broken); check gives %v (%d), want %d broken", g, m["ref_infeasible"], ev.GapFeasibleRef, ev.RefInfeasible, broken)
	}
	if ev.GapCount <= ev.GapFeasibleRefCount {
		t.Errorf("%d instances in the gap, %d with feasible references: the broken ones must count", ev.GapCount, ev.GapFeasibleRefCount)
	}
}
