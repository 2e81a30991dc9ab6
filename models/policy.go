package models

import (
	"fmt"

	"github.com/gomlx/gomlx/core/tensors"

	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
)

// MaxPolicyRows bounds the rows of one decoder call: Policy.Scores runs a
// larger batch in chunks of at most this many rows.
const MaxPolicyRows = 4096

// Policy is a lazymask.Policy backed by the GoMLX model: Begin encodes the
// decode's instances once (the batch padded to a power of two with zero
// instances) and Scores runs the decoder step on the rows grouped by
// instance, the rows per instance padded to a power of two with harmless
// rows whose mask is all true. While the folded step is cheaper for the
// instances' N (foldedFits), Begin also folds the query, attention and
// logit products into per-instance caches and Scores runs foldedStep;
// otherwise it runs DecoderStepGrouped. The caches stay on the backend
// between steps and input tensors are reused between calls. A Policy is
// not safe for concurrent use; create one per goroutine.
type Policy struct {
	m      *Model
	n      int
	b      int
	scales []float64
	insts  []*lazymask.Instance
	sigmas []float64 // features.CandScale of insts
	enc    *Encoded
	// folded is set when enc holds the folded caches; direct disables
	// folding (for comparisons).
	folded, direct bool

	nodeFeat *tensors.Tensor
	rows     map[int]*groupedInputs // by padded rows per instance
	slot     []int
	counts   []int
}

var _ lazymask.Policy = (*Policy)(nil)

// Policy returns a new lazymask.Policy over the model's current weights.
func (m *Model) Policy() *Policy { return &Policy{m: m, rows: map[int]*groupedInputs{}} }

// bucket returns the smallest power of two ≥ max(x, min).
func bucket(x, min int) int {
	p := 1
	for p < x || p < min {
		p *= 2
	}
	return p
}

// Begin encodes insts, which must share N and the model's problem.
func (p *Policy) Begin(insts []*lazymask.Instance) error {
	if len(insts) == 0 {
		return fmt.Errorf("policy begin: no instances")
	}
	want := p.m.cfg.ProblemKind()
	n := insts[0].N
	for i, in := range insts {
		if in.Problem != want {
			return fmt.Errorf("policy begin: instance %d (%s) is %s, the model solves %s", i, in.Name, in.Problem, want)
		}
		if in.N != n {
			return fmt.Errorf("policy begin: instance %d (%s) has N=%d, instance 0 has N=%d", i, in.Name, in.N, n)
		}
	}
	if n < 2 {
		return fmt.Errorf("policy begin: instances need at least 2 nodes, have %d", n)
	}
	bp := bucket(len(insts), 1)
	if p.nodeFeat == nil || p.nodeFeat.Shape().Dimensions[0] != bp || p.nodeFeat.Shape().Dimensions[1] != n {
		if p.nodeFeat != nil {
			_ = p.nodeFeat.FinalizeAll()
		}
		p.nodeFeat = tensors.FromFlatDataAndDimensions(make([]float32, bp*n*features.NodeFeatures), bp, n, features.NodeFeatures)
	}
	p.scales = p.scales[:0]
	p.insts = append(p.insts[:0], insts...)
	p.sigmas = p.sigmas[:0]
	for _, in := range insts {
		p.sigmas = append(p.sigmas, features.CandScale(in))
	}
	err := tensors.MutableFlatData(p.nodeFeat, func(flat []float32) {
		clear(flat)
		for i, in := range insts {
			features.NodeFeaturesInto(flat[i*n*features.NodeFeatures:], in)
			p.scales = append(p.scales, features.StateScale(in))
		}
	})
	if err != nil {
		return fmt.Errorf("policy begin: %w", err)
	}
	if p.enc != nil {
		p.enc.Release()
	}
	p.folded = !p.direct && foldedFits(p.m.cfg, n)
	p.enc, err = p.m.encodeTensor(p.nodeFeat, p.folded)
	if err != nil {
		return fmt.Errorf("policy begin: %w", err)
	}
	p.n, p.b = n, len(insts)
	return nil
}

