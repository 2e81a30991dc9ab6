package models

import (
	"math"
	"math/rand/v2"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
)

// randomReplay draws random rollouts; some steps are padding (valid 0)
// with an all-false mask.
func randomReplay(rng *rand.Rand, b, p, tt, n int) *ReplayBatch {
	r := NewReplayBatch(b, p, tt, n)
	copy(r.NodeFeat, randomNodeFeat(rng, b, n))
	for s := 0; s < b*p*tt; s++ {
		r.Current[s] = int64(rng.IntN(n))
		randomStepFeat(rng, r.StepFeat[s*8:(s+1)*8])
		mask := r.Mask[s*n : (s+1)*n]
		if rng.IntN(5) == 0 {
			r.Chosen[s] = int64(rng.IntN(n))
			continue // padding: valid 0, mask all false
		}
		randomMask(rng, mask)
		for {
			c := rng.IntN(n)
			if mask[c] {
				r.Chosen[s] = int64(c)
				break
			}
		}
		r.Valid[s] = 1
	}
	return r
}

// TestReplayMatchesSteps checks that the teacher-forced replay equals the
// sum of step-by-step decoder log-probs and entropies.
func TestReplayMatchesSteps(t *testing.T) {
	for _, rie := range []bool{false, true} {
		cfg := smallConfig("tsptw", rie)
		m := newTestModel(t, cfg, 11)
		rng := rand.New(rand.NewPCG(8, 9))
		const b, p, tt, n = 2, 3, 5, 7
		r := randomReplay(rng, b, p, tt, n)
		ll, ent, err := m.Replay(r)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := m.Encode(r.NodeFeat, b, n)
		if err != nil {
			t.Fatal(err)
		}
		var rows []int
		rowInst := []int64{}
		for s := 0; s < b*p*tt; s++ {
			if r.Valid[s] != 0 {
				rows = append(rows, s)
				rowInst = append(rowInst, int64(s/(p*tt)))
			}
		}
		cur, sf, mask := make([]int64, len(rows)), make([]float32, 8*len(rows)), make([]bool, n*len(rows))
		for i, s := range rows {
			cur[i] = r.Current[s]
			copy(sf[i*8:], r.StepFeat[s*8:(s+1)*8])
			copy(mask[i*n:], r.Mask[s*n:(s+1)*n])
		}
		logp, err := m.DecodeStep(enc, rowInst, cur, sf, mask, nil)
		if err != nil {
			t.Fatal(err)
		}
		enc.Release()
		wantLL, wantEnt := make([]float32, b*p), make([]float32, b*p)
		for i, s := range rows {
			bp := s / tt
			wantLL[bp] += logp[i*n+int(r.Chosen[s])]
			for j := 0; j < n; j++ {
				if mask[i*n+j] {
					lp := float64(logp[i*n+j])
					wantEnt[bp] -= float32(math.Exp(lp) * lp)
				}
			}
		}
		maxAbsDiff(t, "loglik", ll, wantLL, 1e-4)
		maxAbsDiff(t, "entropy", ent, wantEnt, 1e-4)
		for i := range ent {
			if ent[i] < 0 {
				t.Fatalf("entropy[%d] = %v < 0", i, ent[i])
			}
		}
	}
}

// TestReplayGradient checks that the gradient of the replayed
// log-likelihood and entropy w.r.t. every parameter is finite and
// non-zero, and that one clipped Adam step changes the weights.
func TestReplayGradient(t *testing.T) {
	cfg := smallConfig("tspdl", true)
	m := newTestModel(t, cfg, 13)
	rng := rand.New(rand.NewPCG(1, 2))
	r := randomReplay(rng, 2, 3, 6, 8)
	names := []string{}
	exec, err := model.NewExec(m.Backend(), m.Store(), func(scope *model.Scope, in []*Node) []*Node {
		ll, ent := ReplayLogLik(scope, cfg, in[0], in[1], in[2], in[3], in[4], in[5], nil)
		loss := Add(ReduceAllSum(ll), MulScalar(ReduceAllSum(ent), 0.1))
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
	grads, err := exec.Call(r.Tensors()...)
	if err != nil {
		t.Fatal(err)
	}
	if len(grads) != len(cfg.Specs()) {
		t.Fatalf("%d gradients, want one per parameter (%d)", len(grads), len(cfg.Specs()))
	}
	for i, gt := range grads {
		g := tensors.MustCopyFlatData[float32](gt)
		var sq float64
		for _, v := range g {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("gradient of %s has non-finite value %v", names[i], v)
			}
			sq += float64(v) * float64(v)
		}
		if sq == 0 {
			t.Fatalf("gradient of %s is zero", names[i])
		}
	}
}

// TestReleaseInputs: the inputs a replay made for one call are freed (on
// the backend too) once the call returns, and what is not a tensor is left
// alone, so a training loop does not wait on the Go collector for them.
func TestReleaseInputs(t *testing.T) {
	r := randomReplay(rand.New(rand.NewPCG(3, 4)), 2, 1, 3, 5)
	in := append(r.Tensors(), 7)
	for i, v := range in[:len(in)-1] {
		if !v.(*tensors.Tensor).Ok() {
			t.Fatalf("input %d not valid before the release", i)
		}
	}
	ReleaseInputs(in)
	for i, v := range in[:len(in)-1] {
		if v.(*tensors.Tensor).Ok() {
			t.Errorf("input %d still holds its data after ReleaseInputs", i)
		}
	}
	if in[len(in)-1] != 7 {
		t.Errorf("a non-tensor input changed: %v", in[len(in)-1])
	}
}
