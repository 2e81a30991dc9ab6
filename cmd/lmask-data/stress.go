package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/datasets"
)

func init() {
	var names []string
	for _, c := range datasets.StressClasses {
		names = append(names, c.Name)
	}
	commands = append(commands, &cli.Command{
		Name:  "stress",
		Usage: "draw TSPTW instances of a stress class (Solomon-style R, C, RC; feasible by construction) into a Parquet file",
		Description: "Each instance's windows are built around a randomised nearest-neighbour tour, stored as its known tour.\n" +
			"Classes: " + strings.Join(names, ", ") + " (docs/results.md, \"Stress suite\").",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "class", Usage: "stress class: " + strings.Join(names, ", "), Required: true},
			&cli.IntFlag{Name: "size", Usage: "nodes per instance, depot included", Required: true},
			&cli.IntFlag{Name: "count", Usage: "number of instances", Required: true},
			&cli.Uint64Flag{Name: "seed", Usage: "random seed (PCG)", Required: true},
			&cli.StringFlag{Name: "out", Usage: "output Parquet file", Required: true},
			&cli.IntFlag{Name: "row-group", Usage: "rows per Parquet row group", Value: datasets.DefaultRowGroupRows},
		},
		Action: stressAction,
	})
}

func stressAction(c *cli.Context) error {
	if c.Int("count") <= 0 {
		return fmt.Errorf("stress: --count must be positive, got %d", c.Int("count"))
	}
	if c.Int("row-group") < 1 {
		return fmt.Errorf("stress: --row-group must be positive, got %d", c.Int("row-group"))
	}
	cfg := datasets.StressConfig{Class: c.String("class"), N: c.Int("size"), Seed: c.Uint64("seed")}
	meta, err := datasets.GenerateStressFile(c.String("out"), cfg, c.Int("count"), datasets.WriterOptions{RowGroupRows: c.Int("row-group")})
	if err != nil {
		return fmt.Errorf("stress: %w", err)
	}
	fmt.Fprintf(c.App.Writer, "wrote %d %s-%d instances of class %s (seed %d) to %s\n",
		meta.Count, meta.Problem, meta.Size, meta.Extra[datasets.KeyStressClass], meta.Seed, c.String("out"))
	return nil
}
