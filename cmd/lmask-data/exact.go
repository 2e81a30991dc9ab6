package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/exact"
	"github.com/lmask/lmask/infer"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:  "exact",
		Usage: "prove optimal tours with a dynamic program (small or tight-window instances) and write them as references",
		Description: "Each instance's known tour, when feasible, bounds its search. The output (source \"optimal\") serves as\n" +
			"--reference for lmask-infer and lmask-data check. An instance too large for the labels, or with no feasible\n" +
			"tour, is an error naming it, and nothing is written.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "instances", Usage: "instances Parquet file", Required: true},
			&cli.StringFlag{Name: "out", Usage: "output references Parquet file", Required: true},
			&cli.IntFlag{Name: "max-labels", Usage: "labels per instance before it counts as too large (about 32 bytes each)", Value: exact.DefaultMaxLabels},
			&cli.IntFlag{Name: "workers", Usage: "instances solved side by side (0 = number of CPUs; each holds its own labels)", Value: 1},
		},
		Action: exactAction,
	})
}

func exactAction(c *cli.Context) error {
	ipath := c.String("instances")
	if c.Int("max-labels") < 1 {
		return fmt.Errorf("exact: --max-labels must be positive, got %d", c.Int("max-labels"))
	}
	d, err := datasets.ReadInstances(ipath)
	if err != nil {
		return fmt.Errorf("exact: %w", err)
	}
	sols, meta, err := infer.ExactReferences(d, ipath, c.Int("workers"), exact.Options{MaxLabels: c.Int("max-labels")})
	if err != nil {
		return fmt.Errorf("exact: %w", err)
	}
	if err := datasets.WriteSolutions(c.String("out"), meta, sols, datasets.WriterOptions{}); err != nil {
		return fmt.Errorf("exact: %w", err)
	}
	fmt.Fprintf(c.App.Writer, "wrote %d optimal tours to %s\n", len(sols), c.String("out"))
	return nil
}
