package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/infer"
	"github.com/lmask/lmask/internal/cliapp"
	"github.com/lmask/lmask/localsearch"
	"github.com/lmask/lmask/solve"
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
			&cli.BoolFlag{Name: "no-merge", Usage: "do not merge local optima into the best tour"},
			&cli.Uint64Flag{Name: "seed", Usage: "seed for --shuffle and --kicks (row r uses seed+r; with --per-instance, instance i uses seed+i)", Value: 1},
			&cli.BoolFlag{Name: "no-repair", Usage: "leave infeasible tours unchanged"},
			&cli.IntFlag{Name: "workers", Usage: "parallel workers (0 = number of CPUs)"},
			&cli.BoolFlag{Name: "per-instance", Usage: "search from all of an instance's tours together (e.g. lmask-infer --all-tours output); one row per instance"},
			&cli.IntFlag{Name: "starts", Usage: "with --per-instance, search from the best K distinct tours of each instance (0 = all)"},
			&cli.BoolFlag{Name: "urgency", Usage: "with --per-instance, also start from the urgency order where no tour of an instance is feasible"},
		},
		Action: improveAction,
	})
}

func improveAction(c *cli.Context) error {
	moves, err := localsearch.ParseMoves(c.String("moves"))
	if err != nil {
		return cliapp.Usagef("improve: flag --moves: %w", err)
	}
	if c.Int("max-segment") < 1 {
		return cliapp.Usagef("improve: flag --max-segment: %d, want ≥ 1", c.Int("max-segment"))
	}
	opt := localsearch.Options{
		Moves: moves, BestImprovement: c.Bool("best"), MaxSegment: c.Int("max-segment"),
		MaxMoves: c.Int("max-moves"), MaxIterations: c.Int("max-iterations"), TimeLimit: c.Duration("budget"),
		Kicks: c.Int("kicks"), Shuffle: c.Bool("shuffle"), NoRepair: c.Bool("no-repair"), MaxStarts: c.Int("starts"),
		NoMerge: c.Bool("no-merge"),
	}
	for _, f := range []string{"starts", "kicks", "max-moves", "max-iterations"} {
		if v := c.Int(f); v < 0 {
			return cliapp.Usagef("improve: flag --%s: %d, want ≥ 0", f, v)
		}
	}
	if opt.TimeLimit < 0 {
		return cliapp.Usagef("improve: flag --budget: %v, want ≥ 0", opt.TimeLimit)
	}
	if c.Bool("urgency") && !c.Bool("per-instance") {
		return cliapp.Usagef("improve: flag --urgency needs --per-instance")
	}
	ipath, spath, out := c.String("instances"), c.String("solutions"), c.String("out")
	d, err := datasets.ReadInstances(ipath)
	if err != nil {
		return fmt.Errorf("improve: %w", err)
	}
	sols, meta, note, err := datasets.ReadMatchedSolutions(spath, ipath, d.Meta)
	if err := noted(c)(note, err); err != nil {
		return fmt.Errorf("improve: %w", err)
	}
	refs, err := readReference(c, ipath, d.Meta)
	if err != nil {
		return fmt.Errorf("improve: %w", err)
	}
	before, err := datasets.Evaluate(d.Instances, sols, refs)
	if err != nil {
		return fmt.Errorf("improve: %w", datasets.WithPath(datasets.WithPath(err, "solutions", spath), "reference", c.String("reference")))
	}
	began := time.Now()
	so := solve.Options{Search: opt, Urgency: c.Bool("urgency"), Workers: c.Int("workers")}
	improved, st, err := infer.ImproveSolutions(c.Context, d.Instances, sols, spath, so, c.Uint64("seed"), c.Bool("per-instance"))
	if err != nil {
		return fmt.Errorf("improve: %w", err)
	}
	wall := time.Since(began)
	after, err := datasets.Evaluate(d.Instances, improved, refs)
	if err != nil {
		return fmt.Errorf("improve: %w", datasets.WithPath(err, "solutions", out))
	}
	meta = infer.ImprovedMeta(meta, ipath, so, c.Uint64("seed"), c.Bool("per-instance"))
	if err := datasets.WriteSolutions(out, meta, improved, datasets.WriterOptions{}); err != nil {
		return fmt.Errorf("improve: write %s: %w", out, err)
	}
	infer.WriteImproveTable(c.App.Writer, st, wall, before, after, refs != nil)
	return nil
}
