package infer

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/lazymask"
)

const tinyTSPTW = "../engine/testdata/tiny-tsptw"

func tinyModel(p lazymask.Problem) string { return "../engine/testdata/tiny-" + p.String() }

func needRuntime(t testing.TB) {
	t.Helper()
	if err := engine.Available(); err != nil {
		t.Skipf("onnxruntime not available (set %s to libonnxruntime.so, e.g. after scripts/setup.sh): %v", engine.LibraryEnv, err)
	}
}

// fixture writes a generated dataset (row groups of 7) and a reference
// file built from the generator's known feasible tours.
func fixture(t *testing.T, p lazymask.Problem, hardness string, n, count int) (data, ref string, insts []*lazymask.Instance) {
	t.Helper()
	return fixtureGroups(t, p, hardness, n, count, 7)
}

func fixtureGroups(t *testing.T, p lazymask.Problem, hardness string, n, count, group int) (data, ref string, insts []*lazymask.Instance) {
	t.Helper()
	dir := t.TempDir()
	data = filepath.Join(dir, "data.parquet")
	cfg := datasets.GenConfig{Problem: p, N: n, Hardness: hardness, Seed: 3}
	meta, err := datasets.GenerateFile(data, cfg, count, datasets.WriterOptions{RowGroupRows: group})
	if err != nil {
		t.Fatal(err)
	}
	insts, tours, err := datasets.Generate(cfg, count)
	if err != nil {
		t.Fatal(err)
	}
	var sols []datasets.Solution
	for i, in := range insts {
		if tours[i] == nil {
			continue
		}
		s, err := datasets.Checked(in, int64(i), tours[i], "known")
		if err != nil {
			t.Fatal(err)
		}
		sols = append(sols, s)
	}
	ref = filepath.Join(dir, "ref.parquet")
	meta.Kind = datasets.KindSolutions
	if err := datasets.WriteSolutions(ref, meta, sols, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	return data, ref, insts
}

// options are the defaults (lmask-infer's) for model and data, writing to
// a fresh file, then changed by edit.
func options(t *testing.T, model, data string, edit func(o *Options)) Options {
	t.Helper()
	o := DefaultOptions()
	o.Model, o.Data, o.Out = model, data, filepath.Join(t.TempDir(), "sol.parquet")
	if edit != nil {
		edit(&o)
	}
	return o
}

// run runs o and returns the solutions it wrote and its summary.
func run(t *testing.T, o Options) ([]datasets.Solution, Summary) {
	t.Helper()
	sum, err := Run(context.Background(), o)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	sols, _, err := datasets.ReadSolutions(o.Out)
	if err != nil {
		t.Fatal(err)
	}
	return sols, sum
}

// solveTiny runs the tiny TSPTW model on data with the defaults changed by
// edit and returns the solutions.
func solveTiny(t *testing.T, data string, edit func(o *Options)) []datasets.Solution {
	t.Helper()
	sols, _ := run(t, options(t, tinyTSPTW, data, edit))
	return sols
}
