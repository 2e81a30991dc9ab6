// Package datasets makes, stores, imports and scores TSPTW and TSPDL data.
//
// Generators (Generator, Generate, GenerateFile) draw instances from the
// LMask paper's distributions (easy / medium / hard, any size N counting
// the depot, any hard-TSPTW window width) with a seeded math/rand/v2 PCG,
// so a seed gives the same instances everywhere. Hard TSPTW instances carry
// their generating tour and TSPDL instances their ascending-limit tour, both
// feasible by lazymask.Check.
//
// Files are Parquet (docs/data-formats.md has the schemas and metadata
// keys). InstanceWriter and SolutionWriter stream rows in row groups and
// create their file atomically (temporary file, fsync, rename).
// InstanceReader and SolutionReader stream one row group at a time;
// ReadInstances and ReadSolutions read whole files. Every instance read is
// validated and errors name the file, the row and the field.
//
// Importers read the paper's .npz test sets and reference tours
// (ImportNPZInstances, ImportNPZReferences, ReadNpy), the LIB TSPTW
// benchmarks with optional Solomon-style coordinates and the Rakke TSPDL
// benchmarks (ImportBenchmark), with their optimal / best-known values as
// cost-only references.
//
// Evaluate computes the paper's metrics (solution and instance
// infeasibility, objective, gap, mean length) by replaying every tour with
// lazymask.Check, the only source of feasibility verdicts.
//
//	meta, err := datasets.GenerateFile("train.parquet",
//		datasets.GenConfig{Problem: lazymask.TSPTW, N: 50, Hardness: datasets.Hard, Seed: 1}, 10000,
//		datasets.WriterOptions{})
//	d, err := datasets.ReadInstances("train.parquet")
//	m, err := datasets.Evaluate(d.Instances, solutions, references)
package datasets
