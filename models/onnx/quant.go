package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/lmask/lmask/internal/atomicfile"
	"github.com/lmask/lmask/internal/opterr"
	"github.com/lmask/lmask/models/features"
)

// Names used by the int8 rewrite.
const (
	// MSDomain is the operator domain of onnxruntime's contrib operators.
	MSDomain = "com.microsoft"
	// OpDynamicQuantizeMatMul is onnxruntime's contrib operator
	// Y = dequant(quant(A) · B) (+ bias): A float, quantised per tensor at
	// run time to uint8; B int8 with a float scale per column.
	OpDynamicQuantizeMatMul = "DynamicQuantizeMatMul"
	// MetaQuantization is the metadata key a quantised model carries.
	MetaQuantization = "lmask.quantization"
	// QuantInt8 is its value for the rewrite of QuantizeModel.
	QuantInt8 = "int8-dynamic: MatMul weights int8 symmetric per output column, activations uint8 per tensor at run time"
)

// QuantOptions choose which MatMuls QuantizeModel rewrites.
type QuantOptions struct {
	// MinInner keeps MatMuls whose weight has fewer rows (the inner
	// dimension) than this in float32; 0 means 16. The input layers of
	// the encoder (2 and 4 raw features: coordinates, windows, drafts)
	// are such products: a per-tensor 8-bit grid over raw features would
	// blur them, and they cost little.
	MinInner int
	// Decoder quantises decoder.onnx too (QuantizeDir). By default it is
	// copied as it is: its products are [R,d]·[d,d] per step, too small
	// for int8 to pay, and they feed the logits directly.
	Decoder bool
	// Keep leaves in float32 the products whose weight name contains any
	// of these strings (e.g. "ffn/w2").
	Keep []string
}

func (o QuantOptions) minInner() int {
	if o.MinInner <= 0 {
		return 16
	}
	return o.MinInner
}

// QuantizedMatMul describes one rewritten product.
type QuantizedMatMul struct {
	Weight     string  // the float32 initializer it replaced
	Rows, Cols int     // weight shape [inner, out]
	Bias       string  // the bias initializer folded in ("" if none)
	MaxRelErr  float64 // max over columns of max|W − dequant(q)| / max|W| of the column
	FloatBytes int     // bytes of the float32 weight
	Int8Bytes  int     // bytes of the int8 weight and its scales
}

// QuantReport lists what QuantizeModel rewrote and what it kept.
type QuantReport struct {
	Quantized []QuantizedMatMul
	// Kept names the MatMuls left in float32, each with the reason.
	Kept []string
}

