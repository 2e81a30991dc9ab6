package infer

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// Without the search, --starts random-l is the Random-L ×8 baseline
// (lmask-data baseline): each instance's best of 8 Random-L tours with the
// data's budget and seed+row, the same tour and verdict; no model is
// opened. The urgency starts are the urgency order.
func TestRunRandomLStartsAreTheBaseline(t *testing.T) {
	for _, p := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
		data, _, insts := fixture(t, p, datasets.Medium, 10, 12)
		o := options(t, "", data, func(o *Options) { o.Starts = StartsRandomL })
		sols, sum := run(t, o)
		meta := datasets.Metadata{Problem: p.String(), Size: 10, Hardness: datasets.Medium}
		cfg := lazymask.Config{Lookahead: lazymask.LookTSL, Budget: DataBudget(meta, ""), Semantics: lazymask.Test, Seed: o.Decode.Seed}
		want, err := Baseline(context.Background(), insts, "random-l", HeuristicSamples, cfg, 2, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(sols) != len(want) {
			t.Fatalf("%s: %d rows, want %d", p, len(sols), len(want))
		}
		for i := range sols {
			g, w := sols[i], want[i]
			if !slices.Equal(g.Tour, w.Tour) || g.Feasible != w.Feasible || (g.Tour != nil && math.Abs(g.Cost-w.Cost) > 1e-12) || g.Source != StartsRandomL {
				t.Errorf("%s instance %d: got %v %v %v (%s), baseline %v %v %v", p, i, g.Tour, g.Feasible, g.Cost, g.Source, w.Tour, w.Feasible, w.Cost)
			}
		}
		if sum.Starts != StartsRandomL || sum.Budget != cfg.Budget || sum.Instances != len(insts) {
			t.Errorf("%s: summary starts %q budget %d instances %d", p, sum.Starts, sum.Budget, sum.Instances)
		}
		if sum.CPUSeconds <= 0 {
			t.Errorf("%s: no CPU time reported (%v)", p, sum.CPUSeconds)
		}

		o = options(t, "", data, func(o *Options) { o.Starts = StartsUrgency })
		sols, _ = run(t, o)
		want, err = Baseline(context.Background(), insts, "urgency", 1, cfg, 1, false)
		if err != nil {
			t.Fatal(err)
		}
		// Where the urgency order breaks a constraint, the escalation's
		// feasibility search adds a feasible row (source urgency+search).
		starts, rescued := 0, 0
		for _, s := range sols {
			switch s.Source {
			case StartsUrgency:
				starts++
				if !slices.Equal(s.Tour, want[s.Instance].Tour) {
					t.Errorf("%s instance %d: urgency start %v, want %v", p, s.Instance, s.Tour, want[s.Instance].Tour)
				}
			case StartsUrgency + "+search":
				rescued++
				if want[s.Instance].Feasible {
					t.Errorf("%s instance %d: rescued a feasible start", p, s.Instance)
				}
				if _, err := lazymask.Check(insts[s.Instance], s.Tour); err != nil || !s.Feasible {
					t.Errorf("%s instance %d: rescued tour feasible=%v, Check: %v", p, s.Instance, s.Feasible, err)
				}
			default:
				t.Errorf("%s instance %d: source %q", p, s.Instance, s.Source)
			}
		}
		if starts != len(insts) {
			t.Errorf("%s: %d urgency rows (%d rescued), want one per instance", p, starts, rescued)
		}
	}
}

