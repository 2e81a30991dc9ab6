package infer

import (
	"fmt"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/exact"
	"github.com/lmask/lmask/solve"
)

// ExactReferences proves an optimal tour of every instance of d, the
// instances file ipath (exact.SolveAll on solve.Workers(workers)
// goroutines, each instance's known tour bounding its search), and returns
// one checked row each, source "optimal", with the metadata of a
// references file of ipath (lmask-data exact). An instance without an
// optimal tour is an error naming ipath and its row.
func ExactReferences(d *datasets.Dataset, ipath string, workers int, opt exact.Options) ([]datasets.Solution, datasets.Metadata, error) {
	res, errs := exact.SolveAll(d.Instances, d.KnownTours, solve.Workers(workers), opt)
	sols := make([]datasets.Solution, len(res))
	for i := range res {
		if errs[i] != nil {
			return nil, datasets.Metadata{}, fmt.Errorf("%s row %d: %w", ipath, i, errs[i])
		}
		var err error
		if sols[i], err = datasets.Checked(d.Instances[i], int64(i), res[i].Tour, "optimal"); err != nil {
			return nil, datasets.Metadata{}, fmt.Errorf("%s row %d: %w", ipath, i, err)
		}
	}
	meta := datasets.Metadata{Kind: datasets.KindSolutions, Problem: d.Meta.Problem, Size: d.Meta.Size, Hardness: d.Meta.Hardness,
		Scale: d.Meta.Scale, Source: "optimal", Instances: ipath}
	return sols, meta, nil
}
