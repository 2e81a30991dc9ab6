package engine

import (
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/solve"
)

// ImproveJobs turns decoded solutions into the jobs of solve.Improve: the
// starts of instance i are its best tour, then every tour the solver kept
// (SolveOptions.AllTours; failed decodes skipped); every job gets seed.
//
//	sols, _ := solver.Solve(insts)
//	res, stats, err := solve.Improve(ctx, engine.ImproveJobs(insts, sols, seed), opt.WithShare(3.5, solver.Stats().Wall))
func ImproveJobs(insts []*lazymask.Instance, sols []Solution, seed uint64) []solve.Job {
	jobs := make([]solve.Job, len(insts))
	for i := range insts {
		j := solve.Job{Inst: insts[i], Seed: seed}
		if b := sols[i].Best; b.Nodes != nil {
			j.Starts = append(j.Starts, b.Nodes)
		}
		for _, t := range sols[i].Tours {
			if t.Nodes != nil && !t.Failed {
				j.Starts = append(j.Starts, t.Nodes)
			}
		}
		jobs[i] = j
	}
	return jobs
}