// The search from Random-L starts under a fixed number of kicks (as
// --preset fast) gives the same rows whatever the workers, never a worse
// tour than the starts, and verdicts the checker confirms; the summary's
// gap is the independent evaluation's.
func TestRunNoNetworkFixedKicksDeterministic(t *testing.T) {
	data, ref, insts := fixture(t, lazymask.TSPTW, datasets.Hard, 10, 16)
	fast, err := Preset(PresetFast)
	if err != nil {
		t.Fatal(err)
	}
	solveWith := func(starts string, workers int, improve bool) ([]datasets.Solution, Summary) {
		o := fast
		o.Data, o.Out, o.Reference = data, filepath.Join(t.TempDir(), "sol.parquet"), ref
		o.Starts, o.Engine.Workers, o.Improve = starts, workers, improve
		return run(t, o)
	}
	for _, starts := range []string{StartsRandomL, StartsUrgency} {
		a, sa := solveWith(starts, 1, true)
		b, _ := solveWith(starts, 2, true)
		if len(a) != len(b) {
			t.Fatalf("%s: %d rows with one worker, %d with two", starts, len(a), len(b))
		}
		for i := range a {
			if !slices.Equal(a[i].Tour, b[i].Tour) || a[i].Source != b[i].Source {
				t.Fatalf("%s row %d differs between 1 and 2 workers: %v (%s) / %v (%s)", starts, i, a[i].Tour, a[i].Source, b[i].Tour, b[i].Source)
			}
		}
		plain, _ := solveWith(starts, 1, false)
		best := bestPerInstance(a)
		for _, s := range plain {
			g := best[s.Instance]
			if s.Feasible && (!g.Feasible || g.Cost > s.Cost+1e-9) {
				t.Errorf("%s instance %d: searched %v %v, worse than its start %v", starts, s.Instance, g.Feasible, g.Cost, s.Cost)
			}
		}
		for _, s := range a {
			if s.Tour == nil {
				continue
			}
			res, cerr := lazymask.Check(insts[s.Instance], s.Tour)
			if s.Feasible != (cerr == nil) || math.Abs(res.Cost-s.Cost) > 1e-9 {
				t.Errorf("%s instance %d: row feasible=%v cost=%v; Check %v %v", starts, s.Instance, s.Feasible, s.Cost, cerr, res.Cost)
			}
		}
		if sa.Search == nil || sa.Search.Searched != len(insts) || sa.Search.Kicks == 0 || sa.Search.Kicks > FastKicks*len(insts) {
			t.Errorf("%s: search stats %+v, want every instance searched with at most %d kicks each", starts, sa.Search, FastKicks)
		}
		refs, _, err := datasets.ReadSolutions(ref)
		if err != nil {
			t.Fatal(err)
		}
		m, err := datasets.Evaluate(insts, a, refs)
		if err != nil {
			t.Fatal(err)
		}
		if !closeOrNaN(m.Gap, sa.Gap) || m.InstInfeasible != sa.InstInfeasible {
			t.Errorf("%s: summary gap %v / inst infeasible %v, the checker's %v / %v", starts, sa.Gap, sa.InstInfeasible, m.Gap, m.InstInfeasible)
		}
	}
}

func bestPerInstance(sols []datasets.Solution) map[int64]datasets.Solution {
	best := map[int64]datasets.Solution{}
	for _, s := range sols {
		b, ok := best[s.Instance]
		if !ok || lazymask.Compare(verdictOf(s), verdictOf(b)) < 0 {
			best[s.Instance] = s
		}
	}
	return best
}

func closeOrNaN(a, b float64) bool {
	return (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) < 1e-12
}

// Under a CPU budget the search runs (kicks bounded only by the budget),
// the budget is reported, and the metrics carry the run's CPU time and its
// share of the wall time.
func TestRunNoNetworkCPUBudget(t *testing.T) {
	data, _, insts := fixture(t, lazymask.TSPDL, datasets.Hard, 10, 9)
	o, err := Preset(PresetBest)
	if err != nil {
		t.Fatal(err)
	}
	o.Data, o.Out, o.Starts, o.CPUPerInstance = data, filepath.Join(t.TempDir(), "sol.parquet"), StartsRandomL, 20*time.Millisecond
	sols, sum := run(t, o)
	if len(bestPerInstance(sols)) != len(insts) {
		t.Fatalf("%d instances with rows, want %d", len(bestPerInstance(sols)), len(insts))
	}
	if sum.Search == nil || sum.Search.Searched != len(insts) || sum.Search.Kicks <= MinKicks {
		t.Errorf("search stats %+v: want every instance searched, kicks bounded by the budget only", sum.Search)
	}
	if want := 0.02 * float64(len(insts)); math.Abs(sum.CPUBudget-want) > 1e-9 {
		t.Errorf("cpu budget %v, want %v", sum.CPUBudget, want)
	}
	raw, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	cpu, _ := m["cpu_seconds"].(float64)
	share, _ := m["cpu_share"].(float64)
	if m["starts"] != StartsRandomL || cpu <= 0 || math.Abs(share-100*cpu/sum.Seconds) > 1e-9 || m["cpu_budget"] != sum.CPUBudget {
		t.Errorf("metrics JSON starts %v cpu_seconds %v cpu_share %v cpu_budget %v (wall %v)", m["starts"], m["cpu_seconds"], m["cpu_share"], m["cpu_budget"], sum.Seconds)
	}
	var tab strings.Builder
	sum.WriteTable(&tab)
	if !strings.Contains(tab.String(), "% of the wall time") || !strings.Contains(tab.String(), "random-l, no network") {
		t.Errorf("table lacks the CPU share or the starts:\n%s", tab.String())
	}
}

