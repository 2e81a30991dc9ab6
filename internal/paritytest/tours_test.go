//go:build parity

// Package paritytest checks that the GoMLX model (training) and the exported
// ONNX files run by the engine (inference) make the same decisions. It sits
// apart from both so that neither package imports the other's runtime.
package paritytest

import (
	"fmt"
	"os"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models"
	"github.com/lmask/lmask/models/features"
)

// TestGreedyToursGoMLXEqualEngine decodes a fixed dataset greedily with
// LazyMask twice — scores from the GoMLX model, then from its exported ONNX
// files in onnxruntime — and requires identical tours, costs and verdicts.
func TestGreedyToursGoMLXEqualEngine(t *testing.T) {
	if err := engine.Available(); err != nil {
		t.Skipf("onnxruntime not available (%v): set ONNXRUNTIME_SHARED_LIBRARY_PATH", err)
	}
	for _, tc := range []struct {
		problem  lazymask.Problem
		hardness string
		rie      bool
	}{{lazymask.TSPTW, "medium", true}, {lazymask.TSPDL, "hard", true}, {lazymask.TSPTW, "hard", false}} {
		name := fmt.Sprintf("%s-%s-rie=%v", tc.problem, tc.hardness, tc.rie)
		t.Run(name, func(t *testing.T) {
			cfg := features.Config{Format: features.FormatPOMO, Problem: tc.problem.String(), DModel: 32, Heads: 4, Layers: 2, FFN: 64, RIE: tc.rie, TrainSize: 20}
			m, err := models.New(cfg, os.Getenv("LMASK_PARITY_BACKEND"), 5)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := m.Export(dir); err != nil {
				t.Fatal(err)
			}
			insts, _, err := datasets.Generate(datasets.GenConfig{Problem: tc.problem, N: 20, Hardness: tc.hardness, Seed: 99}, 24)
			if err != nil {
				t.Fatal(err)
			}
			dcfg := lazymask.Config{Lookahead: lazymask.LookTSL, Budget: 50, Semantics: lazymask.Test, Greedy: true}
			gp := m.Policy()
			defer gp.Close()
			want, err := lazymask.Decode(gp, insts, 1, dcfg)
			if err != nil {
				t.Fatal(err)
			}
			e, err := engine.Open(dir, engine.Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			ep := e.NewPolicy()
			defer ep.Close()
			got, err := lazymask.Decode(ep, insts, 1, dcfg)
			if err != nil {
				t.Fatal(err)
			}
			feasible := 0
			for i := range want {
				w, g := want[i], got[i]
				if fmt.Sprint(w.Tour) != fmt.Sprint(g.Tour) || w.Feasible != g.Feasible || w.Cost != g.Cost || w.Backtracks != g.Backtracks {
					t.Errorf("instance %d: GoMLX tour %v (cost %v, feasible %v, %d backtracks), engine %v (cost %v, feasible %v, %d backtracks)",
						i, w.Tour, w.Cost, w.Feasible, w.Backtracks, g.Tour, g.Cost, g.Feasible, g.Backtracks)
				}
				if w.Feasible {
					feasible++
				}
			}
			t.Logf("%s: %d instances, identical greedy tours, %d feasible", name, len(want), feasible)
		})
	}
}
