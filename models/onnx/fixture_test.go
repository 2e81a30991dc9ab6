package onnx_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lmask/lmask/models/features"
)

// testConfig is a small model whose heads, ffn and d differ, so a mixed-up
// dimension shows.
func testConfig(problem string, rie bool) features.Config {
	return features.Config{Format: features.FormatPOMO, Problem: problem, DModel: 16, Heads: 4,
		Layers: 2, FFN: 24, RIE: rie, TrainSize: 10}
}

// testWeights draws random weights (every format-2 block too) and gives
// the norms non-trivial scales and offsets.
func testWeights(cfg features.Config, seed uint64) features.Weights {
	w := features.DenseRandomWeights(cfg, seed)
	r := rand.New(rand.NewPCG(seed, 99))
	for name, t := range w {
		switch {
		case strings.HasSuffix(name, "/scale"):
			for i := range t.Data {
				t.Data[i] = float32(0.5 + r.Float64())
			}
		case strings.HasSuffix(name, "/offset"):
			for i := range t.Data {
				t.Data[i] = float32(r.Float64() - 0.5)
			}
		}
	}
	return w
}

// stepCase is one set of encoder and decoder inputs.
type stepCase struct {
	B, N, R  int
	NodeFeat []float32 // [B,N,4]
	RowInst  []int64   // [R]
	Current  []int64   // [R]
	StepFeat []float32 // [R,8]
	Mask     []bool    // [R,N]
	K        int       // candidate features per node (0: none)
	Cand     []float32 // [R,N,K]
}

// withCand adds random candidate features of width k (zero where masked).
func (c stepCase) withCand(seed uint64, k int) stepCase {
	rng := rand.New(rand.NewPCG(seed, 11))
	c.K, c.Cand = k, make([]float32, c.R*c.N*k)
	for i, ok := range c.Mask {
		for j := 0; ok && j < k; j++ {
			c.Cand[i*k+j] = float32(rng.Float64()*4 - 2)
		}
	}
	return c
}

// newStepCase draws inputs: random coordinates and windows, rows spread over
// the instances, RIE one-hots, and masks that exclude about half the nodes
// (at least one node stays allowed).
func newStepCase(seed uint64, b, n, r int) stepCase {
	rng := rand.New(rand.NewPCG(seed, 7))
	c := stepCase{B: b, N: n, R: r, NodeFeat: make([]float32, b*n*features.NodeFeatures),
		RowInst: make([]int64, r), Current: make([]int64, r), StepFeat: make([]float32, r*features.StepFeatures),
		Mask: make([]bool, r*n)}
	for i := 0; i < b; i++ {
		for j := 0; j < n; j++ {
			f := c.NodeFeat[(i*n+j)*features.NodeFeatures:][:features.NodeFeatures]
			f[0], f[1] = float32(rng.Float64()), float32(rng.Float64())
			if j > 0 {
				e := rng.Float64() * 0.8
				f[2], f[3] = float32(e), float32(e+0.2*rng.Float64())
			}
		}
	}
	for k := 0; k < r; k++ {
		c.RowInst[k] = int64(rng.IntN(b))
		c.Current[k] = int64(rng.IntN(n))
		features.StepFeaturesInto(c.StepFeat[k*features.StepFeatures:][:features.StepFeatures],
			rng.Float64()*3, 2, rng.IntN(6), rng.IntN(2) == 0)
		m := c.Mask[k*n : (k+1)*n]
		for j := range m {
			m[j] = rng.IntN(2) == 0
		}
		m[rng.IntN(n)] = true
	}
	return c
}

// reference computes the pure-Go outputs of a case: the four encoder
// outputs as [B,N,d] and the log-probs as [R,N].
func reference(t *testing.T, cfg features.Config, w features.Weights, c stepCase) (enc [4][]float32, logProbs []float32) {
	t.Helper()
	encs := make([]*features.Encoding, c.B)
	for i := range encs {
		e, err := features.Encode(cfg, w, c.NodeFeat[i*c.N*features.NodeFeatures:(i+1)*c.N*features.NodeFeatures], c.N)
		if err != nil {
			t.Fatal(err)
		}
		encs[i] = e
		enc[0] = append(enc[0], e.Emb...)
		enc[1] = append(enc[1], e.GlimpseK...)
		enc[2] = append(enc[2], e.GlimpseV...)
		enc[3] = append(enc[3], e.LogitK...)
	}
	logProbs = make([]float32, c.R*c.N)
	for k := 0; k < c.R; k++ {
		err := features.DecodeStep(cfg, w, encs[c.RowInst[k]], int(c.Current[k]),
			c.StepFeat[k*features.StepFeatures:(k+1)*features.StepFeatures], c.Mask[k*c.N:(k+1)*c.N], c.Cand[k*c.N*c.K:(k+1)*c.N*c.K],
			logProbs[k*c.N:(k+1)*c.N])
		if err != nil {
			t.Fatal(err)
		}
	}
	return enc, logProbs
}

// maxDiff returns the largest absolute difference of got and want; two
// −inf entries count as equal, and an infinity against a finite value as
// +Inf.
func maxDiff(got, want []float32) float64 {
	if len(got) != len(want) {
		return math.Inf(1)
	}
	var m float64
	for i := range got {
		g, w := float64(got[i]), float64(want[i])
		if math.IsInf(g, -1) && math.IsInf(w, -1) {
			continue
		}
		d := math.Abs(g - w)
		if math.IsNaN(d) || math.IsInf(d, 0) {
			return math.Inf(1)
		}
		m = math.Max(m, d)
	}
	return m
}

// tolerance is the largest accepted difference between a runtime and the
// pure-Go reference.
const tolerance = 1e-4

// sizes are the (B, N, R) combinations run through one exported file.
var sizes = [][3]int{{1, 5, 1}, {3, 9, 7}, {2, 21, 12}, {4, 2, 3}}

// variants lists the problem/RIE combinations tested, format 1's and then
// the format-2 decoders.
var variants = []struct {
	problem string
	rie     bool
	reld    bool
	cand    string
}{{"tsptw", true, false, ""}, {"tsptw", false, false, ""}, {"tspdl", true, false, ""}, {"tspdl", false, false, ""},
	{"tsptw", true, true, features.CandBoth}, {"tspdl", true, false, features.CandKeys}, {"tsptw", true, false, features.CandBias},
	{"tspdl", true, true, features.CandNone}}

// variantConfig is testConfig with a variant's decoder.
func variantConfig(problem string, rie, reld bool, cand string) features.Config {
	return testConfig(problem, rie).WithDecoder(reld, cand)
}
