package solve_test

import (
	"context"
	"fmt"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
	"github.com/lmask/lmask/solve"
)

// Heuristic starts (Random-L under LazyMask), then the search from them
// with a fixed number of kicks, which makes the result reproducible.
func Example() {
	insts, _, err := datasets.Generate(datasets.GenConfig{Problem: lazymask.TSPTW, N: 20, Hardness: datasets.Medium, Seed: 1}, 4)
	if err != nil {
		panic(err)
	}
	newPolicy := func() lazymask.Policy { return &lazymask.RandomL{} }
	cfg := lazymask.Config{Lookahead: lazymask.LookTSL, Budget: 100, Semantics: lazymask.Test, Seed: 7}
	decoded, err := solve.Heuristic(context.Background(), insts, newPolicy, 8, cfg, 0)
	if err != nil {
		panic(err)
	}
	jobs := make([]solve.Job, len(insts))
	for i, d := range decoded {
		jobs[i] = solve.Job{Inst: insts[i], Seed: uint64(i)}
		for _, t := range d.Tours {
			jobs[i].Starts = append(jobs[i].Starts, t.Nodes)
		}
	}
	res, stats, err := solve.Improve(context.Background(), jobs, solve.Options{Search: localsearch.Options{Kicks: 10, MaxStarts: 8}, Urgency: true})
	if err != nil {
		panic(err)
	}
	for i, r := range res {
		fmt.Printf("instance %d: feasible %v, never worse than the best start: %v\n",
			i, r.Final.Feasible, lazymask.Compare(r.Final, r.Given) <= 0)
	}
	fmt.Println("searched:", stats.Searched)
	// Output:
	// instance 0: feasible true, never worse than the best start: true
	// instance 1: feasible true, never worse than the best start: true
	// instance 2: feasible true, never worse than the best start: true
	// instance 3: feasible true, never worse than the best start: true
	// searched: 4
}
