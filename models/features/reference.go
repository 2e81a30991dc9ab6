package features

import (
	"fmt"
	"math"

	"github.com/lmask/lmask/lazymask"
)

// Encoding is the encoder output of one instance: the final node
// embeddings and their glimpse-key, glimpse-value and logit-key
// projections, each [N,d] row-major.
type Encoding struct {
	N, D     int
	Emb      []float32
	GlimpseK []float32
	GlimpseV []float32
	LogitK   []float32
}

// Encode runs the encoder of a model (config c, weights w) on the [n,4]
// node features of one instance in plain Go, accumulating in float64. It
// is the reference the ONNX and GoMLX graphs are compared with.
func Encode(c Config, w Weights, nodeFeat []float32, n int) (*Encoding, error) {
	if n < 1 || len(nodeFeat) != NodeFeatures*n {
		return nil, fmt.Errorf("encode: node features have %d values, want %d·%d", len(nodeFeat), NodeFeatures, n)
	}
	d := c.DModel
	x := make([]float64, n*d)
	depotIn := []float64{float64(nodeFeat[0]), float64(nodeFeat[1])}
	copy(x[:d], linear(depotIn, 1, w[WDepotW], w[WDepotB]))
	if n > 1 {
		in := make([]float64, (n-1)*NodeFeatures)
		for i, v := range nodeFeat[NodeFeatures:] {
			in[i] = float64(v)
		}
		copy(x[d:], linear(in, n-1, w[WNodeW], w[WNodeB]))
	}
	for l := 0; l < c.Layers; l++ {
		name := func(s string) string { return LayerName(l, s) }
		att := attention(c, w, l, x, n)
		for i := range x {
			x[i] += att[i]
		}
		instanceNorm(x, n, d, w[name("norm1/scale")], w[name("norm1/offset")])
		f := linear(x, n, w[name("ffn/w1")], w[name("ffn/b1")])
		for i, v := range f {
			f[i] = math.Max(v, 0)
		}
		f = linear(f, n, w[name("ffn/w2")], w[name("ffn/b2")])
		for i := range x {
			x[i] += f[i]
		}
		instanceNorm(x, n, d, w[name("norm2/scale")], w[name("norm2/offset")])
	}
	proj := linear(x, n, w[WProjectNodes], Tensor{})
	e := &Encoding{N: n, D: d, Emb: toF32(x)}
	e.GlimpseK, e.GlimpseV, e.LogitK = make([]float32, n*d), make([]float32, n*d), make([]float32, n*d)
	for i := 0; i < n; i++ {
		row := proj[i*3*d : (i+1)*3*d]
		for j := 0; j < d; j++ {
			e.GlimpseK[i*d+j] = float32(row[j])
			e.GlimpseV[i*d+j] = float32(row[d+j])
			e.LogitK[i*d+j] = float32(row[2*d+j])
		}
	}
	return e, nil
}

// attention is the multi-head self-attention of encoder layer l on x [n,d].
func attention(c Config, w Weights, l int, x []float64, n int) []float64 {
	d, heads := c.DModel, c.Heads
	dh := d / heads
	p := func(s string) Tensor { return w[LayerName(l, "mha/"+s)] }
	q := linear(x, n, p("q/w"), p("q/b"))
	k := linear(x, n, p("k/w"), p("k/b"))
	v := linear(x, n, p("v/w"), p("v/b"))
	out := make([]float64, n*d)
	scores := make([]float64, n)
	for h := 0; h < heads; h++ {
		off := h * dh
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var s float64
				for t := 0; t < dh; t++ {
					s += q[i*d+off+t] * k[j*d+off+t]
				}
				scores[j] = s / math.Sqrt(float64(dh))
			}
			softmax(scores, nil)
			for j := 0; j < n; j++ {
				for t := 0; t < dh; t++ {
					out[i*d+off+t] += scores[j] * v[j*d+off+t]
				}
			}
		}
	}
	return linear(out, n, p("o/w"), p("o/b"))
}

