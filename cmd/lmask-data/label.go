package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/infer"
	"github.com/lmask/lmask/internal/cliapp"
	"github.com/lmask/lmask/internal/modelpath"
	"github.com/lmask/lmask/labels"
	"github.com/lmask/lmask/lazymask"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:  "label",
		Usage: "grow (or resume, or relabel) a label set for imitation training: generated instances with local-search tours",
		Description: "Writes chunks of --chunk generated instances to --dir (chunk-NNNNN.instances.parquet) with one\n" +
			"feasible tour each (chunk-NNNNN.solutions.parquet), until the set holds --count instances. The tours start\n" +
			"from --model's greedy tours under --aug transforms (or Random-L tours without --model) and are improved by\n" +
			"local search with --kicks perturbations; they depend on the seed only. Run again with a larger --count to\n" +
			"grow the set, or after an interruption to finish it. --relabel re-solves every chunk with --model and keeps\n" +
			"each instance's shorter tour (a self-improvement round).\n" +
			"--instances labels given instance files instead (any sizes, one problem, taken from the files): chunk i\n" +
			"holds rows --chunk·i on of their concatenation; labels.json records each file's size and SHA-256, so a run\n" +
			"that continues the set refuses a changed file. --shard I/K writes only the chunks i with i mod K = I, so\n" +
			"several machines grow one set; lmask-data merge-labels checks and joins their folders.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Required: true, Usage: "label set folder (made if missing)"},
			&cli.StringFlag{Name: "problem", Usage: "tsptw or tspdl (required without --instances)"},
			&cli.StringSliceFlag{Name: "instances", Usage: "instances Parquet files to label instead of generated ones (repeat or separate by commas)"},
			&cli.StringFlag{Name: "shard", Usage: "I/K: write only the chunks i with i mod K = I (auto/K: I from JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID)"},
			&cli.IntFlag{Name: "size", Value: labels.DefaultSize, Usage: "nodes per instance, depot included"},
			&cli.StringFlag{Name: "hardness", Value: labels.DefaultHardness, Usage: "easy, medium or hard"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "generator seed of the set (chunk i draws from a seed derived from it and i)"},
			&cli.IntFlag{Name: "count", Usage: "instances the set should draw (rounded up to whole chunks; with --keep failed a chunk keeps fewer)"},
			&cli.IntFlag{Name: "chunk", Value: 2000, Usage: "instances per chunk"},
			&cli.StringFlag{Name: "model", Usage: "model folder, or a shipped model's name, whose greedy tours start the search (default: Random-L ×8 tours)"},
			&cli.IntFlag{Name: "aug", Value: 2, Usage: "dihedral transforms decoded per instance with --model"},
			&cli.IntFlag{Name: "budget", Usage: "backtrack budget R of the decode", DefaultText: "the paper's R for problem, size and hardness"},
			&cli.IntFlag{Name: "kicks", Value: 20, Usage: "local-search perturbations per instance"},
			&cli.IntFlag{Name: "starts", Value: 4, Usage: "best distinct start tours searched per instance"},
			&cli.IntFlag{Name: "workers", Usage: "parallel searches (0: one per CPU)"},
			&cli.StringFlag{Name: "keep", Value: "all", Usage: "instances a chunk keeps: all, or failed (those where a greedy decode of --model fails)"},
			&cli.BoolFlag{Name: "relabel", Usage: "re-solve every chunk with --model and keep each instance's shorter tour"},
			&cli.BoolFlag{Name: "prefixes", Usage: "label prefix completions of --model's greedy tours (DAgger; see docs/training.md)"},
		},
		Action: labelAction,
	})
}

