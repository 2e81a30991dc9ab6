package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/datasets/plot"
	"github.com/lmask/lmask/internal/cliapp"
	"github.com/lmask/lmask/lazymask"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:  "plot",
		Usage: "draw one solution (map and schedule) as an SVG picture",
		Description: "With --solutions, --index is a row of the solutions file and its instance is drawn with its tour.\n" +
			"Without, --index is a row of the instances file and its known tour (if any) is drawn.\n" +
			"Cost and feasibility come from replaying the tour with the checker.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "instances", Usage: "instances Parquet file", Required: true},
			&cli.StringFlag{Name: "solutions", Usage: "solutions Parquet file (default: the instance's known tour)"},
			&cli.Int64Flag{Name: "index", Usage: "row to draw (of --solutions when given, else of --instances)"},
			&cli.StringFlag{Name: "out", Usage: "output SVG file", Value: "tour.svg"},
		},
		Action: plotAction,
	})
}

func plotAction(c *cli.Context) error {
	ipath, spath, k := c.String("instances"), c.String("solutions"), c.Int64("index")
	if k < 0 {
		return cliapp.Usagef("plot: flag --index: %d is negative", k)
	}
	t, note, err := datasets.TourToDraw(ipath, spath, k)
	if err := noted(c)(note, err); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	inst, tour, row := t.Inst, t.Tour, t.Row
	out := c.String("out")
	if err := plot.WriteTourSVG(out, inst, tour, t.Title); err != nil {
		var te *lazymask.TourError
		if errors.As(err, &te) && spath != "" {
			return fmt.Errorf("plot: %s: row %d: field tour: instance %d: %w", spath, k, row, err)
		}
		return fmt.Errorf("plot: %w", err)
	}
	verdict, _ := plot.Verdict(inst, tour)
	fmt.Fprintf(c.App.Writer, "wrote %s: %s\n", out, verdict)
	return nil
}
