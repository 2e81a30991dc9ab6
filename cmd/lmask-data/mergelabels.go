package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/internal/cliapp"
	"github.com/lmask/lmask/labels"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:      "merge-labels",
		Usage:     "check the shards of one label set (lmask-data label --shard) and join their chunks into one folder",
		ArgsUsage: "PART_DIR...",
		Description: "Checks that the parts share one labels.json (spec, input files, search), that every chunk of the set\n" +
			"is in exactly one part (chunks up to --count, or every row of a set of given files, else up to the highest),\n" +
			"and replays every tour with the checker; then copies the chunks into --out (one of the parts, or a new\n" +
			"folder). --out alone checks a set in place.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Required: true, Usage: "label set folder the chunks are joined in (one of the parts, or new)"},
			&cli.IntFlag{Name: "count", Usage: "instances the set should hold (0: all rows of its files, else up to the highest chunk)"},
		},
		Action: func(c *cli.Context) error {
			parts := c.Args().Slice()
			if len(parts) == 0 {
				parts = []string{c.String("out")}
			}
			if c.Int("count") < 0 {
				return cliapp.Usagef("merge-labels: flag --count: %d, want ≥ 0", c.Int("count"))
			}
			r, err := labels.Merge(c.String("out"), parts, c.Int("count"))
			if err != nil {
				return fmt.Errorf("merge-labels: %w", err)
			}
			fmt.Fprintf(c.App.Writer, "%s: %d chunks (%d copied), %d labels checked feasible, %d instances without one, sizes %v\n",
				c.String("out"), r.Chunks, r.Copied, r.Labels, r.Skipped, r.Sizes)
			return nil
		},
	})
}
