package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/internal/cliapp"
	"github.com/lmask/lmask/internal/modelpath"
	"github.com/lmask/lmask/trainer"
)

// trainAction runs (or resumes) a training run and exports the model when
// it completes.
func trainAction(c *cli.Context, stdout, stderr io.Writer) error {
	if c.Args().Len() > 0 {
		return cliapp.Usagef("unexpected argument %q (see --help)", c.Args().First())
	}
	if d := c.Duration("time-limit"); d < 0 {
		return cliapp.Usagef("--time-limit %s: must not be negative", d)
	}
	out := c.String("out")
	if out == "" {
		return cliapp.Usagef("--out is required (the run directory)")
	}
	initFrom, err := modelpath.Resolve(c.String("init-from"))
	if err != nil {
		return fmt.Errorf("--init-from: %w", err)
	}
	opt := trainer.Options{Dir: out, Resume: c.Bool("resume"), InitFrom: initFrom, ValRef: c.String("val-ref"), HostWorkers: c.Int("host-workers"), Pipelines: c.Int("pipelines"), Log: stderr}
	var cfg trainer.Config
	if opt.Resume {
		if c.IsSet("steps") {
			opt.Steps = c.Int("steps")
		}
		if c.IsSet("backend") {
			opt.Backend = c.String("backend")
		}
		if c.IsSet("snapshot-every") {
			n := c.Int("snapshot-every")
			opt.SnapshotEvery = &n
		}
	} else {
		var err error
		if cfg, opt.TrainFiles, err = configFromFlags(c); err != nil {
			return err
		}
		if initFrom != "" {
			if err := trainer.AdoptInitSizes(&cfg.Model, initFrom, trainer.GivenSizes{
				Layers: c.IsSet("layers"), DModel: c.IsSet("d-model"), Heads: c.IsSet("heads"), FFN: c.IsSet("ffn"),
				RIE: c.IsSet("rie"), Decoder: c.IsSet("decoder"), Cand: c.IsSet("cand")}); err != nil {
				return err
			}
		}
		if opt.Val, err = trainer.LoadValidation(cfg, opt.ValRef); err != nil {
			return err
		}
	}
	if err := trainer.CheckRunDir(out); err != nil {
		return err
	}
	if !opt.Resume {
		if _, err := trainer.ReadCheckpoint(out); err == nil {
			return fmt.Errorf("%s already holds a checkpoint: use --resume to continue it, or another --out", out)
		}
	}
	tr, err := trainer.New(cfg, opt) // makes the run directory only once the backend works
	if err != nil {
		return err
	}
	cfg = tr.Config()
	bar := trainer.NewProgress(stderr, tr.Step(), cfg.Steps)
	tr.SetOnStep(bar.Update)
	start := time.Now()
	ctx := c.Context
	if d := c.Duration("time-limit"); d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	sum, err := tr.Run(ctx)
	bar.Finish()
	if err != nil {
		return err
	}
	sum.WriteReport(stdout, cfg.Steps, time.Since(start), out)
	if b, at := tr.BestVal(); b != nil {
		fmt.Fprintf(stdout, "best validation: step %d, inst. infeasible %.2f%%, obj %.4f, gap %s: %s (export it with lmask-train export --checkpoint)\n",
			at, 100*b.InstInfeasible, b.Obj, b.GapText(), filepath.Join(out, trainer.BestFile))
	}
	if sum.Interrupted {
		fmt.Fprintf(stdout, "interrupted: continue with --resume --out %s\n", out)
		return c.Context.Err() // nil after --time-limit; context.Canceled (exit 130) after Ctrl-C
	}
	if c.Bool("no-export") {
		return nil
	}
	dir := filepath.Join(out, ModelDir)
	at, err := tr.ExportFinal(dir)
	if err != nil {
		return err
	}
	if at >= 0 {
		fmt.Fprintf(stdout, "model: %s (weights of step %d, the best validation)\n", dir, at)
		return nil
	}
	fmt.Fprintf(stdout, "model: %s\n", dir)
	return nil
}
