package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/datasets"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:  "check",
		Usage: "replay every tour with the checker and print the paper's metrics",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "instances", Usage: "instances Parquet file", Required: true},
			&cli.StringFlag{Name: "solutions", Usage: "solutions Parquet file", Required: true},
			&cli.StringFlag{Name: "reference", Usage: "reference solutions Parquet file (for the gap)"},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object"},
		},
		Action: checkAction,
	})
}

// readReference reads the --reference solutions file, or returns nil when
// the flag is not set.
func readReference(c *cli.Context) ([]datasets.Solution, error) {
	rp := c.String("reference")
	if rp == "" {
		return nil, nil
	}
	refs, _, err := datasets.ReadSolutions(rp)
	return refs, err
}

// relabel replaces the generic file label of an Evaluate error by a path.
func relabel(err error, label, path string) error {
	msg := err.Error()
	if strings.HasPrefix(msg, label+":") {
		return fmt.Errorf("%s%s", path, strings.TrimPrefix(msg, label))
	}
	return err
}

func checkAction(c *cli.Context) error {
	d, err := datasets.ReadInstances(c.String("instances"))
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	sols, _, err := datasets.ReadSolutions(c.String("solutions"))
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	refs, err := readReference(c)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	m, err := datasets.Evaluate(d.Instances, sols, refs)
	if err != nil {
		err = relabel(err, "solutions", c.String("solutions"))
		err = relabel(err, "reference", c.String("reference"))
		return fmt.Errorf("check: %w", err)
	}
	w := c.App.Writer
	if c.Bool("json") {
		b, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("check: %w", err)
		}
		fmt.Fprintln(w, string(b))
		return nil
	}
	printMetrics(w, m, refs != nil)
	return nil
}
