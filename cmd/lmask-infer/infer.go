package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
)

// Source is the producer name written into solution rows.
const (
	Source         = "lmask"
	SourceImproved = "lmask+ls"
)

// infer runs the whole command: open the model and the dataset, stream the
// row groups through the solver, write the tours, print the metrics.
func infer(ctx context.Context, cfg config) error {
	start := time.Now()
	var tl tally

	eng, err := engine.Open(cfg.model, engine.Options{Device: cfg.device, Threads: cfg.threads, Workers: cfg.workers})
	if err != nil {
		return err
	}
	defer eng.Close()
	mcfg := eng.Config()

	t0 := time.Now()
	rd, err := datasets.OpenInstances(cfg.data)
	if err != nil {
		return err
	}
	defer rd.Close()
	meta := rd.Metadata()
	if meta.Problem != "" && meta.Problem != mcfg.Problem {
		return fmt.Errorf("dataset %s holds %s instances, the model in %s was trained for %s", cfg.data, meta.Problem, cfg.model, mcfg.Problem)
	}
	if !cfg.budgetSet {
		cfg.budget = dataBudget(meta, mcfg.Problem)
	}
	var ref map[int64]float64
	if cfg.reference != "" {
		var refMeta datasets.Metadata
		if ref, refMeta, err = readReference(cfg.reference); err != nil {
			return err
		}
		note, err := datasets.MatchSolutions(cfg.data, meta, cfg.reference, refMeta)
		if err != nil {
			return fmt.Errorf("--reference: %w", err)
		}
		if note != "" {
			fmt.Fprintln(cfg.stderr, note)
		}
	}
	total := rd.NumRows()
	if cfg.limit > 0 && int64(cfg.limit) < total {
		total = int64(cfg.limit)
	}
	w, err := datasets.CreateSolutions(cfg.out, datasets.Metadata{
		Kind: datasets.KindSolutions, Problem: mcfg.Problem, Size: meta.Size, Hardness: meta.Hardness, Scale: meta.Scale,
		Source: Source, Instances: cfg.data,
	}, datasets.WriterOptions{})
	if err != nil {
		return err
	}
	committed := false
	defer func() {
		if !committed {
			w.Abort()
		}
	}()
	tl.io += time.Since(t0)

	solver, err := eng.NewSolver(engine.SolveOptions{
		Aug: cfg.aug, Samples: cfg.samples, Budget: cfg.budget, Lookahead: cfg.lookahead,
		Semantics: lazymask.Test, Seed: cfg.seed, Batch: cfg.batch,
		AllTours: cfg.allTours || (cfg.improve && cfg.improveStarts != 1),
	})
	if err != nil {
		return err
	}
	defer solver.Close()
	bar := newProgress(cfg.progress, cfg.stderr, total)
	warned := false
	var done int64
	for done < total {
		if err := ctx.Err(); err != nil {
			return err
		}
		t0 := time.Now()
		b, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		tl.io += time.Since(t0)
		insts := b.Instances
		if rest := total - done; int64(len(insts)) > rest {
			insts = insts[:rest]
		}
		if len(insts) == 0 {
			continue
		}
		for i, in := range insts {
			if in.Problem.String() != mcfg.Problem {
				return fmt.Errorf("%s row %d: %s instance, the model in %s was trained for %s", cfg.data, b.Offset+int64(i), in.Problem, cfg.model, mcfg.Problem)
			}
			if !warned && farFromTrainSize(in.N, mcfg.TrainSize) {
				fmt.Fprintf(cfg.stderr, "warning: %s row %d has N=%d nodes, far from the model's training size %d; expect weaker results\n",
					cfg.data, b.Offset+int64(i), in.N, mcfg.TrainSize)
				warned = true
			}
		}
		solver.SetProgress(bar.batch())
		bs := time.Now()
		sols, err := solver.SolveContext(ctx, insts)
		if err != nil {
			return err
		}
		decode := time.Since(bs)
		perInst := decode.Seconds() / float64(len(insts))
		var improved []*localsearch.Result
		if cfg.improve {
			ls := time.Now()
			opt, deadline := improveOptions(cfg, decode)
			var st SearchStats
			if improved, st, err = improveAll(insts, sols, opt, deadline, eng.Options().Workers); err != nil {
				return err
			}
			tl.search.add(st)
			tl.ls += time.Since(ls)
		}
		t0 = time.Now()
		for i, in := range insts {
			idx := b.Offset + int64(i)
			if err := writeInstance(w, in, idx, &sols[i], improved, i, cfg.allTours, perInst); err != nil {
				return err
			}
			cost, costOrig := finalCost(in, &sols[i], improved, i)
			r, ok := ref[idx]
			if !ok {
				r = math.NaN()
			}
			tl.add(sols[i].Decoded, sols[i].Feasible, cost, costOrig, r)
			if improved != nil && improved[i] != nil {
				tl.improved++
			}
		}
		tl.io += time.Since(t0)
		done += int64(len(insts))
		bar.advance(len(insts))
	}
	bar.finish()
	t0 = time.Now()
	if err := w.Close(); err != nil {
		return err
	}
	committed = true
	tl.io += time.Since(t0)

	m := tl.metrics(time.Since(start), solver.Stats())
	m.Budget = cfg.budget
	printTable(cfg.stdout, m, ref != nil)
	if cfg.metrics != "" {
		if err := writeJSON(cfg.metrics, m); err != nil {
			return err
		}
	}
	return nil
}

