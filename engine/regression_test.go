package engine_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/internal/testenv"
	"github.com/lmask/lmask/lazymask"
)

// Regression describes, for one shipped model, the stored greedy solutions
// of a bundled dataset (regression.json in the model directory) and the
// quality floor on the paper's test set (floor section, optional).
type Regression struct {
	Data      string `json:"data"`      // bundled instances, relative to the repository root
	Solutions string `json:"solutions"` // stored solutions, relative to the model directory
	Budget    int    `json:"budget"`
	Aug       int    `json:"aug"`
	Lookahead string `json:"lookahead"`
	Batch     int    `json:"batch"`
	Floor     *Floor `json:"floor,omitempty"`
	// GeneratedFloor serves sizes without a paper test set in ../shared (n = 100).
	GeneratedFloor *GeneratedFloor `json:"generated_floor,omitempty"`
}

// GeneratedFloor bounds the mean objective and the instance infeasibility on
// Count instances of the project's generator (the model's problem, size and
// hardness; Seed), so it needs no file and runs everywhere.
type GeneratedFloor struct {
	Problem           string  `json:"problem"`
	Size              int     `json:"size"`
	Hardness          string  `json:"hardness"`
	Seed              uint64  `json:"seed"`
	Count             int     `json:"count"`
	MaxInstInfeasible float64 `json:"max_inst_infeasible"` // fraction
	MaxObj            float64 `json:"max_obj"`             // mean best length over the instances with a feasible tour
}

// Floor bounds the quality on the first Limit instances of a paper test set.
type Floor struct {
	Instances         string  `json:"instances"` // npz file under ../shared/datasets/lmask-paper
	Reference         string  `json:"reference"`
	Limit             int     `json:"limit"`
	MaxInstInfeasible float64 `json:"max_inst_infeasible"` // fraction
	MaxGap            float64 `json:"max_gap"`             // fraction
}

// shippedModels lists models/pretrained/* that carry a regression.json.
func shippedModels(t *testing.T) (root string, dirs []string, regs []Regression) {
	root = testenv.RepoRoot(t)
	matches, _ := filepath.Glob(filepath.Join(root, "models", "pretrained", "*", "regression.json"))
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		var r Regression
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		dirs = append(dirs, filepath.Dir(m))
		regs = append(regs, r)
	}
	if len(dirs) == 0 {
		t.Fatal("no shipped model with a regression.json under models/pretrained")
	}
	return root, dirs, regs
}

