package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/internal/cliapp"
	"github.com/lmask/lmask/trainer"
)

// ModelDir is the folder inside --out where the final model is exported.
const ModelDir = "model"

// newApp builds the command-line application.
func newApp(stdout, stderr io.Writer) *cli.App {
	return cliapp.Prepare(&cli.App{
		Name:      "lmask-train",
		Usage:     "train a LazyMask policy for TSPTW / TSPDL with REINFORCE",
		UsageText: "lmask-train --problem tsptw|tspdl --size N --hardness H --out DIR [options]\n   lmask-train --train-data F.parquet[,F2...] [--val-split S] --out DIR [options]\n   lmask-train export --checkpoint DIR --out MODELDIR\n   lmask-train bench [options]",
		Version:   Version,
		Writer:    stdout, ErrWriter: stderr,
		HideHelpCommand: true,
		Description:     "Training recipes and each flag in detail: docs/training.md.",
		Flags:           trainFlags(),
		Action:          func(c *cli.Context) error { return trainAction(c, stdout, stderr) },
		Commands:        []*cli.Command{exportCommand(stdout), quantizeCommand(stdout), averageCommand(stdout), growCommand(stdout), shrinkCommand(stdout), curveCommand(stdout), compareCommand(stdout), benchCommand(stdout, stderr)},
	})
}

