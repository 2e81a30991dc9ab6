package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/internal/atomicfile"
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

// curveCommand draws the training curve of one run, or of several training
// stages (warm starts) joined one after the other.
func curveCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "curve",
		Usage:     "draw the training curve of one or more runs (stages joined in order) as an SVG picture",
		UsageText: "lmask-train curve --out curve.svg RUNDIR [RUNDIR...]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Required: true, Usage: "SVG file to write"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return fmt.Errorf("curve: name at least one run directory (or metrics.jsonl file)")
			}
			var stages [][]trainer.Record
			for _, dir := range c.Args().Slice() {
				recs, err := trainer.ReadMetrics(dir)
				if err != nil {
					return err
				}
				if len(recs) == 0 {
					return fmt.Errorf("curve: %s holds no metrics records", dir)
				}
				stages = append(stages, recs)
			}
			recs, starts := trainer.JoinStages(stages...)
			svg, err := trainer.RenderCurve(recs, starts...)
			if err != nil {
				return err
			}
			if err := atomicfile.WriteFile(c.String("out"), svg); err != nil {
				return fmt.Errorf("curve: %w", err)
			}
			what := fmt.Sprintf("%d stages", len(stages))
			if len(stages) == 1 {
				what = "1 stage"
			}
			fmt.Fprintf(stdout, "wrote %s (%s, %d steps)\n", c.String("out"), what, recs[len(recs)-1].Step)
			return nil
		},
	}
}
