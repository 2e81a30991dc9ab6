package onnx

import (
	"fmt"
	"github.com/lmask/lmask/internal/atomicfile"
	"math"
	"os"
	"path/filepath"

	"github.com/lmask/lmask/models/features"
)

// Names of the dynamic dimensions of the LMask graphs.
const (
	DimBatch = "B" // encoded instances
	DimNodes = "N" // nodes per instance, depot included
	DimRows  = "R" // decoder rows (trajectories) of one step
)

// lmaskGraph wraps a Graph with the layer helpers of the LMask model.
type lmaskGraph struct {
	*Graph
	cfg features.Config
	w   features.Weights
}

// ExportEncoder returns the bytes of encoder.onnx for a model of config cfg
// with weights w: node_feat [B,N,4] → node_emb, glimpse_k, glimpse_v,
// logit_k, each [B,N,d].
func ExportEncoder(cfg features.Config, w features.Weights) (data []byte, err error) {
	if err := checkModel(cfg, w); err != nil {
		return nil, err
	}
	defer recoverBuild("encoder", &err)
	g := &lmaskGraph{Graph: NewGraph("lmask_encoder"), cfg: cfg, w: w}
	d := cfg.DModel
	b, n := Dynamic(DimBatch), Dynamic(DimNodes)
	x := g.Input(features.InNodeFeat, Float, b, n, Fixed(features.NodeFeatures))

	// Depot: Linear(2→d) on row 0, columns 0..1; other nodes: Linear(4→d).
	depot := g.Op("Slice", []string{x, g.Vector(0, 0), g.Vector(1, 2), g.Vector(1, 2)})
	depot = g.linear(depot, features.WDepotW, features.WDepotB)
	nodes := g.Op("Slice", []string{x, g.Vector(1), g.Vector(math.MaxInt64), g.Vector(1)})
	nodes = g.linear(nodes, features.WNodeW, features.WNodeB)
	h := g.Op("Concat", []string{depot, nodes}, AttrInt("axis", 1))

	for l := 0; l < cfg.Layers; l++ {
		h = g.encoderLayer(l, h)
	}
	g.OpTo("Identity", []string{h}, []string{features.OutNodeEmb})
	proj := g.Op("MatMul", []string{h, g.weight(features.WProjectNodes, 1)})
	g.OpTo("Split", []string{proj, g.Vector(int64(d), int64(d), int64(d))},
		[]string{features.OutGlimpseK, features.OutGlimpseV, features.OutLogitK}, AttrInt("axis", 2))
	for _, o := range features.EncoderOutputs {
		g.Output(o, Float, b, n, Fixed(d))
	}
	return Marshal(NewModel(g.Graph, cfg.Metadata()))
}

// encoderLayer adds one post-norm transformer layer:
// x = IN(x + MHA(x)); x = IN(x + FFN(x)).
func (g *lmaskGraph) encoderLayer(l int, x string) string {
	d, heads := g.cfg.DModel, g.cfg.Heads
	dh := d / heads
	name := func(s string) string { return features.LayerName(l, s) }

	// Fused q|k|v projection; 1/√dh is folded into the q columns.
	s := 1 / math.Sqrt(float64(dh))
	wqkv := concatColumns(scaled(g.w[name("mha/q/w")], s), g.w[name("mha/k/w")], g.w[name("mha/v/w")])
	bqkv := concatColumns(scaled(g.w[name("mha/q/b")], s), g.w[name("mha/k/b")], g.w[name("mha/v/b")])
	qkv := g.Op("MatMul", []string{x, g.Floats(name("mha/qkv/w"), wqkv.Shape, wqkv.Data)})
	qkv = g.Op("Add", []string{qkv, g.Floats(name("mha/qkv/b"), bqkv.Shape, bqkv.Data)})
	parts := g.OpN("Split", []string{qkv, g.Vector(int64(d), int64(d), int64(d))}, 3, AttrInt("axis", 2))
	headShape := g.Vector(0, 0, int64(heads), int64(dh))
	split := func(v string, perm ...int64) string {
		return g.Op("Transpose", []string{g.Op("Reshape", []string{v, headShape})}, AttrInts("perm", perm...))
	}
	q := split(parts[0], 0, 2, 1, 3)  // [B,H,N,dh]
	kT := split(parts[1], 0, 2, 3, 1) // [B,H,dh,N]
	v := split(parts[2], 0, 2, 1, 3)  // [B,H,N,dh]
	p := g.Op("Softmax", []string{g.Op("MatMul", []string{q, kT})}, AttrInt("axis", -1))
	o := g.Op("Transpose", []string{g.Op("MatMul", []string{p, v})}, AttrInts("perm", 0, 2, 1, 3))
	o = g.Op("Reshape", []string{o, g.Vector(0, 0, int64(d))})
	o = g.linear(o, name("mha/o/w"), name("mha/o/b"))
	x = g.instanceNorm(g.Op("Add", []string{x, o}), name("norm1/scale"), name("norm1/offset"))

	f := g.Op("Relu", []string{g.linear(x, name("ffn/w1"), name("ffn/b1"))})
	f = g.linear(f, name("ffn/w2"), name("ffn/b2"))
	return g.instanceNorm(g.Op("Add", []string{x, f}), name("norm2/scale"), name("norm2/offset"))
}

