// Command lmask-data generates, imports, inspects, checks, improves and plots
// lmask datasets (Parquet files of TSPTW/TSPDL instances and solutions) and
// solves them with heuristic baselines.
//
//	lmask-data generate --problem tsptw --size 50 --hardness hard --count 10000 --seed 1 --out train.parquet
//	lmask-data import --in tsptw50_test_hard_seed2025.npz --out test.parquet
//	lmask-data import --in pyvrp_50_hard.npz --instances test.parquet --out ref.parquet
//	lmask-data inspect test.parquet
//	lmask-data check --instances test.parquet --solutions ref.parquet --json
//	lmask-data baseline --instances test.parquet --policy random-l --samples 8 --budget 100 --out rl.parquet
package main

import (
	"context"
	"io"
	"sort"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/internal/cliapp"
)

// Version is the program version (set at link time with
// -ldflags "-X main.Version=...").
var Version = "dev"

// commands is the command list; files of this package append to it from
// init functions.
var commands []*cli.Command

// run executes the CLI with args (without the program name), writing to
// stdout and stderr; it returns the command's error.
func run(args []string, stdout, stderr io.Writer) error {
	return runContext(context.Background(), args, stdout, stderr)
}

// ownsInterrupt names the commands that stop cleanly when ctx is cancelled;
// the others return context.Canceled at once and leave their work to end
// with the process (their outputs are written atomically: nothing is left
// half-written).
var ownsInterrupt = map[string]bool{"label": true, "improve": true, "baseline": true, "explain": true}

// runContext is run under ctx, which an interrupt cancels.
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmds := append([]*cli.Command(nil), commands...)
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name < cmds[j].Name })
	guard := cliapp.GuardFiles(inputFlags, outputFlags) // before any command: what its flags alone tell
	for _, cmd := range cmds {
		cmd.Before = guard
		if !ownsInterrupt[cmd.Name] {
			cmd.Action = cliapp.Interruptible(cmd.Action)
		}
	}
	app := cliapp.Prepare(&cli.App{
		Name:      "lmask-data",
		Usage:     "generate, import, inspect, check, improve and label lmask datasets",
		Version:   Version,
		Commands:  cmds,
		Writer:    stdout,
		ErrWriter: stderr,
	})
	return cliapp.FlagNames(app.RunContext(ctx, append([]string{"lmask-data"}, args...)), optionFlags)
}

// optionFlags spells the options that datasets and labels name in their
// errors (opterr) as this command's flags.
var optionFlags = map[string]string{
	"Chunk": "chunk", "Count": "count", "Hardness": "hardness", "In": "in", "Index": "index", "Instances": "instances",
	"Keep": "keep", "Model": "model", "Out": "out", "Prefixes": "prefixes", "Problem": "problem", "References": "references",
	"Relabel": "relabel", "Shard": "shard", "Size": "size", "Solutions": "solutions", "Reference": "reference",
	"AllowMissing": "allow-missing",
}

// inputFlags are the flags that name files a command reads.
var inputFlags = []string{"in", "instances", "solutions", "reference", "times"}

// outputFlags are the flags that name files a command writes.
var outputFlags = []string{"out", "references"}

func main() {
	cliapp.Main("lmask-data", func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		return runContext(ctx, args[1:], stdout, stderr)
	})
}
