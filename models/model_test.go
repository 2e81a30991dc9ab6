package models

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/lmask/lmask/models/features"
)

// testBackend prefers the onnx backend when the ORT library is present and
// falls back to the pure-Go backend.
func testBackend(t testing.TB) string {
	if lib := os.Getenv(ORTLibraryEnv); lib != "" {
		if _, err := os.Stat(lib); err == nil {
			return BackendONNX
		}
	}
	t.Logf("%s not set: using the pure-Go backend", ORTLibraryEnv)
	return BackendGo
}

// smallConfig is a reduced model for fast tests.
func smallConfig(problem string, rie bool) features.Config {
	return features.Config{Format: features.FormatPOMO, Problem: problem, DModel: 16, Heads: 4, Layers: 2, FFN: 32, RIE: rie}
}

func newTestModel(t testing.TB, cfg features.Config, seed uint64) *Model {
	t.Helper()
	m, err := New(cfg, testBackend(t), seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// randomNodeFeat draws b instances of n nodes with plausible features.
func randomNodeFeat(rng *rand.Rand, b, n int) []float32 {
	f := make([]float32, b*n*features.NodeFeatures)
	for i := 0; i < b; i++ {
		for j := 0; j < n; j++ {
			r := f[(i*n+j)*features.NodeFeatures:]
			r[0], r[1] = rng.Float32(), rng.Float32()
			if j > 0 {
				r[2] = rng.Float32() * 0.5
				r[3] = r[2] + rng.Float32()*0.5
			}
		}
	}
	return f
}

// randomStepFeat writes a time/load value and a valid RIE one-hot.
func randomStepFeat(rng *rand.Rand, dst []float32) {
	features.StepFeaturesInto(dst, rng.Float64(), 1, rng.IntN(6), rng.IntN(2) == 1)
}

// randomMask allows each node with probability 1/2 and at least one node.
func randomMask(rng *rand.Rand, dst []bool) {
	any := false
	for j := range dst {
		dst[j] = rng.IntN(2) == 0
		any = any || dst[j]
	}
	if !any {
		dst[rng.IntN(len(dst))] = true
	}
}

func maxAbsDiff(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	worst, at := 0.0, -1
	for i := range got {
		if d := math.Abs(float64(got[i]) - float64(want[i])); d > worst || math.IsNaN(d) {
			worst, at = d, i
		}
	}
	if worst > tol || math.IsNaN(worst) {
		t.Fatalf("%s: max |diff| %g at %d (got %v, want %v) > %g", what, worst, at, got[at], want[at], tol)
	}
}

// decoderVariants lists format 1 and the format-2 decoders (ReLD and the
// candidate-feature entries) for tests that cover every decoder.
var decoderVariants = []struct {
	name string
	reld bool
	cand string
}{{"pomo", false, features.CandNone}, {"reld", true, features.CandNone}, {"bias", false, features.CandBias},
	{"keys", false, features.CandKeys}, {"reld-both", true, features.CandBoth}}

// randomCand draws candidate features for rows × n nodes of width k (zero
// where the mask rules a node out, as the real features are).
func randomCand(rng *rand.Rand, mask []bool, k int) []float32 {
	f := make([]float32, len(mask)*k)
	for i, ok := range mask {
		if ok {
			for j := 0; j < k; j++ {
				f[i*k+j] = rng.Float32()*4 - 2
			}
		}
	}
	return f
}

// TestForwardMatchesReference compares the GoMLX encoder and decoder step
// with the pure-Go reference on random weights, for both problems with and
// without RIE, and for every format-2 decoder.
func TestForwardMatchesReference(t *testing.T) {
	type tcase struct {
		problem    string
		rie, reld  bool
		cand, name string
	}
	cases := []tcase{{"tsptw", false, false, "", "tsptw"}, {"tsptw", true, false, "", "tsptw-rie"},
		{"tspdl", false, false, "", "tspdl"}, {"tspdl", true, false, "", "tspdl-rie"}}
	for _, p := range []string{"tsptw", "tspdl"} {
		for _, v := range decoderVariants[1:] {
			cases = append(cases, tcase{p, true, v.reld, v.cand, p + "-" + v.name})
		}
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := smallConfig(tc.problem, tc.rie).WithDecoder(tc.reld, tc.cand)
			m := newTestModel(t, cfg, 1)
			w := features.DenseRandomWeights(cfg, 7)
			if err := m.SetWeights(w); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(3, 4))
			const b, n, r = 3, 9, 11
			d := cfg.DModel
			nodeFeat := randomNodeFeat(rng, b, n)
			enc, err := m.Encode(nodeFeat, b, n)
			if err != nil {
				t.Fatal(err)
			}
			defer enc.Release()
			emb, gk, gv, lk, err := enc.Host()
			if err != nil {
				t.Fatal(err)
			}
			refs := make([]*features.Encoding, b)
			for i := 0; i < b; i++ {
				ref, err := features.Encode(cfg, w, nodeFeat[i*n*4:(i+1)*n*4], n)
				if err != nil {
					t.Fatal(err)
				}
				refs[i] = ref
				sl := func(x []float32) []float32 { return x[i*n*d : (i+1)*n*d] }
				maxAbsDiff(t, "node_emb", sl(emb), ref.Emb, 1e-4)
				maxAbsDiff(t, "glimpse_k", sl(gk), ref.GlimpseK, 1e-4)
				maxAbsDiff(t, "glimpse_v", sl(gv), ref.GlimpseV, 1e-4)
				maxAbsDiff(t, "logit_k", sl(lk), ref.LogitK, 1e-4)
			}
			rowInst, current := make([]int64, r), make([]int64, r)
			stepFeat, mask := make([]float32, r*8), make([]bool, r*n)
			for i := 0; i < r; i++ {
				rowInst[i], current[i] = int64(rng.IntN(b)), int64(rng.IntN(n))
				randomStepFeat(rng, stepFeat[i*8:(i+1)*8])
				randomMask(rng, mask[i*n:(i+1)*n])
			}
			k := cfg.CandWidth()
			cand := randomCand(rng, mask, k)
			logp, err := m.DecodeStep(enc, rowInst, current, stepFeat, mask, cand)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float32, n)
			for i := 0; i < r; i++ {
				if err := features.DecodeStep(cfg, w, refs[rowInst[i]], int(current[i]), stepFeat[i*8:(i+1)*8], mask[i*n:(i+1)*n], cand[i*n*k:(i+1)*n*k], want); err != nil {
					t.Fatal(err)
				}
				got := logp[i*n : (i+1)*n]
				for j := 0; j < n; j++ {
					if !mask[i*n+j] {
						if got[j] > -1e8 {
							t.Fatalf("row %d node %d masked but log-prob %v", i, j, got[j])
						}
						got[j], want[j] = 0, 0
					}
				}
				maxAbsDiff(t, "log_probs", got, want, 1e-4)
			}
		})
	}
}

