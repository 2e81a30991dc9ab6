package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/internal/cliapp"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:  "check",
		Usage: "replay every tour with the checker and print the paper's metrics",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "instances", Usage: "instances Parquet file", Required: true},
			&cli.StringFlag{Name: "solutions", Usage: "solutions Parquet file", Required: true},
			&cli.StringFlag{Name: "reference", Usage: "reference solutions Parquet file (for the gap)"},
			&cli.IntFlag{Name: "limit", Usage: "evaluate only the first N instances and the rows that name them, as after lmask-infer --limit N (0 = all)"},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object"},
		},
		Action: checkAction,
	})
}

// readReference reads the --reference file (nil when not set) and checks
// that it can belong to the instances file ipath (metadata imeta).
func readReference(c *cli.Context, ipath string, imeta datasets.Metadata) ([]datasets.Solution, error) {
	refs, note, err := datasets.ReadReference(c.String("reference"), ipath, imeta)
	if err != nil {
		return nil, fmt.Errorf("flag --reference: %w", err)
	}
	return refs, noted(c)(note, nil)
}

// noted returns a function that prints a note of datasets.MatchSolutions
// (if any) to the error stream and returns the error.
func noted(c *cli.Context) func(note string, err error) error {
	return func(note string, err error) error {
		if note != "" {
			fmt.Fprintln(c.App.ErrWriter, note)
		}
		return err
	}
}

func checkAction(c *cli.Context) error {
	d, err := datasets.ReadInstances(c.String("instances"))
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	sols, _, note, err := datasets.ReadMatchedSolutions(c.String("solutions"), c.String("instances"), d.Meta)
	if err := noted(c)(note, err); err != nil {
		return fmt.Errorf("check: %w", err)
	}
	refs, err := readReference(c, c.String("instances"), d.Meta)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	insts := d.Instances
	if lim := c.Int("limit"); lim < 0 {
		return cliapp.Usagef("check: flag --limit: %d, want ≥ 0", lim)
	} else if lim > 0 && lim < len(insts) {
		insts = insts[:lim]
		sols, refs = datasets.FirstInstances(sols, lim), datasets.FirstInstances(refs, lim)
	}
	m, div, err := datasets.EvaluateDiversity(insts, sols, refs)
	if err != nil {
		err = datasets.WithPath(datasets.WithPath(err, "solutions", c.String("solutions")), "reference", c.String("reference"))
		return fmt.Errorf("check: %w", err)
	}
	w := c.App.Writer
	if c.Bool("json") {
		b, err := json.Marshal(div.JSONFields(m))
		if err != nil {
			return fmt.Errorf("check: %w", err)
		}
		fmt.Fprintln(w, string(b))
		return nil
	}
	m.WriteTable(w, refs != nil)
	div.WriteTable(w)
	return nil
}