// trainFlags lists the training flags; defaults that depend on other flags
// (samples, entropy, lr, milestones, validation budget) are filled by
// trainer.DefaultConfig when the flag is not given.
func trainFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "problem", Usage: "tsptw or tspdl (required unless --train-data or --imitate gives it)"},
		&cli.StringSliceFlag{Name: "train-data", Usage: "instances Parquet files to draw REINFORCE batches from instead of the generator (repeat or separate by commas)"},
		&cli.Float64Flag{Name: "val-split", Usage: "with --train-data: keep this share of its instances (drawn from --seed) out of training as the validation set"},
		&cli.IntFlag{Name: "size", Value: 50, Usage: "nodes per instance N, depot included", Action: atLeast("size", 3)},
		&cli.StringFlag{Name: "hardness", Value: "medium", Usage: "easy, medium or hard"},
		&cli.StringFlag{Name: "out", Usage: "run directory: checkpoint, metrics.jsonl, curve.svg, model/ (required)"},
		&cli.IntFlag{Name: "steps", Value: 1000, Usage: "training iterations"},
		&cli.IntFlag{Name: "batch", Value: 16, Usage: "instances per iteration", Action: atLeast("batch", 1)},
		&cli.IntFlag{Name: "samples", Usage: "samples P per instance", DefaultText: "N (--size)", Action: atLeast("samples", 2)},
		&cli.IntFlag{Name: "budget", Value: 15, Usage: "backtrack budget R of training rollouts (train semantics)"},
		&cli.BoolFlag{Name: "rie", Value: true, Usage: "refinement-intensity embedding (--rie=false disables)"},
		&cli.StringFlag{Name: "lookahead", Value: "tsl", Usage: "look-ahead mask: tsl, ssl or none"},
		&cli.Float64Flag{Name: "lr", Usage: "AdamW learning rate", DefaultText: "3e-4; 1e-4 for N > 50"},
		&cli.Float64Flag{Name: "weight-decay", Value: 1e-6, Usage: "AdamW weight decay"},
		&cli.StringFlag{Name: "milestones", Usage: "comma-separated steps where lr ×0.1", DefaultText: "90% and 95% of --steps"},
		&cli.Float64Flag{Name: "clip", Value: 1.0, Usage: "global gradient-norm clip (0: off)"},
		&cli.Float64Flag{Name: "entropy", Usage: "entropy coefficient λ", DefaultText: "by problem/hardness: TSPTW easy 0.01, medium 0.05, else 0"},
		&cli.Float64Flag{Name: "penalty", Value: 1, Usage: "violation penalty ρ (ρ₀ when scheduled)"},
		&cli.Float64Flag{Name: "penalty-growth", Value: 1, Usage: "γ of ρ_t = min(γ^t·ρ₀, ρ_max); 1 keeps ρ fixed"},
		&cli.Float64Flag{Name: "penalty-max", Value: 2, Usage: "ρ_max of the penalty schedule"},
		&cli.IntFlag{Name: "penalty-every", Value: 1, Usage: "steps per schedule unit t"},
		&cli.Float64Flag{Name: "node-penalty", Value: 1, Usage: "ρ_n, penalty per violated node"},
		&cli.Float64Flag{Name: "guide", Usage: "β: weight of imitating each instance's best sample improved by local search (0: plain REINFORCE)"},
		&cli.IntFlag{Name: "guide-kicks", Value: 10, Usage: "perturbations of the guiding local search (with --guide)"},
		&cli.IntFlag{Name: "guide-starts", Value: 1, Usage: "distinct samples per instance the guiding local search starts from, best kept (with --guide)"},
		&cli.StringFlag{Name: "imitate", Usage: "label set folders (lmask-data label), separated by commas: train by imitating their tours"},
		&cli.IntFlag{Name: "imitate-batch", Value: 256, Usage: "label tours per step (with --imitate)"},
		&cli.IntFlag{Name: "imitate-limit", Usage: "labels read from the set (0: all)"},
		&cli.Float64Flag{Name: "rl-weight", Usage: "with --imitate: weight of a REINFORCE loss on generated instances in each update (0: pure imitation)"},
		&cli.Float64Flag{Name: "dagger", Usage: "with --imitate: weight of the label's next allowed node in the network's own decoded states (DAgger; 0: off)"},
		&cli.BoolFlag{Name: "dagger-failed", Usage: "with --dagger: learn only from greedy decodes that fail"},
		&cli.StringFlag{Name: "val", Usage: "validation set (Parquet instances file)"},
		&cli.StringFlag{Name: "val-ref", Usage: "reference solutions of the validation set (Parquet), for the gap"},
		&cli.IntFlag{Name: "val-every", Value: 100, Usage: "validate every K steps (0: only at the end)"},
		&cli.IntFlag{Name: "val-budget", Usage: "test-semantics budget of validation (-1: unlimited)", DefaultText: "the paper's R for problem, size and hardness"},
		&cli.IntFlag{Name: "val-limit", Value: 256, Usage: "validation instances used (0: all)"},
		&cli.IntFlag{Name: "checkpoint-every", Value: 100, Usage: "checkpoint every N steps (0: end and interrupt only)"},
		&cli.IntFlag{Name: "snapshot-every", Usage: "keep every Nth step's checkpoint in the run's snapshots folder, for lmask-train average (0: none)"},
		&cli.BoolFlag{Name: "keep-best", Value: true, Usage: "write the weights of the best validation so far to best.lmck in the run directory"},
		&cli.StringFlag{Name: "init-from", Usage: "start a fresh run from a checkpoint, a run directory, a model directory or a shipped model's name (its sizes unless given)"},
		&cli.IntFlag{Name: "host-workers", Value: 1, Usage: "goroutines that advance the rollouts between decoder steps (same tours; for a GPU host)", Action: atLeast("host-workers", 1)},
		&cli.IntFlag{Name: "pipelines", Value: 1, Usage: "instance groups per rollout whose host work overlaps another's decoder step (2: double buffering; for a GPU)", Action: atLeast("pipelines", 1)},
		&cli.DurationFlag{Name: "time-limit", Usage: "stop this session after this wall time (e.g. 2h30m) with a checkpoint, as an interrupt would"},
		&cli.BoolFlag{Name: "resume", Usage: "continue the run in --out (only --steps, --backend and --snapshot-every may change)"},
		&cli.StringFlag{Name: "backend", Value: "onnx", Usage: "onnx (ONNX Runtime CPU), go (pure Go) or xla:/path/pjrt_plugin.so (xla builds)"},
		&cli.Uint64Flag{Name: "seed", Value: 1234, Usage: "seed of weights, instances and rollouts"},
		&cli.IntFlag{Name: "layers", Value: 6, Usage: "encoder layers (with --init-from: its count)"},
		&cli.StringFlag{Name: "decoder", Value: "pomo", Usage: "decoder backbone: pomo (the paper's) or reld (a residual and an FFN on the glimpse; model format 2)"},
		&cli.StringFlag{Name: "cand", Value: "none", Usage: "per-candidate features into the decoder: none, bias, keys or both (model format 2)"},
		&cli.IntFlag{Name: "d-model", Value: 128, Usage: "embedding width"},
		&cli.IntFlag{Name: "heads", Value: 8, Usage: "attention heads"},
		&cli.IntFlag{Name: "ffn", Value: 512, Usage: "feed-forward hidden width"},
		&cli.BoolFlag{Name: "no-export", Usage: "do not export the model at the end"},
	}
}