// QuantizeModel returns a copy of m in which every MatMul whose second
// input is a constant rank-2 float32 weight [K,N] (K ≥ MinInner) runs as
// onnxruntime's DynamicQuantizeMatMul (domain com.microsoft): the weight is
// stored as int8, symmetric, with one scale per output column (max|W[:,j]|
// / 127), and the activation is quantised per tensor to uint8 when the
// graph runs. A bias Add that follows such a MatMul as its only consumer
// is folded into the operator. Products of two run-time values (attention)
// and rank-3 weights stay float32. m itself is not changed. The model
// metadata gains MetaQuantization; its contract inputs and outputs are
// unchanged, so the engine opens it as it opens the float model.
func QuantizeModel(m *ModelProto, opts QuantOptions) (*ModelProto, QuantReport, error) {
	var rep QuantReport
	if m.GetGraph() == nil {
		return nil, rep, fmt.Errorf("quantize: model has no graph")
	}
	for _, kv := range m.MetadataProps {
		if kv.Key == MetaQuantization {
			return nil, rep, fmt.Errorf("quantize: model is already quantised (%s = %q)", MetaQuantization, kv.Value)
		}
	}
	out := proto.Clone(m).(*ModelProto)
	g := out.Graph
	inits := map[string]*TensorProto{}
	for _, t := range g.Initializer {
		inits[t.Name] = t
	}
	consumers := map[string]int{}
	for _, n := range g.Node {
		for _, in := range n.Input {
			consumers[in]++
		}
	}
	graphOut := map[string]bool{}
	for _, o := range g.Output {
		graphOut[o.Name] = true
	}
	consumerOf := map[string]int{} // value → index of its (single) consumer
	for i, n := range g.Node {
		for _, in := range n.Input {
			consumerOf[in] = i
		}
	}

	removed := map[int]bool{}
	newInits := []*TensorProto{}
	quantised := map[string][2]string{} // float weight → int8 name, scale name
	for i, n := range g.Node {
		if n.OpType != "MatMul" || n.Domain != "" || len(n.Input) != 2 {
			continue
		}
		w, ok := inits[n.Input[1]]
		if !ok {
			continue // a product of run-time values
		}
		if w.DataType != int32(Float) || len(w.Dims) != 2 {
			rep.Kept = append(rep.Kept, fmt.Sprintf("%s (weight shape %v, not a rank-2 float32 matrix)", w.Name, w.Dims))
			continue
		}
		if kept := slices.IndexFunc(opts.Keep, func(k string) bool { return strings.Contains(w.Name, k) }); kept >= 0 {
			rep.Kept = append(rep.Kept, fmt.Sprintf("%s (kept: %q)", w.Name, opts.Keep[kept]))
			continue
		}
		rows, cols := int(w.Dims[0]), int(w.Dims[1])
		if rows < opts.minInner() {
			rep.Kept = append(rep.Kept, fmt.Sprintf("%s (inner dimension %d < %d)", w.Name, rows, opts.minInner()))
			continue
		}
		data, err := floatData(w)
		if err != nil {
			return nil, rep, fmt.Errorf("quantize: %w", err)
		}
		if k := slices.IndexFunc(data, func(v float32) bool { return math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) }); k >= 0 {
			return nil, rep, fmt.Errorf("quantize: weight %q holds %v at index %d", w.Name, data[k], k)
		}
		names, done := quantised[w.Name]
		q := QuantizedMatMul{Weight: w.Name, Rows: rows, Cols: cols, FloatBytes: 4 * rows * cols, Int8Bytes: rows*cols + 4*cols}
		if !done {
			qdata, scales, relErr := quantizeColumns(data, rows, cols)
			q.MaxRelErr = relErr
			names = [2]string{w.Name + "/int8", w.Name + "/int8_scale"}
			raw := make([]byte, len(qdata))
			for k, v := range qdata {
				raw[k] = byte(v)
			}
			newInits = append(newInits, &TensorProto{Name: names[0], DataType: int32(TensorProto_INT8), Dims: []int64{int64(rows), int64(cols)}, RawData: raw})
			sraw := make([]byte, 4*cols)
			for k, v := range scales {
				binary.LittleEndian.PutUint32(sraw[4*k:], math.Float32bits(v))
			}
			newInits = append(newInits, &TensorProto{Name: names[1], DataType: int32(Float), Dims: []int64{int64(cols)}, RawData: sraw})
			quantised[w.Name] = names
		}
		inputs := []string{n.Input[0], names[0], names[1]}
		output := n.Output[0]
		// Fold a following bias Add when the product feeds only it.
		if consumers[output] == 1 && !graphOut[output] {
			j := consumerOf[output]
			a := g.Node[j]
			if a.OpType == "Add" && a.Domain == "" && len(a.Input) == 2 {
				other := a.Input[0]
				if other == output {
					other = a.Input[1]
				}
				if b, ok := inits[other]; ok && b.DataType == int32(Float) && len(b.Dims) == 1 && int(b.Dims[0]) == cols {
					inputs = append(inputs, "", other)
					q.Bias = other
					output = a.Output[0]
					removed[j] = true
				}
			}
		}
		g.Node[i] = &NodeProto{Name: n.Name + "_int8", OpType: OpDynamicQuantizeMatMul, Domain: MSDomain,
			Input: inputs, Output: []string{output}}
		rep.Quantized = append(rep.Quantized, q)
	}
	if len(rep.Quantized) == 0 {
		return nil, rep, fmt.Errorf("quantize: no MatMul with a constant rank-2 weight of at least %d rows", opts.minInner())
	}
	nodes := g.Node[:0]
	for i, n := range g.Node {
		if !removed[i] {
			nodes = append(nodes, n)
		}
	}
	g.Node = nodes
	// Drop the float initializers nothing reads any more.
	used := map[string]bool{}
	for _, n := range g.Node {
		for _, in := range n.Input {
			used[in] = true
		}
	}
	for _, o := range g.Output {
		used[o.Name] = true
	}
	keep := g.Initializer[:0]
	for _, t := range g.Initializer {
		if used[t.Name] {
			keep = append(keep, t)
		}
	}
	g.Initializer = append(keep, newInits...)
	hasMS := false
	for _, op := range out.OpsetImport {
		if op.Domain == MSDomain {
			hasMS = true
		}
	}
	if !hasMS {
		out.OpsetImport = append(out.OpsetImport, &OperatorSetIdProto{Domain: MSDomain, Version: 1})
	}
	out.MetadataProps = append(out.MetadataProps, &StringStringEntryProto{Key: MetaQuantization, Value: QuantInt8})
	return out, rep, nil
}

