package models

import (
	"fmt"
	"hash/fnv"
	"math"
	"strings"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/lmask/lmask/models/features"
)

// MaskedLogit is the value that replaces the attention scores and pointer
// logits of masked nodes before a softmax.
const MaskedLogit = -1e9

// scopeAt descends from scope into the "/"-separated path p.
func scopeAt(scope *model.Scope, p string) *model.Scope {
	start := 0
	for i := 0; i <= len(p); i++ {
		if i == len(p) || p[i] == '/' {
			if i > start {
				scope = scope.At("%s", p[start:i])
			}
			start = i + 1
		}
	}
	return scope
}

// LiveVariables makes every variable of scope's store that graph g reads a
// parameter of g, fed its current value at each call. Without it, GoMLX
// bakes the variables' values into the graphs of the backends that prefer
// constants (onnx, go) unless the graph is marked as training, and a graph
// compiled once would go on using the weights of its first call after
// SetWeights, a checkpoint restore or a train step. It must run before
// the graph's first variable read; param calls it.
func LiveVariables(scope *model.Scope, g *Graph) {
	if !scope.IsTraining(g) {
		scope.SetTraining(g, true)
	}
}

// param returns the graph node of the float32 variable name (a single path
// element) in scope, creating it with shape dims when it does not exist yet.
// New variables draw weights uniformly from ±1/√dims[0]; norm scales start
// at 1 and offsets at 0.
func param(scope *model.Scope, g *Graph, name string, dims ...int) *Node {
	LiveVariables(scope, g)
	shape := shapes.Make(dtypes.Float32, dims...)
	if v := scope.GetVariable(name); v != nil {
		if !v.Shape().Equal(shape) {
			panic(fmt.Errorf("variable %s/%s has shape %s, want %s", scope.Scope(), name, v.Shape(), shape))
		}
		return v.NodeValue(g)
	}
	init := func(g *Graph, shape shapes.Shape) *Node {
		switch name {
		case "scale":
			return Ones(g, shape)
		case "offset":
			return Zeros(g, shape)
		}
		if features.ZeroInit(strings.TrimPrefix(scope.Scope(), "/") + "/" + name) {
			return Zeros(g, shape)
		}
		bound := 1 / math.Sqrt(float64(shape.Dimensions[0]))
		seed := fnv.New64a()
		seed.Write([]byte(scope.Scope() + "/" + name))
		state, err := RNGStateFromSeed(int64(seed.Sum64() >> 1))
		if err != nil {
			panic(err)
		}
		_, u := RandomUniform(Const(g, state), shape)
		return AddScalar(MulScalar(u, 2*bound), -bound)
	}
	return scope.WithInitializer(init).VariableWithShape(name, shape).NodeValue(g)
}

// linear applies y = x·W (+ b) over the last axis of x with the variables
// "w" [in,out] and, when bias is set, "b" [out] of scope.
func linear(scope *model.Scope, x *Node, out int, bias bool) *Node {
	g := x.Graph()
	in := x.Shape().Dim(-1)
	y := matmul2D(x, param(scope, g, "w", in, out))
	if bias {
		y = addLast(y, param(scope, g, "b", out))
	}
	return y
}

// matmul2D is x·w over the last axis of x [..., in] with w [in,out], computed
// as one rank-2 product of x's leading axes flattened ([rows,in]·[in,out])
// and reshaped back to [..., out]. The ONNX Runtime backend runs a rank-2
// product, and the weight gradient xᵀ·dy it implies, as MatMul; a
// contraction of w with a rank-3 x would leave the gradient contracting two
// axes, an Einsum at a fraction of the MatMul rate.
func matmul2D(x, w *Node) *Node {
	dims := x.Shape().Dimensions
	in, out := w.Shape().Dim(0), w.Shape().Dim(1)
	if x.Rank() == 2 {
		return Dot(x, w).Product()
	}
	rows := 1
	for _, d := range dims[:len(dims)-1] {
		rows *= d
	}
	y := Dot(Reshape(x, rows, in), w).Product()
	outDims := append(append([]int(nil), dims[:len(dims)-1]...), out)
	return Reshape(y, outDims...)
}

