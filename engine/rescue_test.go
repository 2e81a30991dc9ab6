package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/lazymask"
)

// Generated hard instances of 20 to 500 nodes, each with a feasible tour by
// construction, decoded by tiny models trained at 10 nodes without
// backtracking: every instance that decoding leaves without a feasible
// tour gets one from Rescue, and Check confirms it.
func TestRescueLeavesNoInstanceWithoutTour(t *testing.T) {
	if err := engine.Available(); err != nil {
		t.Skipf("onnxruntime not available (set %s): %v", engine.LibraryEnv, err)
	}
	sizes := []int{20, 37, 64, 100, 150, 200, 333, 500}
	if testing.Short() {
		sizes = []int{20, 100}
	}
	for _, p := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
		t.Run(p.String(), func(t *testing.T) {
			e, err := engine.Open("testdata/tiny-"+p.String(), engine.Options{Threads: 1, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			s, err := e.NewSolver(engine.SolveOptions{Aug: 2, Budget: 0})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			steps := map[engine.Step]int{}
			for _, n := range sizes {
				insts, _, err := datasets.Generate(datasets.GenConfig{Problem: p, N: n, Hardness: datasets.Hard, Seed: uint64(n)}, 3)
				if err != nil {
					t.Fatal(err)
				}
				sols, err := s.SolveFrom(context.Background(), 0, insts)
				if err != nil {
					t.Fatal(err)
				}
				for i, in := range insts {
					if sols[i].Best.Feasible {
						steps[engine.StepDecode]++
						continue
					}
					r, err := s.Rescue(context.Background(), in, int64(i), [][]int{sols[i].Best.Nodes}, engine.RescueOptions{TimeLimit: 20 * time.Second, MaxBudget: 64})
					if err != nil {
						t.Fatalf("n %d instance %d: %v", n, i, err)
					}
					steps[r.Step]++
					res, cerr := lazymask.Check(in, r.Tour.Nodes)
					if r.Step == engine.StepNone || cerr != nil || !res.Feasible || !r.Tour.Feasible || r.Tour.Cost != res.Cost {
						t.Errorf("n %d instance %d: step %v, tour feasible %v, check %v", n, i, r.Step, r.Tour.Feasible, cerr)
					}
					if r.Step == engine.StepRetry && (r.Budget != 4 && r.Budget != 16 && r.Budget != 64 || r.Retries != map[int]int{4: 1, 16: 2, 64: 3}[r.Budget]) {
						t.Errorf("n %d instance %d: retry budget %d after %d retries", n, i, r.Budget, r.Retries)
					}
					if r.Step == engine.StepSearch && r.Retries > 3 {
						t.Errorf("n %d instance %d: %d retries, the cap allows 3", n, i, r.Retries)
					}
				}
			}
			t.Logf("found by: %v", steps)
			if steps[engine.StepRetry]+steps[engine.StepSearch] == 0 {
				t.Error("no instance needed the escalation; the test shows nothing")
			}
		})
	}
}

// A TSPDL instance whose limits no tour fits is reported as having none,
// without retries; a time cap too short for any retry goes straight to the
// search.
func TestRescueNoTourAndTimeCap(t *testing.T) {
	if err := engine.Available(); err != nil {
		t.Skipf("onnxruntime not available (set %s): %v", engine.LibraryEnv, err)
	}
	e, err := engine.Open("testdata/tiny-tspdl", engine.Options{Threads: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s, _ := e.NewSolver(engine.SolveOptions{Aug: 1, Budget: 5})
	defer s.Close()
	insts, _, _ := datasets.Generate(datasets.GenConfig{Problem: lazymask.TSPDL, N: 12, Hardness: datasets.Hard, Seed: 1}, 1)
	in := insts[0]
	for i := 1; i < in.N; i++ {
		in.Draft[i] = in.Demand[i] / 2 // the first port already breaks its limit
	}
	r, err := s.Rescue(context.Background(), in, 0, nil, engine.RescueOptions{TimeLimit: time.Second})
	if err != nil || r.Step != engine.StepNone || !r.NoTour || r.Tour.Nodes != nil {
		t.Errorf("infeasible instance: %+v, %v", r, err)
	}
	if r.Retries != 0 { // the exact search runs first and proves there is no tour
		t.Errorf("%d retries for an instance proven to have no tour", r.Retries)
	}
	ins, _, _ := datasets.Generate(datasets.GenConfig{Problem: lazymask.TSPDL, N: 12, Hardness: datasets.Hard, Seed: 2}, 1)
	r, err = s.Rescue(context.Background(), ins[0], 0, nil, engine.RescueOptions{TimeLimit: time.Nanosecond})
	if err != nil || r.Retries != 0 || r.Step != engine.StepSearch {
		t.Errorf("with no time for retries: %+v, %v", r, err)
	}
	if _, err := s.Rescue(context.Background(), &lazymask.Instance{Problem: lazymask.TSPTW}, 0, nil, engine.RescueOptions{}); err == nil {
		t.Error("a TSPTW instance was accepted by a TSPDL model")
	}
}

// A TSPTW instance no tour can serve in time: the escalation gives up
// within its time cap.
func TestRescueTimeCap(t *testing.T) {
	if err := engine.Available(); err != nil {
		t.Skipf("onnxruntime not available (set %s): %v", engine.LibraryEnv, err)
	}
	e, err := engine.Open("testdata/tiny-tsptw", engine.Options{Threads: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s, _ := e.NewSolver(engine.SolveOptions{Aug: 8, Budget: 50})
	defer s.Close()
	insts, _, _ := datasets.Generate(datasets.GenConfig{Problem: lazymask.TSPTW, N: 60, Hardness: datasets.Hard, Seed: 3}, 1)
	in := insts[0]
	for i := 1; i < in.N; i++ {
		in.Early[i], in.Late[i] = 0, 0.001 // no customer can be reached in time
	}
	const limit = 400 * time.Millisecond
	r, err := s.Rescue(context.Background(), in, 0, nil, engine.RescueOptions{TimeLimit: limit})
	if err != nil || r.Step != engine.StepNone || r.NoTour {
		t.Errorf("%+v, %v", r, err)
	}
	if r.Elapsed > limit+200*time.Millisecond {
		t.Errorf("escalation took %v, cap %v", r.Elapsed, limit)
	}
}
