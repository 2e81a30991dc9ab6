package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/explain"
	"github.com/lmask/lmask/infer"
	"github.com/lmask/lmask/internal/atomicfile"
	"github.com/lmask/lmask/internal/cliapp"
	"github.com/lmask/lmask/internal/modelpath"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
	"github.com/lmask/lmask/solve"
)

func newApp(stdout, stderr io.Writer) *cli.App {
	d := infer.DefaultOptions()
	return cliapp.Prepare(&cli.App{
		Name:            "lmask-infer",
		Usage:           "solve a Parquet dataset with an exported LMask model (onnxruntime)",
		Version:         Version,
		Writer:          stdout,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		Description:     "Presets, the search, the rescue and each flag in detail: docs/inference.md.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "preset", Value: infer.PresetPaper, Usage: "paper (the paper's protocol), best (network + search) or fast; explicit flags override it"},
			&cli.BoolFlag{Name: "print-settings", Usage: "print the settings the preset and flags resolve to, and exit"},
			&cli.StringFlag{Name: "model", Usage: "model directory or a shipped model's name, e.g. tsptw50-hard (required with --starts network)"},
			&cli.StringFlag{Name: "starts", Value: infer.StartsNetwork, Usage: "start tours: network (decoded by --model), random-l or urgency (no model; needs a CPU budget for a timed search)"},
			&cli.DurationFlag{Name: "cpu-budget", Usage: "with --starts random-l or urgency: the run's CPU time (user + sys) in place of the decode's share (0 = none)"},
			&cli.DurationFlag{Name: "time-per-instance", Usage: "with --starts random-l or urgency: --cpu-budget per instance solved"},
			&cli.StringFlag{Name: "data", Usage: "instances Parquet file (required)"},
			&cli.StringFlag{Name: "out", Usage: "solutions Parquet file to write, atomically (required)"},
			&cli.IntFlag{Name: "budget", Value: infer.DefaultBudget, DefaultText: "the paper's R for the data", Usage: "backtrack budget R per trajectory (-1 = unlimited)"},
			&cli.StringFlag{Name: "lookahead", Value: "tsl", Usage: "look-ahead mask: ssl or tsl (none for plain TSP masking)"},
			&cli.IntFlag{Name: "aug", Value: d.Decode.Aug, Usage: "dihedral augmentations, 1 to 8 (the first K transforms, the identity first)"},
			&cli.IntFlag{Name: "samples", Value: 0, Usage: "sampled trajectories per augmentation (0 = greedy)"},
			&cli.Uint64Flag{Name: "seed", Value: d.Decode.Seed, Usage: "seed of the sampling and the search (tours do not depend on --batch, --workers, --limit or --shard)"},
			&cli.IntFlag{Name: "batch", Value: d.Decode.Batch, Usage: fmt.Sprintf("instances per decode batch (%d with --preset fast)", infer.FastBatch)},
			&cli.IntFlag{Name: "threads", Value: 0, Usage: "onnxruntime intra-op threads per session (0 = cores / workers)"},
			&cli.IntFlag{Name: "workers", Value: 0, Usage: "concurrent decode batches (0 = one per core; 2 with cuda)"},
			&cli.StringFlag{Name: "device", Value: engine.DeviceCPU, Usage: "cpu or cuda (no fallback when cuda is unavailable)"},
			&cli.Int64Flag{Name: "limit", Value: 0, Usage: "solve only the first K instances (0 = all)"},
			&cli.StringFlag{Name: "shard", Usage: "solve slice I (from 0) of K: I/K, or auto/K (I from JOB_COMPLETION_INDEX or SLURM_ARRAY_TASK_ID)"},
			&cli.StringFlag{Name: "reference", Usage: "reference solutions Parquet file for the gap"},
			&cli.StringFlag{Name: "metrics-json", Usage: "write the metrics as JSON to this file"},
			&cli.BoolFlag{Name: "overlap", Usage: "decode the next group of 64 instances while the last is searched (busier cores)"},
			&cli.BoolFlag{Name: "all-tours", Usage: "write every decoded tour instead of the best per instance"},
			&cli.BoolFlag{Name: "improve", Usage: "local search from each instance's decoded tours; keep the best"},
			&cli.IntFlag{Name: "improve-starts", Value: d.Search.MaxStarts, Usage: "start tours per instance for --improve: the best K distinct decoded ones (0 = all)"},
			&cli.DurationFlag{Name: "improve-budget", Value: 0, Usage: "local-search time limit per instance (0 = none)"},
			&cli.IntFlag{Name: "improve-kicks", Value: 0, Usage: "kicks per instance (with --improve-share: at most this many; 0 = as many as the time allows)"},
			&cli.BoolFlag{Name: "improve-no-merge", Usage: "do not merge local optima into the best tour"},
			&cli.DurationFlag{Name: "rescue-time", Value: d.RescueTime, Usage: "time cap of the rescue of an instance without a feasible tour (0 = leave it)"},
			&cli.IntFlag{Name: "rescue-budget", Value: d.RescueBudget, Usage: "largest budget of the rescue's retries"},
			&cli.Float64Flag{Name: "improve-share", Value: 0, Usage: "search time as a share of the decode time, backtracking left out (0 = off; at most 1000)"},
			&cli.IntFlag{Name: "neural-kicks", Value: 0, Usage: "after the search, this many kicks per instance that re-decode the best tour's end with the model (0 = off)"},
			&cli.IntFlag{Name: "neural-every", Value: 0, Usage: "with --improve, every K-th kick of the search re-decodes the tour's end with the model (0 = off)"},
			&cli.StringFlag{Name: "neural-cut", Value: "random", Usage: "where a neural kick cuts the tour: random, or doubt (before the steps the model finds least likely)"},
			&cli.StringFlag{Name: "infeasible", Value: infer.InfeasibleNone, Usage: "for an instance without a feasible tour: none, drop (serve the most stops) or late (serve all, least lateness)"},
			&cli.DurationFlag{Name: "infeasible-time", Value: explain.DefaultTime, Usage: "time for each instance's --infeasible drop or late"},
		},
		Action: func(c *cli.Context) error {
			opt, metrics, err := parseOptions(c, d, stderr)
			if err != nil {
				return err
			}
			if c.Bool("print-settings") {
				return printSettings(stdout, c.String("preset"), opt)
			}
			bar := cliapp.NewProgress(stderr, "solving", "inst")
			opt.Progress = bar.Set
			sum, err := infer.Run(c.Context, opt)
			bar.Finish()
			if errors.Is(err, context.Canceled) {
				return fmt.Errorf("%w: nothing written to %s", context.Canceled, opt.Out)
			}
			if err != nil {
				return err
			}
			sum.WriteTable(stdout)
			if metrics != "" {
				return sum.WriteJSON(metrics)
			}
			return nil
		},
	})
}

