package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/internal/cliapp"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:  "export",
		Usage: "write each instance's schedule (arrival, waiting, start, departure or load, slack per stop) as CSV or JSON",
		Description: "Replays each instance's best tour (lazymask.Compare, as check picks it; --all: every row) with the\n" +
			"checker and writes one row per stop in tour order, the return to the depot included, with times and\n" +
			"costs in original units (× scale) and the checker's verdict; a tour that serves only some stops\n" +
			"(lmask-infer --infeasible drop) lists the stops it leaves out after it, with the verdict dropped.\n" +
			"JSON: an array of one object per tour.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "instances", Usage: "instances Parquet file", Required: true},
			&cli.StringFlag{Name: "solutions", Usage: "solutions Parquet file", Required: true},
			&cli.StringFlag{Name: "out", Usage: "output CSV or JSON file", Required: true},
			&cli.StringFlag{Name: "format", Usage: "csv or json", Value: datasets.ExportCSV},
			&cli.BoolFlag{Name: "all", Usage: "every solution row, with a best flag, instead of each instance's best"},
		},
		Action: exportAction,
	})
}

func exportAction(c *cli.Context) error {
	format := c.String("format")
	if format != datasets.ExportCSV && format != datasets.ExportJSON {
		return cliapp.Usagef("export: flag --format: %q, want csv or json", format)
	}
	sum, note, err := datasets.ExportSchedules(c.String("instances"), c.String("solutions"), c.String("out"),
		datasets.ExportOptions{Format: format, All: c.Bool("all")})
	if err := noted(c)(note, err); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	partial := ""
	if sum.Partial > 0 {
		partial = fmt.Sprintf("; %d served in part, %d stops dropped", sum.Partial, sum.Dropped)
	}
	fmt.Fprintf(c.App.Writer, "wrote %d schedules of %d instances (%d feasible, %d infeasible, %d without a tour%s; %d stops) to %s\n",
		sum.Tours, sum.Instances, sum.Feasible, sum.Infeasible, sum.NoTour, partial, sum.Stops, c.String("out"))
	return nil
}