// configFromFlags turns the flags into a trainer.Config and the
// --train-data files read (nil without).
func configFromFlags(c *cli.Context) (trainer.Config, *datasets.InstanceFiles, error) {
	src := trainer.Sources{Problem: c.String("problem")}
	if c.IsSet("size") {
		src.Size = c.Int("size")
	}
	if c.IsSet("hardness") {
		src.Hardness = c.String("hardness")
	}
	if paths := c.StringSlice("train-data"); len(paths) > 0 {
		files, err := datasets.ReadInstanceFiles(paths)
		if err != nil {
			return trainer.Config{}, nil, fmt.Errorf("--train-data: %w", err)
		}
		src.TrainData = files
	}
	if v := c.String("imitate"); v != "" && !c.IsSet("size") {
		src.Imitate = strings.Split(v, ",")
	}
	cfg, err := trainer.BaseConfig(src)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil, err // a missing label set: a failure, not a usage error
	} else if err != nil {
		return cfg, nil, cliapp.Usage(err)
	}
	cfg.ValSplit = c.Float64("val-split")
	if cfg.ValSplit > 0 && c.String("val-ref") != "" {
		return cfg, nil, cliapp.Usagef("--val-ref: references of --val-split instances are not known (they have no rows of their own)")
	}
	cfg, err = applyFlags(c, cfg)
	return cfg, src.TrainData, err
}

// applyFlags sets the flags' values on the base configuration.
func applyFlags(c *cli.Context, cfg trainer.Config) (trainer.Config, error) {
	cfg.Steps = c.Int("steps")
	cfg.Milestones = trainer.DefaultMilestones(cfg.Steps)
	cfg.Batch = c.Int("batch")
	if c.IsSet("samples") {
		cfg.Samples = c.Int("samples")
	}
	cfg.Budget = c.Int("budget")
	cfg.Lookahead = c.String("lookahead")
	cfg.Model.RIE = c.Bool("rie")
	cfg.Model.Layers, cfg.Model.DModel = c.Int("layers"), c.Int("d-model")
	cfg.Model.Heads, cfg.Model.FFN = c.Int("heads"), c.Int("ffn")
	mc, err := trainer.DecoderOptions(cfg.Model, c.String("decoder"), c.String("cand"))
	if err != nil {
		return cfg, cliapp.Usage(err)
	}
	cfg.Model = mc
	if c.IsSet("lr") {
		cfg.LR = c.Float64("lr")
	}
	cfg.WeightDecay = c.Float64("weight-decay")
	if c.IsSet("milestones") {
		ms, err := trainer.ParseInts(c.String("milestones"))
		if err != nil {
			return cfg, cliapp.Usagef("--milestones: %w", err)
		}
		cfg.Milestones = ms
	}
	cfg.Clip = c.Float64("clip")
	if c.IsSet("entropy") {
		cfg.Entropy = c.Float64("entropy")
	}
	cfg.Penalty, cfg.PenaltyGrowth = c.Float64("penalty"), c.Float64("penalty-growth")
	cfg.PenaltyMax, cfg.PenaltyEvery = c.Float64("penalty-max"), c.Int("penalty-every")
	cfg.NodePenalty = c.Float64("node-penalty")
	if cfg.Guide = c.Float64("guide"); cfg.Guide > 0 {
		cfg.GuideKicks, cfg.GuideStarts = c.Int("guide-kicks"), c.Int("guide-starts")
	}
	if v := c.String("imitate"); v != "" {
		dirs, err := trainer.AbsLabelSets(v)
		if err != nil {
			return cfg, err
		}
		cfg.Imitate, cfg.ImitateBatch, cfg.ImitateLimit = dirs, c.Int("imitate-batch"), c.Int("imitate-limit")
	}
	// Read outside the block, so the config check refuses them without --imitate.
	cfg.RLWeight, cfg.Dagger, cfg.DaggerFailed = c.Float64("rl-weight"), c.Float64("dagger"), c.Bool("dagger-failed")
	if v := c.String("val"); v != "" {
		abs, err := filepath.Abs(v)
		if err != nil {
			return cfg, fmt.Errorf("--val: %w", err)
		}
		cfg.ValFile = abs
	}
	cfg.ValEvery, cfg.ValLimit = c.Int("val-every"), c.Int("val-limit")
	if c.IsSet("val-budget") {
		cfg.ValBudget = c.Int("val-budget")
	}
	cfg.CheckpointEvery = c.Int("checkpoint-every")
	cfg.SnapshotEvery = c.Int("snapshot-every")
	cfg.KeepBest = c.Bool("keep-best")
	cfg.Backend = c.String("backend")
	cfg.Seed = c.Uint64("seed")
	return cfg, cliapp.Usage(trainer.CheckConfig(cfg))
}

// atLeast is a flag action rejecting values below lo, naming the flag and
// the value.
func atLeast(flag string, lo int) func(*cli.Context, int) error {
	return func(_ *cli.Context, v int) error {
		if v < lo {
			return cliapp.Usagef("--%s %d: must be at least %d", flag, v, lo)
		}
		return nil
	}
}
