package onnx

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/lmask/lmask/models/features"
)

// TestQuantizeModelRewritesWeightProducts: on an exported encoder every
// MatMul with a constant weight of at least 16 rows becomes one
// DynamicQuantizeMatMul with its bias folded in, its int8 weight times the
// column scales is the float weight to half a step, the input model is
// untouched, and the rewrite is refused a second time.
func TestQuantizeModelRewritesWeightProducts(t *testing.T) {
	cfg := features.DefaultConfig(1)
	cfg.Layers, cfg.DModel, cfg.Heads, cfg.FFN, cfg.TrainSize = 2, 32, 4, 64, 20
	w := features.DenseRandomWeights(cfg, 3)
	enc, err := ExportEncoder(cfg, w)
	if err != nil {
		t.Fatal(err)
	}
	var m ModelProto
	if err := proto.Unmarshal(enc, &m); err != nil {
		t.Fatal(err)
	}
	q, rep, err := QuantizeModel(&m, QuantOptions{Keep: []string{"ffn/w2"}})
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := Marshal(&m); !bytes.Equal(again, enc) {
		t.Fatal("QuantizeModel changed its input")
	}
	// Per layer q|k|v, o and ffn/w1 (ffn/w2 kept), then project_nodes.
	if len(rep.Quantized) != 3*cfg.Layers+1 {
		t.Fatalf("%d products quantised, want %d: %+v", len(rep.Quantized), 3*cfg.Layers+1, rep.Quantized)
	}
	var keptW2, keptInput int
	for _, k := range rep.Kept {
		if strings.Contains(k, "ffn/w2") {
			keptW2++
		}
		if strings.Contains(k, "init/") {
			keptInput++
		}
	}
	if keptW2 != cfg.Layers || keptInput != 2 {
		t.Fatalf("kept %v", rep.Kept)
	}
	ops := map[string]int{}
	for _, n := range q.Graph.Node {
		ops[n.OpType]++
		if n.OpType == OpDynamicQuantizeMatMul && n.Domain != MSDomain {
			t.Fatalf("node %s in domain %q", n.Name, n.Domain)
		}
	}
	// Encoder MatMuls: 2 input layers, per layer qkv, 2 attention, o, w1, w2, and project_nodes.
	if ops[OpDynamicQuantizeMatMul] != 7 || ops["MatMul"] != 2+cfg.Layers*3 {
		t.Fatalf("op counts %v", ops)
	}
	folded := 0
	for _, qm := range rep.Quantized {
		if qm.Bias != "" {
			folded++
		}
	}
	if folded != 3*cfg.Layers { // q|k|v, o, w1 have biases; project_nodes none
		t.Fatalf("%d biases folded, want %d", folded, 3*cfg.Layers)
	}
	inits := map[string]*TensorProto{}
	for _, ti := range q.Graph.Initializer {
		inits[ti.Name] = ti
	}
	name := features.LayerName(1, "ffn/w1")
	qw, sc := inits[name+"/int8"], inits[name+"/int8_scale"]
	if qw == nil || sc == nil || inits[name] != nil {
		t.Fatalf("initializers of %s: int8 %v, scale %v, float kept %v", name, qw != nil, sc != nil, inits[name] != nil)
	}
	orig := w[name]
	rows, cols := orig.Shape[0], orig.Shape[1]
	for j := 0; j < cols; j++ {
		s := math.Float32frombits(binary.LittleEndian.Uint32(sc.RawData[4*j:]))
		for i := 0; i < rows; i++ {
			v := float64(int8(qw.RawData[i*cols+j])) * float64(s)
			if d := math.Abs(v - float64(orig.Data[i*cols+j])); d > float64(s)/2+1e-7 {
				t.Fatalf("%s[%d,%d]: %v dequantised to %v (scale %v)", name, i, j, orig.Data[i*cols+j], v, s)
			}
		}
	}
	hasMS := false
	for _, op := range q.OpsetImport {
		hasMS = hasMS || op.Domain == MSDomain
	}
	if !hasMS {
		t.Fatal("no com.microsoft opset import")
	}
	if _, _, err := QuantizeModel(q, QuantOptions{}); err == nil || !strings.Contains(err.Error(), "already quantised") {
		t.Fatalf("second rewrite: %v", err)
	}
	// A weight that is not finite is refused by name.
	var mb ModelProto
	if err := proto.Unmarshal(enc, &mb); err != nil {
		t.Fatal(err)
	}
	for _, ti := range mb.Graph.Initializer {
		if ti.Name == name {
			binary.LittleEndian.PutUint32(ti.RawData[20:], math.Float32bits(float32(math.Inf(1))))
		}
	}
	if _, _, err := QuantizeModel(&mb, QuantOptions{}); err == nil || !strings.Contains(err.Error(), name) {
		t.Fatalf("a NaN weight: %v", err)
	}
}

// TestReadWeightsRefusesInt8Copy: training cannot start from an int8 copy,
// and the error names the file.
func TestReadWeightsRefusesInt8Copy(t *testing.T) {
	cfg := features.DefaultConfig(1)
	cfg.Layers, cfg.DModel, cfg.Heads, cfg.FFN, cfg.TrainSize = 1, 16, 2, 32, 10
	dir, q := t.TempDir(), filepath.Join(t.TempDir(), "int8")
	if err := ExportDir(dir, cfg, features.DenseRandomWeights(cfg, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := QuantizeDir(dir, q, QuantOptions{}, false); err != nil {
		t.Fatal(err)
	}
	_, _, err := ReadWeights(q)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(q, features.EncoderFile)) || !strings.Contains(err.Error(), "int8") {
		t.Fatalf("ReadWeights of an int8 copy: %v", err)
	}
}

// TestShippedInt8CopiesAreCurrent: every models/pretrained/<name>-int8 is
// what lmask-train quantize makes of models/pretrained/<name> now (graphs
// and config.json byte for byte), so a retrained network cannot ship with
// a stale int8 copy.
func TestShippedInt8CopiesAreCurrent(t *testing.T) {
	copies, _ := filepath.Glob(filepath.Join("..", "pretrained", "*-int8"))
	if len(copies) == 0 {
		t.Skip("no shipped int8 copies under models/pretrained")
	}
	for _, q := range copies {
		base := strings.TrimSuffix(q, "-int8")
		out := filepath.Join(t.TempDir(), "q")
		if _, err := QuantizeDir(base, out, QuantOptions{}, false); err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		for _, f := range []string{features.EncoderFile, features.DecoderFile, features.ConfigFile} {
			want, err := os.ReadFile(filepath.Join(out, f))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(q, f))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the int8 copy of %s (rerun lmask-train quantize --force --model %s --out %s)",
					filepath.Join(q, f), base, base, q)
			}
		}
	}
}
