package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/lmask/lmask/models/features"
)

// ReadWeights recovers the parameters of a model directory written by
// ExportDir (config.json, encoder.onnx, decoder.onnx), so that a shipped
// model can start a training run. The fused q|k|v projections are split
// again and the 1/√dh folded into q, the decoder's query and project_out is divided out; the decoder's
// rearranged blocks of project_nodes are not read, as the encoder holds
// project_nodes whole.
func ReadWeights(dir string) (features.Config, features.Weights, error) {
	cfg, err := features.ReadConfig(dir)
	if err != nil {
		return cfg, nil, err
	}
	inits := map[string]features.Tensor{}
	for _, f := range []string{features.EncoderFile, features.DecoderFile} {
		path := filepath.Join(dir, f)
		if err := readInitializers(path, inits); err != nil {
			return cfg, nil, err
		}
	}
	d := cfg.DModel
	w := features.Weights{}
	take := func(name string) (features.Tensor, error) {
		t, ok := inits[name]
		if !ok {
			return t, fmt.Errorf("read weights %s: no initializer %q", dir, name)
		}
		return t, nil
	}
	direct := []string{features.WDepotW, features.WDepotB, features.WNodeW, features.WNodeB,
		features.WProjectNodes, features.WQueryW, features.WQueryB, features.WProjectOut}
	for l := 0; l < cfg.Layers; l++ {
		for _, s := range []string{"mha/o/w", "mha/o/b", "norm1/scale", "norm1/offset", "ffn/w1", "ffn/b1",
			"ffn/w2", "ffn/b2", "norm2/scale", "norm2/offset"} {
			direct = append(direct, features.LayerName(l, s))
		}
	}
	// Format 2's additions are stored as they are.
	for _, sp := range cfg.Specs() {
		if strings.HasPrefix(sp.Name, "dec/reld/") || strings.HasPrefix(sp.Name, "dec/cand/") {
			direct = append(direct, sp.Name)
		}
	}
	for _, name := range direct {
		t, err := take(name)
		if err != nil {
			return cfg, nil, err
		}
		w[name] = t
	}
	s := 1 / math.Sqrt(float64(d/cfg.Heads))
	// The decoder folds 1/√dh into the query projection and 1/√d into
	// project_out.
	for name, f := range map[string]float64{features.WQueryW: s, features.WQueryB: s, features.WProjectOut: 1 / math.Sqrt(float64(d))} {
		t := w[name]
		t.Data = append([]float32(nil), t.Data...)
		for i := range t.Data {
			t.Data[i] = float32(float64(t.Data[i]) / f)
		}
		w[name] = t
	}
	for l := 0; l < cfg.Layers; l++ {
		for _, kind := range []string{"w", "b"} {
			t, err := take(features.LayerName(l, "mha/qkv/"+kind))
			if err != nil {
				return cfg, nil, err
			}
			parts, err := splitColumns(t, d)
			if err != nil {
				return cfg, nil, fmt.Errorf("read weights %s: %s: %w", dir, features.LayerName(l, "mha/qkv/"+kind), err)
			}
			for i := range parts[0].Data {
				parts[0].Data[i] = float32(float64(parts[0].Data[i]) / s)
			}
			for i, p := range []string{"q", "k", "v"} {
				w[features.LayerName(l, "mha/"+p+"/"+kind)] = parts[i]
			}
		}
	}
	if err := w.Check(cfg); err != nil {
		return cfg, nil, fmt.Errorf("read weights %s: %w", dir, err)
	}
	return cfg, w, nil
}

// readInitializers adds the float32 initializers of an ONNX file to out.
func readInitializers(path string, out map[string]features.Tensor) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var m ModelProto
	if err := proto.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("%s: not an ONNX model: %w", path, err)
	}
	if m.Graph == nil {
		return fmt.Errorf("%s: no graph", path)
	}
	for _, kv := range m.MetadataProps {
		if kv.Key == MetaQuantization {
			return fmt.Errorf("%s: an int8 copy for inference (%s); start from its float32 model", path, kv.Value)
		}
	}
	for _, t := range m.Graph.Initializer {
		if t.DataType != int32(Float) {
			continue
		}
		dims := make([]int, len(t.Dims))
		n := 1
		for i, v := range t.Dims {
			dims[i] = int(v)
			n *= int(v)
		}
		data := make([]float32, n)
		switch {
		case len(t.RawData) == 4*n:
			for i := range data {
				data[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.RawData[4*i:]))
			}
		case len(t.FloatData) == n:
			copy(data, t.FloatData)
		default:
			return fmt.Errorf("%s: initializer %q: shape %v but %d raw bytes and %d floats", path, t.Name, dims, len(t.RawData), len(t.FloatData))
		}
		out[t.Name] = features.Tensor{Shape: dims, Data: data}
	}
	return nil
}

// splitColumns splits [in,3d] (or [3d]) into three [in,d] (or [d]).
func splitColumns(t features.Tensor, d int) ([3]features.Tensor, error) {
	var out [3]features.Tensor
	cols := t.Shape[len(t.Shape)-1]
	if cols != 3*d {
		return out, fmt.Errorf("shape %v, want last dimension %d", t.Shape, 3*d)
	}
	rows := 1
	if len(t.Shape) == 2 {
		rows = t.Shape[0]
	}
	for k := range out {
		shape := []int{d}
		if len(t.Shape) == 2 {
			shape = []int{rows, d}
		}
		out[k] = features.Tensor{Shape: shape, Data: make([]float32, 0, rows*d)}
		for r := 0; r < rows; r++ {
			out[k].Data = append(out[k].Data, t.Data[r*cols+k*d:r*cols+(k+1)*d]...)
		}
	}
	return out, nil
}
