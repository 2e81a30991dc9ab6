package engine_test

import (
	"context"
	"fmt"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
	"github.com/lmask/lmask/solve"
)

// A program that embeds the solver: a shipped model decodes bundled
// instances (greedy on two dihedral transforms, the paper's budget), then
// the local search starts from the decoded tours: with a fixed number of
// kicks (reproducible), then within 3.5 times the decoding time, as
// lmask-infer --improve --improve-share 3.5 does. Needs the onnxruntime
// library (scripts/setup.sh).
func Example() {
	data, err := datasets.ReadInstances("../datasets/bundled/tsptw50-hard-200.parquet")
	if err != nil {
		panic(err)
	}
	insts := data.Instances[:20]
	eng, err := engine.Open("../models/pretrained/tsptw50-hard", engine.Options{Workers: 2})
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	solver, err := eng.NewSolver(engine.SolveOptions{Aug: 2, Budget: 200, AllTours: true})
	if err != nil {
		panic(err)
	}
	defer solver.Close()
	sols, err := solver.Solve(insts)
	if err != nil {
		panic(err)
	}
	feasible := 0
	for _, s := range sols {
		if s.Best.Feasible {
			feasible++
		}
	}
	fmt.Printf("network: %d of %d instances feasible\n", feasible, len(insts))

	opt := solve.Options{Search: localsearch.Options{Kicks: 5, MaxStarts: 8}, Urgency: true, Workers: 2}
	for _, o := range []solve.Options{opt, opt.WithShare(3.5, solver.Stats().Wall)} {
		res, stats, err := solve.Improve(context.Background(), engine.ImproveJobs(insts, sols, 1), o)
		if err != nil {
			panic(err)
		}
		notWorse := true
		for i, r := range res {
			notWorse = notWorse && lazymask.Compare(r.Final, sols[i].Best.Verdict()) <= 0
		}
		fmt.Printf("with the search (time share %v): %d instances searched, none worse: %v\n", !o.Deadline.IsZero(), stats.Searched, notWorse)
	}
	// Output:
	// network: 20 of 20 instances feasible
	// with the search (time share false): 20 instances searched, none worse: true
	// with the search (time share true): 20 instances searched, none worse: true
}
