package onnx

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/lmask/lmask/models/features"
)

// TestReadWeightsInvertsExport: the weights read back from an exported
// model directory are the exported ones (q exactly up to the rounding of
// folding 1/√dh in and out), for a head size whose 1/√dh is not a power
// of two too.
func TestReadWeightsInvertsExport(t *testing.T) {
	for _, heads := range []int{8, 3, 4} {
		cfg := features.DefaultConfig(1)
		cfg.Layers, cfg.DModel, cfg.Heads, cfg.FFN, cfg.TrainSize = 2, 24, heads, 40, 20
		if heads == 4 {
			cfg = cfg.WithDecoder(true, features.CandBoth) // format 2: every block read back
		}
		w := features.DenseRandomWeights(cfg, 11)
		dir := t.TempDir()
		if err := ExportDir(dir, cfg, w); err != nil {
			t.Fatal(err)
		}
		gotCfg, got, err := ReadWeights(dir)
		if err != nil {
			t.Fatal(err)
		}
		if gotCfg.DModel != cfg.DModel || gotCfg.Layers != cfg.Layers || gotCfg.Heads != cfg.Heads || gotCfg.Format != cfg.Format || gotCfg.Cand != cfg.Cand || gotCfg.ReLD != cfg.ReLD {
			t.Fatalf("config %+v, want %+v", gotCfg, cfg)
		}
		for name, want := range w {
			g, ok := got[name]
			if !ok {
				t.Fatalf("heads %d: %s missing", heads, name)
			}
			for i := range want.Data {
				tol := 1e-6 * math.Max(1, math.Abs(float64(want.Data[i])))
				if math.Abs(float64(g.Data[i]-want.Data[i])) > tol {
					t.Fatalf("heads %d: %s[%d] = %v, exported %v", heads, name, i, g.Data[i], want.Data[i])
				}
			}
		}
	}
}

func TestReadWeightsErrors(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := ReadWeights(dir); err == nil {
		t.Fatal("a folder without config.json read as a model")
	}
	cfg := features.DefaultConfig(1)
	cfg.Layers, cfg.DModel, cfg.Heads, cfg.FFN, cfg.TrainSize = 1, 16, 2, 16, 10
	if err := ExportDir(dir, cfg, features.RandomWeights(cfg, 1)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, features.DecoderFile), []byte("not onnx"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadWeights(dir); err == nil {
		t.Fatal("a garbled decoder.onnx was read")
	}
}
