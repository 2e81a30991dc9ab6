package infer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/internal/opterr"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
	"github.com/lmask/lmask/solve"
)

func TestRunEndToEnd(t *testing.T) {
	needRuntime(t)
	for _, p := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
		t.Run(p.String(), func(t *testing.T) { runEndToEnd(t, p) })
	}
}

// runEndToEnd solves a generated dataset with the tiny model of problem p
// and recomputes every written verdict, cost and metric with the checker.
func runEndToEnd(t *testing.T, p lazymask.Problem) {
	data, refPath, insts := fixture(t, p, datasets.Hard, 10, 20)
	o := options(t, tinyModel(p), data, func(o *Options) {
		o.Reference, o.Decode.Budget, o.PaperBudget, o.Decode.Batch, o.AllTours = refPath, 50, false, 3, true
	})
	sols, sum := run(t, o)
	var table bytes.Buffer
	sum.WriteTable(&table)
	for _, w := range []string{"sol_infeasible", "inst_infeasible", "obj", "gap", "wall time"} {
		if !strings.Contains(table.String(), w) {
			t.Errorf("metrics table lacks %q:\n%s", w, table.String())
		}
	}
	_, meta, err := datasets.ReadSolutions(o.Out)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Problem != p.String() || len(sols) != 8*len(insts) || meta.Extra[KeyShard] != "" {
		t.Fatalf("%d rows (problem %q, extra %v), want %d", len(sols), meta.Problem, meta.Extra, 8*len(insts))
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
	// The JSON document carries the same numbers.
	mj := filepath.Join(t.TempDir(), "m.json")
	if err := sum.WriteJSON(mj); err != nil {
		t.Fatal(err)
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
	}
	if m.Seconds <= 0 || m.Instances != len(insts) || m.Rows != len(sols) || m.Budget != 50 || m.Shard != "" {
		t.Errorf("metrics %+v", m)
	}
	if objN == 0 || gapN == 0 {
		t.Errorf("no feasible instance (%d) or no gap (%d): the test exercises nothing", objN, gapN)
	}
}

func TestRunBestImproveAndLimit(t *testing.T) {
	needRuntime(t)
	data, _, insts := fixture(t, lazymask.TSPTW, datasets.Medium, 10, 15)
	sols := solveTiny(t, data, func(o *Options) {
		o.Limit, o.Decode.Aug, o.Decode.Budget, o.PaperBudget, o.Improve, o.Engine.Workers = 9, 1, 0, false, true, 1
	})
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
	if counts["lmask+ls feasible=true tour=true"] == 0 {
		t.Errorf("local search improved no instance: %v", counts)
	}
}

// metricsFile holds the keys of a metrics JSON file the tests read.
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
	FoundBy        FoundBy      `json:"found_by"`
	Shard          string       `json:"shard"`
	ShardRows      []int64      `json:"shard_rows"`
}

// readMetrics reads a metrics JSON file.
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

// TestRunImproveStarts: Improve searches from every decoded tour of an
// instance (here the eight transforms'), exactly as
// localsearch.ImproveFrom does on the tours written with AllTours, and
// MaxStarts 1 from the best only; more starts are never worse and here
// sometimes better.
func TestRunImproveStarts(t *testing.T) {
	needRuntime(t)
	data, _, insts := fixture(t, lazymask.TSPTW, datasets.Easy, 12, 16)
	solveWith := func(all bool, starts int) []datasets.Solution {
		return solveTiny(t, data, func(o *Options) {
			o.Decode.Budget, o.PaperBudget, o.Improve, o.Engine.Workers, o.AllTours, o.Search.MaxStarts = 100, false, true, 1, all, starts
		})
	}
	all, one := solveWith(true, 8), solveWith(false, 1)
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
	if starts < len(insts)/2 || better == 0 {
		t.Errorf("%d of %d instances decoded, %d better", starts, len(insts), better)
		t.Errorf("searching from all eight tours never beat the best tour alone: the test exercises nothing")
	}
}