// parseOptions turns the flags into the options of infer.Run (d: the
// defaults) and the --metrics-json path; bad values are usage errors.
func parseOptions(c *cli.Context, d infer.Options, stderr io.Writer) (infer.Options, string, error) {
	if c.NArg() > 0 {
		return d, "", cliapp.Usagef("unexpected arguments: %v", c.Args().Slice())
	}
	if !c.Bool("print-settings") { // the flags are required unless the settings are only printed
		need := []string{"data", "out"}
		// Only network starts need --model; where it alone is missing, the
		// usage check below names --starts too.
		if c.String("starts") == infer.StartsNetwork && !(c.IsSet("data") && c.IsSet("out")) {
			need = []string{"model", "data", "out"}
		}
		if err := cliapp.Required(c, need...); err != nil {
			return d, "", err
		}
	}
	look, err := lazymask.ParseLookahead(c.String("lookahead"))
	if err != nil {
		return d, "", cliapp.Usagef("--lookahead: %w", err)
	}
	opt, err := infer.Preset(c.String("preset"))
	if err != nil {
		return d, "", cliapp.Usagef("--preset: %w", err)
	}
	metrics := c.String("metrics-json")
	opt.Model, opt.Data, opt.Out, opt.Reference = c.String("model"), c.String("data"), c.String("out"), c.String("reference")
	opt.Engine = engine.Options{Device: c.String("device"), Threads: c.Int("threads"), Workers: c.Int("workers")}
	opt.Decode.Samples, opt.Decode.Lookahead, opt.Decode.Seed = c.Int("samples"), look, c.Uint64("seed")
	opt.Limit, opt.AllTours, opt.Log, opt.Overlap = c.Int64("limit"), c.Bool("all-tours"), stderr, c.Bool("overlap")
	if opt.Starts, err = infer.ParseStarts(c.String("starts")); err != nil {
		return opt, "", cliapp.Usagef("--starts: %w", err)
	}
	opt.CPUBudget, opt.CPUPerInstance = c.Duration("cpu-budget"), c.Duration("time-per-instance")
	network := opt.Starts == infer.StartsNetwork
	// The flags a preset sets keep its values unless given explicitly.
	set := func(name string, apply func()) {
		if c.IsSet(name) {
			apply()
		}
	}
	set("aug", func() { opt.Decode.Aug = c.Int("aug") })
	set("batch", func() { opt.Decode.Batch = c.Int("batch") })
	set("budget", func() { opt.Decode.Budget, opt.PaperBudget = c.Int("budget"), false })
	set("improve", func() { opt.Improve = c.Bool("improve") })
	set("improve-share", func() { opt.ImproveShare = c.Float64("improve-share") })
	set("improve-budget", func() { opt.Search.TimeLimit = c.Duration("improve-budget") })
	set("improve-kicks", func() { opt.Search.Kicks = c.Int("improve-kicks") })
	set("improve-starts", func() { opt.Search.MaxStarts = c.Int("improve-starts") })
	set("improve-no-merge", func() { opt.Search.NoMerge = c.Bool("improve-no-merge") })
	set("rescue-time", func() { opt.RescueTime = c.Duration("rescue-time") })
	set("rescue-budget", func() { opt.RescueBudget = c.Int("rescue-budget") })
	set("neural-kicks", func() { opt.NeuralKicks.Rounds = c.Int("neural-kicks") })
	set("neural-every", func() { opt.NeuralEvery = c.Int("neural-every") })
	if opt.NeuralKicks.Cut, err = solve.ParseCutRule(c.String("neural-cut")); err != nil {
		return opt, "", cliapp.Usagef("--neural-cut: %w", err)
	}
	if opt.Infeasible, err = infer.ParseInfeasible(c.String("infeasible")); err != nil {
		return opt, "", cliapp.Usagef("--infeasible %w", err)
	}
	opt.InfeasibleTime = c.Duration("infeasible-time")
	if !opt.Improve && !c.IsSet("improve-share") {
		opt.ImproveShare = 0 // a preset's share means nothing without the search
	}
	if s := c.String("shard"); s != "" {
		if opt.Shard, err = infer.ParseShard(s, os.Getenv); err != nil {
			return opt, "", cliapp.Usagef("--shard %w", err)
		}
	}
	if err := opt.Check(); err != nil {
		return opt, "", cliapp.Usage(err)
	}
	if network && opt.Model == "" && !c.Bool("print-settings") {
		return opt, "", cliapp.Usagef("--model is required with --starts network (the default); --starts random-l or urgency runs without a model")
	}
	if !network {
		opt.ImproveShare = 0 // the CPU budget takes the share's place
	}
	if c.Bool("print-settings") {
		return opt, metrics, nil // no files are read or written
	}
	// A model name that resolves to nothing is a missing input: a failure
	// like a missing --data, reported after the usage checks of the outputs.
	var modelErr error
	if network {
		var resolved string
		if resolved, modelErr = modelpath.Resolve(opt.Model); modelErr == nil {
			opt.Model = resolved
		}
	}
	// Outputs: their folders must exist (checked before hours of solving),
	// and none may overwrite an input or an output checked before it.
	taken := []atomicfile.Input{{Flag: "data", Path: opt.Data}, {Flag: "reference", Path: opt.Reference}}
	if network {
		taken = append(taken, atomicfile.DirInputs("model", opt.Model, features.ModelFiles...)...)
	}
	for _, o := range []atomicfile.Input{{Flag: "out", Path: opt.Out}, {Flag: "metrics-json", Path: metrics}} {
		if o.Path == "" {
			continue
		}
		if err := atomicfile.CheckDest(o.Path); err != nil {
			return opt, "", cliapp.Usagef("--%s: %w", o.Flag, err)
		}
		if err := cliapp.Distinct(o.Flag, o.Path, taken...); err != nil {
			return opt, "", cliapp.Usage(err)
		}
		taken = append(taken, o)
	}
	if modelErr != nil {
		return opt, "", fmt.Errorf("--model: %w", modelErr)
	}
	return opt, metrics, nil
}
