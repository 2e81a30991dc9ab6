package trainer

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// ValSet is a validation set: instances and, when known, reference
// solutions (for the gap).
type ValSet struct {
	Path      string
	Instances []*lazymask.Instance
	Refs      []datasets.Solution // nil when no reference is known
}

// LoadValSet reads a Parquet instances file (at most limit instances when
// limit > 0). Reference costs come from refPath, a Parquet solutions file,
// when it is not empty. The instances must match the run's problem and
// one of sizes (any size where none is given).
func LoadValSet(path, refPath string, limit int, problem lazymask.Problem, sizes ...int) (*ValSet, error) {
	ds, err := datasets.ReadInstances(path)
	if err != nil {
		return nil, fmt.Errorf("validation set: %w", err)
	}
	insts := ds.Instances
	if len(insts) == 0 {
		return nil, fmt.Errorf("validation set %s: no instances", path)
	}
	if limit > 0 && len(insts) > limit {
		insts = insts[:limit]
	}
	for i, in := range insts {
		if in.Problem != problem {
			return nil, fmt.Errorf("validation set %s: row %d: problem %s, the run trains %s", path, i, in.Problem, problem)
		}
		if len(sizes) > 0 && !slices.Contains(sizes, in.N) {
			return nil, fmt.Errorf("validation set %s: row %d: %d nodes, the run trains N=%v", path, i, in.N, sizes)
		}
	}
	vs := &ValSet{Path: path, Instances: insts}
	if refPath == "" {
		return vs, nil
	}
	if err := vs.LoadRefs(refPath); err != nil {
		return nil, err
	}
	return vs, nil
}

// LoadRefs reads reference costs for vs from refPath, a Parquet solutions
// file (the rows that name one of vs's instances).
func (vs *ValSet) LoadRefs(refPath string) error {
	sols, _, err := datasets.ReadSolutions(refPath)
	if err != nil {
		return fmt.Errorf("validation references: %w", err)
	}
	vs.Refs = []datasets.Solution{}
	for _, s := range sols {
		if s.Instance < int64(len(vs.Instances)) {
			vs.Refs = append(vs.Refs, s)
		}
	}
	return nil
}

// Validate decodes every instance of vs greedily on its 8 dihedral
// transforms with test semantics (look-ahead look, budget R), batch
// instances at a time, and returns the paper's metrics computed by
// datasets.Evaluate, which replays every tour on the original instance
// with lazymask.Check.
func Validate(p lazymask.Policy, vs *ValSet, look lazymask.Lookahead, budget, batch int) (ValMetrics, error) {
	start := time.Now()
	var m ValMetrics
	if len(vs.Instances) == 0 {
		return m, errors.New("validate: empty validation set")
	}
	dec := lazymask.NewDecoder()
	cfg := lazymask.Config{Lookahead: look, Budget: budget, Semantics: lazymask.Test, Greedy: true}
	sols := make([]datasets.Solution, 0, len(vs.Instances)*lazymask.NumAugment)
	// One size per decode (the policy encodes one N per batch): the
	// instances in order of size, then of row.
	order := make([]int, len(vs.Instances))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return vs.Instances[a].N - vs.Instances[b].N })
	for lo := 0; lo < len(order); {
		hi := lo + 1
		for hi < len(order) && hi-lo < batch && vs.Instances[order[hi]].N == vs.Instances[order[lo]].N {
			hi++
		}
		aug := make([]*lazymask.Instance, 0, (hi-lo)*lazymask.NumAugment)
		for _, r := range order[lo:hi] {
			for k := 0; k < lazymask.NumAugment; k++ {
				aug = append(aug, lazymask.Augment(vs.Instances[r], k))
			}
		}
		trajs, err := dec.Decode(p, aug, 1, cfg)
		if err != nil {
			return m, fmt.Errorf("validate %s rows %d–%d of size %d: %w", vs.Path, order[lo], order[hi-1], vs.Instances[order[lo]].N, err)
		}
		for j := range trajs {
			sols = append(sols, datasets.Solution{Instance: int64(order[lo+j/lazymask.NumAugment]), Tour: trajs[j].Tour,
				Aug: j % lazymask.NumAugment, Source: "lmask"})
		}
		lo = hi
	}
	slices.SortStableFunc(sols, func(a, b datasets.Solution) int { return int(a.Instance - b.Instance) })
	ev, err := datasets.Evaluate(vs.Instances, sols, vs.Refs)
	if err != nil {
		return m, fmt.Errorf("validate %s: %w", vs.Path, err)
	}
	m.Instances = ev.Instances
	m.SolInfeasible, m.InstInfeasible = ev.SolInfeasible, ev.InstInfeasible
	if ev.ObjCount > 0 {
		m.Obj = ev.Obj
	}
	if ev.GapCount > 0 {
		m.Gap, m.HasGap = ev.Gap, true
	}
	m.Seconds = time.Since(start).Seconds()
	return m, nil
}
