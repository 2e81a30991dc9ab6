package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:  "improve",
		Usage: "improve every tour of a solutions file by feasibility-preserving local search",
		Description: "Runs 2-opt, or-opt, relocate and swap on each tour (repairing infeasible ones first),\n" +
			"writes the improved solutions atomically and prints metrics before and after.\n" +
			"With --per-instance the tours of each instance are starts of one search (the infeasible ones\n" +
			"are skipped when a start is feasible) and the output has one row per instance.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "instances", Usage: "instances Parquet file", Required: true},
			&cli.StringFlag{Name: "solutions", Usage: "solutions Parquet file to improve", Required: true},
			&cli.StringFlag{Name: "out", Usage: "output solutions Parquet file", Required: true},
			&cli.StringFlag{Name: "reference", Usage: "reference solutions Parquet file (for the gap)"},
			&cli.StringFlag{Name: "moves", Usage: "neighbourhoods: all or a list of 2opt,oropt,relocate,swap", Value: "all"},
			&cli.BoolFlag{Name: "best", Usage: "best improvement instead of first improvement"},
			&cli.IntFlag{Name: "max-segment", Usage: "longest or-opt segment", Value: 3},
			&cli.IntFlag{Name: "max-moves", Usage: "applied moves per tour (0 = unbounded)"},
			&cli.IntFlag{Name: "max-iterations", Usage: "neighbourhood scans per tour (0 = unbounded)"},
			&cli.DurationFlag{Name: "budget", Usage: "wall time per tour (0 = unbounded)"},
			&cli.IntFlag{Name: "kicks", Usage: "perturbation rounds per tour after the first local optimum"},
			&cli.BoolFlag{Name: "shuffle", Usage: "randomise the scan order with the seed"},
			&cli.BoolFlag{Name: "no-merge", Usage: "do not merge local optima that lose to the best tour with it (block by block, at positions where both have visited the same nodes)"},
			&cli.Uint64Flag{Name: "seed", Usage: "seed for --shuffle and --kicks (row r uses seed+r; with --per-instance, instance i uses seed+i)", Value: 1},
			&cli.BoolFlag{Name: "no-repair", Usage: "leave infeasible tours unchanged"},
			&cli.IntFlag{Name: "workers", Usage: "parallel workers (0 = number of CPUs)"},
			&cli.BoolFlag{Name: "per-instance", Usage: "search from all tours of an instance together (e.g. lmask-infer --all-tours output) and write one row per instance: the best tour found"},
			&cli.IntFlag{Name: "starts", Usage: "with --per-instance, search from the best K distinct tours of each instance (0 = all)"},
			&cli.BoolFlag{Name: "urgency", Usage: "with --per-instance, also start from the urgency order (customers by window end or draft limit), one start more than --starts, where no tour of an instance is feasible, as lmask-infer --improve does"},
		},
		Action: improveAction,
	})
}

// improveStats sums what the searches did.
type improveStats struct {
	tours, noTour, improved, repaired, moves int
	lsTime                                   time.Duration
}

func improveAction(c *cli.Context) error {
	moves, err := localsearch.ParseMoves(c.String("moves"))
	if err != nil {
		return fmt.Errorf("improve: flag --moves: %w", err)
	}
	if c.Int("max-segment") < 1 {
		return fmt.Errorf("improve: flag --max-segment: %d, want ≥ 1", c.Int("max-segment"))
	}
	opt := localsearch.Options{
		Moves: moves, BestImprovement: c.Bool("best"), MaxSegment: c.Int("max-segment"),
		MaxMoves: c.Int("max-moves"), MaxIterations: c.Int("max-iterations"), TimeLimit: c.Duration("budget"),
		Kicks: c.Int("kicks"), Shuffle: c.Bool("shuffle"), NoRepair: c.Bool("no-repair"), MaxStarts: c.Int("starts"),
		NoMerge: c.Bool("no-merge"),
	}
	for _, f := range []string{"starts", "kicks", "max-moves", "max-iterations"} {
		if v := c.Int(f); v < 0 {
			return fmt.Errorf("improve: flag --%s: %d, want ≥ 0", f, v)
		}
	}
	if opt.TimeLimit < 0 {
		return fmt.Errorf("improve: flag --budget: %v, want ≥ 0", opt.TimeLimit)
	}
	if c.Bool("urgency") && !c.Bool("per-instance") {
		return errors.New("improve: flag --urgency needs --per-instance")
	}
	ipath, spath, out := c.String("instances"), c.String("solutions"), c.String("out")
	d, err := datasets.ReadInstances(ipath)
	if err != nil {
		return fmt.Errorf("improve: %w", err)
	}
	sols, meta, err := datasets.ReadSolutions(spath)
	if err != nil {
		return fmt.Errorf("improve: %w", err)
	}
	if err := matchPair(c, ipath, d.Meta, spath, meta); err != nil {
		return fmt.Errorf("improve: %w", err)
	}
	refs, err := readReference(c, ipath, d.Meta)
	if err != nil {
		return fmt.Errorf("improve: %w", err)
	}
	before, err := datasets.Evaluate(d.Instances, sols, refs)
	if err != nil {
		return fmt.Errorf("improve: %w", relabel(relabel(err, "solutions", spath), "reference", c.String("reference")))
	}
	began := time.Now()
	improve := improveAll
	if c.Bool("per-instance") {
		improve = perInstance(c.Bool("urgency"))
	}
	improved, st, err := improve(d.Instances, sols, spath, opt, c.Uint64("seed"), c.Int("workers"))
	if err != nil {
		return fmt.Errorf("improve: %w", err)
	}
	wall := time.Since(began)
	after, err := datasets.Evaluate(d.Instances, improved, refs)
	if err != nil {
		return fmt.Errorf("improve: %w", relabel(err, "solutions", out))
	}
	if meta.Extra == nil {
		meta.Extra = map[string]string{}
	}
	meta.Extra["lmask.localsearch"] = describe(opt, c.Uint64("seed"))
	if c.Bool("per-instance") {
		meta.Extra["lmask.localsearch"] += fmt.Sprintf(" per_instance=true urgency=%v", c.Bool("urgency"))
	}
	if meta.Instances == "" {
		meta.Instances = ipath
	}
	if err := datasets.WriteSolutions(out, meta, improved, datasets.WriterOptions{}); err != nil {
		return fmt.Errorf("improve: write %s: %w", out, err)
	}
	printImprove(c.App.Writer, st, wall, before, after, refs != nil)
	return nil
}

