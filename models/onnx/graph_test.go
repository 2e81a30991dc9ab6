package onnx_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/lmask/lmask/models/features"
	"github.com/lmask/lmask/models/onnx"
)

func TestExportStampsVersionsAndMetadata(t *testing.T) {
	cfg := testConfig("tspdl", false)
	w := testWeights(cfg, 1)
	for _, export := range []func(features.Config, features.Weights) ([]byte, error){onnx.ExportEncoder, onnx.ExportDecoder} {
		data, err := export(cfg, w)
		if err != nil {
			t.Fatal(err)
		}
		var m onnx.ModelProto
		if err := proto.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		if m.IrVersion != 8 || len(m.OpsetImport) != 1 || m.OpsetImport[0].Version != 17 || m.OpsetImport[0].Domain != "" {
			t.Fatalf("ir %d opsets %v, want ir 8 and the default opset 17", m.IrVersion, m.OpsetImport)
		}
		md, err := onnx.Metadata(data)
		if err != nil {
			t.Fatal(err)
		}
		got, err := features.ConfigFromMetadata(md)
		if err != nil {
			t.Fatal(err)
		}
		if got != cfg {
			t.Fatalf("metadata gives config %+v, want %+v", got, cfg)
		}
		again, _ := export(cfg, w)
		if !bytes.Equal(data, again) {
			t.Fatal("exporting twice gives different bytes")
		}
	}
}

func TestDecoderSignature(t *testing.T) {
	cfg := testConfig("tsptw", true)
	data, err := onnx.ExportDecoder(cfg, testWeights(cfg, 2))
	if err != nil {
		t.Fatal(err)
	}
	var m onnx.ModelProto
	if err := proto.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range m.Graph.Input {
		names = append(names, in.Name)
	}
	if strings.Join(names, ",") != strings.Join(features.DecoderInputs, ",") {
		t.Fatalf("decoder inputs %v, want %v", names, features.DecoderInputs)
	}
	mask := m.Graph.Input[7].Type.GetTensorType()
	if mask.ElemType != int32(onnx.Bool) || mask.Shape.Dim[0].GetDimParam() != onnx.DimRows || mask.Shape.Dim[1].GetDimParam() != onnx.DimNodes {
		t.Fatalf("mask input type %v, want bool [R,N]", mask)
	}
	emb := m.Graph.Input[0].Type.GetTensorType()
	if emb.Shape.Dim[0].GetDimParam() != onnx.DimBatch || emb.Shape.Dim[2].GetDimValue() != int64(cfg.DModel) {
		t.Fatalf("node_emb input type %v, want f32 [B,N,%d]", emb, cfg.DModel)
	}
	if len(m.Graph.Output) != 1 || m.Graph.Output[0].Name != features.OutLogProbs {
		t.Fatalf("decoder outputs %v, want only %s", m.Graph.Output, features.OutLogProbs)
	}
}

func TestExportRejectsBadWeights(t *testing.T) {
	cfg := testConfig("tsptw", true)
	w := testWeights(cfg, 3)
	delete(w, features.WQueryB)
	if _, err := onnx.ExportEncoder(cfg, w); err == nil || !strings.Contains(err.Error(), "tensors") {
		t.Fatalf("missing tensor: err = %v", err)
	}
	w = testWeights(cfg, 3)
	w[features.WQueryW] = features.Tensor{Shape: []int{cfg.DModel + 1, cfg.DModel}, Data: make([]float32, (cfg.DModel+1)*cfg.DModel)}
	if _, err := onnx.ExportDecoder(cfg, w); err == nil || !strings.Contains(err.Error(), features.WQueryW) {
		t.Fatalf("query weights of a non-RIE shape: err = %v", err)
	}
	bad := cfg
	bad.Heads = 5
	if _, err := onnx.ExportDecoder(bad, testWeights(cfg, 3)); err == nil || !strings.Contains(err.Error(), "heads") {
		t.Fatalf("d_model 16 with 5 heads: err = %v", err)
	}
}

func TestExportDirWritesModel(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "model")
	cfg := testConfig("tspdl", true)
	w := testWeights(cfg, 4)
	if err := onnx.ExportDir(dir, cfg, w); err != nil {
		t.Fatal(err)
	}
	got, err := features.ReadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got != cfg {
		t.Fatalf("config.json gives %+v, want %+v", got, cfg)
	}
	enc, _ := onnx.ExportEncoder(cfg, w)
	onDisk, err := os.ReadFile(filepath.Join(dir, features.EncoderFile))
	if err != nil || !bytes.Equal(enc, onDisk) {
		t.Fatalf("encoder.onnx on disk differs from ExportEncoder (%v)", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Fatalf("model directory holds %d entries, want encoder, decoder and config only", len(entries))
	}
}

func TestGraphBuilderRawData(t *testing.T) {
	g := onnx.NewGraph("g")
	x := g.Input("x", onnx.Float, onnx.Dynamic("B"), onnx.Fixed(2))
	c := g.Floats("c", []int{2}, []float32{1.5, -2})
	i := g.Int64s("i", []int{1}, []int64{-3})
	g.OpTo("Add", []string{x, c}, []string{"y"})
	g.Output("y", onnx.Float, onnx.Dynamic("B"), onnx.Fixed(2))
	m := onnx.NewModel(g, map[string]string{"b": "2", "a": "1"})
	init := m.Graph.Initializer
	if !bytes.Equal(init[0].RawData, []byte{0, 0, 0xc0, 0x3f, 0, 0, 0, 0xc0}) {
		t.Fatalf("float raw data % x, want little-endian 1.5, -2", init[0].RawData)
	}
	if init[1].Name != i || !bytes.Equal(init[1].RawData, []byte{0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}) {
		t.Fatalf("int64 raw data % x, want little-endian -3", init[1].RawData)
	}
	if m.MetadataProps[0].Key != "a" || m.MetadataProps[1].Key != "b" {
		t.Fatalf("metadata order %v, want sorted keys", m.MetadataProps)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("reusing a value name did not panic")
		}
	}()
	g.Floats("c", []int{1}, []float32{0})
}
