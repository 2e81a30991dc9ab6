package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/trainer"
)

// exportCommand writes the ONNX pair, config.json and MODEL_CARD.md of a
// checkpoint.
func exportCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "export a checkpoint as an ONNX model directory",
		UsageText: "lmask-train export --checkpoint DIR --out MODELDIR [--backend go]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "checkpoint", Required: true, Usage: "run directory (or checkpoint file)"},
			&cli.StringFlag{Name: "out", Required: true, Usage: "model directory to write"},
			&cli.StringFlag{Name: "backend", Value: "go", Usage: "backend used to load the weights (go needs no native library)"},
		},
		Action: func(c *cli.Context) error {
			mc, err := trainer.ExportCheckpoint(c.String("checkpoint"), c.String("out"), c.String("backend"))
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "exported %s-%d model (layers %d, d_model %d, heads %d, ffn %d, rie %v) to %s\n",
				mc.Problem, mc.TrainSize, mc.Layers, mc.DModel, mc.Heads, mc.FFN, mc.RIE, c.String("out"))
			return nil
		},
	}
}
