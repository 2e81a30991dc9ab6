package features

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lmask/lmask/lazymask"
)

// perturbNorms gives the norm scales and offsets non-trivial values, so a
// mix-up of scale and offset shows.
func perturbNorms(w Weights, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 1))
	for name, t := range w {
		switch {
		case hasSuffix(name, "/scale"):
			for i := range t.Data {
				t.Data[i] = float32(0.5 + r.Float64())
			}
		case hasSuffix(name, "/offset"):
			for i := range t.Data {
				t.Data[i] = float32(r.Float64() - 0.5)
			}
		}
	}
}

func randomFeatures(r *rand.Rand, n int) []float32 {
	f := make([]float32, NodeFeatures*n)
	for i := range f {
		f[i] = float32(r.Float64())
	}
	f[2], f[3] = 0, 0
	return f
}

func TestDecodeStepByHand(t *testing.T) {
	c := Config{Format: FormatPOMO, Problem: "tsptw", DModel: 2, Heads: 1, Layers: 0, FFN: 1}
	w := Weights{
		WDepotW:       {[]int{2, 2}, []float32{1, 0, 0, 1}},
		WDepotB:       {[]int{2}, []float32{0, 0}},
		WNodeW:        {[]int{4, 2}, []float32{1, 0, 0, 1, 0, 0, 0, 0}},
		WNodeB:        {[]int{2}, []float32{0, 0}},
		WProjectNodes: {[]int{2, 6}, []float32{1, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 1}},
		WQueryW:       {[]int{3, 2}, []float32{1, 0, 0, 1, 0, 0}},
		WQueryB:       {[]int{2}, []float32{0, 0}},
		WProjectOut:   {[]int{2, 2}, []float32{1, 0, 0, 1}},
	}
	if err := w.Check(c); err != nil {
		t.Fatal(err)
	}
	feat := []float32{0.5, 0.25, 0, 0, 1, 0, 0.3, 0.7, 0, 1, 0.2, 0.9}
	e, err := Encode(c, w, feat, 3)
	if err != nil {
		t.Fatal(err)
	}
	wantEmb := []float32{0.5, 0.25, 1, 0, 0, 1}
	for i, v := range wantEmb {
		if e.Emb[i] != v || e.GlimpseK[i] != v || e.GlimpseV[i] != v || e.LogitK[i] != v {
			t.Fatalf("embedding[%d] = %v/%v/%v/%v, want %v", i, e.Emb[i], e.GlimpseK[i], e.GlimpseV[i], e.LogitK[i], v)
		}
	}
	lp := make([]float32, 3)
	step := []float32{0.4, 1, 0, 0, 0, 0, 1, 0}
	if err := DecodeStep(c, w, e, 0, step, []bool{false, true, true}, nil, lp); err != nil {
		t.Fatal(err)
	}
	want := []float64{math.Inf(-1), -0.45498041539929, -1.0063806430913536}
	if !math.IsInf(float64(lp[0]), -1) || math.Abs(float64(lp[1])-want[1]) > 1e-6 || math.Abs(float64(lp[2])-want[2]) > 1e-6 {
		t.Fatalf("log probs %v, want %v", lp, want)
	}
	if err := DecodeStep(c, w, e, 0, step, []bool{false, false, false}, nil, lp); err == nil {
		t.Fatal("fully masked row accepted")
	}
	if err := DecodeStep(c, w, e, 3, step, []bool{true, true, true}, nil, lp); err == nil {
		t.Fatal("current node 3 of 3 accepted")
	}
}

func TestEncodeNormalisesChannels(t *testing.T) {
	c := Config{Format: FormatPOMO, Problem: "tspdl", DModel: 16, Heads: 4, Layers: 2, FFN: 24}
	w := RandomWeights(c, 3)
	perturbNorms(w, 4)
	n := 9
	e, err := Encode(c, w, randomFeatures(rand.New(rand.NewPCG(5, 6)), n), n)
	if err != nil {
		t.Fatal(err)
	}
	scale, offset := w[LayerName(1, "norm2/scale")].Data, w[LayerName(1, "norm2/offset")].Data
	for j := 0; j < c.DModel; j++ {
		var mean, v float64
		for i := 0; i < n; i++ {
			mean += float64(e.Emb[i*c.DModel+j])
		}
		mean /= float64(n)
		for i := 0; i < n; i++ {
			d := float64(e.Emb[i*c.DModel+j]) - mean
			v += d * d
		}
		v /= float64(n)
		s := float64(scale[j])
		if math.Abs(mean-float64(offset[j])) > 1e-5 || math.Abs(v-s*s) > 1e-3*s*s {
			t.Fatalf("channel %d: mean %v var %v, want %v and ≈%v", j, mean, v, offset[j], s*s)
		}
	}
}

