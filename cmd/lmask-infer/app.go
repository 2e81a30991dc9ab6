package main

import (
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/engine"
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
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "preset", Value: infer.PresetPaper, Usage: "a named setting: paper (the paper's protocol: greedy ×8, the paper's budgets, no search), " +
				"best (the recommended pipeline: greedy ×2, --improve --improve-share 3.5, plus 0.75 of the time spent opening the model and data; where the data's R is unknown, R = max(200, 16·N); instances without a feasible decoded tour repaired by the search), " +
				"fast (greedy ×1, the same budgets, --improve --improve-kicks 10); flags given explicitly override the preset's values (the defaults shown are paper's)"},
			&cli.StringFlag{Name: "model", Usage: "model directory (encoder.onnx, decoder.onnx, config.json), or a shipped model's name, e.g. tsptw50-hard (models/pretrained, or $LMASK_MODELS); required with --starts network"},
			&cli.StringFlag{Name: "starts", Value: infer.StartsNetwork, Usage: "where the search's starting tours come from: network (decoded by --model), " +
				"random-l (--samples Random-L tours per instance under the LazyMask method, 8 where --samples is 0; no model) or urgency (the customers by window end or draft limit; no model). " +
				"Without a network the search is the preset's, and its time is --cpu-budget or --time-per-instance in place of the decode's share (kicks as many as the budget allows, no floor of kicks); without either, only a fixed --improve-kicks search (as in --preset fast) or none"},
			&cli.DurationFlag{Name: "cpu-budget", Usage: "with --starts random-l or urgency: the run's CPU time, user + sys of all threads from opening the data to writing the solutions, as /usr/bin/time counts it " +
				"(less the process's start-up of a few milliseconds); the search gets what building the starts leaves, spread over the instances by N^1.5 and converted to wall time at the CPU share the run gets, so that the run ends within a few percent of it on a loaded machine too (0 = none)"},
			&cli.DurationFlag{Name: "time-per-instance", Usage: "with --starts random-l or urgency: --cpu-budget given per instance solved (budget = this × instances)"},
			&cli.StringFlag{Name: "data", Required: true, Usage: "instances Parquet file"},
			&cli.StringFlag{Name: "out", Required: true, Usage: "solutions Parquet file to write (atomically)"},
			&cli.IntFlag{Name: "budget", Value: infer.DefaultBudget, DefaultText: "the paper's R for the data: TSPTW-50 easy/medium/hard 100/100/200, larger TSPTW 150/200/300, TSPDL 150; 200 where the hardness is unknown",
				Usage: "backtrack budget R per trajectory (-1 = unlimited)"},
			&cli.StringFlag{Name: "lookahead", Value: "tsl", Usage: "look-ahead mask: ssl or tsl (none for plain TSP masking)"},
			&cli.IntFlag{Name: "aug", Value: d.Decode.Aug, Usage: "dihedral augmentations, 1 to 8 (the first K transforms, the identity first)"},
			&cli.IntFlag{Name: "samples", Value: 0, Usage: "sampled trajectories per augmentation (0 = greedy)"},
			&cli.Uint64Flag{Name: "seed", Value: d.Decode.Seed, Usage: "sampling seed: each instance's samples draw from streams keyed by (seed, row index in --data, augmentation, sample), so the tours do not depend on --batch, --workers, --limit or --shard"},
			&cli.IntFlag{Name: "batch", Value: d.Decode.Batch, Usage: "instances per decode batch"},
			&cli.IntFlag{Name: "threads", Value: 0, Usage: "onnxruntime intra-op threads per session (0 = cores / workers)"},
			&cli.IntFlag{Name: "workers", Value: 0, Usage: "concurrent decode batches (0 = one per core; 2 with cuda)"},
			&cli.StringFlag{Name: "device", Value: engine.DeviceCPU, Usage: "cpu or cuda (no fallback when cuda is unavailable)"},
			&cli.Int64Flag{Name: "limit", Value: 0, Usage: "solve only the first K instances (0 = all)"},
			&cli.StringFlag{Name: "shard", Usage: "solve the I-th (from 0) of K contiguous slices of the rows, cut at row groups where possible: I/K, or auto/K to read I from " +
				"JOB_COMPLETION_INDEX (Kubernetes Indexed Job) or SLURM_ARRAY_TASK_ID (Slurm array); join the outputs with lmask-data merge"},
			&cli.StringFlag{Name: "reference", Usage: "reference solutions Parquet file for the gap"},
			&cli.StringFlag{Name: "metrics-json", Usage: "write the metrics as JSON to this file"},
			&cli.BoolFlag{Name: "sequential", Usage: "decode each group of up to 64 instances only after the one before it is searched and written (by default the next group's decode runs during the last one's search, keeping the cores busy)"},
			&cli.BoolFlag{Name: "all-tours", Usage: "write every decoded tour instead of the best per instance"},
			&cli.BoolFlag{Name: "improve", Usage: "apply local search from the decoded tours of each instance (see --improve-starts) and keep the best"},
			&cli.IntFlag{Name: "improve-starts", Value: d.Search.MaxStarts, Usage: "starting tours per instance for --improve: the best K distinct decoded tours (0 = all; 1 = the best only), plus the urgency order where none is feasible"},
			&cli.DurationFlag{Name: "improve-budget", Value: 0, Usage: "local-search time limit per instance (0 = none)"},
			&cli.IntFlag{Name: "improve-kicks", Value: 0, Usage: "iterated-local-search perturbations per instance (with --improve-share: at most this many; 0 = as many as the time allows)"},
			&cli.BoolFlag{Name: "improve-no-merge", Usage: "with --improve, do not merge local optima that lose to the best tour with it (block by block, at positions where both have visited the same nodes)"},
			&cli.DurationFlag{Name: "rescue-time", Value: d.RescueTime, Usage: "time cap per instance left without a feasible tour by decoding (and --improve's repair): decode it alone again with budget ×4, ×16 … up to --rescue-budget (at least 16 times its own budget), then run a feasibility search (0 = leave it)"},
			&cli.IntFlag{Name: "rescue-budget", Value: d.RescueBudget, Usage: "largest budget of the --rescue-time retries (raised to 16 times an instance's own budget where that is larger)"},
			&cli.Float64Flag{Name: "improve-share", Value: 0, Usage: "bound the local search of each row group by this share of the network's time to decode it, backtracking left out (0.5: at most +50%), split among its instances in proportion to N^1.5; the bound covers the whole search, descents included, except the repair of an instance with no feasible decoded tour, which always finishes; time-based, so tours vary between runs and machines (0 = off; at most 1000)"},
		},
		Action: func(c *cli.Context) error {
			opt, metrics, err := parseOptions(c, d, stderr)
			if err != nil {
				return err
			}
			bar := newProgress(stderr)
			opt.Progress = bar.set
			sum, err := infer.Run(c.Context, opt)
			bar.finish()
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
	opt.Decode.Samples, opt.Decode.Lookahead, opt.Decode.Seed, opt.Decode.Batch = c.Int("samples"), look, c.Uint64("seed"), c.Int("batch")
	opt.Limit, opt.AllTours, opt.Log, opt.Sequential = c.Int64("limit"), c.Bool("all-tours"), stderr, c.Bool("sequential")
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
	set("budget", func() { opt.Decode.Budget, opt.PaperBudget = c.Int("budget"), false })
	set("improve", func() { opt.Improve = c.Bool("improve") })
	set("improve-share", func() { opt.ImproveShare = c.Float64("improve-share") })
	set("improve-budget", func() { opt.Search.TimeLimit = c.Duration("improve-budget") })
	set("improve-kicks", func() { opt.Search.Kicks = c.Int("improve-kicks") })
	set("improve-starts", func() { opt.Search.MaxStarts = c.Int("improve-starts") })
	set("improve-no-merge", func() { opt.Search.NoMerge = c.Bool("improve-no-merge") })
	set("rescue-time", func() { opt.RescueTime = c.Duration("rescue-time") })
	set("rescue-budget", func() { opt.RescueBudget = c.Int("rescue-budget") })
	if !opt.Improve && !c.IsSet("improve-share") {
		opt.ImproveShare = 0 // a preset's share means nothing without the search
	}
	if s := c.String("shard"); s != "" {
		if opt.Shard, err = infer.ParseShard(s, os.Getenv); err != nil {
			return opt, "", cliapp.Usagef("--shard %w", err)
		}
	}
	switch {
	case opt.Decode.Aug < 1 || opt.Decode.Aug > lazymask.NumAugment:
		return opt, "", cliapp.Usagef("--aug %d: want 1 to %d", opt.Decode.Aug, lazymask.NumAugment)
	case opt.Decode.Samples < 0:
		return opt, "", cliapp.Usagef("--samples %d: want ≥ 0", opt.Decode.Samples)
	case opt.Decode.Budget < lazymask.Unlimited:
		return opt, "", cliapp.Usagef("--budget %d: want ≥ 0 or -1 (unlimited)", opt.Decode.Budget)
	case opt.Decode.Batch < 1:
		return opt, "", cliapp.Usagef("--batch %d: want ≥ 1", opt.Decode.Batch)
	case opt.Limit < 0:
		return opt, "", cliapp.Usagef("--limit %d: want ≥ 0", opt.Limit)
	case opt.Engine.Threads < 0 || opt.Engine.Workers < 0:
		return opt, "", cliapp.Usagef("--threads and --workers must be ≥ 0")
	case opt.Engine.Device != engine.DeviceCPU && opt.Engine.Device != engine.DeviceCUDA:
		return opt, "", cliapp.Usagef("--device %q: want cpu or cuda", opt.Engine.Device)
	case opt.Search.Kicks < 0 || opt.Search.TimeLimit < 0 || opt.Search.MaxStarts < 0:
		return opt, "", cliapp.Usagef("--improve-budget, --improve-kicks and --improve-starts must be ≥ 0")
	case !(opt.ImproveShare >= 0 && opt.ImproveShare <= solve.MaxShare):
		return opt, "", cliapp.Usagef("--improve-share %v: want a share in [0, %d]", opt.ImproveShare, solve.MaxShare)
	case opt.RescueTime < 0 || opt.RescueBudget < 1:
		return opt, "", cliapp.Usagef("--rescue-time %v, --rescue-budget %d: want a time ≥ 0 and a budget ≥ 1", opt.RescueTime, opt.RescueBudget)
	case opt.ImproveShare > 0 && !opt.Improve:
		return opt, "", cliapp.Usagef("--improve-share needs --improve")
	case network && opt.Model == "":
		return opt, "", cliapp.Usagef("--model is required with --starts network (the default); --starts random-l or urgency runs without a model")
	case !network && opt.Model != "":
		return opt, "", cliapp.Usagef("--model %s: --starts %s uses no model", opt.Model, opt.Starts)
	case network && (opt.CPUBudget != 0 || opt.CPUPerInstance != 0):
		return opt, "", cliapp.Usagef("--cpu-budget and --time-per-instance apply to --starts random-l or urgency; with --starts network the search's time is --improve-share of the decode's")
	case opt.CPUBudget < 0 || opt.CPUPerInstance < 0 || (opt.CPUBudget > 0 && opt.CPUPerInstance > 0):
		return opt, "", cliapp.Usagef("--cpu-budget %v, --time-per-instance %v: want one of them, ≥ 0", opt.CPUBudget, opt.CPUPerInstance)
	case !network && opt.Improve && opt.ImproveShare > 0 && opt.CPUBudget == 0 && opt.CPUPerInstance == 0:
		return opt, "", cliapp.Usagef("--starts %s with --improve-share (as --preset best sets it) needs --cpu-budget or --time-per-instance: there is no decode to take a share of", opt.Starts)
	}
	if !network {
		opt.ImproveShare = 0 // the CPU budget takes the share's place
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
		if err := atomicfile.Distinct(o.Flag, o.Path, taken...); err != nil {
			return opt, "", cliapp.Usage(err)
		}
		taken = append(taken, o)
	}
	if modelErr != nil {
		return opt, "", fmt.Errorf("--model: %w", modelErr)
	}
	return opt, metrics, nil
}
