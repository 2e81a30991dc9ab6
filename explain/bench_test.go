package explain

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// BenchmarkExplain100 prints, per kind of day of 100 nodes (TSPTW medium
// with a planted conflict, or random narrow windows on a third of the
// customers; TSPDL likewise), how explain calls 10 days, the conflict sizes
// and the time per day, and how many stops drop drops.
func BenchmarkExplain100(b *testing.B) {
	t := &testing.T{}
	fmt.Fprintf(os.Stdout, "%-6s %-12s %6s %6s %6s %14s %10s %10s %10s\n", "prob", "kind", "feas", "infeas", "unkn", "conflict sizes", "explain s", "drop s", "dropped")
	for _, p := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
		for _, kind := range []string{"", datasets.PlantUnreachable, datasets.PlantPair, datasets.PlantTriple, "random"} {
			st := map[Status]int{}
			sizes := map[int]int{}
			var et, dt time.Duration
			dropped := 0
			for s := range 10 {
				in := day(t, p, 100, datasets.Medium, kind, uint64(900+s))
				ex, err := Explain(in.Clone(), Options{Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				st[ex.Status]++
				if ex.Status == Infeasible {
					sizes[len(ex.Conflict)]++
				}
				et += ex.Elapsed
				began := time.Now()
				dr, err := Drop(in.Clone(), nil, Options{Seed: 1})
				if err != nil {
					b.Fatal(err)
				}
				if !dr.Feasible {
					b.Fatalf("drop left an infeasible served tour")
				}
				dt += time.Since(began)
				dropped += len(dr.Dropped)
			}
			fmt.Fprintf(os.Stdout, "%-6s %-12s %6d %6d %6d %14v %10.3f %10.3f %10d\n", p, kind, st[Feasible], st[Infeasible], st[Unknown], sizes,
				et.Seconds()/10, dt.Seconds()/10, dropped)
		}
	}
}

// BenchmarkDropHeuristic prints how the drop heuristic for large TSPTW
// days (passDrop, then greedyDrop) compares with the fewest drops (the
// test's oracle) on 40 random-window days of 16 customers, where both
// finish.
func BenchmarkDropHeuristic(b *testing.B) {
	t := &testing.T{}
	same, more, extra, total := 0, 0, 0, 0
	for s := range 40 {
		in := day(t, lazymask.TSPTW, 17, datasets.Medium, "random", uint64(1200+s))
		most := oracleMostServed(in)
		c := newChecker(context.Background(), in.Clone(), Options{Seed: 1}, time.Now())
		tour, dropped := c.passDrop(nil)
		if len(dropped) > 1 && len(dropped) <= 8 {
			if t2, d2 := c.greedyDrop(); len(d2) < len(dropped) {
				tour, dropped = t2, d2
			}
		}
		if _, err := lazymask.CheckServed(in, tour, dropped); err != nil {
			b.Fatal(err)
		}
		total += in.N - 1 - most
		if k := len(dropped) - (in.N - 1 - most); k == 0 {
			same++
		} else {
			more++
			extra += k
		}
	}
	fmt.Fprintf(os.Stdout, "drop heuristic on 40 days of 16 customers: fewest drops on %d, more on %d (%d extra stops over %d necessary)\n", same, more, extra, total)
}