// quantizeColumns quantises a row-major [rows,cols] matrix to int8 with one
// symmetric scale per column, returning the values, the scales and the
// largest error of a column relative to its largest magnitude.
func quantizeColumns(w []float32, rows, cols int) ([]int8, []float32, float64) {
	q := make([]int8, len(w))
	scales := make([]float32, cols)
	worst := 0.0
	for j := 0; j < cols; j++ {
		m := 0.0
		for i := 0; i < rows; i++ {
			m = math.Max(m, math.Abs(float64(w[i*cols+j])))
		}
		s := float32(m / 127)
		if m == 0 {
			s = 1
		}
		scales[j] = s
		colErr := 0.0
		for i := 0; i < rows; i++ {
			v := math.RoundToEven(float64(w[i*cols+j]) / float64(s))
			v = math.Max(-127, math.Min(127, v))
			q[i*cols+j] = int8(v)
			colErr = math.Max(colErr, math.Abs(float64(w[i*cols+j])-v*float64(s)))
		}
		if m > 0 {
			worst = math.Max(worst, colErr/m)
		}
	}
	return q, scales, worst
}

// floatData returns the values of a float32 initializer.
func floatData(t *TensorProto) ([]float32, error) {
	n := 1
	for _, d := range t.Dims {
		n *= int(d)
	}
	switch {
	case len(t.RawData) == 4*n:
		out := make([]float32, n)
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.RawData[4*i:]))
		}
		return out, nil
	case len(t.FloatData) == n:
		return append([]float32(nil), t.FloatData...), nil
	}
	return nil, fmt.Errorf("initializer %q: shape %v but %d raw bytes and %d floats", t.Name, t.Dims, len(t.RawData), len(t.FloatData))
}

// QuantizeFile reads the ONNX model at in and returns its int8 rewrite
// (QuantizeModel); errors name the file.
func QuantizeFile(in string, opts QuantOptions) (*ModelProto, QuantReport, error) {
	b, err := os.ReadFile(in)
	if err != nil {
		return nil, QuantReport{}, err
	}
	var m ModelProto
	if err := proto.Unmarshal(b, &m); err != nil {
		return nil, QuantReport{}, fmt.Errorf("%s: not an ONNX model: %w", in, err)
	}
	q, rep, err := QuantizeModel(&m, opts)
	if err != nil {
		return nil, rep, fmt.Errorf("%s: %w", in, err)
	}
	return q, rep, nil
}

