package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/explain"
	"github.com/lmask/lmask/internal/cliapp"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:  "explain",
		Usage: "say for each instance whether it has a feasible tour and, where it has none, which stops conflict and why",
		Description: "Status feasible (a tour the checker accepts was found), infeasible (proven) or unknown (neither\n" +
			"within --time). For an infeasible instance, a conflict: customers (node ids) that no tour serving\n" +
			"only them can serve in their windows (TSPTW) or under their draft limits (TSPDL), each of them\n" +
			"needed, and a one-line reason in the instance's units. --json prints one object a line: index,\n" +
			"instance, status, conflict, reason, kind, irreducible, seconds.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "instances", Usage: "instances Parquet file (generated, imported benchmark or stops CSV)", Required: true},
			&cli.BoolFlag{Name: "json", Usage: "one JSON object per instance, a line each"},
			&cli.DurationFlag{Name: "time", Value: explain.DefaultTime, Usage: "time limit per instance"},
			&cli.IntFlag{Name: "workers", Usage: "instances explained at once (0 = one per core)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the feasibility searches"},
		},
		Action: explainAction,
	})
}

func explainAction(c *cli.Context) error {
	if c.Duration("time") <= 0 {
		return cliapp.Usagef("explain: flag --time: %v, want a time > 0", c.Duration("time"))
	}
	if c.Int("workers") < 0 {
		return cliapp.Usagef("explain: flag --workers: %d, want ≥ 0", c.Int("workers"))
	}
	d, err := datasets.ReadInstances(c.String("instances"))
	if err != nil {
		return fmt.Errorf("explain: %w", err)
	}
	began := time.Now()
	exs, errs := explain.AllContext(c.Context, d.Instances, explain.Options{TimeLimit: c.Duration("time"), Seed: c.Uint64("seed")}, c.Int("workers"))
	if err := c.Context.Err(); err != nil {
		return fmt.Errorf("explain: %w (nothing printed)", err)
	}
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("explain: %s row %d: %w", c.String("instances"), i, err)
		}
	}
	if c.Bool("json") {
		if err := explain.WriteJSON(c.App.Writer, d.Instances, exs); err != nil {
			return fmt.Errorf("explain: %w", err)
		}
		return nil
	}
	explain.WriteText(c.App.Writer, d.Instances, exs, time.Since(began), " (not shown irreducible within --time)")
	return nil
}
