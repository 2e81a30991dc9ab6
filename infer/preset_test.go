package infer

import (
	"bytes"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/internal/testenv"
	"github.com/lmask/lmask/lazymask"
)

func TestPresets(t *testing.T) {
	paper, err := Preset(PresetPaper)
	if err != nil || !reflect.DeepEqual(paper, DefaultOptions()) {
		t.Errorf("paper preset %+v (%v), want DefaultOptions", paper, err)
	}
	best, _ := Preset(PresetBest)
	if best.Decode.Aug != 2 || !best.Improve || best.ImproveShare != 3.5 || best.SetupShare != SetupShare || best.Search.MinKicks != MinKicks || best.BudgetPerNode != AutoBudgetPerNode || !best.PaperBudget {
		t.Errorf("best preset %+v", best)
	}
	fast, _ := Preset(PresetFast)
	if fast.Decode.Aug != 1 || fast.Decode.Batch != FastBatch || !fast.Improve || fast.ImproveShare != 0 || fast.SetupShare != 0 || fast.Search.Kicks != FastKicks || fast.BudgetPerNode != AutoBudgetPerNode {
		t.Errorf("fast preset %+v", fast)
	}
	if _, err := Preset("quick"); err == nil || !strings.Contains(err.Error(), `"quick"`) || !strings.Contains(err.Error(), "paper, best, fast") {
		t.Errorf("unknown preset: %v", err)
	}
}

// reproducible runs the best preset with reproducible settings (a fixed
// kick count, no time share) and budget 1 on hard instances that the tiny
// model (trained at 10 nodes without backtracking) often fails at that
// budget.
func reproducible(t *testing.T, data string) ([]datasets.Solution, Summary) {
	t.Helper()
	o, err := Preset(PresetBest)
	if err != nil {
		t.Fatal(err)
	}
	o.Model, o.Data, o.Out = tinyTSPTW, data, filepath.Join(t.TempDir(), "sol.parquet")
	o.PaperBudget, o.Decode.Budget, o.RescueBudget = false, 1, 64
	o.ImproveShare, o.Search.Kicks = 0, 5
	return run(t, o)
}