// dataBudget is the default --budget for a data file: the paper's R for
// its problem (the model's where the file does not say), size and
// hardness, or DefaultBudget where the paper fixes none.
func dataBudget(meta datasets.Metadata, modelProblem string) int {
	p, err := lazymask.ParseProblem(meta.Problem)
	if err != nil {
		if p, err = lazymask.ParseProblem(modelProblem); err != nil {
			return DefaultBudget
		}
	}
	if r, ok := lazymask.PaperBudget(p, meta.Size, meta.Hardness); ok {
		return r
	}
	return DefaultBudget
}

// farFromTrainSize reports whether n is outside [train/2, 2·train].
func farFromTrainSize(n, train int) bool {
	return train > 0 && (n > 2*train || 2*n < train)
}

// finalCost returns the cost of the instance's final tour (the improved
// one when local search found a better feasible tour) in normalised and
// original units, or +Inf when it has no feasible tour.
func finalCost(in *lazymask.Instance, s *engine.Solution, improved []*localsearch.Result, i int) (float64, float64) {
	if improved != nil && improved[i] != nil {
		c := improved[i].Cost
		return c, c * in.Scale
	}
	if !s.Best.Feasible {
		return math.Inf(1), math.Inf(1)
	}
	return s.Best.Cost, s.Best.Cost * in.Scale
}

// writeInstance writes the best tour (or all tours) of one instance, and
// the improved tour when local search produced one.
func writeInstance(w *datasets.SolutionWriter, in *lazymask.Instance, idx int64, s *engine.Solution,
	improved []*localsearch.Result, i int, all bool, seconds float64) error {
	tours := []engine.Tour{s.Best}
	if all {
		tours = s.Tours
	}
	for _, t := range tours {
		if all || improved == nil || improved[i] == nil {
			row := solutionRow(in, idx, t, Source, seconds)
			if err := w.Write(&row); err != nil {
				return err
			}
		}
	}
	if improved != nil && improved[i] != nil {
		r := improved[i]
		t := s.Best
		t.Nodes, t.Cost, t.Feasible = r.Tour, r.Cost, r.Feasible
		t.Violation, t.ViolatedNodes, t.Failed = r.Violation, r.Check.ViolatedNodes, false
		row := solutionRow(in, idx, t, SourceImproved, seconds+r.Elapsed.Seconds())
		if err := w.Write(&row); err != nil {
			return err
		}
	}
	return nil
}

func solutionRow(in *lazymask.Instance, idx int64, t engine.Tour, source string, seconds float64) datasets.Solution {
	return datasets.Solution{
		Instance: idx, Tour: t.Nodes, Cost: t.Cost, CostOrig: t.Cost * in.Scale,
		Feasible: t.Feasible, Violation: t.Violation, ViolatedNodes: t.ViolatedNodes,
		Backtracks: t.Backtracks, SolveTime: seconds, Source: source, Aug: t.Aug, Sample: t.Sample,
	}
}

// unboundedKicks stands for "as many kicks as the time allows" under
// --improve-share (the search also ends its kicks when no feasible
// perturbation is found).
const unboundedKicks = math.MaxInt32

