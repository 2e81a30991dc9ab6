package main

import (
	"encoding/json"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/internal/cliapp"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:  "check",
		Usage: "replay every tour with the checker and print the paper's metrics",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "instances", Usage: "instances Parquet file", Required: true},
			&cli.StringFlag{Name: "solutions", Usage: "solutions Parquet file", Required: true},
			&cli.StringFlag{Name: "reference", Usage: "reference solutions Parquet file (for the gap)"},
			&cli.IntFlag{Name: "limit", Usage: "evaluate only the first N instances and the rows that name them, as after lmask-infer --limit N (0 = all)"},
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object"},
		},
		Action: checkAction,
	})
}

// readReference reads the --reference solutions file and checks that it
// can belong to the instances file ipath (metadata imeta), or returns nil
// when the flag is not set.
func readReference(c *cli.Context, ipath string, imeta datasets.Metadata) ([]datasets.Solution, error) {
	rp := c.String("reference")
	if rp == "" {
		return nil, nil
	}
	refs, meta, err := datasets.ReadSolutions(rp)
	if err != nil {
		return nil, err
	}
	if err := matchPair(c, ipath, imeta, rp, meta); err != nil {
		return nil, fmt.Errorf("flag --reference: %w", err)
	}
	return refs, nil
}

// matchPair checks that the solutions file spath (metadata smeta) can
// belong to the instances file ipath (datasets.MatchSolutions) and prints
// its note, if any, to the error stream.
func matchPair(c *cli.Context, ipath string, imeta datasets.Metadata, spath string, smeta datasets.Metadata) error {
	note, err := datasets.MatchSolutions(ipath, imeta, spath, smeta)
	if err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintln(c.App.ErrWriter, note)
	}
	return nil
}

func checkAction(c *cli.Context) error {
	d, err := datasets.ReadInstances(c.String("instances"))
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	sols, smeta, err := datasets.ReadSolutions(c.String("solutions"))
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	if err := matchPair(c, c.String("instances"), d.Meta, c.String("solutions"), smeta); err != nil {
		return fmt.Errorf("check: %w", err)
	}
	refs, err := readReference(c, c.String("instances"), d.Meta)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	insts := d.Instances
	if lim := c.Int("limit"); lim < 0 {
		return cliapp.Usagef("check: flag --limit: %d, want ≥ 0", lim)
	} else if lim > 0 && lim < len(insts) {
		insts = insts[:lim]
		sols, refs = firstInstances(sols, lim), firstInstances(refs, lim)
	}
	m, err := datasets.Evaluate(insts, sols, refs)
	if err != nil {
		err = datasets.WithPath(datasets.WithPath(err, "solutions", c.String("solutions")), "reference", c.String("reference"))
		return fmt.Errorf("check: %w", err)
	}
	w := c.App.Writer
	if c.Bool("json") {
		b, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("check: %w", err)
		}
		fmt.Fprintln(w, string(b))
		return nil
	}
	m.WriteTable(w, refs != nil)
	return nil
}

// matchFiles is matchPair for files not read whole: it opens both only for
// their metadata.
func matchFiles(c *cli.Context, ipath, spath string) error {
	ir, err := datasets.OpenInstances(ipath)
	if err != nil {
		return err
	}
	imeta := ir.Metadata()
	ir.Close()
	sr, err := datasets.OpenSolutions(spath)
	if err != nil {
		return err
	}
	smeta := sr.Metadata()
	sr.Close()
	return matchPair(c, ipath, imeta, spath, smeta)
}

// firstInstances returns the solutions that name one of the first n
// instances (nil stays nil).
func firstInstances(sols []datasets.Solution, n int) []datasets.Solution {
	if sols == nil {
		return nil
	}
	out := make([]datasets.Solution, 0, len(sols))
	for _, s := range sols {
		if s.Instance < int64(n) {
			out = append(out, s)
		}
	}
	return out
}
