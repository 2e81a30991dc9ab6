package onnx

import (
	"encoding/binary"
	"fmt"
	"github.com/lmask/lmask/internal/atomicfile"
	"math"
	"sort"

	"google.golang.org/protobuf/proto"

	"github.com/lmask/lmask/models/features"
)

// Version stamps of the files this package writes.
const (
	// IRVersion is the ONNX IR version written into every model.
	IRVersion = 8
	// OpsetVersion is the default-domain operator-set version imported.
	OpsetVersion = 17
	// Producer is the producer_name written into every model.
	Producer = "lmask"
)

// Element types used by the builder (values of TensorProto.DataType).
const (
	Float = TensorProto_FLOAT
	Int64 = TensorProto_INT64
	Bool  = TensorProto_BOOL
)

// Dim is one dimension of a graph input or output: a fixed size, or a
// named dynamic size when Param is not empty.
type Dim struct {
	Value int64
	Param string
}

// Fixed returns a dimension of size n.
func Fixed(n int) Dim { return Dim{Value: int64(n)} }

// Dynamic returns a dimension named name whose size is set at run time.
func Dynamic(name string) Dim { return Dim{Param: name} }

// Graph builds one ONNX graph. Node outputs get unique generated names
// unless the caller names them. The zero value is not usable; use NewGraph.
type Graph struct {
	proto *GraphProto
	used  map[string]bool
	seq   int
}

// NewGraph returns an empty graph called name.
func NewGraph(name string) *Graph {
	return &Graph{proto: &GraphProto{Name: name}, used: map[string]bool{}}
}

// Proto returns the graph built so far.
func (g *Graph) Proto() *GraphProto { return g.proto }

func (g *Graph) claim(name string) string {
	if g.used[name] {
		panic(fmt.Sprintf("onnx graph %q: value name %q used twice", g.proto.Name, name))
	}
	g.used[name] = true
	return name
}

// fresh returns a value name with the given prefix that is not in use
// yet; the caller claims it.
func (g *Graph) fresh(prefix string) string {
	for {
		g.seq++
		n := fmt.Sprintf("%s_%d", prefix, g.seq)
		if !g.used[n] {
			return n
		}
	}
}

func valueInfo(name string, elem TensorProto_DataType, dims []Dim) *ValueInfoProto {
	shape := &TensorShapeProto{}
	for _, d := range dims {
		dim := &TensorShapeProto_Dimension{}
		if d.Param != "" {
			dim.Value = &TensorShapeProto_Dimension_DimParam{DimParam: d.Param}
		} else {
			dim.Value = &TensorShapeProto_Dimension_DimValue{DimValue: d.Value}
		}
		shape.Dim = append(shape.Dim, dim)
	}
	return &ValueInfoProto{Name: name, Type: &TypeProto{Value: &TypeProto_TensorType{
		TensorType: &TypeProto_Tensor{ElemType: int32(elem), Shape: shape}}}}
}

// Input declares a graph input and returns its name.
func (g *Graph) Input(name string, elem TensorProto_DataType, dims ...Dim) string {
	g.proto.Input = append(g.proto.Input, valueInfo(g.claim(name), elem, dims))
	return name
}

// Output declares the existing value name as a graph output.
func (g *Graph) Output(name string, elem TensorProto_DataType, dims ...Dim) {
	if !g.used[name] {
		panic(fmt.Sprintf("onnx graph %q: output %q is not produced", g.proto.Name, name))
	}
	g.proto.Output = append(g.proto.Output, valueInfo(name, elem, dims))
}

// Floats adds a float32 initializer of the given shape (data stored as
// little-endian raw_data) and returns its name.
func (g *Graph) Floats(name string, dims []int, data []float32) string {
	if size(dims) != len(data) {
		panic(fmt.Sprintf("onnx initializer %q: shape %v holds %d values, got %d", name, dims, size(dims), len(data)))
	}
	raw := make([]byte, 4*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	g.proto.Initializer = append(g.proto.Initializer, &TensorProto{
		Name: g.claim(name), DataType: int32(Float), Dims: int64s(dims), RawData: raw})
	return name
}

// Int64s adds an int64 initializer of the given shape (little-endian
// raw_data) and returns its name.
func (g *Graph) Int64s(name string, dims []int, data []int64) string {
	if size(dims) != len(data) {
		panic(fmt.Sprintf("onnx initializer %q: shape %v holds %d values, got %d", name, dims, size(dims), len(data)))
	}
	raw := make([]byte, 8*len(data))
	for i, v := range data {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(v))
	}
	g.proto.Initializer = append(g.proto.Initializer, &TensorProto{
		Name: g.claim(name), DataType: int32(Int64), Dims: int64s(dims), RawData: raw})
	return name
}

