package models

import (
	"fmt"

	"github.com/gomlx/compute/dtypes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/train/optimizer"
)

// ClipByGlobalNorm scales every gradient by min(1, maxNorm/‖g‖), where ‖g‖
// is the joint L2 norm of all of them (PyTorch's clip_grad_norm_). It
// returns the clipped gradients and the norm before clipping.
func ClipByGlobalNorm(grads []*Node, maxNorm float64) (clipped []*Node, norm *Node) {
	if len(grads) == 0 {
		panic(fmt.Errorf("clip by global norm: no gradients"))
	}
	sum := ReduceAllSum(Square(grads[0]))
	for _, g := range grads[1:] {
		sum = Add(sum, ReduceAllSum(Square(g)))
	}
	norm = Sqrt(sum)
	g := norm.Graph()
	limit := Scalar(g, norm.DType(), maxNorm)
	eps := Scalar(g, norm.DType(), 1e-6)
	factor := Min(OnePlus(ZerosLike(norm)), Div(limit, Add(norm, eps)))
	clipped = make([]*Node, len(grads))
	for i, gr := range grads {
		clipped[i] = Mul(gr, ConvertDType(factor, gr.DType()))
	}
	return clipped, norm
}

// gradientUpdater is implemented by GoMLX's Adam (optimizer.Adam().Done())
// and SGD: an update from precomputed gradients.
type gradientUpdater interface {
	UpdateGraphWithGradients(scope *model.Scope, grads []*Node, lossDType dtypes.DType)
}

// MinimizeGraph builds, inside a graph function, one optimizer step on
// loss (a float32 scalar): gradients of every trainable variable used by
// the graph, clipped to a global L2 norm of maxNorm when maxNorm > 0, then
// applied by opt (optimizer.Adam()...Done() or SGD). It returns the
// gradient norm before clipping.
func MinimizeGraph(scope *model.Scope, opt optimizer.Interface, loss *Node, maxNorm float64) *Node {
	LiveVariables(scope, loss.Graph())
	grads := scope.BuildTrainableVariablesGradientsGraph(loss)
	if len(grads) == 0 {
		panic(fmt.Errorf("minimize: the loss depends on no trainable variable"))
	}
	clipped, norm := grads, (*Node)(nil)
	if maxNorm > 0 {
		clipped, norm = ClipByGlobalNorm(grads, maxNorm)
	} else {
		_, norm = ClipByGlobalNorm(grads, 1)
	}
	up, ok := opt.(gradientUpdater)
	if !ok {
		panic(fmt.Errorf("minimize: optimizer %T cannot apply precomputed gradients", opt))
	}
	up.UpdateGraphWithGradients(scope, clipped, loss.DType())
	return norm
}
