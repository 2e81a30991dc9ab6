package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:  "baseline",
		Usage: "solve every instance with a heuristic (Random-L, Random-C, uniform, urgency order) under LazyMask",
		Description: "Decodes --samples trajectories per instance with a heuristic policy and the LazyMask method\n" +
			"(look-ahead masks, budgeted backtracking, test semantics): random-l draws the next node with\n" +
			"probability ∝ 1/distance, random-c ∝ 1/(window end or draft limit), uniform uniformly; urgency\n" +
			"writes the customers sorted by window end or draft limit (no decoding; --samples, --budget,\n" +
			"--lookahead and --seed do not apply). Instance i uses seed+i,\n" +
			"so the output does not depend on --workers. Every tour's verdict comes from the checker; the\n" +
			"best tour per instance (feasible first, then shortest) is written, or all with --all-tours.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "instances", Usage: "instances Parquet file", Required: true},
			&cli.StringFlag{Name: "out", Usage: "output solutions Parquet file (written atomically)", Required: true},
			&cli.StringFlag{Name: "policy", Usage: "random-l, random-c, uniform or urgency", Value: "random-l"},
			&cli.IntFlag{Name: "samples", Usage: "sampled trajectories per instance", Value: 8},
			&cli.IntFlag{Name: "budget", Usage: "backtrack budget R per trajectory (-1 = unlimited)", Value: 100},
			&cli.StringFlag{Name: "lookahead", Usage: "look-ahead mask: none, ssl or tsl", Value: "tsl"},
			&cli.Uint64Flag{Name: "seed", Usage: "sampling seed (instance i uses seed+i)", Value: 2025},
			&cli.StringFlag{Name: "reference", Usage: "reference solutions Parquet file (for the gap)"},
			&cli.BoolFlag{Name: "all-tours", Usage: "write every trajectory instead of the best per instance"},
			&cli.IntFlag{Name: "workers", Usage: "parallel workers (0 = number of CPUs)"},
		},
		Action: baselineAction,
	})
}

// heuristic returns a fresh decode policy for name, or nil for "urgency"
// (which decodes nothing).
func heuristic(name string) (lazymask.Policy, error) {
	switch name {
	case "random-l":
		return &lazymask.RandomL{}, nil
	case "random-c":
		return &lazymask.RandomC{}, nil
	case "uniform":
		return lazymask.Uniform{}, nil
	case "urgency":
		return nil, nil
	}
	return nil, fmt.Errorf("unknown policy %q (want random-l, random-c, uniform or urgency)", name)
}

func baselineAction(c *cli.Context) error {
	policy := c.String("policy")
	if _, err := heuristic(policy); err != nil {
		return fmt.Errorf("baseline: flag --policy: %w", err)
	}
	samples := c.Int("samples")
	if samples < 1 {
		return fmt.Errorf("baseline: flag --samples: %d, want ≥ 1", samples)
	}
	if policy == "urgency" {
		samples = 1
	}
	budget := c.Int("budget")
	if budget < -1 {
		return fmt.Errorf("baseline: flag --budget: %d, want ≥ -1", budget)
	}
	look, err := lazymask.ParseLookahead(c.String("lookahead"))
	if err != nil {
		return fmt.Errorf("baseline: flag --lookahead: %w", err)
	}
	ipath, out := c.String("instances"), c.String("out")
	d, err := datasets.ReadInstances(ipath)
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	refs, err := readReference(c, ipath, d.Meta)
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	cfg := lazymask.Config{Lookahead: look, Budget: budget, Semantics: lazymask.Test}
	seed := c.Uint64("seed")
	per := make([][]datasets.Solution, len(d.Instances))
	errs := make([]error, len(d.Instances))
	began := time.Now()
	parallel(len(d.Instances), c.Int("workers"), func(i int) {
		per[i], errs[i] = solveHeuristic(d.Instances[i], int64(i), policy, samples, cfg, seed+uint64(i))
	})
	wall := time.Since(began)
	var sols []datasets.Solution
	for i, rows := range per {
		if errs[i] != nil {
			return fmt.Errorf("baseline: %s: instance %d: %w", ipath, i, errs[i])
		}
		if !c.Bool("all-tours") {
			rows = rows[:1]
		}
		sols = append(sols, rows...)
	}
	m, err := datasets.Evaluate(d.Instances, sols, refs)
	if err != nil {
		return fmt.Errorf("baseline: %w", relabel(err, "reference", c.String("reference")))
	}
	settings := fmt.Sprintf("policy=%s samples=%d budget=%d lookahead=%s seed=%d", policy, samples, budget, look, seed)
	if policy == "urgency" {
		settings = "policy=urgency" // decodes nothing: the other flags do not apply
	}
	meta := datasets.Metadata{
		Kind: datasets.KindSolutions, Problem: d.Meta.Problem, Size: d.Meta.Size, Hardness: d.Meta.Hardness, Scale: d.Meta.Scale,
		Source: policy, Instances: ipath,
		Extra: map[string]string{"lmask.baseline": settings},
	}
	if err := datasets.WriteSolutions(out, meta, sols, datasets.WriterOptions{}); err != nil {
		return fmt.Errorf("baseline: write %s: %w", out, err)
	}
	fmt.Fprintf(c.App.Writer, "policy           %s\n", settings)
	fmt.Fprintf(c.App.Writer, "time             %.3fs wall\n", wall.Seconds())
	printMetrics(c.App.Writer, m, refs != nil)
	return nil
}

