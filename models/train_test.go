package models

import (
	"math/rand/v2"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/checkpoint"
	"github.com/gomlx/gomlx/ml/train/optimizer"

	"github.com/lmask/lmask/models/features"
)

// trainStepExec builds a REINFORCE-shaped step: loss = −mean(loglik) −
// 0.01·mean(entropy), clipped to global norm 1, Adam lr 1e-3.
func trainStepExec(t testing.TB, m *Model) *model.Exec {
	t.Helper()
	opt := optimizer.Adam().LearningRate(1e-3).Done()
	cfg := m.Config()
	e, err := model.NewExec(m.Backend(), m.Store(), func(scope *model.Scope, in []*Node) []*Node {
		ll, ent := ReplayLogLik(scope, cfg, in[0], in[1], in[2], in[3], in[4], in[5], nil)
		loss := Sub(Neg(ReduceAllMean(ll)), MulScalar(ReduceAllMean(ent), 0.01))
		norm := MinimizeGraph(scope, opt, loss, 1.0)
		return []*Node{loss, norm}
	})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestTrainStepAndCheckpoint runs Adam steps, saves a checkpoint, restores
// it into a model with other weights, and checks that the next step is
// identical on both (weights and optimizer state were restored).
func TestTrainStepAndCheckpoint(t *testing.T) {
	cfg := smallConfig("tsptw", true)
	a := newTestModel(t, cfg, 1)
	r := randomReplay(rand.New(rand.NewPCG(4, 4)), 2, 4, 5, 8)
	stepA := trainStepExec(t, a)
	w0, _ := a.Weights()
	var losses []float32
	for i := 0; i < 3; i++ {
		out, err := stepA.Call(r.Tensors()...)
		if err != nil {
			t.Fatal(err)
		}
		losses = append(losses, tensors.ToScalar[float32](out[0]))
		if n := tensors.ToScalar[float32](out[1]); !(n > 0) {
			t.Fatalf("gradient norm %v", n)
		}
	}
	if !(losses[2] < losses[0]) {
		t.Fatalf("loss did not decrease on a fixed batch: %v", losses)
	}
	w1, _ := a.Weights()
	if w1[features.WQueryW].Data[0] == w0[features.WQueryW].Data[0] {
		t.Fatal("Adam steps left dec/query/w unchanged")
	}
	if got := optimizer.GetGlobalStep(a.Store()); got != 3 {
		t.Fatalf("global step %d, want 3", got)
	}

	dir := t.TempDir()
	h, err := checkpoint.Build(a.Store()).Dir(dir).Keep(2).Done()
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Save(); err != nil {
		t.Fatal(err)
	}
	b := newTestModel(t, cfg, 2)
	if _, err := checkpoint.Build(b.Store()).Dir(dir).Done(); err != nil {
		t.Fatal(err)
	}
	wb, _ := b.Weights()
	for name, tt := range w1 {
		maxAbsDiff(t, "restored "+name, wb[name].Data, tt.Data, 0)
	}
	if got := optimizer.GetGlobalStep(b.Store()); got != 3 {
		t.Fatalf("restored global step %d, want 3", got)
	}
	stepB := trainStepExec(t, b)
	for _, e := range []*model.Exec{stepA, stepB} {
		if _, err := e.Call(r.Tensors()...); err != nil {
			t.Fatal(err)
		}
	}
	wa2, _ := a.Weights()
	wb2, _ := b.Weights()
	for name, tt := range wa2 {
		maxAbsDiff(t, "step after restore "+name, wb2[name].Data, tt.Data, 1e-6)
	}
}