// Scalar adds a rank-0 float32 initializer with a generated name.
func (g *Graph) Scalar(v float32) string { return g.Floats(g.fresh("const"), nil, []float32{v}) }

// Vector adds a rank-1 int64 initializer with a generated name.
func (g *Graph) Vector(v ...int64) string { return g.Int64s(g.fresh("const"), []int{len(v)}, v) }

// Op adds a node with one output, named automatically, and returns it.
func (g *Graph) Op(op string, inputs []string, attrs ...*AttributeProto) string {
	return g.OpN(op, inputs, 1, attrs...)[0]
}

// OpN adds a node with n automatically named outputs and returns them.
func (g *Graph) OpN(op string, inputs []string, n int, attrs ...*AttributeProto) []string {
	outs := make([]string, n)
	for i := range outs {
		outs[i] = g.claim(g.fresh(op))
	}
	g.node(op, inputs, outs, attrs)
	return outs
}

// OpTo adds a node whose outputs carry the given names (e.g. graph outputs).
func (g *Graph) OpTo(op string, inputs, outputs []string, attrs ...*AttributeProto) {
	for _, o := range outputs {
		g.claim(o)
	}
	g.node(op, inputs, outputs, attrs)
}

func (g *Graph) node(op string, inputs, outputs []string, attrs []*AttributeProto) {
	for _, in := range inputs {
		if in != "" && !g.used[in] {
			panic(fmt.Sprintf("onnx graph %q: %s input %q is not defined", g.proto.Name, op, in))
		}
	}
	g.proto.Node = append(g.proto.Node, &NodeProto{
		Name: fmt.Sprintf("%s_n%d", op, len(g.proto.Node)), OpType: op,
		Input: inputs, Output: outputs, Attribute: attrs})
}

// AttrInt returns an INT attribute.
func AttrInt(name string, v int64) *AttributeProto {
	return &AttributeProto{Name: name, Type: AttributeProto_INT, I: v}
}

// AttrInts returns an INTS attribute.
func AttrInts(name string, v ...int64) *AttributeProto {
	return &AttributeProto{Name: name, Type: AttributeProto_INTS, Ints: v}
}

// AttrFloat returns a FLOAT attribute.
func AttrFloat(name string, v float32) *AttributeProto {
	return &AttributeProto{Name: name, Type: AttributeProto_FLOAT, F: v}
}

// NewModel wraps graph g into a model stamped with IRVersion, OpsetVersion
// and Producer; metadata entries are written in key order.
func NewModel(g *Graph, metadata map[string]string) *ModelProto {
	// The producer version is the model's contract format where the
	// metadata names it, so format-1 files stay byte for byte as before.
	version := fmt.Sprint(features.FormatVersion)
	if f, ok := metadata[features.MetaFormat]; ok {
		version = f
	}
	m := &ModelProto{
		IrVersion:       IRVersion,
		OpsetImport:     []*OperatorSetIdProto{{Domain: "", Version: OpsetVersion}},
		ProducerName:    Producer,
		ProducerVersion: version,
		Graph:           g.proto,
	}
	keys := make([]string, 0, len(metadata))
	for k := range metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		m.MetadataProps = append(m.MetadataProps, &StringStringEntryProto{Key: k, Value: metadata[k]})
	}
	return m
}

// Marshal encodes a model deterministically: the same model gives the same
// bytes.
func Marshal(m *ModelProto) ([]byte, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("marshal onnx model: %w", err)
	}
	return b, nil
}

// Metadata returns the metadata_props of the ONNX model in data.
func Metadata(data []byte) (map[string]string, error) {
	var m ModelProto
	if err := proto.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("parse onnx model: %w", err)
	}
	md := make(map[string]string, len(m.MetadataProps))
	for _, kv := range m.MetadataProps {
		md[kv.Key] = kv.Value
	}
	return md, nil
}

// WriteFile marshals m and writes it to path atomically.
func WriteFile(path string, m *ModelProto) error {
	b, err := Marshal(m)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.WriteFile(path, b)
}

func size(dims []int) int {
	n := 1
	for _, d := range dims {
		n *= d
	}
	return n
}

func int64s(v []int) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}
