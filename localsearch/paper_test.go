package localsearch

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/lmask/lmask/lazymask"
)

// paperSet names one of the paper's n=50 test sets and its reference file.
type paperSet struct {
	name, file, ref string
	prob            lazymask.Problem
}

var paperSets = []paperSet{
	{"tsptw50-easy", "tsptw50_test_easy_seed2025.npz", "pyvrp_50_easy.npz", lazymask.TSPTW},
	{"tsptw50-medium", "tsptw50_test_medium_seed2025.npz", "pyvrp_50_medium.npz", lazymask.TSPTW},
	{"tsptw50-hard", "tsptw50_test_hard_seed2025.npz", "pyvrp_50_hard.npz", lazymask.TSPTW},
	{"tspdl50-medium", "tspdl50_test_medium_seed2025.npz", "lkh_50_medium.npz", lazymask.TSPDL},
	{"tspdl50-hard", "tspdl50_test_hard_seed2025.npz", "lkh_50_hard.npz", lazymask.TSPDL},
}

// loadPaperSet returns the first count instances of a set with their
// reference tours (nil where the reference found none) and costs. A
// reference cycle is rotated to start at the depot in the orientation the
// checker accepts, or else in the one with less violation: a few stored
// tours are slightly infeasible under exact arithmetic (PyVRP ran on
// distances rounded at 1/1000) or violate the last port's draft limit
// (LKH).
func loadPaperSet(tb testing.TB, ps paperSet, count int) ([]*lazymask.Instance, [][]int, []float64) {
	dir := filepath.Join(sharedDir(tb), "datasets", "lmask-paper")
	var names []string
	if ps.prob == lazymask.TSPTW {
		names = []string{"locs", "time_windows", "service_time"}
	} else {
		names = []string{"locs", "demand", "draft_limit"}
	}
	arr, err := readNPZ(filepath.Join(dir, ps.file), names...)
	if err != nil {
		tb.Fatal(err)
	}
	ref, err := readNPZ(filepath.Join(dir, ps.ref), "solutions", "costs")
	if err != nil {
		tb.Fatal(err)
	}
	locs := arr["locs"]
	n := locs.shape[1]
	count = min(count, locs.shape[0])
	insts := make([]*lazymask.Instance, count)
	tours := make([][]int, count)
	costs := make([]float64, count)
	for b := 0; b < count; b++ {
		in := &lazymask.Instance{Problem: ps.prob, N: n, Scale: 1, Name: fmt.Sprintf("%s#%d", ps.name, b),
			X: make([]float64, n), Y: make([]float64, n)}
		for i := 0; i < n; i++ {
			in.X[i], in.Y[i] = locs.data[(b*n+i)*2], locs.data[(b*n+i)*2+1]
		}
		if ps.prob == lazymask.TSPTW {
			tw, st := arr["time_windows"], arr["service_time"]
			in.Early, in.Late, in.Service = make([]float64, n), make([]float64, n), make([]float64, n)
			for i := 0; i < n; i++ {
				in.Early[i], in.Late[i] = tw.data[(b*n+i)*2], tw.data[(b*n+i)*2+1]
				in.Service[i] = st.data[b*n+i]
			}
		} else {
			in.Demand = append([]float64(nil), arr["demand"].data[b*n:(b+1)*n]...)
			in.Draft = append([]float64(nil), arr["draft_limit"].data[b*n:(b+1)*n]...)
		}
		if err := in.Validate(); err != nil {
			tb.Fatalf("%s row %d: %v", ps.file, b, err)
		}
		insts[b] = in
		costs[b] = ref["costs"].data[b]
		if math.IsInf(costs[b], 0) {
			continue
		}
		m := ref["solutions"].shape[1]
		cycle := make([]int, m)
		for k := range cycle {
			cycle[k] = int(ref["solutions"].data[b*m+k])
		}
		bestViol := math.Inf(1)
		for _, rev := range []bool{false, true} {
			t := lazymask.Rotate(cycle, rev)
			if r, _ := lazymask.Check(in, t); r.Violation != nil && r.TotalViolation < bestViol {
				tours[b], bestViol = t, r.TotalViolation
			}
		}
	}
	return insts, tours, costs
}

