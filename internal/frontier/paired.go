package frontier

import (
	"fmt"
	"math"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// TieTol is the relative difference of two lengths below which Compare
// calls them a tie (the same tour summed in another order differs by far
// less).
const TieTol = 1e-9

// Pair compares, for a set without a reference, one repetition's network
// run with the no-network run after it, instance by instance: each run's
// best feasible length per instance, as lazymask.Check replays the tours
// of its solutions file (datasets.Evaluate); the feasibility flags and
// costs the files record are not read.
type Pair struct {
	// NetworkFeasible and NoNetworkFeasible count the instances each run
	// solved feasibly; Both those that both did.
	NetworkFeasible   int `json:"network_feasible"`
	NoNetworkFeasible int `json:"no_network_feasible"`
	Both              int `json:"both_feasible"`
	// DiffPct is the mean over the Both instances of 100 · (network − no
	// network) / no network, the best lengths' relative difference in
	// percent: below zero the network's tours are shorter. Nil when Both
	// is 0.
	DiffPct *float64 `json:"network_diff_pct"`
	// Wins, Ties and Losses split the Both instances: the network's best
	// tour shorter, as long (within TieTol), longer.
	Wins   int `json:"wins"`
	Ties   int `json:"ties"`
	Losses int `json:"losses"`
}

// Paired is the median of a cell's Pairs, field by field (DiffPct over
// the repetitions that have one; nil when none has).
type Paired struct {
	NetworkFeasible   float64  `json:"network_feasible"`
	NoNetworkFeasible float64  `json:"no_network_feasible"`
	Both              float64  `json:"both_feasible"`
	DiffPct           *float64 `json:"network_diff_pct"`
	Wins              float64  `json:"wins"`
	Ties              float64  `json:"ties"`
	Losses            float64  `json:"losses"`
}

// Compare pairs the per-instance best feasible lengths of a network run
// and a no-network run of the same instances (+Inf where a run has no
// feasible tour; datasets.Metrics.Best). It panics when the lengths of the
// two slices differ.
func Compare(network, noNetwork []float64) Pair {
	if len(network) != len(noNetwork) {
		panic(fmt.Sprintf("frontier: Compare of %d and %d instances", len(network), len(noNetwork)))
	}
	var p Pair
	sum := 0.0
	for i, a := range network {
		b := noNetwork[i]
		fa, fb := !math.IsInf(a, 1) && !math.IsNaN(a), !math.IsInf(b, 1) && !math.IsNaN(b)
		if fa {
			p.NetworkFeasible++
		}
		if fb {
			p.NoNetworkFeasible++
		}
		if !fa || !fb {
			continue
		}
		p.Both++
		d := 0.0
		if a != b {
			d = (a - b) / b
		}
		switch {
		case math.Abs(a-b) <= TieTol*math.Max(math.Abs(a), math.Abs(b)):
			p.Ties++
		case a < b:
			p.Wins++
		default:
			p.Losses++
		}
		sum += d
	}
	if p.Both > 0 {
		v := 100 * sum / float64(p.Both)
		p.DiffPct = &v
	}
	return p
}

// MedianPairs is the field-by-field median of pairs (nil for none).
func MedianPairs(pairs []Pair) *Paired {
	if len(pairs) == 0 {
		return nil
	}
	med := func(f func(Pair) int) float64 {
		v := make([]float64, len(pairs))
		for i, p := range pairs {
			v[i] = float64(f(p))
		}
		return Median(v)
	}
	m := &Paired{
		NetworkFeasible:   med(func(p Pair) int { return p.NetworkFeasible }),
		NoNetworkFeasible: med(func(p Pair) int { return p.NoNetworkFeasible }),
		Both:              med(func(p Pair) int { return p.Both }),
		Wins:              med(func(p Pair) int { return p.Wins }),
		Ties:              med(func(p Pair) int { return p.Ties }),
		Losses:            med(func(p Pair) int { return p.Losses }),
	}
	var d []float64
	for _, p := range pairs {
		if p.DiffPct != nil {
			d = append(d, *p.DiffPct)
		}
	}
	if len(d) > 0 {
		v := Median(d)
		m.DiffPct = &v
	}
	return m
}

// Instances are the instances a paired comparison replays tours on: the
// first ones of the file Path (all of them, or Limit), with its metadata.
type Instances struct {
	Path  string
	Meta  datasets.Metadata
	Insts []*lazymask.Instance
}

// ReadInstances reads the first limit instances of the instances file at
// path (all of them for limit 0), as lmask-infer --limit solves them and
// lmask-data check --limit judges them.
func ReadInstances(path string, limit int) (*Instances, error) {
	d, err := datasets.ReadInstances(path)
	if err != nil {
		return nil, err
	}
	in := &Instances{Path: path, Meta: d.Meta, Insts: d.Instances}
	if limit > 0 && len(in.Insts) > limit {
		in.Insts = in.Insts[:limit]
	}
	if len(in.Insts) == 0 {
		return nil, fmt.Errorf("%s: no instances", path)
	}
	return in, nil
}

// Best is each instance's best feasible length in the solutions file at
// path, +Inf where none of its tours passes lazymask.Check (rows naming
// instances past the ones read are left out, as after lmask-infer
// --limit). The file must be able to belong to the instances
// (datasets.MatchSolutions).
func (in *Instances) Best(path string) ([]float64, error) {
	sols, meta, err := datasets.ReadSolutions(path)
	if err != nil {
		return nil, err
	}
	if _, err := datasets.MatchSolutions(in.Path, in.Meta, path, meta); err != nil {
		return nil, err
	}
	m, err := datasets.Evaluate(in.Insts, datasets.FirstInstances(sols, len(in.Insts)), nil)
	if err != nil {
		return nil, datasets.WithPath(err, "solutions", path)
	}
	return m.Best, nil
}

// PairFiles compares the solutions files of a network run and of a
// no-network run of the instances in (Compare of their Best).
func (in *Instances) PairFiles(network, noNetwork string) (Pair, error) {
	a, err := in.Best(network)
	if err != nil {
		return Pair{}, err
	}
	b, err := in.Best(noNetwork)
	if err != nil {
		return Pair{}, err
	}
	return Compare(a, b), nil
}
