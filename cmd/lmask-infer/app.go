package main

import (
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/internal/atomicfile"
	"github.com/lmask/lmask/internal/cliapp"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
	"github.com/lmask/lmask/solve"
)

// DefaultBudget is the backtrack budget R used when --budget is not given
// and the paper fixes none for the data (lazymask.PaperBudget: a TSPTW
// file of no known hardness, such as a benchmark). Otherwise the default is
// the paper's budget for the data's problem, size and hardness: TSPTW-50
// easy/medium/hard 100/100/200, larger TSPTW 150/200/300, TSPDL 150
// (Dumas, in the paper: 5000).
const DefaultBudget = 200

// config is the parsed command line.
type config struct {
	model, data, out   string
	reference, metrics string
	budget             int
	budgetSet          bool // --budget given; else the paper's R for the data
	lookahead          lazymask.Lookahead
	aug, samples       int
	seed               uint64
	batch, limit       int
	threads, workers   int
	device             string
	allTours           bool
	improve            bool
	improveBudget      time.Duration
	improveKicks       int
	improveStarts      int
	improveShare       float64
	improveNoMerge     bool
	rescueTime         time.Duration
	rescueBudget       int
	stdout, stderr     io.Writer
	progress           bool
}

func newApp(stdout, stderr io.Writer) *cli.App {
	return cliapp.Prepare(&cli.App{
		Name:            "lmask-infer",
		Usage:           "solve a Parquet dataset with an exported LMask model (onnxruntime)",
		Version:         Version,
		Writer:          stdout,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "model", Required: true, Usage: "model directory (encoder.onnx, decoder.onnx, config.json)"},
			&cli.StringFlag{Name: "data", Required: true, Usage: "instances Parquet file"},
			&cli.StringFlag{Name: "out", Required: true, Usage: "solutions Parquet file to write (atomically)"},
			&cli.IntFlag{Name: "budget", Value: DefaultBudget, DefaultText: "the paper's R for the data: TSPTW-50 easy/medium/hard 100/100/200, larger TSPTW 150/200/300, TSPDL 150; 200 where the hardness is unknown",
				Usage: "backtrack budget R per trajectory (-1 = unlimited)"},
			&cli.StringFlag{Name: "lookahead", Value: "tsl", Usage: "look-ahead mask: ssl or tsl (none for plain TSP masking)"},
			&cli.IntFlag{Name: "aug", Value: lazymask.NumAugment, Usage: "dihedral augmentations, 1 to 8 (the first K transforms, the identity first)"},
			&cli.IntFlag{Name: "samples", Value: 0, Usage: "sampled trajectories per augmentation (0 = greedy)"},
			&cli.Uint64Flag{Name: "seed", Value: 2025, Usage: "sampling seed: each instance's samples draw from streams keyed by (seed, row index in --data, augmentation, sample), so the tours do not depend on --batch, --workers or --limit"},
			&cli.IntFlag{Name: "batch", Value: engine.DefaultBatch, Usage: "instances per decode batch"},
			&cli.IntFlag{Name: "threads", Value: 0, Usage: "onnxruntime intra-op threads per session (0 = cores / workers)"},
			&cli.IntFlag{Name: "workers", Value: 0, Usage: "concurrent decode batches (0 = one per core; 2 with cuda)"},
			&cli.StringFlag{Name: "device", Value: engine.DeviceCPU, Usage: "cpu or cuda (no fallback when cuda is unavailable)"},
			&cli.IntFlag{Name: "limit", Value: 0, Usage: "solve only the first K instances (0 = all)"},
			&cli.StringFlag{Name: "reference", Usage: "reference solutions Parquet file for the gap"},
			&cli.StringFlag{Name: "metrics-json", Usage: "write the metrics as JSON to this file"},
			&cli.BoolFlag{Name: "all-tours", Usage: "write every decoded tour instead of the best per instance"},
			&cli.BoolFlag{Name: "improve", Usage: "apply local search from the decoded tours of each instance (see --improve-starts) and keep the best"},
			&cli.IntFlag{Name: "improve-starts", Value: 8, Usage: "starting tours per instance for --improve: the best K distinct decoded tours (0 = all; 1 = the best only), plus the urgency order where none is feasible"},
			&cli.DurationFlag{Name: "improve-budget", Value: 0, Usage: "local-search time limit per instance (0 = none)"},
			&cli.IntFlag{Name: "improve-kicks", Value: 0, Usage: "iterated-local-search perturbations per instance (with --improve-share: at most this many; 0 = as many as the time allows)"},
			&cli.BoolFlag{Name: "improve-no-merge", Usage: "with --improve, do not merge local optima that lose to the best tour with it (block by block, at positions where both have visited the same nodes)"},
			&cli.DurationFlag{Name: "rescue-time", Value: engine.DefaultRescueTime, Usage: "time cap per instance left without a feasible tour by decoding (and --improve's repair): decode it alone again with budget ×4, ×16 … up to --rescue-budget, then run a feasibility search (0 = leave it)"},
			&cli.IntFlag{Name: "rescue-budget", Value: engine.DefaultRescueBudget, Usage: "largest budget of the --rescue-time retries"},
			&cli.Float64Flag{Name: "improve-share", Value: 0, Usage: "bound the local search of each row group by this share of the network's time to decode it (0.5: at most +50%), split evenly among its instances; the bound covers the whole search, descents included, except the repair of an instance with no feasible decoded tour, which always finishes; time-based, so tours vary between runs and machines (0 = off; at most 1000)"},
		},
		Action: func(c *cli.Context) error {
			cfg, err := parseConfig(c, stdout, stderr)
			if err != nil {
				return err
			}
			return infer(c.Context, cfg)
		},
	})
}