// Scores writes the log-probabilities of every row of b into out[r*N+j].
func (p *Policy) Scores(b *lazymask.StepBatch, out []float32) error {
	if p.enc == nil {
		return fmt.Errorf("policy scores: Begin was not called")
	}
	r, n := b.Rows(), p.n
	if b.N != n {
		return fmt.Errorf("policy scores: batch has N=%d, the encoded instances have N=%d", b.N, n)
	}
	if len(out) < r*n || len(b.Mask) < r*n {
		return fmt.Errorf("policy scores: %d rows need %d outputs and mask values, have %d and %d", r, r*n, len(out), len(b.Mask))
	}
	for lo := 0; lo < r; lo += MaxPolicyRows {
		hi := min(lo+MaxPolicyRows, r)
		if err := p.scoreChunk(b, lo, hi, out); err != nil {
			return err
		}
	}
	return nil
}

// groupedInputs are the decoder inputs of Policy with rows grouped by
// instance: current [B,M], stepFeat [B,M,8] and mask [B,M,N] for
// DecoderStepGrouped; for foldedStep current holds instance·N + node and
// bias [B,M,N] replaces mask.
type groupedInputs struct {
	folded                              bool
	n                                   int
	current, stepFeat, mask, bias, cand *tensors.Tensor
}

// release frees the tensors.
func (in *groupedInputs) release() {
	for _, t := range []*tensors.Tensor{in.current, in.stepFeat, in.mask, in.bias, in.cand} {
		if t != nil {
			_ = t.FinalizeAll()
		}
	}
}

// fillGrouped writes the current nodes and masks of rows [lo,lo+rows) of b
// at their grouped positions; padding rows get node 0 and an all-true mask.
func (p *Policy) fillGrouped(in *groupedInputs, b *lazymask.StepBatch, lo, rows int, pos func(int) int) error {
	n := p.n
	if err := tensors.MutableFlatData(in.current, func(cur []int64) {
		clear(cur)
		for i := 0; i < rows; i++ {
			cur[pos(i)] = int64(b.Current[lo+i])
		}
	}); err != nil {
		return err
	}
	return tensors.MutableFlatData(in.mask, func(mask []bool) {
		for i := range mask {
			mask[i] = true
		}
		for i := 0; i < rows; i++ {
			at := pos(i)
			copy(mask[at*n:(at+1)*n], b.Mask[(lo+i)*n:(lo+i+1)*n])
		}
	})
}

// fillFolded writes instance·N + current node and the mask as an additive
// bias (0 allowed, MaskedLogit masked) for the rows [lo,lo+rows) of b;
// padding rows get node 0 of their instance and a zero bias.
func (p *Policy) fillFolded(in *groupedInputs, b *lazymask.StepBatch, lo, rows int, pos func(int) int) error {
	n := p.n
	mp := in.current.Shape().Dimensions[1]
	if err := tensors.MutableFlatData(in.current, func(cur []int64) {
		for i := range cur {
			cur[i] = int64(i / mp * n)
		}
		for i := 0; i < rows; i++ {
			cur[pos(i)] += int64(b.Current[lo+i])
		}
	}); err != nil {
		return err
	}
	return tensors.MutableFlatData(in.bias, func(bias []float32) {
		clear(bias)
		for i := 0; i < rows; i++ {
			dst := bias[pos(i)*n:][:n]
			for j, ok := range b.Mask[(lo+i)*n : (lo+i+1)*n] {
				if !ok {
					dst[j] = MaskedLogit
				}
			}
		}
	})
}