// Instances left without a feasible decoded tour are repaired by the
// search, not decoded again first: each gets a searched row that the
// checker finds feasible, its decoded rows are those of a decode at the
// file's budget (no retry replaced them), and no instance reaches the
// escalation.
func TestBestRepairsFailedDecodes(t *testing.T) {
	needRuntime(t)
	data, _, insts := fixture(t, lazymask.TSPTW, datasets.Hard, 60, 12)
	sols, sum := reproducible(t, data)
	if sum.FoundBy.Repair == 0 || sum.FoundBy.Retry != 0 || sum.FoundBy.Search != 0 || sum.FoundBy.None != 0 || sum.InstInfeasible != 0 {
		t.Fatalf("found by %+v, inst_infeasible %v", sum.FoundBy, sum.InstInfeasible)
	}
	e, err := engine.Open(tinyTSPTW, engine.Options{Threads: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	decoded, err := e.Solve(insts, engine.SolveOptions{Aug: 2, Budget: 1})
	if err != nil {
		t.Fatal(err)
	}
	repaired := 0
	for i, in := range insts {
		var best *datasets.Solution
		for k := range sols {
			s := &sols[k]
			if s.Instance != int64(i) {
				continue
			}
			if s.Source == SourceRetry || s.Source == SourceSearch {
				t.Errorf("instance %d: a %s row", i, s.Source)
			}
			if s.Source == SourceImproved {
				best = s
			} else if s.Cost != decoded[i].Best.Cost {
				t.Errorf("instance %d: decoded row cost %v, a decode alone %v", i, s.Cost, decoded[i].Best.Cost)
			}
		}
		if decoded[i].Best.Feasible {
			continue
		}
		repaired++
		if best == nil {
			t.Fatalf("instance %d: decode infeasible and no searched row", i)
		}
		chk, err := lazymask.Check(in, best.Tour)
		if err != nil || !chk.Feasible || chk.Cost != best.Cost {
			t.Errorf("instance %d: searched row %v cost %v, check %v %v", i, best.Tour, best.Cost, chk.Feasible, err)
		}
	}
	if repaired != sum.FoundBy.Repair {
		t.Errorf("%d decodes infeasible, found by %+v", repaired, sum.FoundBy)
	}
}

// The escalation's retries go to at least 16 times an instance's own
// budget, whatever RescueBudget says: with budget 1, RescueBudget 1 and no
// search, each retry row is the first feasible tour of a decode of that
// instance alone at budget 4 or 16 (values compared with the engine).
func TestRescueRetriesSixteenfold(t *testing.T) {
	needRuntime(t)
	data, _, insts := fixture(t, lazymask.TSPTW, datasets.Hard, 60, 12)
	o := DefaultOptions()
	o.Model, o.Data, o.Out = tinyTSPTW, data, filepath.Join(t.TempDir(), "sol.parquet")
	o.PaperBudget, o.Decode.Aug, o.Decode.Budget, o.RescueBudget = false, 2, 1, 1
	sols, sum := run(t, o)
	if sum.FoundBy.Retry == 0 {
		t.Fatalf("found by %+v: no retry found a tour", sum.FoundBy)
	}
	e, err := engine.Open(tinyTSPTW, engine.Options{Threads: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	retries := 0
	for _, s := range sols {
		if s.Source != SourceRetry {
			continue
		}
		retries++
		in := insts[s.Instance]
		var want *engine.Tour
		for _, b := range []int{1, 4, 16} {
			got, err := e.Solve([]*lazymask.Instance{in}, engine.SolveOptions{Aug: 2, Budget: b})
			if err != nil {
				t.Fatal(err)
			}
			if got[0].Best.Feasible {
				if b == 1 {
					t.Fatalf("instance %d: feasible at budget 1, yet retried", s.Instance)
				}
				want = &got[0].Best
				break
			}
		}
		chk, err := lazymask.Check(in, s.Tour)
		if want == nil || err != nil || !chk.Feasible || !slices.Equal(s.Tour, want.Nodes) || s.Cost != want.Cost {
			t.Errorf("instance %d: retry row %v cost %v, check %v %v; decode alone %+v", s.Instance, s.Tour, s.Cost, chk.Feasible, err, want)
		}
	}
	if retries != sum.FoundBy.Retry {
		t.Errorf("%d retry rows, found by %+v", retries, sum.FoundBy)
	}
}

// The best preset with a fixed kick count and no time share writes the same
// rows in two runs, repairs included.
func TestBestPresetDeterministic(t *testing.T) {
	needRuntime(t)
	data, _, _ := fixture(t, lazymask.TSPTW, datasets.Hard, 60, 12)
	a, sa := reproducible(t, data)
	b, sb := reproducible(t, data)
	if sa.FoundBy != sb.FoundBy || len(a) != len(b) {
		t.Fatalf("found by %+v and %+v, %d and %d rows", sa.FoundBy, sb.FoundBy, len(a), len(b))
	}
	for i := range a {
		if a[i].Instance != b[i].Instance || a[i].Source != b[i].Source || a[i].Cost != b[i].Cost || !slices.Equal(a[i].Tour, b[i].Tour) {
			t.Fatalf("row %d differs: %+v and %+v", i, a[i], b[i])
		}
	}
}

// Where the paper fixes no budget for the data (a file without hardness),
// the best preset gives an N-node instance max(200, 16·N); where it fixes
// one, the paper's R stays.
func TestBudgetPerNodeWhereUnknown(t *testing.T) {
	needRuntime(t)
	insts, _, err := datasets.Generate(datasets.GenConfig{Problem: lazymask.TSPTW, N: 20, Hardness: datasets.Hard, Seed: 5}, 2)
	if err != nil {
		t.Fatal(err)
	}
	bench := filepath.Join(t.TempDir(), "bench.parquet")
	if err := datasets.WriteInstances(bench, datasets.Metadata{Kind: datasets.KindInstances, Problem: "tsptw"}, insts, nil, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	known, _, _ := fixture(t, lazymask.TSPTW, datasets.Hard, 20, 2)
	for _, tc := range []struct {
		data    string
		perNode int
		text    string
	}{{bench, 16, "200, raised to 16·N for N > 12 nodes"}, {known, 0, "200"}} {
		o, _ := Preset(PresetBest)
		o.Model, o.Data, o.Out, o.ImproveShare, o.Search.Kicks = tinyTSPTW, tc.data, filepath.Join(t.TempDir(), "s.parquet"), 0, 1
		_, sum := run(t, o)
		var table bytes.Buffer
		sum.WriteTable(&table)
		if sum.Budget != 200 || sum.BudgetPerNode != tc.perNode || !strings.Contains(table.String(), "budget R          "+tc.text+"\n") {
			t.Errorf("%s: budget %d per node %d; table:\n%s", tc.data, sum.Budget, sum.BudgetPerNode, table.String())
		}
	}
	o := engine.SolveOptions{Budget: 200, BudgetPerNode: 16}
	if o.BudgetFor(10) != 200 || o.BudgetFor(200) != 3200 || (engine.SolveOptions{Budget: lazymask.Unlimited, BudgetPerNode: 16}).BudgetFor(200) != lazymask.Unlimited {
		t.Errorf("BudgetFor: %d, %d", o.BudgetFor(10), o.BudgetFor(200))
	}
}

// Ohlmann and Thomas's n200w120.001 with the shipped TSPTW-50 medium
// model: at R = 200 neither of the best preset's two transforms decodes a
// feasible tour, nor at 800; the escalation's retries find one at 3,200
// (= 16·200, the budget the preset gives a 200-node instance of unknown
// hardness).
func TestRetryOhlmannThomas(t *testing.T) {
	needRuntime(t)
	path := testenv.SharedFile(t, "benchmarks", "tsptw-ohlmann-thomas", "n200w120.001.txt")
	if testing.Short() {
		t.Skip("decodes a 200-node instance several times")
	}
	b, err := datasets.ImportBenchmark(path, datasets.FormatLIB, datasets.BenchmarkOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := b.Dataset.Instances[0]
	e, err := engine.Open(filepath.Join(testenv.RepoRoot(t), "models", "pretrained", "tsptw50-medium"), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, tc := range []struct {
		budget   int
		feasible bool
	}{{200, false}, {800, false}, {3200, true}} {
		sols, err := e.Solve([]*lazymask.Instance{in}, engine.SolveOptions{Aug: 2, Budget: tc.budget})
		if err != nil {
			t.Fatal(err)
		}
		if sols[0].Best.Feasible != tc.feasible {
			t.Errorf("budget %d: feasible %v, want %v", tc.budget, sols[0].Best.Feasible, tc.feasible)
		}
	}
	s, err := e.NewSolver(engine.SolveOptions{Aug: 2, Budget: 200, Seed: 2025})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r, _, err := s.Retry(t.Context(), in, 0, engine.DefaultRescueBudget, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	chk, err := lazymask.Check(in, r.Tour.Nodes)
	if r.Step != engine.StepRetry || r.Budget != 3200 || r.Retries != 2 || err != nil || !chk.Feasible || chk.Cost != r.Tour.Cost {
		t.Errorf("retry: step %v budget %d after %d retries, check %v %v", r.Step, r.Budget, r.Retries, chk.Feasible, err)
	}
}