func parseConfig(c *cli.Context, stdout, stderr io.Writer) (config, error) {
	if c.NArg() > 0 {
		return config{}, cliapp.Usagef("unexpected arguments: %v", c.Args().Slice())
	}
	look, err := lazymask.ParseLookahead(c.String("lookahead"))
	if err != nil {
		return config{}, cliapp.Usagef("--lookahead: %w", err)
	}
	cfg := config{
		model: c.String("model"), data: c.String("data"), out: c.String("out"),
		reference: c.String("reference"), metrics: c.String("metrics-json"),
		budget: c.Int("budget"), budgetSet: c.IsSet("budget"), lookahead: look, aug: c.Int("aug"), samples: c.Int("samples"),
		seed: c.Uint64("seed"), batch: c.Int("batch"), limit: c.Int("limit"),
		threads: c.Int("threads"), workers: c.Int("workers"), device: c.String("device"),
		allTours: c.Bool("all-tours"), improve: c.Bool("improve"),
		improveBudget: c.Duration("improve-budget"), improveKicks: c.Int("improve-kicks"),
		improveStarts: c.Int("improve-starts"), improveShare: c.Float64("improve-share"),
		improveNoMerge: c.Bool("improve-no-merge"),
		rescueTime:     c.Duration("rescue-time"), rescueBudget: c.Int("rescue-budget"),
		stdout: stdout, stderr: stderr, progress: isTerminal(stderr),
	}
	switch {
	case cfg.aug < 1 || cfg.aug > lazymask.NumAugment:
		return cfg, cliapp.Usagef("--aug %d: want 1 to %d", cfg.aug, lazymask.NumAugment)
	case cfg.samples < 0:
		return cfg, cliapp.Usagef("--samples %d: want ≥ 0", cfg.samples)
	case cfg.budget < lazymask.Unlimited:
		return cfg, cliapp.Usagef("--budget %d: want ≥ 0 or -1 (unlimited)", cfg.budget)
	case cfg.batch < 1:
		return cfg, cliapp.Usagef("--batch %d: want ≥ 1", cfg.batch)
	case cfg.limit < 0:
		return cfg, cliapp.Usagef("--limit %d: want ≥ 0", cfg.limit)
	case cfg.threads < 0 || cfg.workers < 0:
		return cfg, cliapp.Usagef("--threads and --workers must be ≥ 0")
	case cfg.device != engine.DeviceCPU && cfg.device != engine.DeviceCUDA:
		return cfg, cliapp.Usagef("--device %q: want cpu or cuda", cfg.device)
	case cfg.improveKicks < 0 || cfg.improveBudget < 0 || cfg.improveStarts < 0:
		return cfg, cliapp.Usagef("--improve-budget, --improve-kicks and --improve-starts must be ≥ 0")
	case !(cfg.improveShare >= 0 && cfg.improveShare <= solve.MaxShare):
		return cfg, cliapp.Usagef("--improve-share %v: want a share in [0, %d]", cfg.improveShare, solve.MaxShare)
	case cfg.rescueTime < 0 || cfg.rescueBudget < 1:
		return cfg, cliapp.Usagef("--rescue-time %v, --rescue-budget %d: want a time ≥ 0 and a budget ≥ 1", cfg.rescueTime, cfg.rescueBudget)
	case cfg.improveShare > 0 && !cfg.improve:
		return cfg, cliapp.Usagef("--improve-share needs --improve")
	}
	// Outputs: their folders must exist (checked before hours of solving),
	// and none may overwrite an input or an output checked before it.
	taken := []atomicfile.Input{{Flag: "data", Path: cfg.data}, {Flag: "reference", Path: cfg.reference}}
	taken = append(taken, atomicfile.DirInputs("model", cfg.model, features.ModelFiles...)...)
	for _, o := range []atomicfile.Input{{Flag: "out", Path: cfg.out}, {Flag: "metrics-json", Path: cfg.metrics}} {
		if o.Path == "" {
			continue
		}
		if err := atomicfile.CheckDest(o.Path); err != nil {
			return cfg, cliapp.Usagef("--%s: %w", o.Flag, err)
		}
		if err := atomicfile.Distinct(o.Flag, o.Path, taken...); err != nil {
			return cfg, cliapp.Usage(err)
		}
		taken = append(taken, o)
	}
	return cfg, nil
}