func TestReferenceIsPermutationEquivariant(t *testing.T) {
	for _, rie := range []bool{false, true} {
		c := Config{Format: FormatPOMO, Problem: "tsptw", DModel: 16, Heads: 2, Layers: 2, FFN: 32, RIE: rie}
		w := RandomWeights(c, 7)
		perturbNorms(w, 8)
		r := rand.New(rand.NewPCG(9, 10))
		n := 8
		feat := randomFeatures(r, n)
		perm := append([]int{0}, r.Perm(n-1)...) // perm[i] = old index of new node i
		for i := 1; i < n; i++ {
			perm[i]++
		}
		pf := make([]float32, len(feat))
		for i, old := range perm {
			copy(pf[i*NodeFeatures:(i+1)*NodeFeatures], feat[old*NodeFeatures:(old+1)*NodeFeatures])
		}
		e1, _ := Encode(c, w, feat, n)
		e2, _ := Encode(c, w, pf, n)
		d := c.DModel
		for i, old := range perm {
			for j := 0; j < d; j++ {
				if diff := math.Abs(float64(e2.LogitK[i*d+j] - e1.LogitK[old*d+j])); diff > 1e-5 {
					t.Fatalf("rie %v: node %d channel %d differs by %v after permutation", rie, i, j, diff)
				}
			}
		}
		mask := []bool{false, true, true, false, true, true, true, false}
		pm := make([]bool, n)
		for i, old := range perm {
			pm[i] = mask[old]
		}
		step := []float32{0.3, 0, 1, 0, 0, 0, 0, 1}
		lp1, lp2 := make([]float32, n), make([]float32, n)
		if err := DecodeStep(c, w, e1, 4, step, mask, nil, lp1); err != nil {
			t.Fatal(err)
		}
		cur := 0
		for i, old := range perm {
			if old == 4 {
				cur = i
			}
		}
		if err := DecodeStep(c, w, e2, cur, step, pm, nil, lp2); err != nil {
			t.Fatal(err)
		}
		var sum float64
		for i, old := range perm {
			if !mask[old] {
				if !math.IsInf(float64(lp2[i]), -1) {
					t.Fatalf("masked node %d has log prob %v", i, lp2[i])
				}
				continue
			}
			sum += math.Exp(float64(lp2[i]))
			if diff := math.Abs(float64(lp2[i] - lp1[old])); diff > 1e-5 {
				t.Fatalf("rie %v: log prob of node %d differs by %v after permutation", rie, i, diff)
			}
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Fatalf("probabilities sum to %v", sum)
		}
	}
}

func TestReferencePolicyDecodes(t *testing.T) {
	c := Config{Format: FormatPOMO, Problem: "tsptw", DModel: 16, Heads: 2, Layers: 1, FFN: 32, RIE: true}
	p, err := NewReferencePolicy(c, RandomWeights(c, 11))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(12, 13))
	n := 7
	var insts []*lazymask.Instance
	for k := 0; k < 2; k++ {
		in := &lazymask.Instance{Problem: lazymask.TSPTW, N: n, Scale: 1, X: make([]float64, n), Y: make([]float64, n),
			Early: make([]float64, n), Late: make([]float64, n), Service: make([]float64, n)}
		for i := 0; i < n; i++ {
			in.X[i], in.Y[i] = r.Float64(), r.Float64()
			in.Late[i] = 100
		}
		insts = append(insts, in)
	}
	trajs, err := lazymask.Decode(p, insts, 3, lazymask.Config{Budget: 0, Greedy: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range trajs {
		if tr.Failed || !tr.Feasible {
			t.Fatalf("trajectory %d failed on an unconstrained instance", i)
		}
		res, err := lazymask.Check(insts[tr.Inst], tr.Tour)
		if err != nil || math.Abs(res.Cost-tr.Cost) > 1e-9 {
			t.Fatalf("trajectory %d: check %v cost %v, decoder cost %v", i, err, res.Cost, tr.Cost)
		}
		if i%3 != 0 && !slices.Equal(tr.Tour, trajs[i-i%3].Tour) {
			t.Fatalf("greedy trajectories of instance %d differ: %v vs %v", tr.Inst, tr.Tour, trajs[i-i%3].Tour)
		}
	}
	// The first decision of instance 0 is the argmax of DecodeStep from the depot.
	e, _ := Encode(c, p.w, NodeFeaturesOf(insts[0]), n)
	step := make([]float32, StepFeatures)
	StepFeaturesInto(step, 0, StateScale(insts[0]), 0, false)
	mask := []bool{false, true, true, true, true, true, true}
	lp := make([]float32, n)
	if err := DecodeStep(c, p.w, e, 0, step, mask, nil, lp); err != nil {
		t.Fatal(err)
	}
	best := 1
	for j := 2; j < n; j++ {
		if lp[j] > lp[best] {
			best = j
		}
	}
	if trajs[0].Tour[1] != best {
		t.Fatalf("first node %d, argmax of reference log probs %d (%v)", trajs[0].Tour[1], best, lp)
	}
}
