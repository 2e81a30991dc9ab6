package onnx_test

import (
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
)

// benchModel exports the reference-sized TSPTW model (d 128, 8 heads,
// 6 layers, ffn 512, RIE) and loads it in onnxruntime.
func benchModel(b *testing.B) (*ortModel, features.Config) {
	requireORT(b)
	cfg := features.DefaultConfig(lazymask.TSPTW)
	return newORTModel(b, cfg, features.RandomWeights(cfg, 1)), cfg
}

// BenchmarkORTEncoder encodes 128 instances of 51 nodes.
func BenchmarkORTEncoder(b *testing.B) {
	m, cfg := benchModel(b)
	c := newStepCase(1, 128, 51, 1)
	x := tensor(b, c.NodeFeat, 128, 51, features.NodeFeatures)
	outs := make([]ort.Value, 4)
	for i := range outs {
		outs[i] = tensor(b, make([]float32, 128*51*cfg.DModel), 128, 51, int64(cfg.DModel))
	}
	for range 3 { // the first runs grow onnxruntime's memory arena
		if err := m.enc.Run([]ort.Value{x}, outs); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		if err := m.enc.Run([]ort.Value{x}, outs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkORTDecoderStep runs one decoding step of 1024 rows over 128
// encoded instances of 51 nodes (8 rows per instance).
func BenchmarkORTDecoderStep(b *testing.B) {
	m, cfg := benchModel(b)
	const bi, n, r = 128, 51, 1024
	c := newStepCase(2, bi, n, r)
	d := int64(cfg.DModel)
	in := []ort.Value{}
	for range 4 {
		in = append(in, tensor(b, make([]float32, bi*n*cfg.DModel), bi, n, d))
	}
	in = append(in, tensor(b, c.RowInst, r), tensor(b, c.Current, r),
		tensor(b, c.StepFeat, r, features.StepFeatures), tensor(b, c.Mask, r, n))
	out := []ort.Value{tensor(b, make([]float32, r*n), r, n)}
	for range 3 { // the first runs grow onnxruntime's memory arena
		if err := m.dec.Run(in, out); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		if err := m.dec.Run(in, out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReferenceDecodeStep runs the pure-Go decoder for one row of a
// reference-sized model with 51 nodes.
func BenchmarkReferenceDecodeStep(b *testing.B) {
	cfg := features.DefaultConfig(lazymask.TSPTW)
	w := features.RandomWeights(cfg, 1)
	c := newStepCase(3, 1, 51, 1)
	e, err := features.Encode(cfg, w, c.NodeFeat, 51)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]float32, 51)
	b.ResetTimer()
	for range b.N {
		if err := features.DecodeStep(cfg, w, e, int(c.Current[0]), c.StepFeat, c.Mask, nil, dst); err != nil {
			b.Fatal(err)
		}
	}
}