// DecodeStep computes the log-probabilities over the n nodes of one
// decoder row: the instance's encoding e, the current node, the [8] step
// features, the [n] mask (true = allowed) and, for a decoder that reads
// them, the [n,K] candidate features cand (nil otherwise). Masked entries
// of dst get −inf.
func DecodeStep(c Config, w Weights, e *Encoding, current int, stepFeat []float32, mask []bool, cand []float32, dst []float32) error {
	n, d, heads := e.N, e.D, c.Heads
	dh := d / heads
	if current < 0 || current >= n {
		return fmt.Errorf("decode step: current node %d outside [0,%d)", current, n)
	}
	if len(stepFeat) != StepFeatures || len(mask) != n || len(dst) != n || len(cand) != n*c.CandWidth() {
		return fmt.Errorf("decode step: step features %d (want %d), mask %d and output %d (want %d), cand %d (want %d)",
			len(stepFeat), StepFeatures, len(mask), len(dst), n, len(cand), n*c.CandWidth())
	}
	keys := c.Cand == CandKeys || c.Cand == CandBoth
	bias := c.Cand == CandBias || c.Cand == CandBoth
	var phi []float64 // [n,CandHidden]
	if k := c.CandWidth(); k > 0 {
		in := make([]float64, n*k)
		for i, v := range cand {
			in[i] = float64(v)
		}
		phi = linear(in, n, w[WCandW1], w[WCandB1])
		for i, v := range phi {
			phi[i] = math.Max(v, 0)
		}
	}
	ctx := make([]float64, c.QueryInputs())
	for j := 0; j < d; j++ {
		ctx[j] = float64(e.Emb[current*d+j])
	}
	for j := d; j < len(ctx); j++ {
		ctx[j] = float64(stepFeat[j-d])
	}
	q := linear(ctx, 1, w[WQueryW], w[WQueryB])
	// With keys, node j's glimpse key and value and its logit key gain
	// φ_j·W of the matching block.
	var ck, cv, cl []float64
	if keys {
		ck = linear(phi, n, w[WCandGK], Tensor{})
		cv = linear(phi, n, w[WCandGV], Tensor{})
		cl = linear(phi, n, w[WCandLK], Tensor{})
	}
	at := func(extra []float64, i int) float64 {
		if extra == nil {
			return 0
		}
		return extra[i]
	}
	att := make([]float64, d)
	scores := make([]float64, n)
	for h := 0; h < heads; h++ {
		off := h * dh
		for j := 0; j < n; j++ {
			var s float64
			for t := 0; t < dh; t++ {
				s += q[off+t] * (float64(e.GlimpseK[j*d+off+t]) + at(ck, j*d+off+t))
			}
			scores[j] = s / math.Sqrt(float64(dh))
		}
		if !softmax(scores, mask) {
			return fmt.Errorf("decode step: every node is masked")
		}
		for j := 0; j < n; j++ {
			for t := 0; t < dh; t++ {
				att[off+t] += scores[j] * (float64(e.GlimpseV[j*d+off+t]) + at(cv, j*d+off+t))
			}
		}
	}
	glimpse := linear(att, 1, w[WProjectOut], Tensor{})
	if c.ReLD {
		for t := range glimpse {
			glimpse[t] += q[t]
		}
		f := linear(glimpse, 1, w[WReLDW1], w[WReLDB1])
		for i, v := range f {
			f[i] = math.Max(v, 0)
		}
		for t, v := range linear(f, 1, w[WReLDW2], w[WReLDB2]) {
			glimpse[t] += v
		}
	}
	var b []float64
	if bias {
		b = linear(phi, n, w[WCandBW], w[WCandBB])
	}
	logits := scores
	for j := 0; j < n; j++ {
		var s float64
		for t := 0; t < d; t++ {
			s += glimpse[t] * (float64(e.LogitK[j*d+t]) + at(cl, j*d+t))
		}
		logits[j] = TanhClip * math.Tanh(s/math.Sqrt(float64(d))+at(b, j))
	}
	logSoftmax(logits, mask)
	for j, v := range logits {
		dst[j] = float32(v)
	}
	return nil
}

// linear returns x [rows,in] · W [in,out] + b (b may be empty).
func linear(x []float64, rows int, wt, b Tensor) []float64 {
	in, out := wt.Shape[0], wt.Shape[1]
	y := make([]float64, rows*out)
	for r := 0; r < rows; r++ {
		yr := y[r*out : (r+1)*out]
		for j := range yr {
			if b.Data != nil {
				yr[j] = float64(b.Data[j])
			}
		}
		for i := 0; i < in; i++ {
			xi := x[r*in+i]
			wi := wt.Data[i*out : (i+1)*out]
			for j, v := range wi {
				yr[j] += xi * float64(v)
			}
		}
	}
	return y
}

