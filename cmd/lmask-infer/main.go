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
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
)

// Version is set at build time with -ldflags "-X main.Version=...".
var Version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "lmask-infer:", err)
		if errors.Is(err, context.Canceled) {
			os.Exit(130)
		}
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// run executes the command line args (args[0] is the program name).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return newApp(stdout, stderr).RunContext(ctx, args)
}

// usageError marks errors in the command line itself.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }
