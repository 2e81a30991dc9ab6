// Package infer turns instances files into solutions files.
//
//   - Run solves a Parquet instances file with an exported model: it
//     streams the row groups through engine.Solver, the local search of
//     package solve (Options.Improve) and the escalation of instances left
//     without a feasible tour (engine.Solver.Rescue), writes the tours as
//     they come and tallies the paper's metrics (datasets.Tally). Memory
//     does not grow with the file: one row group is held at a time.
//   - Shard and Merge spread one file over many machines: each run takes a
//     contiguous slice of the rows (Options.Shard, e.g. from a Kubernetes
//     Indexed Job or a Slurm array) and Merge joins their outputs.
//   - Baseline and ImproveSolutions are the file-level forms of the
//     heuristic decoders and of the local search (lmask-data baseline and
//     improve).
//
// It never imports GoMLX; feasibility comes only from lazymask.Check.
package infer
