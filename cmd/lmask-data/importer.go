package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/internal/cliapp"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:  "import",
		Usage: "convert the paper's .npz files or a text benchmark (file or directory) to Parquet",
		Description: "An instance .npz becomes an instances file; a reference .npz (solutions, costs) becomes a\n" +
			"solutions file and needs --instances, the instances file it refers to. A LIB (Dumas, Gendreau,\n" +
			"Ohlmann-Thomas; also the TSPLIB keyword layout of da Silva-Urrutia's .tsptw files, gzipped or not;\n" +
			"format dumas) or Rakke file or directory becomes an instances file; its optimal.csv or\n" +
			"best_known.csv becomes a cost-only solutions file at --references (default OUT with .refs.parquet).\n" +
			"A stops CSV (format csv: instance, node, x, y, then ready, due[, service] or demand, draft), with an\n" +
			"optional travel-time CSV (--times: instance, from, to, time), becomes an instances file, streaming.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "in", Usage: "input .npz file, benchmark file or benchmark directory", Required: true},
			&cli.StringFlag{Name: "out", Usage: "output Parquet file", Required: true},
			&cli.StringFlag{Name: "instances", Usage: "instances Parquet file a reference .npz refers to"},
			&cli.StringFlag{Name: "format", Usage: "npz, dumas, rakke or csv (detected when empty)"},
			&cli.StringFlag{Name: "times", Usage: "csv: travel-time CSV (instance, from, to, time), instead of Euclidean distances"},
			&cli.StringFlag{Name: "problem", Usage: "csv: tsptw or tspdl (checked against the header; inferred when empty)"},
			&cli.Float64Flag{Name: "scale", Usage: "csv: divide every coordinate and time by this (0 = per instance, a power of two ≥ the coordinates' extent)"},
			&cli.StringFlag{Name: "references", Usage: "where a benchmark's reference values go (default OUT.refs.parquet)"},
			&cli.StringFlag{Name: "coords", Usage: "directory of Solomon-style coordinate files for LIB instances (default: sibling tsptw-dumas-coords)"},
			&cli.StringFlag{Name: "fallback", Usage: "coordinates when none exist: mds (classical MDS of the matrix) or error", Value: datasets.FallbackMDS},
		},
		Action: importAction,
	})
}

func importAction(c *cli.Context) error {
	in, out := c.String("in"), c.String("out")
	if _, err := os.Stat(in); err != nil {
		return fmt.Errorf("import: --in: %w", err)
	}
	format := datasets.ImportFormat(in, c.String("format"))
	if format != datasets.FormatCSV {
		for _, f := range []string{"times", "problem", "scale"} {
			if c.IsSet(f) {
				return cliapp.Usagef("import: flag --%s applies to --format csv only", f)
			}
		}
	}
	switch format {
	case datasets.FormatCSV:
		return importCSV(c, in, out)
	case datasets.FormatNPZ:
		return importNPZ(c, in, out)
	case "", datasets.FormatLIB, datasets.FormatRakke:
		return importBenchmark(c, in, out, format)
	}
	return fmt.Errorf("import: unknown --format %q (want npz, dumas, rakke or csv)", format)
}

func importCSV(c *cli.Context, in, out string) error {
	sum, err := datasets.ImportCSV(in, c.String("times"), out, datasets.CSVOptions{
		Problem: c.String("problem"), Scale: c.Float64("scale")})
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	dist := "Euclidean distances"
	if sum.HasTimes {
		dist = "travel times from " + c.String("times")
	}
	fmt.Fprintf(c.App.Writer, "wrote %d %s instances (%d-%d nodes, %s) to %s\n", sum.Instances, sum.Problem, sum.MinN, sum.MaxN, dist, out)
	return nil
}

func importNPZ(c *cli.Context, in, out string) error {
	isRef, err := datasets.IsNPZReference(in)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	if !isRef {
		d, err := datasets.ImportNPZInstancesFile(in, out)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		fmt.Fprintf(c.App.Writer, "wrote %d %s-%d instances to %s\n", len(d.Instances), d.Meta.Problem, d.Meta.Size, out)
		return nil
	}
	ip := c.String("instances")
	if ip == "" {
		return fmt.Errorf("import: %s holds reference tours: --instances (the instances file they refer to) is required", in)
	}
	r, err := datasets.ImportNPZReferenceFile(in, ip, out)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	fmt.Fprintf(c.App.Writer, "wrote %d %s references (%d tours, %d violating by more than %g) to %s\n",
		r.Rows, r.Source, r.Tours, r.Violating, 1e-5, out)
	return nil
}

func importBenchmark(c *cli.Context, in, out, format string) error {
	bm, err := datasets.ImportBenchmark(in, format, datasets.BenchmarkOptions{
		CoordsDir: c.String("coords"), Fallback: c.String("fallback")})
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	refPath, err := bm.ReferencePath(c.String("references"), in, out)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	if err := datasets.WriteInstances(out, bm.Dataset.Meta, bm.Dataset.Instances, bm.Dataset.KnownTours, datasets.WriterOptions{}); err != nil {
		return fmt.Errorf("import: %w", err)
	}
	fmt.Fprintf(c.App.Writer, "wrote %d %s instances (%s format, %d with MDS coordinates) to %s\n",
		len(bm.Dataset.Instances), bm.Dataset.Meta.Problem, bm.Format, bm.MDSCount(), out)
	if refPath != "" && len(bm.References) > 0 {
		if err := bm.WriteReferences(refPath, out); err != nil {
			return fmt.Errorf("import: %w", err)
		}
		fmt.Fprintf(c.App.Writer, "wrote %d %s reference values to %s\n", len(bm.References), bm.RefMeta.Source, refPath)
	}
	return nil
}
