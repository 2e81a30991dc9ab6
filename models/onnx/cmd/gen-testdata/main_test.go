package main

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/lmask/lmask/models/features"
)

// committed is where the generated models live in the repository.
const committed = "../../../../engine/testdata"

func TestCommittedModelsAreCurrent(t *testing.T) {
	tmp := t.TempDir()
	if err := generate(tmp); err != nil {
		t.Fatal(err)
	}
	for _, m := range tinyModels() {
		for _, f := range []string{features.EncoderFile, features.DecoderFile, features.ConfigFile, "MODEL_CARD.md"} {
			want, _ := os.ReadFile(filepath.Join(tmp, m.Dir, f))
			got, err := os.ReadFile(filepath.Join(committed, m.Dir, f))
			if err != nil {
				t.Fatalf("%v (run go generate ./models/onnx)", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s/%s is stale (run go generate ./models/onnx)", m.Dir, f)
			}
		}
	}
}

// TestCommittedModelsRunInORT loads every committed tiny model from disk,
// decodes one step for a batch in onnxruntime and compares it with the
// pure-Go reference of the same weights.
func TestCommittedModelsRunInORT(t *testing.T) {
	lib := os.Getenv("ONNXRUNTIME_SHARED_LIBRARY_PATH")
	if lib == "" {
		t.Skip("ONNXRUNTIME_SHARED_LIBRARY_PATH is not set; point it at libonnxruntime.so")
	}
	ort.SetSharedLibraryPath(lib)
	if err := ort.InitializeEnvironment(); err != nil {
		t.Fatal(err)
	}
	defer ort.DestroyEnvironment()
	const b, n, r = 2, 10, 3
	for _, m := range tinyModels() {
		dir := filepath.Join(committed, m.Dir)
		cfg, err := features.ReadConfig(dir)
		if err != nil {
			t.Fatal(err)
		}
		w := features.RandomWeights(cfg, m.Seed)
		rng := rand.New(rand.NewPCG(m.Seed, 3))
		feat := make([]float32, b*n*features.NodeFeatures)
		for i := range feat {
			feat[i] = float32(rng.Float64())
		}
		enc, err := ort.NewDynamicAdvancedSession(filepath.Join(dir, features.EncoderFile),
			[]string{features.InNodeFeat}, features.EncoderOutputs, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer enc.Destroy()
		dec, err := ort.NewDynamicAdvancedSession(filepath.Join(dir, features.DecoderFile),
			features.DecoderInputs, []string{features.OutLogProbs}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer dec.Destroy()
		in, _ := ort.NewTensor(ort.NewShape(b, n, features.NodeFeatures), feat)
		defer in.Destroy()
		encOut := make([]ort.Value, 4)
		if err := enc.Run([]ort.Value{in}, encOut); err != nil {
			t.Fatal(err)
		}
		rows, _ := ort.NewTensor(ort.NewShape(r), []int64{1, 0, 1})
		cur, _ := ort.NewTensor(ort.NewShape(r), []int64{0, 4, 7})
		step := make([]float32, r*features.StepFeatures)
		for k := 0; k < r; k++ {
			features.StepFeaturesInto(step[k*features.StepFeatures:], 0.1*float64(k), 1, k, k == 2)
		}
		stepT, _ := ort.NewTensor(ort.NewShape(r, features.StepFeatures), step)
		mask := make([]bool, r*n)
		for i := range mask {
			mask[i] = i%3 != 0
		}
		maskT, _ := ort.NewTensor(ort.NewShape(r, n), mask)
		out := make([]ort.Value, 1)
		if err := dec.Run(append(encOut, rows, cur, stepT, maskT), out); err != nil {
			t.Fatal(err)
		}
		got := out[0].(*ort.Tensor[float32]).GetData()
		for k, inst := range []int{1, 0, 1} {
			e, err := features.Encode(cfg, w, feat[inst*n*features.NodeFeatures:(inst+1)*n*features.NodeFeatures], n)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float32, n)
			if err := features.DecodeStep(cfg, w, e, []int{0, 4, 7}[k], step[k*features.StepFeatures:(k+1)*features.StepFeatures], mask[k*n:(k+1)*n], nil, want); err != nil {
				t.Fatal(err)
			}
			for j := 0; j < n; j++ {
				g, wv := float64(got[k*n+j]), float64(want[j])
				if math.IsInf(g, -1) != math.IsInf(wv, -1) || (!math.IsInf(wv, -1) && math.Abs(g-wv) > 1e-4) {
					t.Fatalf("%s row %d node %d: ORT %v, reference %v", m.Dir, k, j, g, wv)
				}
			}
		}
		for _, v := range append(encOut, out[0], in, rows, cur, stepT, maskT) {
			v.Destroy()
		}
	}
}