// instanceNorm normalises x [n,d] in place over the node axis per channel
// (biased variance, eps NormEps), then scales and offsets.
func instanceNorm(x []float64, n, d int, scale, offset Tensor) {
	for j := 0; j < d; j++ {
		var mean, v float64
		for i := 0; i < n; i++ {
			mean += x[i*d+j]
		}
		mean /= float64(n)
		for i := 0; i < n; i++ {
			t := x[i*d+j] - mean
			v += t * t
		}
		v /= float64(n)
		inv := 1 / math.Sqrt(v+NormEps)
		for i := 0; i < n; i++ {
			x[i*d+j] = (x[i*d+j]-mean)*inv*float64(scale.Data[j]) + float64(offset.Data[j])
		}
	}
}

// softmax turns s into probabilities in place; entries whose mask is false
// (mask may be nil) get probability 0. It reports false when every entry
// is masked.
func softmax(s []float64, mask []bool) bool {
	m := math.Inf(-1)
	for j, v := range s {
		if (mask == nil || mask[j]) && v > m {
			m = v
		}
	}
	if math.IsInf(m, -1) {
		return false
	}
	var sum float64
	for j, v := range s {
		if mask != nil && !mask[j] {
			s[j] = 0
			continue
		}
		s[j] = math.Exp(v - m)
		sum += s[j]
	}
	for j := range s {
		s[j] /= sum
	}
	return true
}

// logSoftmax replaces s by its log-softmax over the allowed entries; the
// masked ones become −inf. The caller guarantees one allowed entry.
func logSoftmax(s []float64, mask []bool) {
	m := math.Inf(-1)
	for j, v := range s {
		if mask[j] && v > m {
			m = v
		}
	}
	var sum float64
	for j, v := range s {
		if mask[j] {
			sum += math.Exp(v - m)
		}
	}
	lse := m + math.Log(sum)
	for j := range s {
		if mask[j] {
			s[j] -= lse
		} else {
			s[j] = math.Inf(-1)
		}
	}
}

func toF32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

// ReferencePolicy is a lazymask.Policy that runs the model with Encode and
// DecodeStep in plain Go: slow, dependency-free, and exact.
type ReferencePolicy struct {
	cfg    Config
	w      Weights
	enc    []*Encoding
	scales []float64
	insts  []*lazymask.Instance
	step   [StepFeatures]float32
	cand   []float32
}

// NewReferencePolicy checks the config and weights and returns a policy.
func NewReferencePolicy(c Config, w Weights) (*ReferencePolicy, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if err := w.Check(c); err != nil {
		return nil, err
	}
	return &ReferencePolicy{cfg: c, w: w}, nil
}

// Begin encodes every instance of the decode.
func (p *ReferencePolicy) Begin(insts []*lazymask.Instance) error {
	p.enc, p.scales = make([]*Encoding, len(insts)), make([]float64, len(insts))
	p.insts = insts
	for i, inst := range insts {
		if inst.Problem != p.cfg.ProblemKind() {
			return fmt.Errorf("reference policy: instance %d is %v, model is %s", i, inst.Problem, p.cfg.Problem)
		}
		e, err := Encode(p.cfg, p.w, NodeFeaturesOf(inst), inst.N)
		if err != nil {
			return fmt.Errorf("reference policy: instance %d: %w", i, err)
		}
		p.enc[i], p.scales[i] = e, StateScale(inst)
	}
	return nil
}

// Scores writes the log-probabilities of every row of b into out (R·N).
func (p *ReferencePolicy) Scores(b *lazymask.StepBatch, out []float32) error {
	n := b.N
	for r := range b.Traj {
		i := b.Inst[r]
		if i < 0 || i >= len(p.enc) {
			return fmt.Errorf("reference policy: row %d refers to instance %d of %d", r, i, len(p.enc))
		}
		StepFeaturesInto(p.step[:], b.State[r], p.scales[i], b.Refine[r], b.Budget[r])
		var cand []float32
		if k := p.cfg.CandWidth(); k > 0 {
			if cap(p.cand) < n*k {
				p.cand = make([]float32, n*k)
			}
			p.cand = p.cand[:n*k] // CandFeaturesInto clears it
			CandFeaturesInto(p.cand, p.insts[i], CandScale(p.insts[i]), b.Current[r], b.State[r], b.Mask[r*n:(r+1)*n])
			cand = p.cand
		}
		if err := DecodeStep(p.cfg, p.w, p.enc[i], b.Current[r], p.step[:], b.Mask[r*n:(r+1)*n], cand, out[r*n:(r+1)*n]); err != nil {
			return fmt.Errorf("reference policy: row %d: %w", r, err)
		}
	}
	return nil
}
