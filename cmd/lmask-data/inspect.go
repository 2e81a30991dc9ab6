package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/datasets"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:      "inspect",
		Usage:     "print metadata, counts, sizes and value ranges of an instances or solutions file",
		ArgsUsage: "FILE.parquet",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return fmt.Errorf("inspect: want exactly one file argument, got %d", c.NArg())
			}
			if err := datasets.Inspect(c.App.Writer, c.Args().First()); err != nil {
				return fmt.Errorf("inspect: %w", err)
			}
			return nil
		},
	})
}