// TestRunImproveNoMerge: Search.NoMerge runs the search without merging
// local optima, as localsearch.ImproveFrom does with NoMerge, and that
// changes the tours of some instances; the stats sum ImproveFrom's.
func TestRunImproveNoMerge(t *testing.T) {
	needRuntime(t)
	data, _, insts := fixture(t, lazymask.TSPTW, datasets.Medium, 50, 16) // at 30 nodes both searches now end at the same tours
	solveWith := func(noMerge bool) ([]datasets.Solution, Summary) {
		return run(t, options(t, tinyTSPTW, data, func(o *Options) {
			o.Decode.Budget, o.PaperBudget, o.Improve, o.AllTours, o.Engine.Workers = 100, false, true, true, 1
			o.Search.Kicks, o.Search.NoMerge = 10, noMerge
		}))
	}
	all, sum := solveWith(false)
	unmergedRows, sumNo := solveWith(true)
	improvedRows := func(sols []datasets.Solution) map[int64][]int {
		m := map[int64][]int{}
		for _, s := range sols {
			if s.Source == SourceImproved {
				m[s.Instance] = s.Tour
			}
		}
		return m
	}
	merged, unmerged := improvedRows(all), improvedRows(unmergedRows)
	var want, wantNo solve.Stats
	differ := 0
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
		if !feasible { // the urgency start, and the insertion's (solve.improveOne)
			decoded = append(decoded, localsearch.OrderTour(in))
			t, ok := localsearch.InsertionTour(in, 20, 2025)
			if g, grown := localsearch.GrowTour(in, 0, 2025); !ok && grown {
				t = g
			}
			if t != nil {
				decoded = append(decoded, t)
			}
		}
		for _, noMerge := range []bool{false, true} {
			want1, err := localsearch.ImproveFrom(in, decoded, localsearch.Options{Seed: 2025, Kicks: 10, NoMerge: noMerge})
			if err != nil {
				t.Fatal(err)
			}
			got, acc := merged[int64(i)], &want
			if noMerge {
				got, acc = unmerged[int64(i)], &wantNo
			}
			acc.Add(solve.Stats{Searched: 1, Starts: want1.Starts, Kicks: want1.Kicks, KicksAccepted: want1.KicksAccepted, Merged: want1.Merged, Moves: want1.Moves})
			if got != nil && !slices.Equal(got, want1.Tour) {
				t.Fatalf("instance %d, no merge %v: improved row %v, want %v", i, noMerge, got, want1.Tour)
			}
		}
		if !slices.Equal(merged[int64(i)], unmerged[int64(i)]) {
			differ++
		}
	}
	if differ == 0 {
		t.Errorf("NoMerge changed no instance's tour: the test cannot tell whether it reaches the search")
	}
	counts := func(s solve.Stats) [6]int {
		return [6]int{s.Searched, s.Starts, s.Kicks, s.KicksAccepted, s.Merged, s.Moves}
	}
	if counts(*sum.Search) != counts(want) || counts(*sumNo.Search) != counts(wantNo) || want.Merged == 0 || wantNo.Merged != 0 || want.Kicks == 0 {
		t.Fatalf("local-search stats %+v (no merge %+v), want %+v (%+v)", *sum.Search, *sumNo.Search, want, wantNo)
	}
}

// TestRunImproveFallback: with Improve, an instance whose decoding found
// no feasible tour still gets one whenever local search finds one from the
// urgency order (localsearch.OrderTour), and every tour it gets replays as
// feasible.
func TestRunImproveFallback(t *testing.T) {
	needRuntime(t)
	data, _, insts := fixture(t, lazymask.TSPTW, datasets.Medium, 10, 40)
	solveWith := func(improve bool) []datasets.Solution {
		// RescueTime 0: the escalation would add rows of its own.
		sols := solveTiny(t, data, func(o *Options) {
			o.Decode.Aug, o.Decode.Budget, o.PaperBudget, o.Engine.Workers, o.RescueTime, o.Improve = 1, 0, false, 1, 0, improve
		})
		if len(sols) != len(insts) {
			t.Fatalf("%d rows for %d instances", len(sols), len(insts))
		}
		return sols
	}
	plain, improved := solveWith(false), solveWith(true)
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
			t.Fatalf("instance %d: infeasible after Improve, but the repaired order start %v is feasible", i, want.Tour)
		}
		if got.Feasible {
			if chk, err := lazymask.Check(in, got.Tour); err != nil || !chk.Feasible || got.Source != SourceImproved {
				t.Fatalf("instance %d: row %+v does not replay as feasible: %v", i, got, err)
			}
			rescued++
		}
	}
	if rescued == 0 {
		t.Fatal("no instance needed the fallback: the test exercises nothing")
	}
}

func TestRunRefusesOtherProblem(t *testing.T) {
	needRuntime(t)
	data, _, _ := fixture(t, lazymask.TSPDL, datasets.Hard, 10, 4)
	o := options(t, tinyTSPTW, data, nil)
	_, err := Run(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "holds tspdl instances") || !strings.Contains(err.Error(), "trained for tsptw") {
		t.Fatalf("err = %v", err)
	}
	if _, serr := os.Stat(o.Out); !os.IsNotExist(serr) {
		t.Errorf("output written despite the error")
	}
}

