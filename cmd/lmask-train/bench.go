package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/internal/cliapp"
	"github.com/lmask/lmask/trainer"
)

// benchCommand measures training throughput per backend and prints a table.
func benchCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "bench",
		Usage:     "measure training instances/s, rollout/replay split and GFLOP/s per backend",
		UsageText: "lmask-train bench [--problem tsptw] [--size 50] [--batch 16] [--samples 50] [--steps 3] [--backends onnx,go]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "problem", Value: "tsptw"},
			&cli.IntFlag{Name: "size", Value: 50, Action: atLeast("size", 3)},
			&cli.StringFlag{Name: "hardness", Value: "medium"},
			&cli.IntFlag{Name: "batch", Value: 16, Action: atLeast("batch", 1)},
			&cli.IntFlag{Name: "samples", Value: 50, Action: atLeast("samples", 2)},
			&cli.IntFlag{Name: "budget", Value: 15, Action: atLeast("budget", 0)},
			&cli.IntFlag{Name: "steps", Value: 3, Usage: "timed iterations after two warm-up iterations", Action: atLeast("steps", 1)},
			&cli.StringFlag{Name: "backends", Value: "onnx,go", Usage: "backends to measure, comma-separated; an element with \"=\" is an option of the one before (onnx:cpu,intra_op_num_threads=2)"},
			&cli.IntFlag{Name: "layers", Value: 6},
			&cli.IntFlag{Name: "d-model", Value: 128},
			&cli.IntFlag{Name: "heads", Value: 8},
			&cli.IntFlag{Name: "ffn", Value: 512},
			&cli.StringFlag{Name: "decoder", Value: "pomo", Usage: "decoder backbone: pomo or reld (model format 2)"},
			&cli.StringFlag{Name: "cand", Value: "none", Usage: "per-candidate features: none, bias, keys or both (model format 2)"},
			&cli.Uint64Flag{Name: "seed", Value: 1234},
			&cli.IntFlag{Name: "host-workers", Value: 1, Usage: "goroutines that advance the rollout trajectories between decoder steps", Action: atLeast("host-workers", 1)},
			&cli.IntFlag{Name: "pipelines", Value: 1, Usage: "instance groups each rollout is split into, decoded on their own goroutines (2: double buffering)", Action: atLeast("pipelines", 1)},
			&cli.BoolFlag{Name: "gpu-busy", Value: true, Usage: "sample the GPU's busy share with nvidia-smi during the timed iterations, where nvidia-smi is on PATH"},
			&cli.IntFlag{Name: "imitate-batch", Value: 256, Usage: "label tours per imitation step timed beside REINFORCE (0: skip)", Action: atLeast("imitate-batch", 0)},
		},
		Action: func(c *cli.Context) error {
			cfg := trainer.DefaultConfig(c.String("problem"), c.Int("size"), c.String("hardness"))
			cfg.Batch, cfg.Samples, cfg.Budget = c.Int("batch"), c.Int("samples"), c.Int("budget")
			cfg.Model.Layers, cfg.Model.DModel = c.Int("layers"), c.Int("d-model")
			cfg.Model.Heads, cfg.Model.FFN = c.Int("heads"), c.Int("ffn")
			mc, err := trainer.DecoderOptions(cfg.Model, c.String("decoder"), c.String("cand"))
			if err != nil {
				return cliapp.Usage(err)
			}
			cfg.Model = mc
			cfg.Seed = c.Uint64("seed")
			if err := trainer.CheckConfig(cfg); err != nil {
				return err
			}
			backends, err := trainer.ParseBackends(c.String("backends"))
			if err != nil {
				return err
			}
			bc := trainer.BenchConfig{Config: cfg, Backends: backends, Steps: c.Int("steps"), ImitateBatch: c.Int("imitate-batch"),
				HostWorkers: c.Int("host-workers"), Pipelines: c.Int("pipelines")}
			if c.Bool("gpu-busy") {
				bc.Busy = trainer.NvidiaSMIBusy("nvidia-smi", 200)
			}
			rows := trainer.Bench(c.Context, bc, stderr)
			// The table holds the backends that ran; the failures make the
			// error (non-zero exit).
			ok, err := trainer.SplitBenchRows(rows, stderr)
			if len(ok) > 0 {
				trainer.WriteBenchTable(stdout, cfg, ok)
			}
			return err
		},
	}
}
