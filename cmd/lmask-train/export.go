package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/internal/cliapp"
	"github.com/lmask/lmask/internal/modelpath"
	"github.com/lmask/lmask/internal/opterr"
	"github.com/lmask/lmask/models/features"
	"github.com/lmask/lmask/models/onnx"
	"github.com/lmask/lmask/trainer"
)

// exportCommand writes the ONNX pair, config.json and MODEL_CARD.md of a
// checkpoint.
func exportCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "export a checkpoint as an ONNX model directory",
		UsageText: "lmask-train export --checkpoint DIR --out MODELDIR [--backend go] [--force]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "checkpoint", Required: true, Usage: "run directory (or checkpoint file)"},
			&cli.StringFlag{Name: "out", Required: true, Usage: "model directory to write"},
			&cli.StringFlag{Name: "backend", Value: "go", Usage: "backend used to load the weights (go needs no native library)"},
			&cli.BoolFlag{Name: "force", Usage: "replace the model (ONNX files, config.json, MODEL_CARD.md) already in --out"},
		},
		Action: func(c *cli.Context) error {
			if err := trainer.CheckExportDir(c.String("checkpoint"), c.String("out"), c.Bool("force")); err != nil {
				return err
			}
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

// quantizeCommand writes an int8 copy of an exported model directory.
func quantizeCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "quantize",
		Usage:     "write a copy of a model directory whose weight products run in int8 (onnxruntime CPU)",
		UsageText: "lmask-train quantize --model MODELDIR --out MODELDIR [--decoder] [--keep NAME...] [--force]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "model", Required: true, Usage: "float32 model directory (encoder.onnx, decoder.onnx, config.json) or shipped model name; never changed"},
			&cli.StringFlag{Name: "out", Required: true, Usage: "model directory to write (not --model)"},
			&cli.BoolFlag{Name: "decoder", Usage: "quantise decoder.onnx too (by default it is copied as it is)"},
			&cli.StringSliceFlag{Name: "keep", Usage: "keep in float32 the weight products whose weight name contains this (repeatable, e.g. ffn/w2)"},
			&cli.BoolFlag{Name: "force", Usage: "replace the model already in --out"},
		},
		Action: func(c *cli.Context) error {
			opts := onnx.QuantOptions{Decoder: c.Bool("decoder"), Keep: c.StringSlice("keep")}
			model, err := modelpath.Resolve(c.String("model"))
			if err != nil {
				return err
			}
			reps, err := onnx.QuantizeDir(model, c.String("out"), opts, c.Bool("force"))
			if err != nil {
				return err
			}
			for _, f := range []string{features.EncoderFile, features.DecoderFile} {
				if reps[f].Quantized == nil {
					fmt.Fprintf(stdout, "%s: copied as float32\n", f)
					continue
				}
				fmt.Fprintf(stdout, "%s: %d weight products in int8, %d kept in float32\n", f, len(reps[f].Quantized), len(reps[f].Kept))
			}
			fmt.Fprintf(stdout, "wrote %s\n", c.String("out"))
			return nil
		},
	}
}

// averageCommand mixes the weights of checkpoints of one architecture: two
// with a chosen share, or several (a run's snapshots) with equal shares.
func averageCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "average",
		Usage:     "write a checkpoint whose weights are (1−w)·A + w·B, or the mean of several checkpoints' weights",
		UsageText: "lmask-train average --out FILE [--weight W] A B\n   lmask-train average --out FILE A B C... (equal shares, e.g. RUN/snapshots/*.lmck)",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Required: true, Usage: "checkpoint file to write (never one of the inputs)"},
			&cli.Float64Flag{Name: "weight", Value: 0.5, Usage: "with two checkpoints: w, the share of B's weights, in [0, 1]"},
		},
		Action: func(c *cli.Context) error {
			in := c.Args().Slice()
			if len(in) < 2 {
				return fmt.Errorf("average: name at least two checkpoints (run directories or files), got %d", len(in))
			}
			if len(in) > 2 && c.IsSet("weight") {
				return fmt.Errorf("average: --weight applies to two checkpoints; %d are averaged with equal shares", len(in))
			}
			out := c.String("out")
			if err := trainer.CheckFileOut("average", out, in); err != nil {
				return err
			}
			if len(in) == 2 {
				w := c.Float64("weight")
				if err := trainer.AverageCheckpoints(in[0], in[1], w, out); err != nil {
					return err
				}
				fmt.Fprintf(stdout, "wrote %s: weights %g × %s + %g × %s\n", out, 1-w, in[0], w, in[1])
				return nil
			}
			if err := trainer.MeanCheckpoints(in, out); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %s: the mean of the weights of %d checkpoints, %s to %s\n", out, len(in), in[0], in[len(in)-1])
			return nil
		},
	}
}

