package engine

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
	"github.com/lmask/lmask/models/onnx"
)

// toyModel is a small model that follows the ONNX contract with simple
// arithmetic, so the engine's plumbing (names, shapes, gathers by
// row_instance, masks, pre-allocated outputs) can be checked against a
// direct Go computation:
//
//	node_emb = F·W0, glimpse_k = F·W1, glimpse_v = F·W2, logit_k = F·W3
//	q_r      = node_emb[inst_r, cur_r] + step_r·Ws
//	logit_rj = logit_k[inst_r, j] · q_r
//	log_probs = log_softmax over allowed j (masked entries −1e9)
type toyModel struct {
	cfg            features.Config
	w0, w1, w2, w3 []float32 // [4,d]
	ws             []float32 // [8,d]
}

func newToyModel(problem lazymask.Problem, d int, seed uint64) *toyModel {
	r := rand.New(rand.NewPCG(seed, 7))
	rnd := func(n int) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = float32(r.NormFloat64() * 0.5)
		}
		return s
	}
	cfg := features.Config{Format: features.FormatPOMO, Problem: problem.String(), DModel: d, Heads: 1,
		Layers: 0, FFN: 4, RIE: true, TrainSize: 10}
	return &toyModel{cfg: cfg, w0: rnd(4 * d), w1: rnd(4 * d), w2: rnd(4 * d), w3: rnd(4 * d), ws: rnd(8 * d)}
}

// write stores the model in dir; meta overrides metadata entries of both
// files ("" deletes a key).
func (m *toyModel) write(t *testing.T, dir string, meta map[string]string) {
	t.Helper()
	d := m.cfg.DModel
	md := m.cfg.Metadata()
	for k, v := range meta {
		if v == "" {
			delete(md, k)
		} else {
			md[k] = v
		}
	}
	B, N, R := onnx.Dynamic("B"), onnx.Dynamic("N"), onnx.Dynamic("R")

	enc := onnx.NewGraph("toy_encoder")
	in := enc.Input(features.InNodeFeat, onnx.Float, B, N, onnx.Fixed(4))
	for k, w := range [][]float32{m.w0, m.w1, m.w2, m.w3} {
		wn := enc.Floats(features.EncoderOutputs[k]+"_w", []int{4, d}, w)
		enc.OpTo("MatMul", []string{in, wn}, []string{features.EncoderOutputs[k]})
		enc.Output(features.EncoderOutputs[k], onnx.Float, B, N, onnx.Fixed(d))
	}
	if err := onnx.WriteFile(filepath.Join(dir, features.EncoderFile), onnx.NewModel(enc, md)); err != nil {
		t.Fatal(err)
	}

	dec := onnx.NewGraph("toy_decoder")
	var cache [4]string
	for k, name := range features.EncoderOutputs {
		cache[k] = dec.Input(name, onnx.Float, B, N, onnx.Fixed(d))
	}
	rowInst := dec.Input(features.InRowInstance, onnx.Int64, R)
	cur := dec.Input(features.InCurrent, onnx.Int64, R)
	step := dec.Input(features.InStepFeat, onnx.Float, R, onnx.Fixed(8))
	mask := dec.Input(features.InMask, onnx.Bool, R, N)
	embR := dec.Op("Gather", []string{cache[0], rowInst}, onnx.AttrInt("axis", 0))
	curIdx := dec.Op("Unsqueeze", []string{cur, dec.Vector(1)})
	curEmb := dec.Op("GatherND", []string{embR, curIdx}, onnx.AttrInt("batch_dims", 1))
	ws := dec.Floats("step_w", []int{8, d}, m.ws)
	q := dec.Op("Add", []string{curEmb, dec.Op("MatMul", []string{step, ws})})
	lkR := dec.Op("Gather", []string{cache[3], rowInst}, onnx.AttrInt("axis", 0))
	logit := dec.Op("Squeeze", []string{dec.Op("MatMul", []string{lkR, dec.Op("Unsqueeze", []string{q, dec.Vector(2)})}), dec.Vector(2)})
	masked := dec.Op("Where", []string{mask, logit, dec.Scalar(-1e9)})
	dec.OpTo("LogSoftmax", []string{masked}, []string{features.OutLogProbs}, onnx.AttrInt("axis", -1))
	dec.Output(features.OutLogProbs, onnx.Float, R, N)
	if err := onnx.WriteFile(filepath.Join(dir, features.DecoderFile), onnx.NewModel(dec, md)); err != nil {
		t.Fatal(err)
	}
	if err := features.WriteConfig(dir, m.cfg); err != nil {
		t.Fatal(err)
	}
}

