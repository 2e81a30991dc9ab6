package models

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
)

// randomInstance builds a valid instance of problem p with n nodes.
func randomInstance(rng *rand.Rand, p lazymask.Problem, n int) *lazymask.Instance {
	in := &lazymask.Instance{Problem: p, N: n, Name: "random", Scale: 1, X: make([]float64, n), Y: make([]float64, n)}
	for i := range in.X {
		in.X[i], in.Y[i] = rng.Float64(), rng.Float64()
	}
	if p == lazymask.TSPTW {
		in.Early, in.Late, in.Service = make([]float64, n), make([]float64, n), make([]float64, n)
		in.Late[0] = 10
		for i := 1; i < n; i++ {
			in.Early[i] = rng.Float64() * 5
			in.Late[i] = in.Early[i] + 1 + rng.Float64()*4
		}
	} else {
		in.Demand, in.Draft = make([]float64, n), make([]float64, n)
		in.Draft[0] = 1
		for i := 1; i < n; i++ {
			in.Demand[i] = 1 / float64(n-1)
			in.Draft[i] = 0.3 + 0.7*rng.Float64()
		}
	}
	return in
}

// randomStepBatch draws r rows over b instances of n nodes.
func randomStepBatch(rng *rand.Rand, r, b, n int) *lazymask.StepBatch {
	sb := &lazymask.StepBatch{N: n, Mask: make([]bool, r*n)}
	for i := 0; i < r; i++ {
		sb.Traj = append(sb.Traj, i)
		sb.Inst = append(sb.Inst, rng.IntN(b))
		sb.Current = append(sb.Current, rng.IntN(n))
		sb.State = append(sb.State, rng.Float64()*3)
		sb.Refine = append(sb.Refine, rng.IntN(6))
		sb.Budget = append(sb.Budget, rng.IntN(2) == 0)
		sb.NumSteps = append(sb.NumSteps, rng.IntN(n))
		randomMask(rng, sb.Mask[i*n:(i+1)*n])
	}
	return sb
}

// TestPolicyMatchesReference compares Policy scores with the reference
// policy on the allowed nodes, over several decodes and row buckets.
func TestPolicyMatchesReference(t *testing.T) {
	for ci, prob := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL, lazymask.TSPTW, lazymask.TSPDL} {
		cfg := smallConfig(prob.String(), true)
		if ci >= 2 {
			cfg = cfg.WithDecoder(ci == 2, features.CandBoth) // format 2: the policy builds cand_feat
		}
		m := newTestModel(t, cfg, 21)
		if err := m.SetWeights(features.DenseRandomWeights(cfg, 22)); err != nil {
			t.Fatal(err)
		}
		w, err := m.Weights()
		if err != nil {
			t.Fatal(err)
		}
		ref, err := features.NewReferencePolicy(cfg, w)
		if err != nil {
			t.Fatal(err)
		}
		pol := m.Policy()
		defer pol.Close()
		rng := rand.New(rand.NewPCG(uint64(prob), 5))
		for _, sz := range []struct{ b, n, r int }{{3, 10, 13}, {3, 10, 3}, {5, 12, 40}} {
			insts := make([]*lazymask.Instance, sz.b)
			for i := range insts {
				insts[i] = randomInstance(rng, prob, sz.n)
				if err := insts[i].Validate(); err != nil {
					t.Fatal(err)
				}
			}
			if err := pol.Begin(insts); err != nil {
				t.Fatal(err)
			}
			if err := ref.Begin(insts); err != nil {
				t.Fatal(err)
			}
			sb := randomStepBatch(rng, sz.r, sz.b, sz.n)
			got, want := make([]float32, sz.r*sz.n), make([]float32, sz.r*sz.n)
			if err := pol.Scores(sb, got); err != nil {
				t.Fatal(err)
			}
			if err := ref.Scores(sb, want); err != nil {
				t.Fatal(err)
			}
			for i, ok := range sb.Mask {
				if !ok {
					got[i], want[i] = 0, 0
				}
			}
			maxAbsDiff(t, "policy scores", got, want, 1e-4)
		}
		bad := randomStepBatch(rng, 2, 5, 12)
		bad.Inst[1] = 8
		if err := pol.Scores(bad, make([]float32, 24)); err == nil {
			t.Fatal("Scores accepted a row referring to instance 8 of 5")
		}
	}
}