// growCommand deepens a checkpoint's encoder without changing what it
// computes, to train a larger model from a smaller one's weights.
func growCommand(stdout io.Writer) *cli.Command {
	return oneInputCommand(stdout, &cli.Command{
		Name:      "grow",
		Usage:     "write a checkpoint with more encoder layers that computes what the stored one does",
		UsageText: "lmask-train grow --out FILE --layers L CHECKPOINT",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Required: true, Usage: "checkpoint file to write (never the input)"},
			&cli.IntFlag{Name: "layers", Required: true, Usage: "encoder layers of the new checkpoint, a multiple of the stored count"},
		},
	}, "checkpoint (run directory or file)", func(c *cli.Context, in, out string) (string, error) {
		if err := trainer.CheckFileOut("grow", out, []string{in}); err != nil {
			return "", err
		}
		if err := trainer.GrowCheckpoint(in, c.Int("layers"), out); err != nil {
			return "", err
		}
		return fmt.Sprintf("wrote %s: %s grown to %d encoder layers", out, in, c.Int("layers")), nil
	})
}

// shrinkCommand keeps some encoder layers of a model, the start of a
// smaller network trained to imitate the larger one.
func shrinkCommand(stdout io.Writer) *cli.Command {
	return oneInputCommand(stdout, &cli.Command{
		Name:      "shrink",
		Usage:     "write a model directory that keeps only some encoder layers of a model (a start for a smaller network)",
		UsageText: "lmask-train shrink --out DIR --keep 0,2,5 MODEL|CHECKPOINT",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Required: true, Usage: "model directory to write (new; never the input)"},
			&cli.IntSliceFlag{Name: "keep", Required: true, Usage: "encoder layers to keep, in increasing order (they become layers 0, 1, ...)"},
		},
	}, "model directory or checkpoint", func(c *cli.Context, in, out string) (string, error) {
		keep := c.IntSlice("keep")
		if err := trainer.ShrinkModel(in, keep, out); err != nil {
			return "", err
		}
		return fmt.Sprintf("wrote %s: encoder layers %v of %s", out, keep, in), nil
	})
}

// oneInputCommand gives cmd the action of a command that reads the one
// input named as its argument (what says what it is) and writes --out:
// write does the work and returns the line printed.
func oneInputCommand(stdout io.Writer, cmd *cli.Command, what string, write func(c *cli.Context, in, out string) (string, error)) *cli.Command {
	cmd.Action = func(c *cli.Context) error {
		if c.NArg() != 1 {
			return fmt.Errorf("%s: name one %s, got %d", cmd.Name, what, c.NArg())
		}
		line, err := write(c, c.Args().Get(0), c.String("out"))
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, line)
		return nil
	}
	return cmd
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
			stages, last, err := trainer.DrawStages(c.String("out"), c.Args().Slice())
			if err != nil {
				return err
			}
			what := fmt.Sprintf("%d stages", stages)
			if stages == 1 {
				what = "1 stage"
			}
			fmt.Fprintf(stdout, "wrote %s (%s, %d steps)\n", c.String("out"), what, last)
			return nil
		},
	}
}

// compareCommand draws the validation curves of runs side by side: one
// panel per --group, each naming its runs as LABEL=RUNDIR.
func compareCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "draw runs' validation objective against the label tours seen (SVG)",
		UsageText: "lmask-train compare --out pilot.svg --tours-per-step 128 --group 'TITLE:LABEL=RUNDIR;LABEL=RUNDIR' [--group ...]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Required: true, Usage: "SVG file to write"},
			&cli.IntFlag{Name: "tours-per-step", Required: true, Usage: "label tours per training step (--imitate-batch of the runs)"},
			&cli.StringSliceFlag{Name: "group", Required: true, Usage: "a panel: TITLE:LABEL=RUNDIR;LABEL=RUNDIR;... (runs separated by semicolons)"},
		},
		Action: func(c *cli.Context) error {
			groups, dirs, err := trainer.ReadCompareGroups(c.StringSlice("group"), c.Int("tours-per-step"))
			if opterr.Has(err) {
				return cliapp.Usage(err)
			} else if err != nil {
				return err
			}
			if err := trainer.DrawComparison(c.String("out"), groups, dirs); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %s (%d panels)\n", c.String("out"), len(groups))
			return nil
		},
	}
}