// instanceNorm normalises x [B,N,d] over the node axis per channel with
// biased variance, then applies the affine scale and offset.
func (g *lmaskGraph) instanceNorm(x, scale, offset string) string {
	axes := AttrInts("axes", 1)
	mean := g.Op("ReduceMean", []string{x}, axes, AttrInt("keepdims", 1))
	c := g.Op("Sub", []string{x, mean})
	v := g.Op("ReduceMean", []string{g.Op("Mul", []string{c, c})}, axes, AttrInt("keepdims", 1))
	std := g.Op("Sqrt", []string{g.Op("Add", []string{v, g.Scalar(features.NormEps)})})
	f := g.Op("Mul", []string{g.Op("Reciprocal", []string{std}), g.weight(scale, 1)}) // [B,1,d]
	return g.Op("Add", []string{g.Op("Mul", []string{c, f}), g.weight(offset, 1)})
}

// ExportDir writes encoder.onnx, decoder.onnx and config.json into dir
// (created if missing), each atomically.
func ExportDir(dir string, cfg features.Config, w features.Weights) error {
	enc, err := ExportEncoder(cfg, w)
	if err != nil {
		return err
	}
	dec, err := ExportDecoder(cfg, w)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("export model: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, features.EncoderFile), enc); err != nil {
		return err
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, features.DecoderFile), dec); err != nil {
		return err
	}
	return features.WriteConfig(dir, cfg)
}

// linear adds x·W + b (b omitted when bias is empty) with W and b taken
// from the weights by canonical name.
func (g *lmaskGraph) linear(x, weight, bias string) string {
	y := g.Op("MatMul", []string{x, g.weight(weight, 1)})
	if bias == "" {
		return y
	}
	return g.Op("Add", []string{y, g.weight(bias, 1)})
}

// weight adds the named parameter, multiplied by s, as an initializer.
func (g *lmaskGraph) weight(name string, s float64) string {
	t := scaled(g.w[name], s)
	return g.Floats(name, t.Shape, t.Data)
}

func checkModel(cfg features.Config, w features.Weights) error {
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("export onnx: %w", err)
	}
	if err := w.Check(cfg); err != nil {
		return fmt.Errorf("export onnx: %w", err)
	}
	return nil
}

// recoverBuild turns a graph-construction panic (a bug in the exporter)
// into an error.
func recoverBuild(what string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("export onnx %s: %v", what, r)
	}
}

// scaled returns a copy of t multiplied by s (t itself when s is 1).
func scaled(t features.Tensor, s float64) features.Tensor {
	if s == 1 {
		return t
	}
	out := features.Tensor{Shape: t.Shape, Data: make([]float32, len(t.Data))}
	for i, v := range t.Data {
		out.Data[i] = float32(float64(v) * s)
	}
	return out
}

// concatColumns joins matrices [in,a], [in,b], … into [in,a+b+…], or
// vectors [a], [b], … into [a+b+…].
func concatColumns(ts ...features.Tensor) features.Tensor {
	rows := 1
	if len(ts[0].Shape) == 2 {
		rows = ts[0].Shape[0]
	}
	cols := 0
	for _, t := range ts {
		cols += t.Shape[len(t.Shape)-1]
	}
	out := features.Tensor{Data: make([]float32, 0, rows*cols)}
	for r := 0; r < rows; r++ {
		for _, t := range ts {
			c := t.Shape[len(t.Shape)-1]
			out.Data = append(out.Data, t.Data[r*c:(r+1)*c]...)
		}
	}
	if len(ts[0].Shape) == 2 {
		out.Shape = []int{rows, cols}
	} else {
		out.Shape = []int{cols}
	}
	return out
}