// improveAll runs local search on every row with a tour, in parallel; rows
// without a tour are copied. Errors name the file and row.
func improveAll(insts []*lazymask.Instance, sols []datasets.Solution, file string,
	opt localsearch.Options, seed uint64, workers int) ([]datasets.Solution, improveStats, error) {
	out := make([]datasets.Solution, len(sols))
	results := make([]localsearch.Result, len(sols))
	errs := make([]error, len(sols))
	parallel(len(sols), workers, func(r int) {
		s := sols[r]
		out[r] = s
		if s.Tour == nil {
			return
		}
		if s.Instance < 0 || s.Instance >= int64(len(insts)) {
			errs[r] = fmt.Errorf("%s: row %d: field instance: %d out of range [0,%d)", file, r, s.Instance, len(insts))
			return
		}
		in := insts[s.Instance].Clone()
		o := opt
		o.Seed = seed + uint64(r)
		res, err := localsearch.Improve(in, s.Tour, o)
		if err != nil {
			field := ""
			var te *lazymask.TourError
			if errors.As(err, &te) {
				field = "field tour: "
			}
			errs[r] = fmt.Errorf("%s: row %d: %sinstance %d: %w", file, r, field, s.Instance, err)
			return
		}
		results[r] = res
		s.Tour = res.Tour
		s.Cost, s.CostOrig = res.Cost, res.Cost*in.Scale
		s.Feasible, s.Violation, s.ViolatedNodes = res.Feasible, res.Violation, res.Check.ViolatedNodes
		s.SolveTime += res.Elapsed.Seconds()
		s.Source += "+ls"
		out[r] = s
	})
	var st improveStats
	for r := range sols {
		if errs[r] != nil {
			return nil, st, errs[r]
		}
		if sols[r].Tour == nil {
			st.noTour++
			continue
		}
		st.add(&results[r], 1, results[r].Moves > 0)
	}
	return out, st, nil
}

// add counts one search over tours starting tours; changed says whether
// its output differs from its (best) start.
func (st *improveStats) add(res *localsearch.Result, tours int, changed bool) {
	st.tours += tours
	st.moves += res.Moves
	st.lsTime += res.Elapsed
	if res.Repaired {
		st.repaired++
	}
	if changed {
		st.improved++
	}
}

// perInstance returns the per-instance improver; with urgency it adds
// localsearch.OrderTour as a start wherever no tour of an instance is
// feasible.
func perInstance(urgency bool) func([]*lazymask.Instance, []datasets.Solution, string, localsearch.Options, uint64, int) ([]datasets.Solution, improveStats, error) {
	return func(insts []*lazymask.Instance, sols []datasets.Solution, file string, opt localsearch.Options, seed uint64, workers int) ([]datasets.Solution, improveStats, error) {
		return improvePerInstance(insts, sols, file, opt, seed, workers, urgency)
	}
}