// TestRunModelErrorFirst: the model opens beside the data, yet a broken
// model is reported before broken data (as when the two opened in turn),
// and nothing is written; a broken model beside good data too.
func TestRunModelErrorFirst(t *testing.T) {
	needRuntime(t)
	broken := t.TempDir()
	for _, f := range []string{"config.json", "decoder.onnx"} {
		b, err := os.ReadFile(filepath.Join(tinyTSPTW, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(broken, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(broken, "encoder.onnx"), []byte("not onnx"), 0o644); err != nil {
		t.Fatal(err)
	}
	good, _, _ := fixture(t, lazymask.TSPTW, datasets.Easy, 10, 4)
	for _, data := range []string{filepath.Join(t.TempDir(), "absent.parquet"), good} {
		o := options(t, broken, data, nil)
		_, err := Run(context.Background(), o)
		if err == nil || !strings.Contains(err.Error(), "encoder.onnx") || strings.Contains(err.Error(), "absent.parquet") {
			t.Errorf("data %s: err = %v, want the encoder's error", filepath.Base(data), err)
		}
		if _, serr := os.Stat(o.Out); !os.IsNotExist(serr) {
			t.Errorf("data %s: output written despite the error", filepath.Base(data))
		}
	}
}

func TestRunWarnsFarSize(t *testing.T) {
	needRuntime(t)
	data, _, _ := fixture(t, lazymask.TSPTW, datasets.Hard, 30, 2)
	var log bytes.Buffer
	run(t, options(t, tinyTSPTW, data, func(o *Options) { o.Decode.Aug, o.Decode.Budget, o.PaperBudget, o.Log = 1, 5, false, &log }))
	if !strings.Contains(log.String(), "N=30") || !strings.Contains(log.String(), "training size 10") {
		t.Errorf("log lacks the size warning: %q", log.String())
	}
}

// TestRunInterrupted: a cancelled run stops with context.Canceled and
// writes no output.
func TestRunInterrupted(t *testing.T) {
	needRuntime(t)
	data, _, _ := fixture(t, lazymask.TSPTW, datasets.Easy, 10, 4)
	o := options(t, tinyTSPTW, data, func(o *Options) { o.Decode.Aug = 1 })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if _, serr := os.Stat(o.Out); serr == nil {
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

// TestRunImproveShare: with a share so large that time never runs out,
// ImproveShare searches exactly as the same kicks without it (the options
// and starts are the same; only the time limit differs), and a small share
// still writes only checker-confirmed improvements.
func TestRunImproveShare(t *testing.T) {
	needRuntime(t)
	data, _, insts := fixture(t, lazymask.TSPTW, datasets.Easy, 12, 10)
	solveWith := func(kicks int, share float64) ([]datasets.Solution, Summary) {
		return run(t, options(t, tinyTSPTW, data, func(o *Options) {
			o.Decode.Budget, o.PaperBudget, o.Improve, o.Engine.Workers, o.Search.Kicks, o.ImproveShare = 100, false, true, 2, kicks, share
		}))
	}
	fixed, _ := solveWith(3, 0)
	shared, _ := solveWith(3, 1000)
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
	small, sum := solveWith(0, 0.01)
	for _, s := range small {
		if s.Source != SourceImproved {
			continue
		}
		res, err := lazymask.Check(insts[s.Instance], s.Tour)
		if err != nil || !res.Feasible || math.Abs(res.Cost-s.Cost) > 1e-9 {
			t.Fatalf("instance %d: improved row %v cost %v; checker %v %v", s.Instance, s.Tour, s.Cost, res, err)
		}
	}
	if sum.Timing.LocalSearch <= 0 {
		t.Fatalf("no local-search time: %+v", sum.Timing)
	}
}

// TestRunAugSubset: Aug 3 writes the first three transforms' tours of each
// instance, the same tours Aug 8 writes for them.
func TestRunAugSubset(t *testing.T) {
	needRuntime(t)
	data, _, insts := fixture(t, lazymask.TSPTW, datasets.Easy, 10, 5)
	tours := func(aug int) map[[2]int64][]int {
		m := map[[2]int64][]int{}
		for _, s := range solveTiny(t, data, func(o *Options) {
			o.Decode.Aug, o.Decode.Budget, o.PaperBudget, o.Engine.Workers, o.AllTours = aug, 20, false, 1, true
		}) {
			m[[2]int64{s.Instance, int64(s.Aug)}] = s.Tour
		}
		return m
	}
	three, eight := tours(3), tours(8)
	if len(three) != 3*len(insts) || len(eight) != 8*len(insts) {
		t.Fatalf("%d and %d tours, want %d and %d", len(three), len(eight), 3*len(insts), 8*len(insts))
	}
	for k, tour := range three {
		if k[1] >= 3 || !slices.Equal(tour, eight[k]) {
			t.Fatalf("instance %d, transform %d: Aug 3 tour %v, Aug 8 tour %v", k[0], k[1], tour, eight[k])
		}
	}
}

// A reference made for other instances (another hardness) is refused; one
// that covers only some instances says over how many the gap is.
func TestRunReferenceMismatch(t *testing.T) {
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
	o := options(t, tinyTSPTW, data, func(o *Options) { o.Reference, o.Decode.Aug = easy, 1 })
	_, err = Run(context.Background(), o)
	if oe := opterr.As(err); oe == nil || oe.Option != "Reference" || !strings.Contains(err.Error(), easy+" holds solutions of easy instances") {
		t.Fatalf("err = %v, want an error of option Reference", err)
	}
	if _, serr := os.Stat(o.Out); serr == nil {
		t.Errorf("output written despite the error")
	}
	part := filepath.Join(dir, "part-ref.parquet")
	meta.Hardness = datasets.Hard
	if err := datasets.WriteSolutions(part, meta, sols[:2], datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	o.Reference, o.Decode.Budget, o.PaperBudget = part, -1, false
	got, sum := run(t, o)
	var table bytes.Buffer
	sum.WriteTable(&table)
	if !strings.Contains(table.String(), "(over the 2 of 6 instances with a feasible tour that have a reference cost)") {
		t.Errorf("gap line does not say it covers 2 instances:\n%s", table.String())
	}
	_, gmeta, err := datasets.ReadSolutions(o.Out)
	if err != nil || len(got) == 0 || gmeta.Hardness != datasets.Hard || gmeta.Scale != meta.Scale {
		t.Errorf("output metadata %+v (%v)", gmeta, err)
	}
}

// Without a budget of its own (PaperBudget) the run uses the paper's R for
// the data's problem, size and hardness, and says which in the table.
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
		if got := DataBudget(tc.meta, tc.model); got != tc.want {
			t.Errorf("DataBudget(%+v, %s) = %d, want %d", tc.meta, tc.model, got, tc.want)
		}
	}
	needRuntime(t)
	data, _, _ := fixture(t, lazymask.TSPTW, datasets.Hard, 10, 3)
	for _, tc := range []struct {
		paper  bool
		budget int
		want   int
		text   string
	}{{true, 7, 200, "200"}, {false, 7, 7, "7"}, {false, -1, -1, "unlimited"}} {
		_, sum := run(t, options(t, tinyTSPTW, data, func(o *Options) { o.Decode.Aug, o.PaperBudget, o.Decode.Budget = 1, tc.paper, tc.budget }))
		var table bytes.Buffer
		sum.WriteTable(&table)
		if sum.Budget != tc.want || !strings.Contains(table.String(), "budget R          "+tc.text+"\n") {
			t.Errorf("paper %v, budget %d: summary budget %d, want %d; table:\n%s", tc.paper, tc.budget, sum.Budget, tc.want, table.String())
		}
	}
}

// TestGapMatchesCheck: the gap Run reports (and writes for the eval
// scripts) is the one lmask-data check computes from the written tours
// (datasets.Evaluate), to 1e-12, also with reference tours that break a
// constraint: those instances count in the gap, and only
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
	ref := filepath.Join(t.TempDir(), "ref.parquet")
	if err := datasets.WriteSolutions(ref, meta, refs, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	sols, sum := run(t, options(t, tinyModel(lazymask.TSPDL), data, func(o *Options) {
		o.Reference, o.Decode.Budget, o.PaperBudget, o.Improve, o.Search.Kicks = ref, 50, false, true, 2
	}))
	ev, err := datasets.Evaluate(insts, sols, refs)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(sum.Gap-ev.Gap) > 1e-12 || sum.GapCount != ev.GapCount {
		t.Errorf("gap %v over %d; check gives %v over %d", sum.Gap, sum.GapCount, ev.Gap, ev.GapCount)
	}
	if math.Abs(sum.GapFeasibleRef-ev.GapFeasibleRef) > 1e-12 || sum.RefInfeasible != broken || ev.RefInfeasible != broken {
		t.Errorf("gap over feasible references %v (%d broken); check gives %v (%d), want %d broken", sum.GapFeasibleRef, sum.RefInfeasible, ev.GapFeasibleRef, ev.RefInfeasible, broken)
	}
	if ev.GapCount <= ev.GapFeasibleRefCount {
		t.Errorf("%d instances in the gap, %d with feasible references: the broken ones must count", ev.GapCount, ev.GapFeasibleRefCount)
	}
}

// TestForwardTime: the search's share is based on the decode's forward
// steps. Rows beyond one per node and tour (backtracking) take their part
// of the decoder's time out of the decode's wall time, except for the
// instances whose decode failed (by N²); a decode without backtracking
// keeps its whole time.
func TestForwardTime(t *testing.T) {
	insts := []*lazymask.Instance{{N: 11}, {N: 21}} // 10 + 20 forward steps per tour
	before := engine.Stats{Rows: 100, Tours: 4, Decoder: time.Second, Decode: 2 * time.Second}
	for _, tc := range []struct {
		rows     int64
		decoder  time.Duration
		cpu      time.Duration
		decode   time.Duration
		want     time.Duration
		describe string
	}{
		{60, 4 * time.Second, 8 * time.Second, 4 * time.Second, 4 * time.Second, "2 tours each, 60 rows: no backtracking"},
		{120, 4 * time.Second, 8 * time.Second, 4 * time.Second, 3 * time.Second, "half the rows backtrack: half the decoder's half of the time goes"},
		{240, 8 * time.Second, 8 * time.Second, 4 * time.Second, time.Second, "three quarters backtrack, all decoder"},
		{50, 4 * time.Second, 8 * time.Second, 4 * time.Second, 4 * time.Second, "fewer rows than steps (tours ended early): unchanged"},
	} {
		after := engine.Stats{Rows: before.Rows + tc.rows, Tours: before.Tours + 4, Decoder: before.Decoder + tc.decoder, Decode: before.Decode + tc.cpu}
		if got := forwardTime(tc.decode, before, after, insts, nil); got != tc.want {
			t.Errorf("%s: forwardTime = %v, want %v", tc.describe, got, tc.want)
		}
	}
	if got := forwardTime(time.Second, before, before, insts, nil); got != time.Second {
		t.Errorf("no rows scored: forwardTime = %v, want the decode's 1s", got)
	}
	// Three quarters backtrack, all decoder (1 s without failures): the
	// 21-node instance (441 of 562 by N²) failed and keeps its part.
	after := engine.Stats{Rows: before.Rows + 240, Tours: before.Tours + 4, Decoder: before.Decoder + 8*time.Second, Decode: before.Decode + 8*time.Second}
	frac := 1 - 0.75*121.0/562
	want := time.Duration(float64(4*time.Second) * frac)
	if got := forwardTime(4*time.Second, before, after, insts, []bool{false, true}); got < want-time.Microsecond || got > want+time.Microsecond {
		t.Errorf("one failed instance: forwardTime = %v, want %v", got, want)
	}
	if got := forwardTime(4*time.Second, before, after, insts, []bool{true, true}); got != 4*time.Second {
		t.Errorf("every decode failed: forwardTime = %v, want the decode's 4s", got)
	}
}

// TestSetupPart: a row group's part of share × setup goes by its instances;
// no setup, share or instances give none, and a group larger than the
// total (a limit) takes the whole.
func TestSetupPart(t *testing.T) {
	for _, tc := range []struct {
		share float64
		setup time.Duration
		n     int
		total int64
		want  time.Duration
	}{
		{0.75, 200 * time.Millisecond, 10, 10, 150 * time.Millisecond},
		{0.75, 200 * time.Millisecond, 250, 1000, 37500 * time.Microsecond},
		{0.75, 200 * time.Millisecond, 20, 10, 150 * time.Millisecond},
		{0, 200 * time.Millisecond, 10, 10, 0},
		{0.75, 0, 10, 10, 0},
		{0.75, -time.Second, 10, 10, 0},
		{0.75, time.Second, 0, 10, 0},
		{0.75, time.Second, 10, 0, 0},
	} {
		if got := setupPart(tc.share, tc.setup, tc.n, tc.total); got != tc.want {
			t.Errorf("setupPart(%v, %v, %d, %d) = %v, want %v", tc.share, tc.setup, tc.n, tc.total, got, tc.want)
		}
	}
}
