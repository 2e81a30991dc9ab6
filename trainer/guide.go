package trainer

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
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

// guideTours improves, for every instance, its best sample (feasible
// first, then shortest; or its cfg.GuideStarts best distinct samples, the
// best result kept) by local search with kicks, and returns the
// replayed steps of each improved tour (nil where the search found no
// feasible tour or the tour does not replay under the run's masks). The
// instances are searched in parallel; the result depends only on seed.
func guideTours(insts []*lazymask.Instance, trajs []lazymask.Trajectory, samples int, cfg *Config, seed uint64) ([][]lazymask.StepRecord, GuideStats, error) {
	look, err := lazymask.ParseLookahead(cfg.Lookahead)
	if err != nil {
		return nil, GuideStats{}, err
	}
	out := make([][]lazymask.StepRecord, len(insts))
	cost := make([]float64, len(insts))
	gain := make([]float64, len(insts))
	errs := make([]error, len(insts))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(runtime.GOMAXPROCS(0), len(insts)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range next {
				own := trajs[b*samples : (b+1)*samples]
				best := bestSample(own)
				opt := localsearch.Options{Kicks: cfg.GuideKicks, Seed: seed ^ uint64(b)*guideSeedMix}
				var res localsearch.Result
				var err error
				if cfg.GuideStarts > 1 {
					starts := make([][]int, len(own))
					for p := range own {
						starts[p] = own[p].Tour
					}
					opt.MaxStarts = cfg.GuideStarts
					res, err = localsearch.ImproveFrom(insts[b], starts, opt)
				} else {
					res, err = localsearch.Improve(insts[b], best.Tour, opt)
				}
				if err != nil {
					errs[b] = fmt.Errorf("guide: instance %d: %w", b, err)
					continue
				}
				if !res.Feasible {
					continue
				}
				steps, err := lazymask.ReplayTour(insts[b], res.Tour, look, cfg.Budget, lazymask.Train)
				if err != nil {
					continue // ruled out by the look-ahead: no guide for this instance
				}
				out[b], cost[b] = steps, res.Cost
				if best.Feasible && best.Cost > 0 {
					gain[b] = (best.Cost - res.Cost) / best.Cost
				}
			}
		}()
	}
	for b := range insts {
		next <- b
	}
	close(next)
	wg.Wait()
	var st GuideStats
	for b := range insts {
		if errs[b] != nil {
			return nil, st, errs[b]
		}
		if out[b] != nil {
			st.Found++
			st.Cost += cost[b]
			st.Gain += gain[b]
		}
	}
	if st.Found > 0 {
		st.Cost /= float64(st.Found)
		st.Gain /= float64(st.Found)
	}
	return out, st, nil
}

// bestSample returns the feasible sample of least cost, or the one of least
// violation when none is feasible.
func bestSample(trs []lazymask.Trajectory) *lazymask.Trajectory {
	best := &trs[0]
	key := func(t *lazymask.Trajectory) (bool, float64) {
		if t.Feasible {
			return true, t.Cost
		}
		return false, t.Violation
	}
	for i := 1; i < len(trs); i++ {
		f, v := key(&trs[i])
		bf, bv := key(best)
		if (f && !bf) || (f == bf && v < bv) {
			best = &trs[i]
		}
	}
	return best
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