// improvePerInstance runs one multi-start search per instance over all its
// rows with a tour (plus the urgency order when urgency is set and none is
// feasible) and returns one row per instance that has rows, in instance
// order: the best tour found (source "<best start's source>+ls", or
// "urgency+ls"), or a copy of a tourless row. Errors name the file and row.
func improvePerInstance(insts []*lazymask.Instance, sols []datasets.Solution, file string,
	opt localsearch.Options, seed uint64, workers int, urgency bool) ([]datasets.Solution, improveStats, error) {
	var st improveStats
	rows := map[int64][]int{}
	for r, s := range sols {
		if s.Instance < 0 || s.Instance >= int64(len(insts)) {
			return nil, st, fmt.Errorf("%s: row %d: field instance: %d out of range [0,%d)", file, r, s.Instance, len(insts))
		}
		rows[s.Instance] = append(rows[s.Instance], r)
	}
	order := slices.Sorted(maps.Keys(rows))
	out := make([]datasets.Solution, len(order))
	results := make([]*localsearch.Result, len(order))
	changed := make([]bool, len(order)) // output differs from the best start
	errs := make([]error, len(order))
	parallel(len(order), workers, func(k int) {
		idx := order[k]
		in := insts[idx].Clone()
		var starts [][]int
		var from []int
		anyFeasible := false
		for _, r := range rows[idx] {
			if sols[r].Tour != nil {
				starts, from = append(starts, sols[r].Tour), append(from, r)
				if !anyFeasible && urgency {
					res, _ := lazymask.Check(in, sols[r].Tour) // a malformed tour is reported below
					anyFeasible = res.Feasible
				}
			}
		}
		o := opt
		if urgency && !anyFeasible {
			starts, from = append(starts, localsearch.OrderTour(in)), append(from, -1)
			if o.MaxStarts > 0 {
				o.MaxStarts++ // the urgency order comes on top of --starts
			}
		}
		if len(starts) == 0 {
			out[k] = sols[rows[idx][0]]
			return
		}
		o.Seed = seed + uint64(idx)
		res, err := localsearch.ImproveFrom(in, starts, o)
		if err != nil {
			var te *lazymask.TourError
			if errors.As(err, &te) {
				for j, t := range starts {
					if _, cerr := lazymask.Check(in, t); errors.As(cerr, &te) && from[j] >= 0 {
						err = fmt.Errorf("row %d: field tour: %w", from[j], cerr)
						break
					}
				}
			}
			errs[k] = fmt.Errorf("%s: instance %d: %w", file, idx, err)
			return
		}
		var s datasets.Solution
		if r := from[res.StartIndex]; r >= 0 {
			s = sols[r] // the row the best start came from
		} else {
			s = datasets.Solution{Instance: idx, Source: "urgency"}
		}
		s.Tour = res.Tour
		s.Cost, s.CostOrig = res.Cost, res.Cost*in.Scale
		s.Feasible, s.Violation, s.ViolatedNodes = res.Feasible, res.Violation, res.Check.ViolatedNodes
		s.SolveTime += res.Elapsed.Seconds()
		s.Source += "+ls"
		out[k], results[k] = s, &res
		changed[k] = !slices.Equal(res.Tour, starts[res.StartIndex])
	})
	for k := range order {
		if errs[k] != nil {
			return nil, st, errs[k]
		}
		res := results[k]
		if res == nil {
			st.noTour++
			continue
		}
		st.add(res, res.Starts, changed[k])
	}
	return out, st, nil
}

// parallel calls f(0..n−1) on workers goroutines (0 = number of CPUs).
func parallel(n, workers int, f func(int)) {
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := int(next.Add(1) - 1); k < n; k = int(next.Add(1) - 1) {
				f(k)
			}
		}()
	}
	wg.Wait()
}

// describe records the options in the output metadata.
func describe(o localsearch.Options, seed uint64) string {
	return fmt.Sprintf("moves=%v best=%v max_segment=%d max_moves=%d max_iterations=%d budget=%v kicks=%d shuffle=%v seed=%d no_repair=%v max_starts=%d no_merge=%v",
		o.Moves, o.BestImprovement, o.MaxSegment, o.MaxMoves, o.MaxIterations, o.TimeLimit, o.Kicks, o.Shuffle, seed, o.NoRepair, o.MaxStarts, o.NoMerge)
}

func printImprove(w io.Writer, st improveStats, wall time.Duration, b, a datasets.Metrics, gap bool) {
	per := 0.0
	if st.tours > 0 {
		per = st.lsTime.Seconds() * 1e3 / float64(st.tours)
	}
	fmt.Fprintf(w, "tours            %d improved by %d moves (%d changed, %d repaired); %d rows without a tour\n",
		st.tours, st.moves, st.improved, st.repaired, st.noTour)
	fmt.Fprintf(w, "time             %.3fs wall, %.3f ms per tour\n", wall.Seconds(), per)
	fmt.Fprintf(w, "%-16s %14s %14s\n", "", "before", "after")
	fmt.Fprintf(w, "%-16s %14d %14d\n", "feasible tours", b.FeasibleTours, a.FeasibleTours)
	fmt.Fprintf(w, "%-16s %13.4f%% %13.4f%%\n", "sol_infeasible", 100*b.SolInfeasible, 100*a.SolInfeasible)
	fmt.Fprintf(w, "%-16s %13.4f%% %13.4f%%\n", "inst_infeasible", 100*b.InstInfeasible, 100*a.InstInfeasible)
	fmt.Fprintf(w, "%-16s %14.6g %14.6g\n", "obj", b.Obj, a.Obj)
	if gap {
		fmt.Fprintf(w, "%-16s %13.4f%% %13.4f%%\n", "gap", 100*nanZero(b.Gap), 100*nanZero(a.Gap))
	}
	fmt.Fprintf(w, "%-16s %14.6g %14.6g\n", "mean_length", b.MeanLength, a.MeanLength)
}

// nanZero maps NaN (no instance to average over) to 0 for printing.
func nanZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}