// withGradient returns a node with the value of y whose gradient is that of
// surrogate: the reverse pass hands y's adjoint to surrogate instead of
// differentiating the graph that computes y. surrogate is built before the
// call from y's inputs (and stopped values); its vector-Jacobian product
// must be the gradient wanted, and its value is never used, so the backend
// drops its forward ops. This is GoMLX's mechanism for a fused op with a
// decomposed gradient. With GoMLX's op fusion switched off (GOMLX_FUSION=0)
// it returns fallback, which must have y's value and the wanted gradient.
func withGradient(y, surrogate, fallback *Node) *Node {
	out, ok := InternalFusedOpCaller(func() *Node { return Identity(y) }, func() *Node { return surrogate }, true)
	if !ok {
		return fallback
	}
	return out
}

// relu is max(x, 0) with the gradient v·[x > 0]. The forward pass is one
// ONNX Relu where the backend has it (GoMLX's fused activation); the mask
// ceil(min(y, 1)), exactly 1 where y > 0 and 0 elsewhere, is formed in
// the backward pass from the output y. ONNX Runtime runs Relu, Min, Ceil
// and Mul as vectorised passes; its Max with a scalar, a Cast of x > 0 to
// float and a Where are several times slower, and GoMLX's own gradient of
// Max takes six elementwise passes.
func relu(x *Node) *Node {
	g := x.Graph()
	zero := ScalarZero(g, x.DType())
	y, _ := InternalFusedOpCaller(
		func() *Node { return BackendFusedActivation(x, compute.ActivationConfig{Type: compute.ActivationRelu}) },
		func() *Node { return Max(x, zero) },
		false)
	mask := StopGradient(Ceil(Min(y, ScalarOne(g, x.DType()))))
	return withGradient(y, Mul(x, mask), Mul(x, StopGradient(ConvertDType(GreaterThan(x, zero), x.DType()))))
}

// softmax is the softmax of x over its last axis (GoMLX's, which runs as
// one ONNX Softmax) with the gradient y·(v − Σ v·y) formed from the output
// y: the surrogate y·(x − Σ x·y), y held constant, has exactly that
// vector-Jacobian product. GoMLX's own gradient recomputes the decomposed
// softmax and differentiates through its division, about ten passes over
// the [B,H,N,N] scores against four.
func softmax(x *Node) *Node {
	y := Softmax(x, -1)
	ys := StopGradient(y)
	return withGradient(y, Mul(ys, Sub(x, ReduceAndKeep(Mul(x, ys), ReduceSum, -1))), y)
}

// headsFirst splits the last axis of y [B,N,d] into heads and returns
// [B,heads,N,d/heads]: ONNX Runtime runs the per-head products faster on
// such operands than when the einsum moves the axes itself.
func headsFirst(y *Node, heads int) *Node {
	dims := y.Shape().Dimensions
	return TransposeAllDims(Reshape(y, dims[0], dims[1], heads, dims[2]/heads), 0, 2, 1, 3)
}

// addLast adds the vector v to x over x's last axis.
func addLast(x, v *Node) *Node { return Add(x, ExpandLeftToRank(v, x.Rank())) }

// instanceNorm normalises x [B,N,d] over the node axis per channel with the
// biased variance and eps features.NormEps, then applies the affine
// "scale" and "offset" [d] of scope.
func instanceNorm(scope *model.Scope, x *Node) *Node {
	g := x.Graph()
	d := x.Shape().Dim(-1)
	mean := ReduceAndKeep(x, ReduceMean, 1)
	xc := Sub(x, mean)
	variance := ReduceAndKeep(Square(xc), ReduceMean, 1)
	inv := Reciprocal(Sqrt(AddScalar(variance, features.NormEps)))
	y := Mul(xc, inv)
	scale := ExpandLeftToRank(param(scope, g, "scale", d), y.Rank())
	return addLast(Mul(y, scale), param(scope, g, "offset", d))
}

