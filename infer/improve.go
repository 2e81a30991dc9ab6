package infer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
	"github.com/lmask/lmask/solve"
)

// ImproveSolutions runs the local search (solve.Improve) on the rows of a
// solutions file (file names it in errors; insts are its instances): from
// every row with a tour (row r with seed seed+r; rows without a tour are
// copied), or with perInstance one search per instance from the tours of
// all its rows, which gives one row per instance (lmask-data improve).
// Errors name the file and row.
//
// When ctx is done the searches stop within moments and ImproveSolutions
// returns ctx's error and no rows (solve.Improve).
func ImproveSolutions(ctx context.Context, insts []*lazymask.Instance, sols []datasets.Solution, file string, opt solve.Options, seed uint64, perInstance bool) ([]datasets.Solution, solve.Stats, error) {
	if perInstance {
		return improvePerInstance(ctx, insts, sols, file, opt, seed)
	}
	return improveRows(ctx, insts, sols, file, opt, seed)
}

// improveRows runs the search from every row with a tour (row r with seed
// seed+r); rows without a tour are copied. Errors name the file and row.
func improveRows(ctx context.Context, insts []*lazymask.Instance, sols []datasets.Solution, file string, opt solve.Options, seed uint64) ([]datasets.Solution, solve.Stats, error) {
	var jobs []solve.Job
	var rows []int
	for r, s := range sols {
		if s.Tour == nil {
			continue
		}
		if err := instanceInRange(file, r, s.Instance, len(insts)); err != nil {
			return nil, solve.Stats{}, err
		}
		jobs, rows = append(jobs, solve.Job{Inst: insts[s.Instance], Starts: [][]int{s.Tour}, Seed: seed + uint64(r)}), append(rows, r)
	}
	res, st, err := solve.Improve(ctx, jobs, opt)
	if err != nil {
		return nil, st, jobError(err, file, func(job, _ int) int { return rows[job] }, jobs)
	}
	out := slices.Clone(sols)
	for k, r := range rows {
		out[r] = searched(sols[r], insts[sols[r].Instance], &res[k])
	}
	return out, st, nil
}

// improvePerInstance runs one search per instance from the tours of all
// its rows (plus the urgency order with --urgency where none is feasible;
// instance i with seed seed+i) and returns one row per instance that has
// rows, in instance order: the best tour found (source "<best start's
// source>+ls", or "urgency+ls"), or a copy of a tourless row. Errors name
// the file and row.
func improvePerInstance(ctx context.Context, insts []*lazymask.Instance, sols []datasets.Solution, file string, opt solve.Options, seed uint64) ([]datasets.Solution, solve.Stats, error) {
	rows := map[int64][]int{}
	for r, s := range sols {
		if err := instanceInRange(file, r, s.Instance, len(insts)); err != nil {
			return nil, solve.Stats{}, err
		}
		rows[s.Instance] = append(rows[s.Instance], r)
	}
	order := slices.Sorted(maps.Keys(rows))
	jobs := make([]solve.Job, len(order))
	for k, idx := range order {
		jobs[k] = solve.Job{Inst: insts[idx], Seed: seed + uint64(idx)}
		for _, r := range rows[idx] {
			jobs[k].Starts = append(jobs[k].Starts, sols[r].Tour)
		}
	}
	res, st, err := solve.Improve(ctx, jobs, opt)
	if err != nil {
		return nil, st, jobError(err, file, func(job, start int) int { return rows[order[job]][start] }, jobs)
	}
	out := make([]datasets.Solution, len(order))
	for k, idx := range order {
		switch r := &res[k]; {
		case !r.Searched:
			out[k] = sols[rows[idx][0]]
		case r.Start < 0:
			out[k] = searched(datasets.Solution{Instance: idx, Source: "urgency"}, insts[idx], r)
		default:
			out[k] = searched(sols[rows[idx][r.Start]], insts[idx], r)
		}
	}
	return out, st, nil
}

// searched is row s with the search's tour and verdict in place of its own.
func searched(s datasets.Solution, in *lazymask.Instance, r *solve.Result) datasets.Solution {
	c := r.Search.Check
	s.Tour, s.Cost, s.CostOrig = r.Search.Tour, c.Cost, c.Cost*in.Scale
	s.Feasible, s.Violation, s.ViolatedNodes = c.Feasible, c.TotalViolation, c.ViolatedNodes
	s.SolveTime += r.Elapsed().Seconds()
	s.Source += "+ls"
	return s
}

