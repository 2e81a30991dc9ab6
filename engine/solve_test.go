package engine

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

func openToy(t *testing.T, p lazymask.Problem, workers int) *Engine {
	t.Helper()
	needRuntime(t)
	dir, _ := toyDir(t, p, nil)
	e, err := Open(dir, Options{Threads: 1, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func TestSolveGreedyVerifiedAndBest(t *testing.T) {
	for _, p := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
		t.Run(p.String(), func(t *testing.T) {
			e := openToy(t, p, 2)
			insts := randomInstances(p, 7, 10, 5)
			sols, err := e.Solve(insts, SolveOptions{Budget: lazymask.Unlimited, Batch: 3, AllTours: true})
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range sols {
				if s.Decoded != 8 || len(s.Tours) != 8 {
					t.Fatalf("instance %d: %d decoded, %d kept, want 8", i, s.Decoded, len(s.Tours))
				}
				feasible, bestCost := 0, math.Inf(1)
				for k, tr := range s.Tours {
					if tr.Aug != k || tr.Sample != 0 {
						t.Errorf("instance %d tour %d: aug %d sample %d", i, k, tr.Aug, tr.Sample)
					}
					res, err := lazymask.Check(insts[i], tr.Nodes)
					if tr.Feasible != (err == nil) || math.Abs(res.Cost-tr.Cost) > 1e-12 {
						t.Errorf("instance %d aug %d: tour says feasible=%v cost=%v, Check says %v, %v", i, k, tr.Feasible, tr.Cost, err, res.Cost)
					}
					if tr.Feasible {
						feasible++
						bestCost = math.Min(bestCost, tr.Cost)
					}
				}
				// An unlimited budget with TSL backtracking finds a feasible
				// tour whenever one exists, and these instances have one.
				if feasible != 8 || s.Feasible != 8 {
					t.Errorf("instance %d: %d feasible tours (%d counted), want 8", i, feasible, s.Feasible)
				}
				if !s.Best.Feasible || s.Best.Cost != bestCost {
					t.Errorf("instance %d: best %+v, want the cheapest feasible cost %v", i, s.Best, bestCost)
				}
			}
		})
	}
}

func TestSolveDeterministic(t *testing.T) {
	insts := randomInstances(lazymask.TSPTW, 9, 10, 8)
	run := func(workers int, opts SolveOptions) []Solution {
		e := openToy(t, lazymask.TSPTW, workers)
		sols, err := e.Solve(insts, opts)
		if err != nil {
			t.Fatal(err)
		}
		return sols
	}
	greedy := SolveOptions{Budget: 5, Batch: 2}
	a, b := run(1, greedy), run(2, greedy)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("greedy solve differs between 1 and 2 workers")
	}
	if c := run(2, greedy); !reflect.DeepEqual(a, c) {
		t.Fatal("greedy solve differs between runs")
	}
	sampled := SolveOptions{Budget: 5, Batch: 4, Samples: 3, Seed: 99, Aug: 1, AllTours: true}
	s1, s2 := run(1, sampled), run(2, sampled)
	if !reflect.DeepEqual(s1, s2) {
		t.Fatal("sampled solve with a fixed seed differs between 1 and 2 workers")
	}
	if len(s1[0].Tours) != 3 || s1[0].Tours[2].Sample != 2 || s1[0].Tours[2].Aug != 0 {
		t.Fatalf("sampled tours %+v, want 3 samples of aug 0", s1[0].Tours)
	}
}

func TestSolveStats(t *testing.T) {
	e := openToy(t, lazymask.TSPTW, 2)
	s, err := e.NewSolver(SolveOptions{Aug: 8, Budget: 10, Batch: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	done := 0
	s.SetProgress(func(d int) { done = d })
	if _, err := s.Solve(randomInstances(lazymask.TSPTW, 5, 8, 2)); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if done != 5 || st.Instances != 5 || st.Tours != 40 || st.Workers != 2 {
		t.Errorf("progress %d, stats %+v; want 5 instances, 40 tours, 2 workers", done, st)
	}
	if st.Encoder <= 0 || st.Decoder <= 0 || st.Decode < st.Encoder+st.Decoder || st.Rows < 40*7 {
		t.Errorf("implausible timing %+v (each tour needs ≥ 7 decoder rows)", st)
	}
}

func TestSolveOptionErrors(t *testing.T) {
	e := openToy(t, lazymask.TSPTW, 1)
	for _, o := range []SolveOptions{{Aug: 9}, {Aug: -1}, {Samples: -1}, {Budget: -2}} {
		if _, err := e.Solve(randomInstances(lazymask.TSPTW, 1, 5, 1), o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

// TestTourVerdict: a failed tour ranks last, and the other facts reach the
// verdict that lazymask.Compare orders by.
func TestTourVerdict(t *testing.T) {
	failed := Tour{Failed: true, Cost: math.Inf(1)}
	if v := failed.Verdict(); v != (lazymask.Verdict{}) {
		t.Fatalf("failed tour: %+v", v)
	}
	tr := Tour{Cost: 3, ViolatedNodes: 2, Violation: 0.5, Excess: 0.4}
	if v := tr.Verdict(); v != (lazymask.Verdict{Complete: true, Cost: 3, Excess: 0.4, ViolatedNodes: 2}) {
		t.Fatalf("infeasible tour: %+v", v)
	}
	if lazymask.Compare(tr.Verdict(), failed.Verdict()) >= 0 {
		t.Fatal("a complete tour must rank before a failed one")
	}
}

func TestSolveContextCancelled(t *testing.T) {
	e := openToy(t, lazymask.TSPTW, 1)
	s, err := e.NewSolver(SolveOptions{Batch: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.SolveContext(ctx, randomInstances(lazymask.TSPTW, 3, 6, 1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestSolveAugSubset: --aug K decodes the first K transforms, and their
// greedy tours are those the full eight-transform solve decodes for them.
func TestSolveAugSubset(t *testing.T) {
	e := openToy(t, lazymask.TSPTW, 2)
	insts := randomInstances(lazymask.TSPTW, 6, 10, 31)
	full, err := e.Solve(insts, SolveOptions{Budget: 5, Batch: 3, AllTours: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{1, 3, 4} {
		sub, err := e.Solve(insts, SolveOptions{Aug: k, Budget: 5, Batch: 3, AllTours: true})
		if err != nil {
			t.Fatal(err)
		}
		for i := range insts {
			if len(sub[i].Tours) != k || sub[i].Decoded != k {
				t.Fatalf("aug %d, instance %d: %d tours (%d decoded), want %d", k, i, len(sub[i].Tours), sub[i].Decoded, k)
			}
			best := Tour{Failed: true, Cost: math.Inf(1)}
			for a, tr := range sub[i].Tours {
				if want := full[i].Tours[a]; !reflect.DeepEqual(tr, want) {
					t.Fatalf("aug %d, instance %d, transform %d: tour %v, the eight-transform solve has %v", k, i, a, tr.Nodes, want.Nodes)
				}
				if lazymask.Compare(tr.Verdict(), best.Verdict()) < 0 {
					best = tr
				}
			}
			if !reflect.DeepEqual(sub[i].Best, best) {
				t.Fatalf("aug %d, instance %d: best %+v, want %+v", k, i, sub[i].Best, best)
			}
		}
	}
}

func TestBatchRanges(t *testing.T) {
	sized := func(ns ...int) []*lazymask.Instance {
		out := make([]*lazymask.Instance, len(ns))
		for i, n := range ns {
			out[i] = &lazymask.Instance{N: n}
		}
		return out
	}
	for _, tc := range []struct {
		ns   []int
		size int
		want [][2]int
	}{
		{[]int{5, 5, 5, 5, 5}, 2, [][2]int{{0, 2}, {2, 4}, {4, 5}}},
		{[]int{10, 10, 7, 7, 7, 10}, 2, [][2]int{{0, 2}, {2, 4}, {4, 5}, {5, 6}}},
		{[]int{10, 7, 10}, 4, [][2]int{{0, 1}, {1, 2}, {2, 3}}},
		{nil, 4, nil},
	} {
		if got := batchRanges(sized(tc.ns...), tc.size); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("sizes %v, batch %d: ranges %v, want %v", tc.ns, tc.size, got, tc.want)
		}
	}
}

// TestSolveMixedSizes: a file of several instance sizes (a benchmark) is
// solved in one call, each instance as it is when solved alone.
func TestSolveMixedSizes(t *testing.T) {
	e := openToy(t, lazymask.TSPDL, 2)
	a, b := randomInstances(lazymask.TSPDL, 3, 10, 41), randomInstances(lazymask.TSPDL, 3, 7, 42)
	mixed := []*lazymask.Instance{a[0], b[0], b[1], a[1], a[2], b[2]}
	opts := SolveOptions{Budget: 5, Batch: 3, AllTours: true}
	got, err := e.Solve(mixed, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, in := range mixed {
		alone, err := e.Solve([]*lazymask.Instance{in}, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(got[i].Best.Nodes) != in.N || !reflect.DeepEqual(got[i], alone[0]) {
			t.Fatalf("instance %d (N = %d): mixed solve %+v, alone %+v", i, in.N, got[i].Best, alone[0].Best)
		}
	}
}