// TestPaperReferenceTours reads the paper's test sets, checks the stored
// reference tours against their stored costs, and checks that local search
// keeps the feasible ones feasible and never longer (and reports how many of
// the slightly infeasible ones it repairs).
func TestPaperReferenceTours(t *testing.T) {
	t.Parallel()
	count := 40
	if testing.Short() {
		count = 10
	}
	for _, ps := range paperSets {
		insts, tours, costs := loadPaperSet(t, ps, count)
		better, infeasible, repaired := 0, 0, 0
		for b, in := range insts {
			if tours[b] == nil {
				if !math.IsInf(costs[b], 1) {
					t.Fatalf("%s #%d: finite reference cost %v without a tour", ps.name, b, costs[b])
				}
				continue
			}
			res, err := Improve(in, tours[b], Options{})
			if err != nil {
				t.Fatalf("%s #%d: %v", ps.name, b, err)
			}
			if math.Abs(res.StartCost-costs[b]) > 0.01 {
				t.Fatalf("%s #%d: reference tour costs %v, stored %v", ps.name, b, res.StartCost, costs[b])
			}
			if !res.StartFeasible {
				infeasible++
				if res.Feasible {
					repaired++
				}
				continue
			}
			if !res.Feasible || res.Cost > res.StartCost+1e-9 {
				t.Fatalf("%s #%d: feasible %v, cost %v -> %v", ps.name, b, res.Feasible, res.StartCost, res.Cost)
			}
			if res.Cost < res.StartCost-1e-6 {
				better++
			}
		}
		t.Logf("%s: local search shortened %d of %d reference tours; repaired %d of %d infeasible ones",
			ps.name, better, len(insts), repaired, infeasible)
	}
}

// BenchmarkPaperSets starts from greedy Random-L tours decoded with
// LazyMask (TSL, budget 400) on the first LMASK_LS_COUNT (default 200)
// instances of each n=50 test set, improves them, and reports feasibility
// and mean gaps to the reference before and after, plus local-search time
// per instance. Run with -benchtime=1x.
func BenchmarkPaperSets(b *testing.B) {
	count := 200
	if v, err := strconv.Atoi(os.Getenv("LMASK_LS_COUNT")); err == nil && v > 0 {
		count = v
	}
	for _, ps := range paperSets {
		insts, _, costs := loadPaperSet(b, ps, count)
		tr, err := lazymask.Decode(&lazymask.RandomL{}, insts, 1, lazymask.Config{Budget: 400, Greedy: true})
		if err != nil {
			b.Fatal(err)
		}
		starts := make([][]int, len(insts))
		for i, t := range tr {
			starts[i] = completeTour(t, insts[i].N)
		}
		for _, v := range []struct {
			name string
			opt  Options
		}{{"descent", Options{}}, {"kicks100", Options{Kicks: 100, Seed: 1}}} {
			b.Run(ps.name+"/"+v.name, func(b *testing.B) {
				for it := 0; it < b.N; it++ {
					var s gapStats
					began := time.Now()
					for i, in := range insts {
						res, err := Improve(in, starts[i], v.opt)
						if err != nil {
							b.Fatal(err)
						}
						s.add(res, costs[i])
					}
					per := time.Since(began).Seconds() / float64(len(insts))
					b.ReportMetric(100*s.gapBefore(), "gap0_%")
					b.ReportMetric(100*s.gapAfter(), "gap_%")
					b.ReportMetric(100*float64(s.feas0)/float64(len(insts)), "feas0_%")
					b.ReportMetric(100*float64(s.feas)/float64(len(insts)), "feas_%")
					b.ReportMetric(1e3*per, "ms/inst")
				}
			})
		}
	}
}

// completeTour returns a decoded tour, or a failed trajectory's prefix
// followed by the missing nodes in index order.
func completeTour(t lazymask.Trajectory, n int) []int {
	if t.Tour != nil {
		return t.Tour
	}
	out := append([]int(nil), t.Partial...)
	seen := make([]bool, n)
	for _, v := range out {
		seen[v] = true
	}
	for v := 1; v < n; v++ {
		if !seen[v] {
			out = append(out, v)
		}
	}
	return out
}

// gapStats accumulates feasibility and gaps to finite references.
type gapStats struct {
	feas0, feas        int
	sum0, sum          float64
	count0, countAfter int
}

func (s *gapStats) add(r Result, ref float64) {
	if r.StartFeasible {
		s.feas0++
	}
	if r.Feasible {
		s.feas++
	}
	if math.IsInf(ref, 0) {
		return
	}
	if r.StartFeasible {
		s.sum0 += (r.StartCost - ref) / ref
		s.count0++
	}
	if r.Feasible {
		s.sum += (r.Cost - ref) / ref
		s.countAfter++
	}
}

func (s *gapStats) gapBefore() float64 { return s.sum0 / float64(max(s.count0, 1)) }
func (s *gapStats) gapAfter() float64  { return s.sum / float64(max(s.countAfter, 1)) }
