package trainer

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmask/lmask/models/features"
	"github.com/lmask/lmask/models/onnx"
)

// TestKeepLayers: the kept layers carry their values to their new indices,
// the input layers and the decoder are copied, and bad lists are refused.
func TestKeepLayers(t *testing.T) {
	cfg := features.Config{Format: features.FormatPOMO, Problem: "tsptw", DModel: 16, Heads: 2, Layers: 4, FFN: 32, RIE: true}
	w := features.DenseRandomWeights(cfg, 7)
	small, sw, err := KeepLayers(cfg, w, []int{0, 3})
	if err != nil {
		t.Fatal(err)
	}
	if small.Layers != 2 || small.DModel != 16 || small.FFN != 32 {
		t.Fatalf("config %+v", small)
	}
	for _, s := range []string{"mha/q/w", "mha/v/b", "mha/o/w", "ffn/w1", "ffn/b2", "norm2/scale"} {
		for i, from := range []int{0, 3} {
			got, want := sw[features.LayerName(i, s)], w[features.LayerName(from, s)]
			if len(got.Data) != len(want.Data) || len(got.Data) == 0 {
				t.Fatalf("%s of layer %d: %d values, want %d", s, i, len(got.Data), len(want.Data))
			}
			for k := range got.Data {
				if got.Data[k] != want.Data[k] {
					t.Fatalf("%s of new layer %d [%d] = %v, want old layer %d's %v", s, i, k, got.Data[k], from, want.Data[k])
				}
			}
		}
	}
	// Layer 1 of the result is old layer 3, not old layer 1.
	if a, b := sw[features.LayerName(1, "ffn/w1")].Data[0], w[features.LayerName(1, "ffn/w1")].Data[0]; a == b {
		t.Errorf("new layer 1 holds old layer 1's ffn/w1[0] %v", a)
	}
	for _, name := range []string{features.WNodeW, features.WDepotB, features.WProjectNodes, features.WQueryW, features.WProjectOut} {
		if got, want := sw[name].Data[1], w[name].Data[1]; got != want {
			t.Errorf("%s[1] = %v, want %v", name, got, want)
		}
	}
	if _, ok := sw[features.LayerName(2, "ffn/w1")]; ok {
		t.Error("a third layer is left in the weights")
	}
	for _, bad := range [][]int{nil, {0, 1, 2, 3}, {1, 1}, {2, 1}, {0, 4}, {-1}} {
		if _, _, err := KeepLayers(cfg, w, bad); err == nil || !strings.Contains(err.Error(), "Keep") {
			t.Errorf("keep %v: err %v", bad, err)
		}
	}
}

// TestShrinkModel: a model directory shrinks to one whose ONNX files hold
// the kept layers, which a run can start from; the input is never the output.
func TestShrinkModel(t *testing.T) {
	src := tinyConfig(t, 3)
	src.Model.Layers = 3
	a := trainRun(t, src, Options{Dir: t.TempDir()})
	model := filepath.Join(t.TempDir(), "teacher")
	if err := a.Export(model); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "student")
	if err := ShrinkModel(model, []int{0, 2}, out); err != nil {
		t.Fatal(err)
	}
	_, wa, err := onnx.ReadWeights(model)
	if err != nil {
		t.Fatal(err)
	}
	cs, ws, err := onnx.ReadWeights(out)
	if err != nil {
		t.Fatal(err)
	}
	if cs.Layers != 2 {
		t.Fatalf("student has %d layers, want 2", cs.Layers)
	}
	for i, from := range []int{0, 2} {
		got, want := ws[features.LayerName(i, "ffn/w2")], wa[features.LayerName(from, "ffn/w2")]
		for k := range want.Data {
			if got.Data[k] != want.Data[k] {
				t.Fatalf("student layer %d ffn/w2[%d] = %v, teacher layer %d's %v", i, k, got.Data[k], from, want.Data[k])
			}
		}
	}
	// The same from the run's checkpoint.
	out2 := filepath.Join(t.TempDir(), "student2")
	if err := ShrinkModel(a.opt.Dir, []int{0, 2}, out2); err != nil {
		t.Fatal(err)
	}
	if _, w2, err := onnx.ReadWeights(out2); err != nil || w2[features.WQueryW].Data[3] != ws[features.WQueryW].Data[3] {
		t.Errorf("checkpoint and model directory shrink differently (err %v)", err)
	}
	small := tinyConfig(t, 1)
	small.Model.Layers = 2
	if _, err := New(small, Options{Dir: t.TempDir(), InitFrom: out}); err != nil {
		t.Errorf("init-from the shrunk model: %v", err)
	}
	if err := ShrinkModel(model, []int{0, 2}, model); err == nil || !strings.Contains(err.Error(), "Out") {
		t.Errorf("shrink onto its input: err %v", err)
	}
	if err := ShrinkModel(model, []int{1}, out); err == nil || !strings.Contains(err.Error(), "already holds a model") {
		t.Errorf("shrink onto a model: err %v", err)
	}
}