// TestWeightsRoundTrip sets weights and reads them back unchanged.
func TestWeightsRoundTrip(t *testing.T) {
	cfg := smallConfig("tsptw", true)
	m := newTestModel(t, cfg, 5)
	w0, err := m.Weights()
	if err != nil {
		t.Fatal(err)
	}
	ref := features.RandomWeights(cfg, 5)
	for name, tt := range ref {
		maxAbsDiff(t, "initial "+name, w0[name].Data, tt.Data, 0)
	}
	w := features.RandomWeights(cfg, 99)
	if err := m.SetWeights(w); err != nil {
		t.Fatal(err)
	}
	got, err := m.Weights()
	if err != nil {
		t.Fatal(err)
	}
	if err := got.Check(cfg); err != nil {
		t.Fatal(err)
	}
	for name, tt := range w {
		maxAbsDiff(t, name, got[name].Data, tt.Data, 0)
	}
	bad := features.RandomWeights(cfg, 1)
	delete(bad, features.WQueryB)
	if err := m.SetWeights(bad); err == nil {
		t.Fatal("SetWeights accepted weights without dec/query/b")
	}
}

// TestSetWeightsReachesCompiledGraphs: graphs compiled before SetWeights
// (the encoder and the replay) compute with the new weights afterwards,
// exactly as a model created with them; the backends' preference for
// baking variables into graphs as constants must not freeze them.
func TestSetWeightsReachesCompiledGraphs(t *testing.T) {
	cfg := smallConfig("tsptw", true)
	r := randomReplay(rand.New(rand.NewPCG(8, 9)), 2, 3, 6, 8)
	m := newTestModel(t, cfg, 21)
	ref := newTestModel(t, cfg, 99)
	before, _, err := m.Replay(r)
	if err != nil {
		t.Fatal(err)
	}
	encBefore, err := m.Encode(r.NodeFeat, r.B, r.N)
	if err != nil {
		t.Fatal(err)
	}
	embBefore, _, _, _, err := encBefore.Host()
	if err != nil {
		t.Fatal(err)
	}
	encBefore.Release()
	if err := m.SetWeights(features.RandomWeights(cfg, 99)); err != nil {
		t.Fatal(err)
	}
	after, _, err := m.Replay(r)
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := ref.Replay(r)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := m.Encode(r.NodeFeat, r.B, r.N)
	if err != nil {
		t.Fatal(err)
	}
	emb, _, _, _, err := enc.Host()
	if err != nil {
		t.Fatal(err)
	}
	enc.Release()
	if before[0] == after[0] || embBefore[0] == emb[0] {
		t.Fatalf("outputs unchanged by SetWeights: replay %v → %v, embedding %v → %v", before[0], after[0], embBefore[0], emb[0])
	}
	for i := range want {
		if after[i] != want[i] {
			t.Fatalf("replay %d after SetWeights %v, a model created with the weights %v", i, after[i], want[i])
		}
	}
}
