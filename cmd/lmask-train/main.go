// Command lmask-train trains a LazyMask policy for TSPTW or TSPDL with
// REINFORCE (GoMLX), checkpoints and resumes runs, exports the trained
// model as an ONNX pair with its config and model card, and benchmarks the
// training throughput of the backends.
//
//	lmask-train --problem tsptw --size 50 --hardness medium --out runs/tw50
//	lmask-train --problem tsptw --size 50 --hardness medium --out runs/tw50 --resume
//	lmask-train export --checkpoint runs/tw50 --out models/tw50
//	lmask-train bench --size 50 --samples 50
package main

import (
	"context"
	"io"

	"github.com/lmask/lmask/internal/cliapp"
)

// Version is set at build time with -ldflags "-X main.Version=...".
var Version = "dev"

func main() { cliapp.Main("lmask-train", run) }

// run executes the command line args (args[0] is the program name).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return cliapp.FlagNames(newApp(stdout, stderr).RunContext(ctx, args), optionFlags)
}

// optionFlags spells the options that trainer and datasets name in their
// errors (opterr) as this command's flags.
var optionFlags = map[string]string{
	"Backends": "backends", "Cand": "cand", "Checkpoint": "checkpoint", "Decoder": "decoder", "Force": "force",
	"Groups": "group", "Hardness": "hardness", "Imitate": "imitate", "InitFrom": "init-from", "Layers": "layers",
	"Model": "model", "Out": "out", "Problem": "problem", "Size": "size", "TrainData": "train-data", "Val": "val", "ValRef": "val-ref",
	"ValSplit": "val-split",
}
