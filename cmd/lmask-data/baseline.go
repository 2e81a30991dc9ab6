package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/infer"
	"github.com/lmask/lmask/internal/cliapp"
	"github.com/lmask/lmask/lazymask"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:  "baseline",
		Usage: "solve every instance with a heuristic (Random-L, Random-C, uniform, urgency order) under LazyMask",
		Description: "Decodes --samples trajectories per instance with a heuristic policy and the LazyMask method\n" +
			"(look-ahead masks, budgeted backtracking, test semantics): random-l draws the next node with\n" +
			"probability ∝ 1/distance, random-c ∝ 1/(window end or draft limit), uniform uniformly; urgency\n" +
			"writes the customers sorted by window end or draft limit (no decoding; --samples, --budget,\n" +
			"--lookahead and --seed do not apply). Instance i uses seed+i,\n" +
			"so the output does not depend on --workers. Every tour's verdict comes from the checker; the\n" +
			"best tour per instance (feasible first, then shortest) is written, or all with --all-tours.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "instances", Usage: "instances Parquet file", Required: true},
			&cli.StringFlag{Name: "out", Usage: "output solutions Parquet file (written atomically)", Required: true},
			&cli.StringFlag{Name: "policy", Usage: "random-l, random-c, uniform or urgency", Value: "random-l"},
			&cli.IntFlag{Name: "samples", Usage: "sampled trajectories per instance", Value: 8},
			&cli.IntFlag{Name: "budget", Usage: "backtrack budget R per trajectory (-1 = unlimited)", Value: 100},
			&cli.StringFlag{Name: "lookahead", Usage: "look-ahead mask: none, ssl or tsl", Value: "tsl"},
			&cli.Uint64Flag{Name: "seed", Usage: "sampling seed (instance i uses seed+i)", Value: 2025},
			&cli.StringFlag{Name: "reference", Usage: "reference solutions Parquet file (for the gap)"},
			&cli.BoolFlag{Name: "all-tours", Usage: "write every trajectory instead of the best per instance"},
			&cli.IntFlag{Name: "workers", Usage: "parallel workers (0 = number of CPUs)"},
		},
		Action: baselineAction,
	})
}

func baselineAction(c *cli.Context) error {
	policy := c.String("policy")
	if _, err := infer.Heuristic(policy); err != nil {
		return cliapp.Usagef("baseline: flag --policy: %w", err)
	}
	samples := c.Int("samples")
	if samples < 1 {
		return cliapp.Usagef("baseline: flag --samples: %d, want ≥ 1", samples)
	}
	budget := c.Int("budget")
	if budget < -1 {
		return cliapp.Usagef("baseline: flag --budget: %d, want ≥ -1", budget)
	}
	look, err := lazymask.ParseLookahead(c.String("lookahead"))
	if err != nil {
		return cliapp.Usagef("baseline: flag --lookahead: %w", err)
	}
	ipath, out := c.String("instances"), c.String("out")
	d, err := datasets.ReadInstances(ipath)
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	refs, err := readReference(c, ipath, d.Meta)
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	cfg := lazymask.Config{Lookahead: look, Budget: budget, Semantics: lazymask.Test, Seed: c.Uint64("seed")}
	began := time.Now()
	sols, err := infer.Baseline(c.Context, d.Instances, policy, samples, cfg, c.Int("workers"), c.Bool("all-tours"))
	if err != nil {
		return fmt.Errorf("baseline: %s: %w", ipath, err)
	}
	wall := time.Since(began)
	m, err := datasets.Evaluate(d.Instances, sols, refs)
	if err != nil {
		return fmt.Errorf("baseline: %w", datasets.WithPath(err, "reference", c.String("reference")))
	}
	settings := infer.BaselineSettings(policy, samples, cfg)
	meta := infer.BaselineMeta(d.Meta, ipath, policy, settings)
	if err := datasets.WriteSolutions(out, meta, sols, datasets.WriterOptions{}); err != nil {
		return fmt.Errorf("baseline: write %s: %w", out, err)
	}
	infer.WriteBaselineTable(c.App.Writer, settings, wall, m, refs != nil)
	return nil
}