// solveHeuristic decodes samples trajectories of one instance and returns
// its solution rows, best first (ties keep decode order). A trajectory that
// fails to complete a tour within its budget gives a row without a tour.
func solveHeuristic(inst *lazymask.Instance, index int64, policy string, samples int, cfg lazymask.Config, seed uint64) ([]datasets.Solution, error) {
	start := time.Now()
	if policy == "urgency" {
		s, err := datasets.Checked(inst, index, localsearch.OrderTour(inst), policy)
		s.SolveTime = time.Since(start).Seconds()
		return []datasets.Solution{s}, err
	}
	p, err := heuristic(policy)
	if err != nil {
		return nil, err
	}
	cfg.Seed = seed
	trajs, err := lazymask.Decode(p, []*lazymask.Instance{inst}, samples, cfg)
	if err != nil {
		return nil, err
	}
	spent := time.Since(start).Seconds() // on each row, as lmask-infer writes an instance's decode time
	rows := make([]datasets.Solution, len(trajs))
	for k, tr := range trajs {
		if tr.Failed || tr.Tour == nil {
			rows[k] = datasets.Solution{Instance: index, Cost: math.Inf(1), CostOrig: math.Inf(1), Source: policy}
		} else if rows[k], err = datasets.Checked(inst, index, tr.Tour, policy); err != nil {
			var te *lazymask.TourError
			if errors.As(err, &te) {
				return nil, fmt.Errorf("trajectory %d: %w", k, err)
			}
			return nil, err
		}
		rows[k].SolveTime, rows[k].Backtracks, rows[k].Sample = spent, tr.Backtracks, k
	}
	bestFirst(rows)
	return rows, nil
}

// bestFirst sorts solution rows of one instance stably in the order
// lmask-infer picks its best tour in: complete before failed, feasible
// before infeasible; feasible ones by cost, infeasible ones by violated
// nodes, then violation, then cost (tourless rows tie: their cost is +Inf).
func bestFirst(rows []datasets.Solution) {
	rank := func(s datasets.Solution) int {
		switch {
		case s.Tour == nil:
			return 2
		case !s.Feasible:
			return 1
		}
		return 0
	}
	slices.SortStableFunc(rows, func(a, b datasets.Solution) int {
		if c := cmp.Compare(rank(a), rank(b)); c != 0 || rank(a) != 1 {
			return cmp.Or(c, cmp.Compare(a.Cost, b.Cost))
		}
		// Both infeasible. (Feasible tours may carry violations within the
		// tolerance, which must not outrank their cost.)
		return cmp.Or(cmp.Compare(a.ViolatedNodes, b.ViolatedNodes), cmp.Compare(a.Violation, b.Violation),
			cmp.Compare(a.Cost, b.Cost))
	})
}

// printMetrics writes the paper's metrics of a solutions file.
func printMetrics(w io.Writer, m datasets.Metrics, gap bool) {
	fmt.Fprintf(w, "instances        %d\n", m.Instances)
	if m.Unsolved > 0 {
		fmt.Fprintf(w, "unsolved         %d instances have no solution row (counted as infeasible; check --limit evaluates only the first N)\n", m.Unsolved)
	}
	fmt.Fprintf(w, "solution rows    %d (%d complete tours, %d without a tour)\n", m.Rows, m.Tours, m.MissingTours)
	fmt.Fprintf(w, "feasible tours   %d; violating by more than %g: %d (max total violation %.6g)\n",
		m.FeasibleTours, lazymask.Tol, m.ViolatingTours, m.MaxViolation)
	fmt.Fprintf(w, "sol_infeasible   %.4f%%\n", 100*m.SolInfeasible)
	fmt.Fprintf(w, "inst_infeasible  %.4f%%\n", 100*m.InstInfeasible)
	if m.ObjCount > 0 {
		fmt.Fprintf(w, "obj              %.6g (over %d instances)\n", m.Obj, m.ObjCount)
	} else {
		fmt.Fprintf(w, "obj              n/a (no feasible tour)\n")
	}
	if gap {
		if m.GapCount > 0 {
			fmt.Fprintf(w, "gap              %.4f%% (over %d instances)\n", 100*m.Gap, m.GapCount)
		} else {
			fmt.Fprintf(w, "gap              n/a (no instance has both a feasible tour and a reference cost)\n")
		}
	}
	if m.Tours > 0 {
		fmt.Fprintf(w, "mean_length      %.6g\n", m.MeanLength)
	} else {
		fmt.Fprintf(w, "mean_length      n/a (no complete tour)\n")
	}
}