// TestPolicyFoldedMatchesDirect compares the folded decoder step with the
// direct grouped step on the allowed nodes, with and without RIE.
func TestPolicyFoldedMatchesDirect(t *testing.T) {
	for _, rie := range []bool{false, true} {
		cfg := smallConfig(lazymask.TSPTW.String(), rie)
		m := newTestModel(t, cfg, 31)
		folded, direct := m.Policy(), m.Policy()
		direct.direct = true
		rng := rand.New(rand.NewPCG(7, uint64(len(cfg.Problem))))
		for _, sz := range []struct{ b, n, r int }{{4, 11, 37}, {1, 9, 2}, {6, 16, 70}} {
			insts := make([]*lazymask.Instance, sz.b)
			for i := range insts {
				insts[i] = randomInstance(rng, lazymask.TSPTW, sz.n)
			}
			for _, p := range []*Policy{folded, direct} {
				if err := p.Begin(insts); err != nil {
					t.Fatal(err)
				}
			}
			if !folded.folded || direct.folded {
				t.Fatalf("N=%d: folded policy uses the folded step %v, direct policy %v", sz.n, folded.folded, direct.folded)
			}
			sb := randomStepBatch(rng, sz.r, sz.b, sz.n)
			got, want := make([]float32, sz.r*sz.n), make([]float32, sz.r*sz.n)
			if err := folded.Scores(sb, got); err != nil {
				t.Fatal(err)
			}
			if err := direct.Scores(sb, want); err != nil {
				t.Fatal(err)
			}
			for i, ok := range sb.Mask {
				if !ok {
					got[i], want[i] = 0, 0
				}
			}
			maxAbsDiff(t, "folded scores", got, want, 1e-5)
		}
		folded.Close()
		direct.Close()
	}
	if foldedFits(features.DefaultConfig(lazymask.TSPTW), 101) || !foldedFits(features.DefaultConfig(lazymask.TSPTW), 51) {
		t.Fatal("foldedFits: want the folded step at N=51 and the direct one at N=101 for d=128, 8 heads")
	}
}

// TestPolicySplitDecode: policies of one model decoding instance groups on
// their own goroutines (their graph calls serialised by the model) give the
// tours of one policy over all instances: greedy exactly; sampled from the
// same streams, tours may part only where float rounding of differently
// shaped batches tips a draw, which this test allows for no trajectory.
// Only the onnx backend (ONNXRUNTIME_SHARED_LIBRARY_PATH set, as in CI)
// needs the model's lock; the pure-Go fallback passes without it.
func TestPolicySplitDecode(t *testing.T) {
	for _, problem := range []lazymask.Problem{lazymask.TSPTW, lazymask.TSPDL} {
		cfg := smallConfig(problem.String(), true)
		m := newTestModel(t, cfg, 43)
		gen, err := datasets.NewGenerator(datasets.GenConfig{Problem: problem, N: 15, Hardness: datasets.Medium, Seed: 11})
		if err != nil {
			t.Fatal(err)
		}
		insts := make([]*lazymask.Instance, 10)
		for i := range insts {
			insts[i], _ = gen.Next()
		}
		for _, dcfg := range []lazymask.Config{{Greedy: true, Budget: 20}, {Seed: 5, Budget: 20, Semantics: lazymask.Train}} {
			one := m.Policy()
			want, err := lazymask.Decode(one, insts, 4, dcfg)
			one.Close()
			if err != nil {
				t.Fatal(err)
			}
			ps := []lazymask.Policy{m.Policy(), m.Policy(), m.Policy()}
			got, err := lazymask.NewDecoder().DecodeSplit(ps, insts, 4, dcfg)
			for _, p := range ps {
				p.(*Policy).Close()
			}
			if err != nil {
				t.Fatal(err)
			}
			feasible := 0
			for i := range want {
				if !slices.Equal(got[i].Tour, want[i].Tour) || got[i].Inst != want[i].Inst || got[i].Backtracks != want[i].Backtracks {
					t.Fatalf("%v %+v: trajectory %d: %v (%d backtracks) split, %v (%d) whole", problem, dcfg, i,
						got[i].Tour, got[i].Backtracks, want[i].Tour, want[i].Backtracks)
				}
				if got[i].Feasible {
					feasible++
				}
			}
			if feasible == 0 {
				t.Fatalf("%v %+v: no feasible tour: the comparison covers only failures", problem, dcfg)
			}
		}
	}
}