// scores computes the toy model's log-probabilities in Go (float64).
func (m *toyModel) scores(insts []*lazymask.Instance, b *lazymask.StepBatch) []float64 {
	d, n := m.cfg.DModel, b.N
	proj := func(f []float32, w []float32, k int) float64 {
		s := 0.0
		for c := 0; c < 4; c++ {
			s += float64(f[c]) * float64(w[c*d+k])
		}
		return s
	}
	scales := make([]float64, len(insts))
	for i, in := range insts {
		scales[i] = features.StateScale(in)
	}
	step := make([]float32, 8)
	out := make([]float64, b.Rows()*n)
	for r := 0; r < b.Rows(); r++ {
		in := insts[b.Inst[r]]
		nf := features.NodeFeaturesOf(in)
		features.StepFeaturesInto(step, b.State[r], scales[b.Inst[r]], b.Refine[r], b.Budget[r])
		q := make([]float64, d)
		for k := range q {
			q[k] = proj(nf[4*b.Current[r]:], m.w0, k)
			for s := 0; s < 8; s++ {
				q[k] += float64(step[s]) * float64(m.ws[s*d+k])
			}
		}
		row := out[r*n : (r+1)*n]
		mx := math.Inf(-1)
		for j := 0; j < n; j++ {
			if !b.Mask[r*n+j] {
				row[j] = -1e9
				continue
			}
			for k := 0; k < d; k++ {
				row[j] += proj(nf[4*j:], m.w3, k) * q[k]
			}
			mx = math.Max(mx, row[j])
		}
		sum := 0.0
		for j := 0; j < n; j++ {
			if b.Mask[r*n+j] {
				sum += math.Exp(row[j] - mx)
			}
		}
		for j := 0; j < n; j++ {
			if b.Mask[r*n+j] {
				row[j] -= mx + math.Log(sum)
			}
		}
	}
	return out
}

// randomInstances draws TSPTW instances with a feasible random tour (windows
// built around it), or TSPDL instances with draft limits that admit it.
func randomInstances(p lazymask.Problem, count, n int, seed uint64) []*lazymask.Instance {
	r := rand.New(rand.NewPCG(seed, 11))
	out := make([]*lazymask.Instance, count)
	for i := range out {
		in := &lazymask.Instance{Problem: p, N: n, Scale: 1, X: make([]float64, n), Y: make([]float64, n)}
		for j := 0; j < n; j++ {
			in.X[j], in.Y[j] = r.Float64(), r.Float64()
		}
		perm := append([]int{0}, r.Perm(n-1)...)
		for j := 1; j < n; j++ {
			perm[j]++
		}
		switch p {
		case lazymask.TSPTW:
			in.Early, in.Late, in.Service = make([]float64, n), make([]float64, n), make([]float64, n)
			t := 0.0
			for k := 1; k < n; k++ {
				t += in.D(perm[k-1], perm[k])
				in.Early[perm[k]] = math.Max(0, t-0.3*r.Float64())
				in.Late[perm[k]] = t + 0.5*r.Float64()
			}
			in.Late[0] = t + in.D(perm[n-1], 0) + 1
		case lazymask.TSPDL:
			in.Demand, in.Draft = make([]float64, n), make([]float64, n)
			for j := 1; j < n; j++ {
				in.Demand[j] = 1 / float64(n-1)
			}
			load := 0.0
			for k := 1; k < n; k++ {
				load += in.Demand[perm[k]]
				in.Draft[perm[k]] = math.Min(1, load+0.3*r.Float64())
			}
			in.Draft[0] = 1
		}
		in.ResetCache()
		out[i] = in
	}
	return out
}

// needRuntime skips the test when the onnxruntime library cannot be loaded.
func needRuntime(t testing.TB) {
	t.Helper()
	if err := Available(); err != nil {
		t.Skipf("onnxruntime not available (set %s to libonnxruntime.so, e.g. after scripts/setup.sh): %v", LibraryEnv, err)
	}
}

// toyDir writes a toy model into a fresh temporary directory.
func toyDir(t *testing.T, p lazymask.Problem, meta map[string]string) (string, *toyModel) {
	t.Helper()
	dir := t.TempDir()
	m := newToyModel(p, 16, 3)
	m.write(t, dir, meta)
	return dir, m
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 13)) }
