package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/infer"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:      "merge",
		Usage:     "join the solutions files of one instances file (e.g. the shards of lmask-infer --shard) into one",
		ArgsUsage: "PART.parquet...",
		Description: "Checks that the parts refer to the same instances file (metadata), that no instance is in two parts,\n" +
			"and which are in none (an error unless --allow-missing); writes the rows in instance order, atomically.\n" +
			"With --instances it prints the metrics of lmask-data check on the joined file (--reference: the gap).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Usage: "joined solutions Parquet file", Required: true},
			&cli.StringFlag{Name: "instances", Usage: "instances Parquet file the parts solve (for the metrics)"},
			&cli.StringFlag{Name: "reference", Usage: "reference solutions Parquet file (for the gap; needs --instances)"},
			&cli.BoolFlag{Name: "allow-missing", Usage: "write the joined file even where no part holds some instances"},
		},
		Action: func(c *cli.Context) error {
			res, err := infer.Merge(c.Context, infer.MergeOptions{Out: c.String("out"), Parts: c.Args().Slice(),
				Instances: c.String("instances"), Reference: c.String("reference"), AllowMissing: c.Bool("allow-missing"), Log: c.App.ErrWriter})
			if err != nil {
				return err
			}
			w := c.App.Writer
			fmt.Fprintf(w, "%-17s %d parts, %d rows of %d of %d instances, into %s\n", "joined", c.NArg(), res.Rows, res.Named, res.Expected, c.String("out"))
			if len(res.Missing) > 0 {
				fmt.Fprintf(w, "%-17s %s\n", "missing", res.MissingText())
			}
			if res.Metrics != nil {
				res.Metrics.WriteTable(w, res.HasReference)
			}
			return nil
		},
	})
}
