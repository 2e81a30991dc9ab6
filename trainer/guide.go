package trainer

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
	"github.com/lmask/lmask/solve"
)

// guideSeedMix separates the local-search seeds from the rollout seeds.
const guideSeedMix = 0x9e3779b97f4a7c15

// GuideStats summarises the guide tours of one iteration.
type GuideStats struct {
	// Found counts instances that got a guide tour; Cost is their mean
	// length and Gain the mean relative improvement over the best sample.
	Found      int
	Cost, Gain float64
}

// guideTours improves, for every instance, its best sample (in the order
// of lazymask.Compare; or its cfg.GuideStarts best distinct samples, the
// best result kept) by local search with kicks (solve.Improve), and returns
// the replayed steps of each improved tour (nil where the search found no
// feasible tour or the tour does not replay under the run's masks). The
// result depends only on seed.
func guideTours(insts []*lazymask.Instance, trajs []lazymask.Trajectory, samples int, cfg *Config, seed uint64) ([][]lazymask.StepRecord, GuideStats, error) {
	look, err := lazymask.ParseLookahead(cfg.Lookahead)
	if err != nil {
		return nil, GuideStats{}, err
	}
	jobs := make([]solve.Job, len(insts))
	for b := range insts {
		jobs[b] = solve.Job{Inst: insts[b], Seed: seed ^ uint64(b)*guideSeedMix}
		for _, tr := range trajs[b*samples : (b+1)*samples] {
			jobs[b].Starts = append(jobs[b].Starts, tr.Tour)
		}
	}
	opt := solve.Options{Search: localsearch.Options{Kicks: cfg.GuideKicks, MaxStarts: max(cfg.GuideStarts, 1)}}
	// A training step is the unit at which training honours its context
	// (Trainer.Run checks it between steps and checkpoints): the guide
	// searches, bounded by kicks, run to their end.
	res, _, err := solve.Improve(context.Background(), jobs, opt)
	if err != nil {
		var je *solve.JobError
		if errors.As(err, &je) {
			return nil, GuideStats{}, fmt.Errorf("guide: instance %d: %w", je.Job, err)
		}
		return nil, GuideStats{}, fmt.Errorf("guide: %w", err)
	}
	out := make([][]lazymask.StepRecord, len(insts))
	solve.ForEach(len(insts), 0, func(b int) {
		if res[b].Final.Feasible {
			// A tour the look-ahead rules out gets no guide.
			out[b], _ = lazymask.ReplayTour(insts[b], res[b].Search.Tour, look, cfg.Budget, lazymask.Train)
		}
	})
	var st GuideStats
	for b, r := range res {
		if out[b] == nil {
			continue
		}
		st.Found++
		st.Cost += r.Final.Cost
		if r.Given.Feasible && r.Given.Cost > 0 {
			st.Gain += (r.Given.Cost - r.Final.Cost) / r.Given.Cost
		}
	}
	if st.Found > 0 {
		st.Cost /= float64(st.Found)
		st.Gain /= float64(st.Found)
	}
	return out, st, nil
}

// withGuides interleaves the P samples of each instance with its guide
// trajectory (slot P) and writes the advantages: the samples' own A, and β
// for a guide (0 where an instance has none, which is then padding).
func withGuides(trajs []lazymask.Trajectory, guides [][]lazymask.StepRecord, samples int, beta float64, adv []float32, dst []float32) []lazymask.Trajectory {
	p1 := samples + 1
	out := make([]lazymask.Trajectory, 0, len(guides)*p1)
	for b, g := range guides {
		out = append(out, trajs[b*samples:(b+1)*samples]...)
		copy(dst[b*p1:b*p1+samples], adv[b*samples:(b+1)*samples])
		out = append(out, lazymask.Trajectory{Inst: b, Steps: g, Cost: math.Inf(1)})
		dst[b*p1+samples] = 0
		if g != nil {
			dst[b*p1+samples] = float32(beta)
		}
	}
	return out
}
