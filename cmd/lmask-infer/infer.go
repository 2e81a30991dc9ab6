package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
	"github.com/lmask/lmask/solve"
)

// Source is the producer name written into solution rows.
const (
	Source         = "lmask"
	SourceImproved = "lmask+ls"
)

// infer runs the whole command: open the model and the dataset, stream the
// row groups through the solver (and the local search with --improve),
// write the tours, print the metrics.
func infer(ctx context.Context, cfg config) error {
	start := time.Now()
	var ioTime, lsTime time.Duration

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
	var refs []datasets.Solution
	if cfg.reference != "" {
		var refMeta datasets.Metadata
		if refs, refMeta, err = datasets.ReadSolutions(cfg.reference); err != nil {
			return fmt.Errorf("read reference: %w", err)
		}
		note, err := datasets.MatchSolutions(cfg.data, meta, cfg.reference, refMeta)
		if err != nil {
			return fmt.Errorf("--reference: %w", err)
		}
		if note != "" {
			fmt.Fprintln(cfg.stderr, note)
		}
	}
	tl, err := datasets.NewTally(int(rd.NumRows()), refs)
	if err != nil {
		return datasets.WithPath(err, "reference", cfg.reference)
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
	ioTime += time.Since(t0)

	// Every decoded tour is kept: the metrics count each one, and the
	// search starts from them.
	solver, err := eng.NewSolver(engine.SolveOptions{
		Aug: cfg.aug, Samples: cfg.samples, Budget: cfg.budget, Lookahead: cfg.lookahead,
		Semantics: lazymask.Test, Seed: cfg.seed, Batch: cfg.batch, AllTours: true,
	})
	if err != nil {
		return err
	}
	defer solver.Close()
	var found FoundBy
	var rescueTime time.Duration
	var search *solve.Stats
	if cfg.improve {
		search = &solve.Stats{}
	}
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
		ioTime += time.Since(t0)
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
		sols, err := solver.SolveFrom(ctx, b.Offset, insts)
		if err != nil {
			return err
		}
		decode := time.Since(bs)
		var improved []solve.Result
		if cfg.improve {
			ls := time.Now()
			var st solve.Stats
			if improved, st, err = solve.Improve(engine.ImproveJobs(insts, sols, cfg.seed), improveOptions(cfg, eng.Options().Workers).WithShare(cfg.improveShare, decode)); err != nil {
				return fmt.Errorf("improve: %w", err)
			}
			search.Add(st)
			lsTime += time.Since(ls)
		}
		rescues, took, err := rescueAll(ctx, cfg, solver, insts, b.Offset, sols, improved, &found)
		if err != nil {
			return err
		}
		rescueTime += took
		t0 = time.Now()
		perInst := decode.Seconds() / float64(len(insts))
		for i, in := range insts {
			idx := b.Offset + int64(i)
			var r *solve.Result
			if improved != nil && improved[i].Improved {
				r = &improved[i]
			}
			if err := writeInstance(w, in, idx, &sols[i], r, cfg.allTours, perInst); err != nil {
				return err
			}
			if err := tally(tl, idx, in, &sols[i], r); err != nil {
				return err
			}
			if err := writeRescued(w, tl, in, idx, rescues[i], perInst); err != nil {
				return err
			}
		}
		ioTime += time.Since(t0)
		done += int64(len(insts))
		bar.advance(len(insts))
	}
	bar.finish()
	t0 = time.Now()
	if err := w.Close(); err != nil {
		return err
	}
	committed = true
	ioTime += time.Since(t0)

	m := Metrics{Metrics: tl.Metrics(), Seconds: time.Since(start).Seconds(), Budget: cfg.budget, Search: search,
		Timing: newTiming(solver.Stats(), ioTime.Seconds(), lsTime.Seconds()), FoundBy: found}
	m.Timing.Rescue = rescueTime.Seconds()
	printTable(cfg.stdout, m, refs != nil)
	if cfg.metrics != "" {
		if err := writeJSON(cfg.metrics, m); err != nil {
			return err
		}
	}
	return nil
}

// tally adds one instance to the metrics: each decoded tour as a row, the
// search's improvement (r, or nil) as a further candidate for its best.
func tally(tl *datasets.Tally, idx int64, in *lazymask.Instance, s *engine.Solution, r *solve.Result) error {
	if err := tl.AddInstance(idx, in); err != nil {
		return err
	}
	for _, t := range s.Tours {
		if _, err := tl.AddRow(idx, in, t.Nodes); err != nil {
			return err
		}
	}
	if r != nil {
		if _, err := tl.AddCandidate(idx, in, r.Search.Tour); err != nil {
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

// writeInstance writes the best tour (or all tours) of one instance, and
// the improved tour r when the local search found one.
func writeInstance(w *datasets.SolutionWriter, in *lazymask.Instance, idx int64, s *engine.Solution,
	r *solve.Result, all bool, seconds float64) error {
	tours := []engine.Tour{s.Best}
	if all {
		tours = s.Tours
	}
	for _, t := range tours {
		if all || r == nil {
			row := solutionRow(in, idx, t, Source, seconds)
			if err := w.Write(&row); err != nil {
				return err
			}
		}
	}
	if r != nil {
		t := s.Best
		c := r.Search.Check
		t.Nodes, t.Cost, t.Feasible = r.Search.Tour, c.Cost, c.Feasible
		t.Violation, t.ViolatedNodes, t.Failed = c.TotalViolation, c.ViolatedNodes, false
		row := solutionRow(in, idx, t, SourceImproved, seconds+r.Search.Elapsed.Seconds())
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

// improveOptions are the local-search options of the flags; --improve-share
// then bounds each row group's search by solve.Options.WithShare: an equal
// part of the time left for each instance as it starts, capped by
// --improve-budget, kicks until then (at most --improve-kicks when set),
// and repairs always finished.
func improveOptions(cfg config, workers int) solve.Options {
	return solve.Options{
		Search: localsearch.Options{TimeLimit: cfg.improveBudget, Kicks: cfg.improveKicks, MaxStarts: cfg.improveStarts,
			NoMerge: cfg.improveNoMerge},
		Urgency: true, Workers: workers,
	}
}
