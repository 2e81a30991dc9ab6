// Command frontier runs the equal-CPU comparison of the network pipeline
// and the same pipeline without a network (internal/frontier) and prints
// its table; scripts/bench-frontier.sh prepares the sets and calls it:
//
//	go run ./scripts/frontier -infer bin/lmask-infer -check bin/lmask-data \
//	    -set 'TSPTW-50 medium|models/pretrained/tsptw50-medium|DATA|REF|300' -json out.json
//
// A set with an empty REFERENCE (e.g. 'mine|tsptw100-medium|DATA||40')
// compares the two runs' solutions instance by instance instead of gaps.
//
// With -plot it draws reports instead (./just frontier-plot): one report,
// or several each named by its legend label:
//
//	go run ./scripts/frontier -plot OUT.svg REPORT.json [LABEL=REPORT.json ...]
//
// and with -plot-pairs a results section of kind "pairs" (./just
// neural-kicks-plot):
//
//	go run ./scripts/frontier -plot-pairs OUT.svg SECTION.json
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/lmask/lmask/internal/atomicfile"
	"github.com/lmask/lmask/internal/frontier"
	"github.com/lmask/lmask/internal/resultsdoc"
)

type setsFlag []frontier.Set

func (s *setsFlag) String() string { return fmt.Sprint(len(*s)) }

// Set parses NAME|MODEL|DATA|REFERENCE|LIMIT (REFERENCE may be empty).
func (s *setsFlag) Set(v string) error {
	f := strings.Split(v, "|")
	if len(f) != 5 {
		return fmt.Errorf("want NAME|MODEL|DATA|REFERENCE|LIMIT, got %q", v)
	}
	for i, what := range []string{"NAME", "MODEL", "DATA"} {
		if strings.TrimSpace(f[i]) == "" {
			return fmt.Errorf("%q: %s is empty", v, what)
		}
	}
	lim, err := strconv.Atoi(f[4])
	if err != nil || lim < 0 {
		return fmt.Errorf("limit %q: want an instance count ≥ 0", f[4])
	}
	*s = append(*s, frontier.Set{Name: f[0], Model: f[1], Data: f[2], Reference: f[3], Limit: lim})
	return nil
}

func main() {
	var sets setsFlag
	cfg := frontier.Config{Budgets: frontier.Budgets, Log: os.Stderr}
	flag.StringVar(&cfg.Infer, "infer", "bin/lmask-infer", "lmask-infer binary")
	flag.StringVar(&cfg.Check, "check", "bin/lmask-data", "lmask-data binary (its check command judges the tours)")
	flag.IntVar(&cfg.Reps, "reps", 3, "alternated network / no-network pairs per cell (median)")
	flag.StringVar(&cfg.Dir, "dir", "out/frontier/runs", "folder of the runs' files")
	jsonPath := flag.String("json", "", "write the report (command, date, machine, cells) as JSON to this file")
	command := flag.String("command", "", "the command line recorded in the report (default: this one)")
	budgets := flag.String("budgets", "", "comma-separated budget names to run (default: all: fast, best, best --improve-share 10)")
	netFlags := flag.String("net-flags", "", "space-separated lmask-infer flags added to every network run (e.g. \"--aug 1\", \"--batch 16\", \"--threads 2 --workers 1\")")
	commit := flag.String("commit", "", "the commit measured, recorded in the report")
	flag.Var(&sets, "set", "a set, NAME|MODEL|DATA|REFERENCE|LIMIT (repeatable; MODEL a folder or a shipped model's name; an empty REFERENCE compares the two runs instance by instance)")
	plotOut := flag.String("plot", "", "draw the reports given as arguments (REPORT.json or LABEL=REPORT.json) as an SVG picture to this file; runs nothing")
	pairsOut := flag.String("plot-pairs", "", "draw the results section (kind pairs) given as argument as an SVG picture to this file; runs nothing")
	flag.Parse()
	if *plotOut != "" || *pairsOut != "" {
		if err := draw(*plotOut, *pairsOut, flag.Args()); err != nil {
			fmt.Fprintln(os.Stderr, "frontier:", err)
			os.Exit(1)
		}
		return
	}
	if len(sets) == 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "frontier: give at least one -set and no arguments")
		os.Exit(2)
	}
	cfg.Sets = sets
	if *budgets != "" {
		cfg.Budgets = nil
		for _, b := range frontier.Budgets {
			for _, name := range strings.Split(*budgets, ",") {
				if strings.TrimSpace(name) == b.Name {
					cfg.Budgets = append(cfg.Budgets, b)
				}
			}
		}
		if len(cfg.Budgets) == 0 {
			fmt.Fprintf(os.Stderr, "frontier: -budgets %q names none of fast, best, best --improve-share 10\n", *budgets)
			os.Exit(2)
		}
	}
	if f := strings.Fields(*netFlags); len(f) > 0 {
		bs := make([]frontier.Budget, len(cfg.Budgets))
		for i, b := range cfg.Budgets {
			bs[i] = frontier.Budget{Name: b.Name, Flags: append(append([]string{}, b.Flags...), f...)}
		}
		cfg.Budgets = bs
	}
	if *command == "" {
		*command = strings.Join(os.Args, " ")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	load0 := frontier.LoadAverage()
	cells, err := frontier.Measure(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	frontier.WriteTable(os.Stdout, cells)
	if *jsonPath != "" {
		if err := frontier.NewReport(cfg, *command, *commit, [2]float64{load0, frontier.LoadAverage()}, cells).WriteJSON(*jsonPath); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

// draw writes the picture of -plot or -plot-pairs.
func draw(plotOut, pairsOut string, args []string) error {
	var svg []byte
	switch {
	case plotOut != "" && pairsOut != "":
		return fmt.Errorf("give -plot or -plot-pairs, not both")
	case plotOut != "":
		reports, err := frontier.ReadLabeled(args)
		if err != nil {
			return err
		}
		if svg, err = frontier.Plot(reports); err != nil {
			return err
		}
	default:
		if len(args) != 1 {
			return fmt.Errorf("-plot-pairs takes one section file, got %d arguments", len(args))
		}
		s, err := resultsdoc.ReadPairs(args[0])
		if err != nil {
			return err
		}
		if svg, err = frontier.PlotPairs(s); err != nil {
			return err
		}
		plotOut = pairsOut
	}
	return atomicfile.WriteFile(plotOut, svg)
}