// maxShare bounds --improve-share (a thousand times the network's time is
// already more than any search here uses; the bound keeps the durations
// far from overflow).
const maxShare = 1000

// improveOptions returns the local-search options and, under
// --improve-share s, the deadline of a row group whose decoding took
// decode: s·decode from now. improveAll then gives each instance, as it
// starts, an equal part of the time left for the instances not yet
// started (so an instance that overruns its part shortens the later ones'),
// capped by --improve-budget, and kicks until then (at most --improve-kicks
// when set). The part bounds the whole search of the instance: a share
// smaller than the descents from the starts need cuts them short too,
// except a repair (localsearch.Options.FinishRepair), which always finishes.
func improveOptions(cfg config, decode time.Duration) (localsearch.Options, time.Time) {
	opt := localsearch.Options{TimeLimit: cfg.improveBudget, Kicks: cfg.improveKicks, Seed: cfg.seed, MaxStarts: cfg.improveStarts,
		NoMerge: cfg.improveNoMerge}
	if cfg.improveShare <= 0 {
		return opt, time.Time{}
	}
	if opt.Kicks == 0 {
		opt.Kicks = unboundedKicks
	}
	// The share is a target for the improvement, not a reason to leave an
	// instance infeasible: repairs from the starts always finish.
	opt.FinishRepair = true
	return opt, time.Now().Add(time.Duration(cfg.improveShare * float64(decode)))
}

// shareOf returns the time limit of an instance that starts now with
// pending instances (itself included) not yet started and workers
// searching side by side: an equal part of the time left before deadline,
// never past it, at least a microsecond (zero would mean no limit), and at
// most limit when that is set.
func shareOf(deadline time.Time, pending, workers int, limit time.Duration) time.Duration {
	left := time.Until(deadline)
	part := min(left/time.Duration(max(pending, 1))*time.Duration(max(workers, 1)), left)
	part = max(part, time.Microsecond)
	if limit > 0 {
		part = min(part, limit)
	}
	return part
}

// improveAll runs local search from the decoded tours of each instance
// (the best --improve-starts distinct complete ones; only the best when the
// solver kept no other), plus localsearch.OrderTour where no decoded tour is
// feasible, and keeps a result only when lazymask.Check confirms it is
// feasible and better than the decoded best. A non-zero deadline splits
// the time left among the instances as they start (shareOf).
func improveAll(insts []*lazymask.Instance, sols []engine.Solution, opt localsearch.Options, deadline time.Time, workers int) ([]*localsearch.Result, SearchStats, error) {
	out := make([]*localsearch.Result, len(insts))
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		errs    []error
		stats   SearchStats
		next    = make(chan int, len(insts))
		pending atomic.Int64
	)
	pending.Store(int64(len(insts)))
	for i := range insts {
		next <- i
	}
	close(next)
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				o := opt
				if left := int(pending.Add(-1)) + 1; !deadline.IsZero() {
					o.TimeLimit = shareOf(deadline, left, workers, opt.TimeLimit)
				}
				best := sols[i].Best
				var starts [][]int
				if best.Nodes != nil {
					starts = append(starts, best.Nodes)
				}
				for _, t := range sols[i].Tours {
					if t.Nodes != nil && !t.Failed {
						starts = append(starts, t.Nodes)
					}
				}
				if !best.Feasible {
					// No feasible decoded tour (or none at all): add the
					// urgency order as a further start, one more than
					// --improve-starts allows.
					starts = append(starts, localsearch.OrderTour(insts[i]))
					if o.MaxStarts > 0 {
						o.MaxStarts++
					}
				}
				r, err := localsearch.ImproveFrom(insts[i], starts, o)
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("improve instance %d (%q): %w", i, insts[i].Name, err))
					mu.Unlock()
					continue
				}
				mu.Lock()
				stats.add(SearchStats{Searched: 1, Starts: r.Starts, Kicks: r.Kicks, KicksAccepted: r.KicksAccepted, Merged: r.Merged, Moves: r.Moves})
				mu.Unlock()
				res, cerr := lazymask.Check(insts[i], r.Tour)
				if cerr != nil || !res.Feasible {
					continue
				}
				if best.Feasible && res.Cost >= best.Cost {
					continue
				}
				r.Cost, r.Feasible = res.Cost, true
				out[i] = &r
			}
		}()
	}
	wg.Wait()
	return out, stats, errors.Join(errs...)
}