// QuantizeDir writes the int8 rewrite of the model directory in (encoder.onnx,
// decoder.onnx, config.json) into out: both graphs quantised, config.json
// copied, and a MODEL_CARD.md that states what was quantised above the
// input's card. out must not be in, and must not hold a model already
// (unless force); every file is written atomically, and nothing is written
// when either graph fails to convert.
func QuantizeDir(in, out string, opts QuantOptions, force bool) (map[string]QuantReport, error) {
	ai, err := filepath.Abs(in)
	if err != nil {
		return nil, err
	}
	ao, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	if ai == ao {
		return nil, fmt.Errorf("quantize: %w", opterr.New("Out", out, "is the input model directory; the float32 model is never replaced"))
	}
	if _, err := features.ReadConfig(in); err != nil {
		return nil, fmt.Errorf("quantize %s: %w", in, err)
	}
	if !force {
		for _, f := range []string{features.EncoderFile, features.DecoderFile, features.ConfigFile} {
			if _, err := os.Stat(filepath.Join(out, f)); err == nil {
				return nil, fmt.Errorf("quantize: %w", opterr.New("Out", out, "already holds %s; pass %v to replace it", f, opterr.Name("Force")))
			}
		}
	}
	reports := map[string]QuantReport{}
	files := map[string][]byte{}
	for _, f := range []string{features.EncoderFile, features.DecoderFile} {
		if f == features.DecoderFile && !opts.Decoder {
			b, err := os.ReadFile(filepath.Join(in, f))
			if err != nil {
				return nil, err
			}
			files[f] = b
			reports[f] = QuantReport{}
			continue
		}
		m, rep, err := QuantizeFile(filepath.Join(in, f), opts)
		if err != nil {
			return nil, err
		}
		b, err := Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(in, f), err)
		}
		files[f] = b
		reports[f] = rep
	}
	cfgBytes, err := os.ReadFile(filepath.Join(in, features.ConfigFile))
	if err != nil {
		return nil, err
	}
	files[features.ConfigFile] = cfgBytes
	card, _ := os.ReadFile(filepath.Join(in, features.ModelCardFile))
	files[features.ModelCardFile] = quantCard(in, reports, card)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("quantize: %w", err)
	}
	for _, f := range []string{features.EncoderFile, features.DecoderFile, features.ConfigFile, features.ModelCardFile} {
		if err := atomicfile.WriteFile(filepath.Join(out, f), files[f]); err != nil {
			return nil, err
		}
	}
	return reports, nil
}

// quantCard is the MODEL_CARD.md of a quantised copy: what was quantised,
// then the float model's card.
func quantCard(in string, reports map[string]QuantReport, orig []byte) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# int8 copy of %s\n\n", filepath.Base(filepath.Clean(in)))
	which := "encoder.onnx's"
	if reports[features.DecoderFile].Quantized != nil {
		which = "encoder.onnx's and decoder.onnx's"
	}
	fmt.Fprintf(&b, "The float32 model of `%s` with %s weight products quantised by `lmask-train quantize`: every MatMul "+
		"with a constant weight matrix of at least 16 rows runs as onnxruntime's `DynamicQuantizeMatMul` (com.microsoft): "+
		"the weight int8, symmetric, one scale per output column; the activation quantised per tensor to uint8 when "+
		"the graph runs; the bias that followed it folded in. Attention products (two run-time values), the input "+
		"layers (2 and 4 raw features), normalisation, softmax and the masks stay float32. It needs onnxruntime's "+
		"CPU provider (contrib operators), and it is a copy for inference only: `lmask-train` cannot resume from it.\n\n", in, which)
	b.WriteString("| file | quantised weights | float32 MB → int8 MB | worst column error (of the column's max) | kept float32 |\n|---|---|---|---|---|\n")
	for _, f := range []string{features.EncoderFile, features.DecoderFile} {
		r := reports[f]
		if r.Quantized == nil {
			fmt.Fprintf(&b, "| %s | none | — | — | the whole graph, copied as it is |\n", f)
			continue
		}
		fb, ib, worst := 0, 0, 0.0
		for _, q := range r.Quantized {
			fb += q.FloatBytes
			ib += q.Int8Bytes
			worst = math.Max(worst, q.MaxRelErr)
		}
		kept := "none"
		if len(r.Kept) > 0 {
			kept = strings.Join(r.Kept, "; ")
		}
		fmt.Fprintf(&b, "| %s | %d | %.2f → %.2f | %.4f | %s |\n", f, len(r.Quantized), float64(fb)/1e6, float64(ib)/1e6, worst, kept)
	}
	if len(orig) > 0 {
		b.WriteString("\n## The float32 model's card\n\n")
		// Demote the original headings one level below this card's.
		for _, line := range strings.SplitAfter(string(orig), "\n") {
			if strings.HasPrefix(line, "#") {
				line = "#" + line
			}
			b.WriteString(line)
		}
	}
	return []byte(b.String())
}