// solveShipped solves insts with the model in dir and the decoding
// settings of its regression record.
func solveShipped(t *testing.T, dir string, r Regression, insts []*lazymask.Instance) []engine.Solution {
	t.Helper()
	e, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	opts, err := solveOpts(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.Solve(insts, opts)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// checkedBest returns each instance's best tour as a solution row whose
// verdict comes from the checker (none where the solve found no tour).
func checkedBest(t *testing.T, insts []*lazymask.Instance, got []engine.Solution) []datasets.Solution {
	t.Helper()
	var sols []datasets.Solution
	for k, s := range got {
		if s.Best.Nodes != nil {
			sol, err := datasets.Checked(insts[k], int64(k), s.Best.Nodes, "lmask")
			if err != nil {
				t.Fatal(err)
			}
			sols = append(sols, sol)
		}
	}
	return sols
}

func solveOpts(r Regression) (engine.SolveOptions, error) {
	look, err := lazymask.ParseLookahead(r.Lookahead)
	if err != nil {
		return engine.SolveOptions{}, err
	}
	return engine.SolveOptions{Aug: r.Aug, Budget: r.Budget, Lookahead: look, Batch: r.Batch}, nil
}

// TestShippedModels_StoredSolutions re-solves each shipped model's bundled
// regression dataset and fails, listing the differences, if any tour, cost
// or feasibility verdict changed. `just regression-update` rewrites the
// stored solutions on purpose.
func TestShippedModels_StoredSolutions(t *testing.T) {
	if err := engine.Available(); err != nil {
		t.Skipf("onnxruntime not available (%v): set ONNXRUNTIME_SHARED_LIBRARY_PATH or run scripts/setup.sh", err)
	}
	root, dirs, regs := shippedModels(t)
	for i, dir := range dirs {
		r := regs[i]
		t.Run(filepath.Base(dir), func(t *testing.T) {
			ds, err := datasets.ReadInstances(filepath.Join(root, r.Data))
			if err != nil {
				t.Fatal(err)
			}
			stored, _, err := datasets.ReadSolutions(filepath.Join(dir, r.Solutions))
			if err != nil {
				t.Fatal(err)
			}
			if len(stored) != len(ds.Instances) {
				t.Fatalf("%d stored solutions for %d instances", len(stored), len(ds.Instances))
			}
			got := solveShipped(t, dir, r, ds.Instances)
			var diffs []string
			for k, s := range stored {
				b := got[s.Instance].Best
				same := fmt.Sprint(b.Nodes) == fmt.Sprint(s.Tour) && b.Feasible == s.Feasible &&
					(math.Abs(b.Cost-s.Cost) <= 1e-9 || (math.IsInf(b.Cost, 1) && math.IsInf(s.Cost, 1)))
				if !same {
					diffs = append(diffs, fmt.Sprintf("row %d (instance %d): stored cost %.6f feasible %v tour %v\n    now    cost %.6f feasible %v tour %v",
						k, s.Instance, s.Cost, s.Feasible, s.Tour, b.Cost, b.Feasible, b.Nodes))
				}
				// The stored verdict itself must come from the checker.
				if s.Tour != nil {
					res, _ := lazymask.Check(ds.Instances[s.Instance], s.Tour)
					if res.Feasible != s.Feasible || math.Abs(res.Cost-s.Cost) > 1e-9 {
						t.Errorf("row %d: stored verdict %v/%.6f disagrees with the checker %v/%.6f", k, s.Feasible, s.Cost, res.Feasible, res.Cost)
					}
				}
			}
			if len(diffs) > 0 {
				n := len(diffs)
				if n > 10 {
					diffs = append(diffs[:10], fmt.Sprintf("... and %d more", n-10))
				}
				t.Fatalf("%d of %d solutions changed:\n  %s", n, len(stored), strings.Join(diffs, "\n  "))
			}
		})
	}
}

// TestShippedModels_PaperFloor checks that each shipped model still meets
// the quality recorded in its model card on the first instances of the
// paper's own test set (greedy ×8, the paper's budget).
func TestShippedModels_PaperFloor(t *testing.T) {
	if err := engine.Available(); err != nil {
		t.Skipf("onnxruntime not available (%v): set ONNXRUNTIME_SHARED_LIBRARY_PATH or run scripts/setup.sh", err)
	}
	_, dirs, regs := shippedModels(t)
	paper := testenv.SharedFile(t, "datasets", "lmask-paper")
	for i, dir := range dirs {
		r := regs[i]
		if r.Floor == nil {
			continue
		}
		f := *r.Floor
		t.Run(filepath.Base(dir), func(t *testing.T) {
			ds, err := datasets.ImportNPZInstances(filepath.Join(paper, f.Instances))
			if err != nil {
				t.Fatal(err)
			}
			refs, _, err := datasets.ImportNPZReferences(filepath.Join(paper, f.Reference), ds.Instances)
			if err != nil {
				t.Fatal(err)
			}
			insts := ds.Instances[:f.Limit]
			sols := checkedBest(t, insts, solveShipped(t, dir, r, insts))
			var rs []datasets.Solution
			for _, s := range refs {
				if s.Instance < int64(f.Limit) {
					rs = append(rs, s)
				}
			}
			m, err := datasets.Evaluate(insts, sols, rs)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s on the first %d of %s: inst. infeasible %.2f%%, gap %.3f%%", filepath.Base(dir), f.Limit, f.Instances, 100*m.InstInfeasible, 100*m.Gap)
			if m.InstInfeasible > f.MaxInstInfeasible+1e-12 {
				t.Errorf("instance infeasibility %.4f above the floor %.4f", m.InstInfeasible, f.MaxInstInfeasible)
			}
			if !(m.Gap <= f.MaxGap) {
				t.Errorf("gap %.5f above the floor %.5f", m.Gap, f.MaxGap)
			}
		})
	}
}

// TestShippedModels_GeneratedFloor checks the models without a paper test
// set against the quality recorded for them on generated instances.
func TestShippedModels_GeneratedFloor(t *testing.T) {
	if err := engine.Available(); err != nil {
		t.Skipf("onnxruntime not available (%v): set ONNXRUNTIME_SHARED_LIBRARY_PATH or run scripts/setup.sh", err)
	}
	_, dirs, regs := shippedModels(t)
	for i, dir := range dirs {
		r := regs[i]
		if r.GeneratedFloor == nil {
			continue
		}
		f := *r.GeneratedFloor
		t.Run(filepath.Base(dir), func(t *testing.T) {
			p, err := lazymask.ParseProblem(f.Problem)
			if err != nil {
				t.Fatal(err)
			}
			insts, _, err := datasets.Generate(datasets.GenConfig{Problem: p, N: f.Size, Hardness: f.Hardness, Seed: f.Seed}, f.Count)
			if err != nil {
				t.Fatal(err)
			}
			sols := checkedBest(t, insts, solveShipped(t, dir, r, insts))
			m, err := datasets.Evaluate(insts, sols, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s on %d generated %s-%d %s (seed %d): inst. infeasible %.2f%%, objective %.4f",
				filepath.Base(dir), f.Count, f.Problem, f.Size, f.Hardness, f.Seed, 100*m.InstInfeasible, m.Obj)
			if m.InstInfeasible > f.MaxInstInfeasible+1e-12 {
				t.Errorf("instance infeasibility %.4f above the floor %.4f", m.InstInfeasible, f.MaxInstInfeasible)
			}
			if !(m.Obj <= f.MaxObj) {
				t.Errorf("objective %.5f above the floor %.5f", m.Obj, f.MaxObj)
			}
		})
	}
}
