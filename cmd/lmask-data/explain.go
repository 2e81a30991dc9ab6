package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"strings"
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

// explainLine is one instance of --json.
type explainLine struct {
	Index       int     `json:"index"`
	Instance    string  `json:"instance"`
	Status      string  `json:"status"`
	Conflict    []int   `json:"conflict"`
	Reason      string  `json:"reason"`
	Kind        string  `json:"kind,omitempty"`
	Irreducible bool    `json:"irreducible"`
	Seconds     float64 `json:"seconds"`
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
	workers := c.Int("workers")
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	began := time.Now()
	exs, errs := explain.AllContext(c.Context, d.Instances, explain.Options{TimeLimit: c.Duration("time"), Seed: c.Uint64("seed")}, workers)
	if err := c.Context.Err(); err != nil {
		return fmt.Errorf("explain: %w (nothing printed)", err)
	}
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("explain: %s row %d: %w", c.String("instances"), i, err)
		}
	}
	w := c.App.Writer
	count := map[explain.Status]int{}
	for i, ex := range exs {
		count[ex.Status]++
		name := d.Instances[i].Name
		if name == "" {
			name = strconv.Itoa(i)
		}
		if c.Bool("json") {
			conflict := ex.Conflict
			if conflict == nil {
				conflict = []int{}
			}
			b, err := json.Marshal(explainLine{Index: i, Instance: name, Status: string(ex.Status), Conflict: conflict, Reason: ex.Reason,
				Kind: ex.Kind, Irreducible: ex.Irreducible, Seconds: ex.Elapsed.Seconds()})
			if err != nil {
				return fmt.Errorf("explain: %w", err)
			}
			fmt.Fprintln(w, string(b))
			continue
		}
		line := fmt.Sprintf("%d %s: %s", i, name, ex.Status)
		if ex.Status == explain.Infeasible {
			ids := make([]string, len(ex.Conflict))
			for k, v := range ex.Conflict {
				ids[k] = strconv.Itoa(v)
			}
			line += fmt.Sprintf("; conflict %s: %s", strings.Join(ids, " "), ex.Reason)
			if !ex.Irreducible {
				line += " (not shown irreducible within --time)"
			}
		}
		fmt.Fprintln(w, line)
	}
	if !c.Bool("json") {
		fmt.Fprintf(w, "%d instances: %d feasible, %d infeasible, %d unknown (%.2f s)\n", len(exs), count[explain.Feasible],
			count[explain.Infeasible], count[explain.Unknown], time.Since(began).Seconds())
	}
	return nil
}