// selfAttention is the encoder's multi-head self-attention of x [B,N,d]
// with biased q/k/v/o projections in the sub-scopes of scope.
func selfAttention(scope *model.Scope, x *Node, heads int) *Node {
	dims := x.Shape().Dimensions
	b, n, d := dims[0], dims[1], dims[2]
	dh := d / heads
	q := headsFirst(linear(scope.At("q"), x, d, true), heads)
	k := headsFirst(linear(scope.At("k"), x, d, true), heads)
	v := headsFirst(linear(scope.At("v"), x, d, true), heads)
	scores := MulScalar(Einsum("bhqc,bhkc->bhqk", q, k), 1/math.Sqrt(float64(dh)))
	attn := softmax(scores)
	o := Reshape(TransposeAllDims(Einsum("bhqk,bhkc->bhqc", attn, v), 0, 2, 1, 3), b, n, d)
	return linear(scope.At("o"), o, d, true)
}

// feedForward is the encoder's d→ffn→d ReLU network.
func feedForward(scope *model.Scope, x *Node, ffn int) *Node {
	g := x.Graph()
	d := x.Shape().Dim(-1)
	h := matmul2D(x, param(scope, g, "w1", d, ffn))
	h = addLast(h, param(scope, g, "b1", ffn))
	h = relu(h)
	y := matmul2D(h, param(scope, g, "w2", ffn, d))
	return addLast(y, param(scope, g, "b2", d))
}

// Encoder embeds nodeFeat [B,N,4] (row 0 of each instance is the depot) and
// runs cfg.Layers post-norm attention layers. It returns the final node
// embeddings and their projections glimpse K, glimpse V and logit K, each
// [B,N,d].
func Encoder(scope *model.Scope, cfg features.Config, nodeFeat *Node) (emb, glimpseK, glimpseV, logitK *Node) {
	d := cfg.DModel
	depot := Slice(nodeFeat, AxisRange(), AxisRange(0, 1), AxisRange(0, 2))
	nodes := Slice(nodeFeat, AxisRange(), AxisRangeToEnd(1), AxisRange())
	x := Concatenate([]*Node{
		linear(scopeAt(scope, "init/depot"), depot, d, true),
		linear(scopeAt(scope, "init/node"), nodes, d, true),
	}, 1)
	for l := 0; l < cfg.Layers; l++ {
		ls := scopeAt(scope, fmt.Sprintf("enc/%d", l))
		x = instanceNorm(ls.At("norm1"), Add(x, selfAttention(ls.At("mha"), x, cfg.Heads)))
		x = instanceNorm(ls.At("norm2"), Add(x, feedForward(ls.At("ffn"), x, cfg.FFN)))
	}
	parts := projectNodes(scopeAt(scope, "dec/project_nodes"), x)
	return x, parts[0], parts[1], parts[2]
}

// projectNodes applies the bias-free Linear(d→3d) "w" of scope to x
// [B,N,d] and returns its three [B,N,d] parts (glimpse K, glimpse V, logit
// K). The parts of W are selected by products with constant one-hot
// [3d,d] matrices instead of slices, whose gradient (Pad) the ONNX Runtime
// backend lacks; the selection is exact.
func projectNodes(scope *model.Scope, x *Node) [3]*Node {
	g := x.Graph()
	d := x.Shape().Dim(-1)
	w := param(scope, g, "w", d, 3*d)
	var parts [3]*Node
	for k := range parts {
		sel := make([]float32, 3*d*d)
		for i := 0; i < d; i++ {
			sel[(k*d+i)*d+i] = 1
		}
		wk := Dot(w, Const(g, tensors.FromFlatDataAndDimensions(sel, 3*d, d))).Product() // [d,d]
		parts[k] = matmul2D(x, wk)
	}
	return parts
}
