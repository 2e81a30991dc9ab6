package models

import (
	"math"
	"math/rand/v2"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/lmask/lmask/models/features"
)

// advantageLoss evaluates Σ A·loglik + 0.1·Σ entropy of r on the model's
// current weights (no gradient).
func advantageLoss(t *testing.T, m *Model, r *ReplayBatch, adv []float32) float64 {
	t.Helper()
	ll, ent, err := m.Replay(r)
	if err != nil {
		t.Fatal(err)
	}
	s := 0.0
	for i := range ll {
		s += float64(adv[i])*float64(ll[i]) + 0.1*float64(ent[i])
	}
	return s
}

// TestReplayGradientMatchesFiniteDifference compares, for every parameter
// tensor of every decoder (format 1, and format 2's ReLD block and
// candidate-feature entries on dense random weights, since their output
// layers start at zero), the backend's analytic gradient of Σ A·loglik +
// 0.1·Σ entropy with a central finite difference along that gradient. A
// wrong gradient of any op (on the backend in use) fails this test.
func TestReplayGradientMatchesFiniteDifference(t *testing.T) {
	for _, v := range decoderVariants {
		t.Run(v.name, func(t *testing.T) { replayGradientCheck(t, v.reld, v.cand) })
	}
}

func replayGradientCheck(t *testing.T, reld bool, cand string) {
	cfg := smallConfig("tsptw", true).WithDecoder(reld, cand)
	m := newTestModel(t, cfg, 21)
	if cfg.Format != features.FormatPOMO {
		if err := m.SetWeights(features.DenseRandomWeights(cfg, 5)); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(8, 9))
	r := randomReplay(rng, 2, 3, 6, 8)
	if k := cfg.CandWidth(); k > 0 {
		r.WithCand(k)
		copy(r.CandFeat, randomCand(rng, r.Mask, k))
	}
	adv := make([]float32, r.B*r.P)
	for i := range adv {
		adv[i] = float32(rng.NormFloat64())
	}
	var names []string
	exec, err := model.NewExec(m.Backend(), m.Store(), func(scope *model.Scope, in []*Node) []*Node {
		var candIn *Node
		if r.K > 0 {
			candIn = in[6]
		}
		ll, ent := ReplayLogLik(scope, cfg, in[0], in[1], in[2], in[3], in[4], in[5], candIn)
		loss := Add(ReduceAllSum(Mul(in[len(in)-1], ll)), MulScalar(ReduceAllSum(ent), 0.1))
		var vars []*Node
		names = names[:0]
		for v := range scope.IterVariables() {
			if v.Trainable && v.InUseByGraph(loss.Graph()) {
				vars = append(vars, v.NodeValue(loss.Graph()))
				names = append(names, v.Path())
			}
		}
		return Gradient(loss, vars...)
	})
	if err != nil {
		t.Fatal(err)
	}
	args := append(r.Tensors(), tensors.FromFlatDataAndDimensions(adv, r.B, r.P))
	out, err := exec.Call(args...)
	if err != nil {
		t.Fatal(err)
	}
	grads := map[string][]float32{}
	for i, gt := range out {
		grads[names[i][1:]] = tensors.MustCopyFlatData[float32](gt)
	}
	w0, err := m.Weights()
	if err != nil {
		t.Fatal(err)
	}
	// The step trades float32 noise in the loss (about 1e-3 in the
	// derivative at 3e-3, the size of the smallest gradients checked)
	// against the kinks of the ReLUs crossed (which grow with the step).
	const eps = 5e-3
	for _, s := range cfg.Specs() {
		g, ok := grads[s.Name]
		if !ok {
			t.Fatalf("no gradient for %s", s.Name)
		}
		// Along the normalised gradient the derivative is ‖g‖, large
		// against float32 noise; a wrong gradient points elsewhere and the
		// finite difference falls short of it. Tensors whose gradient
		// vanishes (a bias cancelled by the next instance norm) are probed
		// along a random direction and must show a zero derivative.
		dir := make([]float32, len(g))
		norm := 0.0
		for _, v := range g {
			norm += float64(v) * float64(v)
		}
		norm = math.Sqrt(norm)
		if norm < 1e-3 {
			norm = 0
			for i := range dir {
				dir[i] = float32(rng.NormFloat64())
				norm += float64(dir[i]) * float64(dir[i])
			}
			norm = math.Sqrt(norm)
		} else {
			copy(dir, g)
		}
		analytic := 0.0
		for i := range dir {
			dir[i] /= float32(norm)
			analytic += float64(dir[i]) * float64(g[i])
		}
		at := func(sign float64) float64 {
			w := features.Weights{}
			for k, v := range w0 {
				w[k] = v
			}
			p := append([]float32(nil), w0[s.Name].Data...)
			for i := range p {
				p[i] += float32(sign * eps * float64(dir[i]))
			}
			w[s.Name] = features.Tensor{Shape: s.Shape, Data: p}
			if err := m.SetWeights(w); err != nil {
				t.Fatal(err)
			}
			return advantageLoss(t, m, r, adv)
		}
		numeric := (at(1) - at(-1)) / (2 * eps)
		if err := m.SetWeights(w0); err != nil {
			t.Fatal(err)
		}
		tol := 3e-2*math.Abs(analytic) + 3e-3
		if math.Abs(numeric-analytic) > tol {
			t.Errorf("%s: directional derivative analytic %.6g, finite difference %.6g", s.Name, analytic, numeric)
		}
	}
}