// scoreChunk scores rows [lo,hi) of b: the rows are grouped by instance
// into a [B, M] layout (M = the most rows of one instance, rounded up to a
// power of two); free slots hold padding rows with an all-true mask.
func (p *Policy) scoreChunk(b *lazymask.StepBatch, lo, hi int, out []float32) error {
	n, rows := p.n, hi-lo
	bp := p.enc.B
	if cap(p.counts) < bp {
		p.counts = make([]int, bp)
	}
	counts := p.counts[:bp]
	clear(counts)
	if cap(p.slot) < rows {
		p.slot = make([]int, rows)
	}
	slot := p.slot[:rows]
	for i := 0; i < rows; i++ {
		k, c := b.Inst[lo+i], b.Current[lo+i]
		if k < 0 || k >= p.b {
			return fmt.Errorf("policy scores: row %d refers to instance %d of %d", lo+i, k, p.b)
		}
		if c < 0 || c >= n {
			return fmt.Errorf("policy scores: row %d has current node %d outside [0,%d)", lo+i, c, n)
		}
		slot[i] = counts[k]
		counts[k]++
	}
	mp := bucket(max(1, maxInt(counts)), 1)
	in := p.rows[mp]
	if in == nil || in.folded != p.folded || in.stepFeat.Shape().Dimensions[0] != bp || in.n != n {
		if in != nil {
			in.release()
		}
		in = &groupedInputs{
			folded:   p.folded,
			n:        n,
			current:  tensors.FromFlatDataAndDimensions(make([]int64, bp*mp), bp, mp),
			stepFeat: tensors.FromFlatDataAndDimensions(make([]float32, bp*mp*features.StepFeatures), bp, mp, features.StepFeatures),
		}
		if p.folded {
			in.bias = tensors.FromFlatDataAndDimensions(make([]float32, bp*mp*n), bp, mp, n)
		} else {
			in.mask = tensors.FromFlatDataAndDimensions(make([]bool, bp*mp*n), bp, mp, n)
		}
		if k := p.m.cfg.CandWidth(); k > 0 {
			in.cand = tensors.FromFlatDataAndDimensions(make([]float32, bp*mp*n*k), bp, mp, n, k)
		}
		p.rows[mp] = in
	}
	pos := func(i int) int { return b.Inst[lo+i]*mp + slot[i] }
	if p.folded {
		if err := p.fillFolded(in, b, lo, rows, pos); err != nil {
			return err
		}
	} else if err := p.fillGrouped(in, b, lo, rows, pos); err != nil {
		return err
	}
	if err := tensors.MutableFlatData(in.stepFeat, func(sf []float32) {
		clear(sf)
		const w = features.StepFeatures
		for i := 0; i < rows; i++ {
			k, at := lo+i, pos(i)
			features.StepFeaturesInto(sf[at*w:(at+1)*w], b.State[k], p.scales[b.Inst[k]], b.Refine[k], b.Budget[k])
		}
	}); err != nil {
		return err
	}
	if in.cand != nil {
		if err := tensors.MutableFlatData(in.cand, func(cf []float32) {
			clear(cf)
			k := p.m.cfg.CandWidth()
			for i := 0; i < rows; i++ {
				r, at := lo+i, pos(i)
				inst := b.Inst[r]
				features.CandFeaturesInto(cf[at*n*k:(at+1)*n*k], p.insts[inst], p.sigmas[inst], b.Current[r], b.State[r], b.Mask[r*n:(r+1)*n])
			}
		}); err != nil {
			return err
		}
	}
	e := p.enc.out
	var res []*tensors.Tensor
	var err error
	if p.folded {
		res, err = p.m.callExec(p.m.foldStepExec, "policy decoder", e[0], e[1], e[2], in.current, in.stepFeat, in.bias)
	} else {
		args := []any{e[0], e[1], e[2], e[3], in.current, in.stepFeat, in.mask}
		if in.cand != nil {
			args = append(args, in.cand)
		}
		res, err = p.m.callExec(p.m.groupedExec, "policy decoder", args...)
	}
	if err != nil {
		return fmt.Errorf("policy scores: %w", err)
	}
	defer res[0].FinalizeAll()
	return tensors.ConstFlatData(res[0], func(logp []float32) {
		for i := 0; i < rows; i++ {
			at := pos(i)
			copy(out[(lo+i)*n:(lo+i+1)*n], logp[at*n:(at+1)*n])
		}
	})
}

func maxInt(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// Close releases the encoder outputs and input buffers.
func (p *Policy) Close() {
	if p.enc != nil {
		p.enc.Release()
		p.enc = nil
	}
	for k, in := range p.rows {
		in.release()
		delete(p.rows, k)
	}
	if p.nodeFeat != nil {
		_ = p.nodeFeat.FinalizeAll()
		p.nodeFeat = nil
	}
}
