// Command lmask-infer solves a Parquet dataset of TSPTW or TSPDL instances
// with an exported LMask model (encoder.onnx + decoder.onnx) run by
// onnxruntime, writes the tours to a Parquet solutions file and prints the
// paper's metrics.
//
//	lmask-infer --model runs/tsptw50-hard/model --data tsptw50_hard.parquet \
//	    --out solutions.parquet --reference pyvrp_50_hard.parquet
package main

import (
	"context"
	"io"
	"os"

	"github.com/lmask/lmask/internal/cliapp"
)

// Version is set at build time with -ldflags "-X main.Version=...".
var Version = "dev"

func main() {
	ctx, stop := cliapp.InterruptContext("lmask-infer", os.Stderr)
	err := run(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	cliapp.Exit(os.Stderr, "lmask-infer", err, cliapp.ExitCode(err))
}

// run executes the command line args (args[0] is the program name).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return cliapp.FlagNames(newApp(stdout, stderr).RunContext(ctx, args), optionFlags)
}

// optionFlags spells the options that infer names in its errors as this
// command's flags.
var optionFlags = map[string]string{
	"Reference": "reference", "Model": "model", "Starts": "starts", "Aug": "aug", "Samples": "samples", "Budget": "budget",
	"Batch": "batch", "Limit": "limit", "Threads": "threads", "Workers": "workers", "Device": "device",
	"TimeLimit": "improve-budget", "Kicks": "improve-kicks", "MaxStarts": "improve-starts", "Improve": "improve",
	"ImproveShare": "improve-share", "InfeasibleTime": "infeasible-time", "RescueTime": "rescue-time",
	"RescueBudget": "rescue-budget", "NeuralKicks": "neural-kicks", "NeuralEvery": "neural-every",
	"CPUBudget": "cpu-budget", "CPUPerInstance": "time-per-instance",
}
