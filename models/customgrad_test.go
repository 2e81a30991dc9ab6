package models

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/gomlx/core/graph"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// TestCustomGradientsMatchAutodiff compares the hand-written gradients of
// relu and softmax (withGradient) with GoMLX's own gradient of the same
// function, element by element, on inputs with exact zeros (relu) and
// masked scores at MaskedLogit (softmax).
func TestCustomGradientsMatchAutodiff(t *testing.T) {
	be, err := NewBackend(testBackend(t))
	if err != nil {
		t.Fatal(err)
	}
	defer be.Finalize()
	rng := rand.New(rand.NewPCG(3, 4))
	dims := []int{3, 4, 5, 6}
	n := 3 * 4 * 5 * 6
	x := make([]float32, n)
	w := make([]float32, n)
	for i := range x {
		x[i] = float32(rng.NormFloat64() * 2)
		w[i] = float32(rng.NormFloat64())
		switch i % 7 {
		case 0:
			x[i] = 0
		case 3:
			x[i] = MaskedLogit
		}
	}
	cases := []struct {
		name       string
		fn, plain  func(*Node) *Node
		finiteOnly bool
	}{
		{"relu", relu, func(x *Node) *Node {
			return Mul(x, StopGradient(ConvertDType(GreaterThan(x, ZerosLike(x)), x.DType())))
		}, false},
		{"softmax", softmax, func(x *Node) *Node { return Softmax(x, -1) }, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run := func(f func(*Node) *Node) ([]float32, []float32) {
				e, err := NewExec(be, func(x, w *Node) []*Node {
					y := f(x)
					return []*Node{y, Gradient(ReduceAllSum(Mul(y, w)), x)[0]}
				})
				if err != nil {
					t.Fatal(err)
				}
				out, err := e.Exec(tensors.FromFlatDataAndDimensions(x, dims...), tensors.FromFlatDataAndDimensions(w, dims...))
				if err != nil {
					t.Fatal(err)
				}
				return tensors.MustCopyFlatData[float32](out[0]), tensors.MustCopyFlatData[float32](out[1])
			}
			y, g := run(c.fn)
			t.Setenv(graph.FusionEnv, "0")
			yRef, gRef := run(c.plain)
			for i := range y {
				if math.Abs(float64(y[i]-yRef[i])) > 1e-6 {
					t.Fatalf("value %d: %g, want %g", i, y[i], yRef[i])
				}
				if math.Abs(float64(g[i]-gRef[i])) > 1e-5*(1+math.Abs(float64(gRef[i]))) {
					t.Fatalf("gradient %d (x = %g): %g, want %g", i, x[i], g[i], gRef[i])
				}
			}
		})
	}
}
