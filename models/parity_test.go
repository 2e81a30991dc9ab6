//go:build parity

package models_test

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/lmask/lmask/models"
	"github.com/lmask/lmask/models/features"
)

// TestGoMLXMatchesONNXRuntime exports a model with random weights, runs the
// exported encoder.onnx and decoder.onnx with onnxruntime_go, and compares
// them with the GoMLX graphs on the same inputs (allowed entries ≤ 1e-4).
func TestGoMLXMatchesONNXRuntime(t *testing.T) {
	lib := os.Getenv(models.ORTLibraryEnv)
	if lib == "" {
		t.Skipf("%s is not set; point it at libonnxruntime.so", models.ORTLibraryEnv)
	}
	if _, err := os.Stat(lib); err != nil {
		t.Skipf("%s=%s: %v", models.ORTLibraryEnv, lib, err)
	}
	ort.SetSharedLibraryPath(lib)
	if err := ort.InitializeEnvironment(); err != nil {
		t.Fatalf("initialise onnxruntime: %v", err)
	}
	defer ort.DestroyEnvironment()

	for _, tc := range []struct {
		problem string
		rie     bool
	}{{"tsptw", true}, {"tspdl", false}} {
		cfg := features.Config{Format: features.FormatPOMO, Problem: tc.problem, DModel: 32, Heads: 4, Layers: 2, FFN: 64, RIE: tc.rie}
		backend := os.Getenv("LMASK_PARITY_BACKEND") // "go" or "onnx" (default)
		m, err := models.New(cfg, backend, 17)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := m.Export(dir); err != nil {
			t.Fatal(err)
		}
		got, err := features.ReadConfig(dir)
		if err != nil || got != cfg {
			t.Fatalf("exported config %+v (%v), want %+v", got, err, cfg)
		}

		rng := rand.New(rand.NewPCG(31, 37))
		const b, n, r = 4, 11, 23
		d := cfg.DModel
		nodeFeat := make([]float32, b*n*4)
		for i := range nodeFeat {
			nodeFeat[i] = rng.Float32()
		}
		rowInst, current := make([]int64, r), make([]int64, r)
		stepFeat, mask := make([]float32, r*8), make([]bool, r*n)
		for i := 0; i < r; i++ {
			rowInst[i], current[i] = int64(rng.IntN(b)), int64(rng.IntN(n))
			features.StepFeaturesInto(stepFeat[i*8:(i+1)*8], rng.Float64(), 1, rng.IntN(6), rng.IntN(2) == 0)
			mask[i*n+rng.IntN(n)] = true
			for j := 0; j < n; j++ {
				mask[i*n+j] = mask[i*n+j] || rng.IntN(2) == 0
			}
		}

		enc, err := m.Encode(nodeFeat, b, n)
		if err != nil {
			t.Fatal(err)
		}
		emb, gk, gv, lk, err := enc.Host()
		if err != nil {
			t.Fatal(err)
		}
		logp, err := m.DecodeStep(enc, rowInst, current, stepFeat, mask, nil)
		if err != nil {
			t.Fatal(err)
		}
		enc.Release()

		ortEnc, ortLP := runORT(t, dir, b, n, r, d, nodeFeat, rowInst, current, stepFeat, mask)
		for i, want := range [][]float32{emb, gk, gv, lk} {
			assertClose(t, features.EncoderOutputs[i], ortEnc[i], want, nil)
		}
		assertClose(t, features.OutLogProbs, ortLP, logp, mask)
	}
}

func runORT(t *testing.T, dir string, b, n, r, d int, nodeFeat []float32, rowInst, current []int64, stepFeat []float32, mask []bool) ([4][]float32, []float32) {
	t.Helper()
	encS, err := ort.NewDynamicAdvancedSession(filepath.Join(dir, features.EncoderFile), []string{features.InNodeFeat}, features.EncoderOutputs, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer encS.Destroy()
	decS, err := ort.NewDynamicAdvancedSession(filepath.Join(dir, features.DecoderFile), features.DecoderInputs, []string{features.OutLogProbs}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer decS.Destroy()
	in, err := ort.NewTensor(ort.NewShape(int64(b), int64(n), 4), nodeFeat)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Destroy()
	var outs [4]*ort.Tensor[float32]
	vals := make([]ort.Value, 4)
	for i := range outs {
		if outs[i], err = ort.NewEmptyTensor[float32](ort.NewShape(int64(b), int64(n), int64(d))); err != nil {
			t.Fatal(err)
		}
		defer outs[i].Destroy()
		vals[i] = outs[i]
	}
	if err := encS.Run([]ort.Value{in}, vals); err != nil {
		t.Fatal(err)
	}
	ri, _ := ort.NewTensor(ort.NewShape(int64(r)), rowInst)
	cu, _ := ort.NewTensor(ort.NewShape(int64(r)), current)
	sf, _ := ort.NewTensor(ort.NewShape(int64(r), 8), stepFeat)
	mk, _ := ort.NewTensor(ort.NewShape(int64(r), int64(n)), mask)
	lp, _ := ort.NewEmptyTensor[float32](ort.NewShape(int64(r), int64(n)))
	for _, x := range []ort.Value{ri, cu, sf, mk, lp} {
		defer x.Destroy()
	}
	if err := decS.Run(append(vals, ri, cu, sf, mk), []ort.Value{lp}); err != nil {
		t.Fatal(err)
	}
	var enc [4][]float32
	for i := range outs {
		enc[i] = append([]float32(nil), outs[i].GetData()...)
	}
	return enc, append([]float32(nil), lp.GetData()...)
}

// assertClose compares got and want to 1e-4, skipping entries whose mask
// is false (both must then be below −1e8 or −inf).
func assertClose(t *testing.T, what string, got, want []float32, mask []bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	worst := 0.0
	for i := range got {
		if mask != nil && !mask[i] {
			if got[i] > -1e8 || want[i] > -1e8 {
				t.Fatalf("%s[%d]: masked entry %v / %v is not very negative", what, i, got[i], want[i])
			}
			continue
		}
		worst = math.Max(worst, math.Abs(float64(got[i])-float64(want[i])))
	}
	if worst > 1e-4 || math.IsNaN(worst) {
		t.Fatalf("%s: onnxruntime and GoMLX differ by %g", what, worst)
	}
	t.Logf("%s: max |diff| %.2g", what, worst)
}