// instanceInRange checks row r's instance index.
func instanceInRange(file string, r int, idx int64, n int) error {
	if idx < 0 || idx >= int64(n) {
		return &datasets.RowError{File: file, Row: int64(r), Field: "instance", Err: fmt.Errorf("%d out of range [0,%d)", idx, n)}
	}
	return nil
}

// jobError names the file and the row (row(job, start)) of a failed job.
func jobError(err error, file string, row func(job, start int) int, jobs []solve.Job) error {
	var je *solve.JobError
	if !errors.As(err, &je) {
		return err
	}
	if je.Start >= 0 {
		return &datasets.RowError{File: file, Row: int64(row(je.Job, je.Start)), Field: "tour", Err: je.Err}
	}
	return fmt.Errorf("%s: instance %q: %w", file, jobs[je.Job].Inst.Name, je.Err)
}

// DescribeSearch records the options of a search with seed in a solutions
// file's metadata.
func DescribeSearch(o localsearch.Options, seed uint64) string {
	return fmt.Sprintf("moves=%v best=%v max_segment=%d max_moves=%d max_iterations=%d budget=%v kicks=%d shuffle=%v seed=%d no_repair=%v max_starts=%d no_merge=%v",
		o.Moves, o.BestImprovement, o.MaxSegment, o.MaxMoves, o.MaxIterations, o.TimeLimit, o.Kicks, o.Shuffle, seed, o.NoRepair, o.MaxStarts, o.NoMerge)
}

// ImprovedMeta returns the metadata of a solutions file improved with opt
// and seed (lmask-data improve): meta with the search recorded and, when
// meta names none, ipath as its instances file.
func ImprovedMeta(meta datasets.Metadata, ipath string, opt solve.Options, seed uint64, perInstance bool) datasets.Metadata {
	extra := maps.Clone(meta.Extra)
	if extra == nil {
		extra = map[string]string{}
	}
	extra["lmask.localsearch"] = DescribeSearch(opt.Search, seed)
	if perInstance {
		extra["lmask.localsearch"] += fmt.Sprintf(" per_instance=true urgency=%v", opt.Urgency)
	}
	meta.Extra = extra
	if meta.Instances == "" {
		meta.Instances = ipath
	}
	return meta
}

// WriteImproveTable prints the search statistics of lmask-data improve and
// the metrics before (b) and after (a) it, with the gap rows when gap is set.
func WriteImproveTable(w io.Writer, st solve.Stats, wall time.Duration, b, a datasets.Metrics, gap bool) {
	per := 0.0
	if st.Starts > 0 {
		per = st.Elapsed.Seconds() * 1e3 / float64(st.Starts)
	}
	fmt.Fprintf(w, "tours            %d improved by %d moves (%d changed, %d repaired); %d rows without a tour\n",
		st.Starts, st.Moves, st.Changed, st.Repaired, b.MissingTours)
	fmt.Fprintf(w, "time             %.3fs wall, %.3f ms per tour\n", wall.Seconds(), per)
	fmt.Fprintf(w, "%-16s %14s %14s\n", "", "before", "after")
	fmt.Fprintf(w, "%-16s %14d %14d\n", "feasible tours", b.FeasibleTours, a.FeasibleTours)
	fmt.Fprintf(w, "%-16s %13.4f%% %13.4f%%\n", "sol_infeasible", 100*b.SolInfeasible, 100*a.SolInfeasible)
	fmt.Fprintf(w, "%-16s %13.4f%% %13.4f%%\n", "inst_infeasible", 100*b.InstInfeasible, 100*a.InstInfeasible)
	fmt.Fprintf(w, "%-16s %14.6g %14.6g\n", "obj", b.Obj, a.Obj)
	if gap {
		fmt.Fprintf(w, "%-16s %13.4f%% %13.4f%%\n", "gap", 100*nanZero(b.Gap), 100*nanZero(a.Gap))
		if a.RefInfeasible > 0 {
			fmt.Fprintf(w, "%-16s %13.4f%% %13.4f%% (%d reference tours break a constraint)\n", "gap_feasible_ref",
				100*nanZero(b.GapFeasibleRef), 100*nanZero(a.GapFeasibleRef), a.RefInfeasible)
		}
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
