package main

import (
	"errors"
	"fmt"
	"path/filepath"

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
	var (
		tour  []int
		row   = k
		title string
	)
	if spath != "" {
		if err := noted(c)(datasets.MatchFiles(ipath, spath)); err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		s, n, err := datasets.SolutionAt(spath, k)
		if err != nil {
			return fmt.Errorf("plot: %w", err)
		}
		if s == nil {
			return fmt.Errorf("plot: %s: flag --index: row %d out of range [0,%d)", spath, k, n)
		}
		tour, row = s.Tour, s.Instance
		title = fmt.Sprintf("%s row %d (%s) · instance %d of %s", filepath.Base(spath), k, s.Source, row, filepath.Base(ipath))
	}
	inst, known, n, err := datasets.InstanceAt(ipath, row)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	if inst == nil {
		if spath != "" {
			return fmt.Errorf("plot: %s: row %d: field instance: %d out of range [0,%d) (size mismatch with %s)",
				spath, k, row, n, ipath)
		}
		return fmt.Errorf("plot: %s: flag --index: row %d out of range [0,%d)", ipath, k, n)
	}
	if spath == "" {
		tour = known
		title = fmt.Sprintf("%s row %d · known tour", filepath.Base(ipath), row)
		if known == nil {
			title = fmt.Sprintf("%s row %d · no known tour stored", filepath.Base(ipath), row)
		}
	}
	if inst.Name != "" {
		title += fmt.Sprintf(" · %s", inst.Name)
	}
	out := c.String("out")
	if err := plot.WriteTourSVG(out, inst, tour, title); err != nil {
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
