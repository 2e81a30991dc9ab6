package main

import (
	"flag"
	"fmt"
	"github.com/lmask/lmask/internal/atomicfile"
	"os"
	"path/filepath"

	"github.com/lmask/lmask/models/features"
	"github.com/lmask/lmask/models/onnx"
)

// tinyModel is one generated model directory.
type tinyModel struct {
	Dir  string
	Cfg  features.Config
	Seed uint64
}

// tinyModels lists the generated models.
func tinyModels() []tinyModel {
	cfg := func(problem string) features.Config {
		return features.Config{Format: features.FormatPOMO, Problem: problem, DModel: 16, Heads: 2,
			Layers: 2, FFN: 32, RIE: true, TrainSize: 10}
	}
	return []tinyModel{
		{Dir: "tiny-tsptw", Cfg: cfg("tsptw"), Seed: 1},
		{Dir: "tiny-tspdl", Cfg: cfg("tspdl"), Seed: 2},
	}
}

// modelCard is the MODEL_CARD.md of a tiny model.
func modelCard(m tinyModel) string {
	c := m.Cfg
	return fmt.Sprintf(`# %s

Untrained %s policy for tests: random weights (features.RandomWeights, seed %d),
d_model %d, %d heads, %d layers, ffn %d, RIE %v, train size %d.
Its decisions are arbitrary; use it to exercise loading and inference only.
Regenerate with: go run ./models/onnx/cmd/gen-testdata -out engine/testdata
`, m.Dir, c.Problem, m.Seed, c.DModel, c.Heads, c.Layers, c.FFN, c.RIE, c.TrainSize)
}

// generate writes every tiny model under out.
func generate(out string) error {
	for _, m := range tinyModels() {
		dir := filepath.Join(out, m.Dir)
		if err := onnx.ExportDir(dir, m.Cfg, features.RandomWeights(m.Cfg, m.Seed)); err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, "MODEL_CARD.md"), []byte(modelCard(m))); err != nil {
			return err
		}
	}
	return nil
}

func main() {
	out := flag.String("out", filepath.Join("engine", "testdata"), "directory that receives the model directories")
	flag.Parse()
	if err := generate(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen-testdata:", err)
		os.Exit(1)
	}
}