func labelAction(c *cli.Context) error {
	var files *datasets.InstanceFiles
	if paths := c.StringSlice("instances"); len(paths) > 0 {
		var err error
		if files, err = datasets.ReadInstanceFiles(paths); err != nil {
			return fmt.Errorf("label: flag --instances: %w", err)
		}
	}
	req := labels.Request{Shard: c.String("shard"), Model: c.String("model"), Keep: c.String("keep"),
		Chunk: c.Int("chunk"), Count: c.Int("count"), Relabel: c.Bool("relabel"), Prefixes: c.Bool("prefixes"),
		ParseShard: func(v string) (labels.Shard, error) {
			sh, err := infer.ParseShard(v, os.Getenv)
			return labels.Shard{Index: sh.Index, Count: sh.Count}, err
		}}
	if c.IsSet("problem") {
		req.Problem = c.String("problem")
	}
	if c.IsSet("size") {
		size := c.Int("size")
		req.Size = &size
	}
	if c.IsSet("hardness") {
		hard := c.String("hardness")
		req.Hardness = &hard
	}
	if c.IsSet("budget") {
		budget := c.Int("budget")
		req.Budget = &budget
	}
	r, err := req.Resolve(files)
	if err != nil {
		return cliapp.Usage(err)
	}
	starter, closeFn, err := newStarter(c, r.Budget)
	if err != nil {
		return err
	}
	defer closeFn()
	search := labels.Search{Kicks: c.Int("kicks"), MaxStarts: c.Int("starts"), Workers: c.Int("workers")}
	want := r.Spec(files, c.Uint64("seed"), c.Int("chunk"), starter.Describe()+"; "+search.Describe(), c.Bool("prefixes"))
	dir := c.String("dir")
	spec, err := labels.Open(dir, want)
	if err != nil {
		return fmt.Errorf("label: %w", err)
	}
	ctx := c.Context
	b := &labels.Builder{Dir: dir, Spec: spec, Starter: starter, Search: search, Decodes: c.Int("aug"), Files: files, Shard: r.Shard,
		Log: cliapp.BarLog(c.App.ErrWriter)}
	total, err := labels.Pending(dir, spec.ChunkSize, c.Int("count"), files, r.Shard, c.Bool("relabel"))
	if err != nil {
		return err
	}
	bar := progressbar.NewOptions(total, progressbar.OptionSetWriter(c.App.ErrWriter),
		progressbar.OptionSetDescription("label"), progressbar.OptionShowCount(), progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("inst"), progressbar.OptionThrottle(500_000_000),
		progressbar.OptionSetVisibility(cliapp.IsTerminal(c.App.ErrWriter)))
	b.Progress = func(done int) { _ = bar.Set(done) }
	if c.Bool("relabel") {
		r, err := b.Relabel(ctx)
		_ = bar.Finish()
		if err != nil {
			return fmt.Errorf("label: %w", err)
		}
		fmt.Fprintf(c.App.Writer, "relabelled %d chunks of %s in %.1f s: %d labels replaced by shorter tours, mean gain %.4f%%\n",
			r.Chunks, dir, r.Seconds, r.Improved, 100*r.MeanGain)
		return nil
	}
	n, err := b.Grow(ctx, c.Int("count"))
	_ = bar.Finish()
	if err != nil {
		return fmt.Errorf("label: %w (the %d chunks written before are complete; run again to continue)", err, n)
	}
	fmt.Fprintf(c.App.Writer, "%s: %d chunks written (%s)\n", dir, n, spec.Search)
	return nil
}

// newStarter returns the model's greedy decoder or Random-L as the
// source of start tours.
func newStarter(c *cli.Context, budget int) (labels.Starter, func(), error) {
	if c.String("model") == "" {
		return labels.RandomL{Samples: 8, Budget: budget, Seed: c.Uint64("seed"), Workers: c.Int("workers")}, func() {}, nil
	}
	dir, err := modelpath.Resolve(c.String("model"))
	if err != nil {
		return nil, nil, fmt.Errorf("label: flag --model: %w", err)
	}
	e, err := engine.Open(dir, engine.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("label: flag --model: %w", err)
	}
	s, err := e.NewSolver(engine.SolveOptions{Aug: c.Int("aug"), Budget: budget, Lookahead: lazymask.LookTSL, AllTours: true})
	if err != nil {
		e.Close()
		return nil, nil, fmt.Errorf("label: %w", err)
	}
	name := filepath.Base(filepath.Clean(c.String("model")))
	return labels.StarterFunc{Fn: s.StartTours, Desc: fmt.Sprintf("model %s greedy ×%d, R = %d", name, c.Int("aug"), budget)},
		func() { s.Close(); e.Close() }, nil
}