// A network run without a model, a CPU budget with the network, a time
// share without a budget or an unknown source are refused, with nothing
// written.
func TestRunStartsErrors(t *testing.T) {
	data, _, _ := fixture(t, lazymask.TSPTW, datasets.Easy, 10, 3)
	best, err := Preset(PresetBest)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		edit func(o *Options)
		want string
	}{
		{func(o *Options) { o.Starts = StartsNetwork }, "no model"},
		{func(o *Options) {}, "no model"},
		{func(o *Options) { o.Model, o.CPUBudget = tinyTSPTW, time.Second }, "CPU budget applies to starts without a network"},
		{func(o *Options) { o.Starts = StartsRandomL }, "needs a decode"},
		{func(o *Options) { o.Starts = "random-x" }, `unknown start source "random-x"`},
		{func(o *Options) { o.Starts, o.CPUBudget = StartsUrgency, -time.Second }, "want ≥ 0"},
	} {
		o := best
		o.Data, o.Out = data, filepath.Join(t.TempDir(), "sol.parquet")
		tc.edit(&o)
		_, err := Run(context.Background(), o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err = %v, want one mentioning %q", err, tc.want)
		}
		if _, _, serr := datasets.ReadSolutions(o.Out); serr == nil {
			t.Errorf("%q: output written despite the error", tc.want)
		}
	}
}

// A network run reports its CPU time and share too.
func TestRunNetworkReportsCPUShare(t *testing.T) {
	needRuntime(t)
	data, _, _ := fixture(t, lazymask.TSPTW, datasets.Medium, 10, 8)
	_, sum := run(t, options(t, tinyTSPTW, data, func(o *Options) { o.Decode.Aug = 1 }))
	if sum.CPUSeconds <= 0 || sum.CPUShare() <= 0 || sum.startsName() != StartsNetwork {
		t.Errorf("cpu %v s, share %v%%, starts %q", sum.CPUSeconds, sum.CPUShare(), sum.startsName())
	}
}

// The decode of the next instance group overlaps the search of the last
// one by default; with fixed kicks the rows are the same as decoding and
// searching one group after the other, and the same whether the file's
// one row group is cut into instance groups or its row groups of 7 are
// the groups.
func TestRunOverlapMatchesSequential(t *testing.T) {
	needRuntime(t)
	const count = GroupSize + 10
	fast, err := Preset(PresetFast)
	if err != nil {
		t.Fatal(err)
	}
	var files [3][]datasets.Solution
	var sums [3]Summary
	for k, tc := range []struct {
		group int
		seq   bool
	}{{count, false}, {count, true}, {7, false}} {
		data, _, _ := fixtureGroups(t, lazymask.TSPTW, datasets.Medium, 10, count, tc.group)
		o := fast
		o.Model, o.Data, o.Out, o.Overlap = tinyTSPTW, data, filepath.Join(t.TempDir(), "sol.parquet"), !tc.seq
		var last int64
		o.Progress = func(done, total int64) {
			if done < last || total != count {
				t.Errorf("progress %d of %d after %d", done, total, last)
			}
			last = done
		}
		files[k], sums[k] = run(t, o)
		if last != count {
			t.Errorf("%+v: progress ended at %d", tc, last)
		}
	}
	for k := 1; k < 3; k++ {
		a, b := files[0], files[k]
		if len(a) != len(b) {
			t.Fatalf("run %d: %d rows, run 0 %d", k, len(b), len(a))
		}
		for i := range a {
			if !slices.Equal(a[i].Tour, b[i].Tour) || a[i].Source != b[i].Source || a[i].Instance != b[i].Instance {
				t.Fatalf("run %d, row %d: %v (%s, instance %d), run 0 %v (%s, instance %d)", k, i, b[i].Tour, b[i].Source, b[i].Instance, a[i].Tour, a[i].Source, a[i].Instance)
			}
		}
		if sums[k].Instances != count || sums[0].Search.Searched != sums[k].Search.Searched || sums[0].Search.Kicks != sums[k].Search.Kicks {
			t.Errorf("run %d: summary %d instances, search %+v; run 0 %+v", k, sums[k].Instances, sums[k].Search, sums[0].Search)
		}
	}
}

// A run cancelled while the next group decodes ahead stops with the
// context's error and writes nothing.
func TestRunOverlapCancelled(t *testing.T) {
	needRuntime(t)
	data, _, _ := fixtureGroups(t, lazymask.TSPTW, datasets.Medium, 10, GroupSize*3, GroupSize*3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := options(t, tinyTSPTW, data, func(o *Options) {
		o.Decode.Aug, o.Improve, o.Search.Kicks = 1, true, 2
		o.Progress = func(done, total int64) {
			if done >= GroupSize {
				cancel()
			}
		}
	})
	if _, err := Run(ctx, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if _, _, err := datasets.ReadSolutions(o.Out); err == nil {
		t.Error("output written despite the cancellation")
	}
}
