package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/lmask/lmask/infer"
)

// printSettings writes the settings a run with these flags would use (the
// preset's, with the flags given explicitly applied), one flag per line in
// the form it takes on the command line; settings only a preset sets are
// marked so.
func printSettings(w io.Writer, preset string, o infer.Options) error {
	budget := strconv.Itoa(o.Decode.Budget)
	if o.PaperBudget {
		budget = "paper"
	}
	onOff := func(b bool) string { return strconv.FormatBool(b) }
	rows := [][3]string{
		{"--preset", preset, ""},
		{"--aug", strconv.Itoa(o.Decode.Aug), "dihedral transforms decoded per instance"},
		{"--samples", strconv.Itoa(o.Decode.Samples), "sampled trajectories per transform (0: greedy)"},
		{"--budget", budget, "backtrack budget R (paper: the paper's R for the data)"},
		{"budget per node", strconv.Itoa(o.BudgetPerNode), "preset only: R = max(200, this·N) where the paper fixes no R (0: off)"},
		{"--lookahead", o.Decode.Lookahead.String(), ""},
		{"--seed", strconv.FormatUint(o.Decode.Seed, 10), ""},
		{"--batch", strconv.Itoa(o.Decode.Batch), ""},
		{"--improve", onOff(o.Improve), "local search from the decoded tours"},
		{"--improve-share", strconv.FormatFloat(o.ImproveShare, 'g', -1, 64), "search time as a share of the decode time (0: off)"},
		{"setup share", strconv.FormatFloat(o.SetupShare, 'g', -1, 64), "preset only: search time added as a share of the setup time"},
		{"--improve-budget", o.Search.TimeLimit.String(), "search time limit per instance (0s: none)"},
		{"--improve-kicks", strconv.Itoa(o.Search.Kicks), "kicks per instance (0: as many as the time allows)"},
		{"min kicks", strconv.Itoa(o.Search.MinKicks), "preset only: kicks every instance gets whatever its time"},
		{"--improve-starts", strconv.Itoa(o.Search.MaxStarts), "start tours per instance (0: all)"},
		{"--improve-no-merge", onOff(o.Search.NoMerge), ""},
		{"--neural-every", strconv.Itoa(o.NeuralEvery), "every K-th kick of the search re-decodes with the model (0: off)"},
		{"--neural-kicks", strconv.Itoa(o.NeuralKicks.Rounds), "kicks per instance that re-decode with the model, after the search (0: off)"},
		{"--neural-cut", o.NeuralKicks.Cut.String(), ""},
		{"--rescue-time", o.RescueTime.String(), "time cap of the rescue per instance without a tour"},
		{"--rescue-budget", strconv.Itoa(o.RescueBudget), ""},
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		if r[2] != "" {
			r[2] = "# " + r[2]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r[0], r[1], r[2])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if line == "" {
			continue
		}
		if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}
