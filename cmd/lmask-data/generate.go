package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:  "generate",
		Usage: "draw instances from the paper's distributions into a Parquet file",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "problem", Usage: "tsptw or tspdl", Required: true},
			&cli.IntFlag{Name: "size", Usage: "nodes per instance, depot included (50 = 49 customers + depot)", Required: true},
			&cli.StringFlag{Name: "hardness", Usage: "easy, medium or hard", Required: true},
			&cli.IntFlag{Name: "count", Usage: "number of instances", Required: true},
			&cli.Uint64Flag{Name: "seed", Usage: "random seed (PCG)", Required: true},
			&cli.StringFlag{Name: "out", Usage: "output Parquet file", Required: true},
			&cli.Float64Flag{Name: "width", Usage: "maximum window width W of hard TSPTW, raw units", Value: datasets.DefaultWidth},
			&cli.IntFlag{Name: "row-group", Usage: "rows per Parquet row group", Value: datasets.DefaultRowGroupRows},
			&cli.Float64Flag{Name: "infeasible", Usage: "share of instances made infeasible (an unreachable stop, a pair, a triple in turn; 0 = none)"},
		},
		Action: generateAction,
	})
}

func generateAction(c *cli.Context) error {
	p, err := lazymask.ParseProblem(c.String("problem"))
	if err != nil {
		return fmt.Errorf("generate: --problem: %w", err)
	}
	if c.Int("count") <= 0 {
		return fmt.Errorf("generate: --count must be positive, got %d", c.Int("count"))
	}
	if c.Int("row-group") < 1 {
		return fmt.Errorf("generate: --row-group must be positive, got %d", c.Int("row-group"))
	}
	if c.IsSet("width") && (p != lazymask.TSPTW || c.String("hardness") != datasets.Hard) {
		return fmt.Errorf("generate: --width applies to hard TSPTW only")
	}
	cfg := datasets.GenConfig{Problem: p, N: c.Int("size"), Hardness: c.String("hardness"),
		Seed: c.Uint64("seed"), Width: c.Float64("width")}
	share := c.Float64("infeasible")
	if !(share >= 0 && share <= 1) {
		return fmt.Errorf("generate: --infeasible %v: want a share in [0, 1]", share)
	}
	wo := datasets.WriterOptions{RowGroupRows: c.Int("row-group")}
	var meta datasets.Metadata
	var planted []int64
	if share > 0 {
		meta, planted, err = datasets.GenerateInfeasibleFile(c.String("out"), cfg, c.Int("count"), share, wo)
	} else {
		meta, err = datasets.GenerateFile(c.String("out"), cfg, c.Int("count"), wo)
	}
	if err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	if share > 0 {
		fmt.Fprintf(c.App.Writer, "made %d instances infeasible\n", len(planted))
	}
	fmt.Fprintf(c.App.Writer, "wrote %d %s-%d %s instances (seed %d, scale %g) to %s\n",
		meta.Count, meta.Problem, meta.Size, meta.Hardness, meta.Seed, meta.Scale, c.String("out"))
	return nil
}
