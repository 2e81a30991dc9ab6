package solve

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/localsearch"
)

// Tour is one tour of an instance with lazymask.Check's replay of it.
type Tour struct {
	// Nodes is the tour, depot first; nil when the decode gave up.
	Nodes []int
	// Check is the replay of Nodes (zero when Nodes is nil).
	Check lazymask.Result
	// Sample is the trajectory's index among the instance's samples;
	// Backtracks the pops it used.
	Sample, Backtracks int
}

// Verdict returns the tour's ranking facts (the zero Verdict when there is
// no tour).
func (t Tour) Verdict() lazymask.Verdict {
	if t.Nodes == nil {
		return lazymask.Verdict{}
	}
	return t.Check.Verdict()
}

// Decoded is what decoding one instance gave: its tours, best first in the
// order of lazymask.Compare (ties keep the decode order), and the time it
// took.
type Decoded struct {
	Tours   []Tour
	Elapsed time.Duration
}

// Heuristic decodes samples trajectories of every instance with a fresh
// policy from newPolicy under the LazyMask method (cfg: look-ahead, budget,
// semantics), instance i with seed cfg.Seed+i, so the result does not
// depend on the number of workers. With newPolicy nil it decodes nothing
// and gives each instance one tour: the urgency order
// (localsearch.OrderTour). Every tour is replayed with lazymask.Check.
// When ctx is done the instances not yet decoded are left and Heuristic
// returns ctx's error.
func Heuristic(ctx context.Context, insts []*lazymask.Instance, newPolicy func() lazymask.Policy, samples int, cfg lazymask.Config, workers int) ([]Decoded, error) {
	out := make([]Decoded, len(insts))
	errs := make([]error, len(insts))
	ForEach(len(insts), workers, func(i int) {
		if ctx.Err() != nil {
			return
		}
		c := cfg
		c.Seed = cfg.Seed + uint64(i)
		out[i], errs[i] = heuristicOne(insts[i].Clone(), newPolicy, samples, c)
		if errs[i] != nil {
			errs[i] = fmt.Errorf("instance %d: %w", i, errs[i])
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, errors.Join(errs...)
}

func heuristicOne(in *lazymask.Instance, newPolicy func() lazymask.Policy, samples int, cfg lazymask.Config) (Decoded, error) {
	start := time.Now()
	var trajs []lazymask.Trajectory
	if newPolicy == nil {
		trajs = []lazymask.Trajectory{{Tour: localsearch.OrderTour(in)}}
	} else {
		var err error
		if trajs, err = lazymask.Decode(newPolicy(), []*lazymask.Instance{in}, samples, cfg); err != nil {
			return Decoded{}, err
		}
	}
	d := Decoded{Tours: make([]Tour, len(trajs))}
	for k, tr := range trajs {
		t := Tour{Sample: k, Backtracks: tr.Backtracks}
		if !tr.Failed && tr.Tour != nil {
			res, err := lazymask.Check(in, tr.Tour)
			var te *lazymask.TourError
			if errors.As(err, &te) {
				return Decoded{}, fmt.Errorf("trajectory %d: %w", k, err)
			}
			t.Nodes, t.Check = tr.Tour, res
		}
		d.Tours[k] = t
	}
	slices.SortStableFunc(d.Tours, func(a, b Tour) int { return lazymask.Compare(a.Verdict(), b.Verdict()) })
	d.Elapsed = time.Since(start)
	return d, nil
}
