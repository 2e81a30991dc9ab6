package models

import (
	"fmt"

	"github.com/gomlx/gomlx/core/tensors"

	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
)

// Row buckets of Policy.Scores: a call with R rows runs in chunks of at
// most MaxPolicyRows rows, each padded to the next power of two ≥
// MinPolicyRows, so only a few decoder shapes are ever compiled.
const (
	MinPolicyRows = 8
	MaxPolicyRows = 2048
)

// Policy is a lazymask.Policy backed by the GoMLX model: Begin encodes the
// decode's instances once (the batch padded to a power of two with zero
// instances) and Scores runs the decoder step on the rows (padded to a
// power of two with harmless rows whose mask is all true). Input tensors
// are reused between calls. A Policy is not safe for concurrent use;
// create one per goroutine.
type Policy struct {
	m      *Model
	n      int
	b      int
	scales []float64
	enc    *Encoded

	nodeFeat *tensors.Tensor
	rows     map[int]*decodeInputs // by padded row count
}

var _ lazymask.Policy = (*Policy)(nil)

// Policy returns a new lazymask.Policy over the model's current weights.
func (m *Model) Policy() *Policy { return &Policy{m: m, rows: map[int]*decodeInputs{}} }

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
	p.enc, err = p.m.encodeTensor(p.nodeFeat)
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

// scoreChunk scores rows [lo,hi) of b.
func (p *Policy) scoreChunk(b *lazymask.StepBatch, lo, hi int, out []float32) error {
	n, rows := p.n, hi-lo
	rp := bucket(rows, MinPolicyRows)
	in := p.rows[rp]
	if in == nil || in.mask.Shape().Dimensions[1] != n {
		in = &decodeInputs{
			rowInst:  tensors.FromFlatDataAndDimensions(make([]int64, rp), rp),
			current:  tensors.FromFlatDataAndDimensions(make([]int64, rp), rp),
			stepFeat: tensors.FromFlatDataAndDimensions(make([]float32, rp*features.StepFeatures), rp, features.StepFeatures),
			mask:     tensors.FromFlatDataAndDimensions(make([]bool, rp*n), rp, n),
		}
		p.rows[rp] = in
	}
	var bad error
	if err := tensors.MutableFlatData(in.rowInst, func(inst []int64) {
		for i := range inst {
			inst[i] = 0
			if i < rows {
				k := b.Inst[lo+i]
				if k < 0 || k >= p.b {
					bad = fmt.Errorf("policy scores: row %d refers to instance %d of %d", lo+i, k, p.b)
				}
				inst[i] = int64(k)
			}
		}
	}); err != nil {
		return err
	}
	if bad != nil {
		return bad
	}
	if err := tensors.MutableFlatData(in.current, func(cur []int64) {
		for i := range cur {
			cur[i] = 0
			if i < rows {
				if c := b.Current[lo+i]; c >= 0 && c < n {
					cur[i] = int64(c)
				} else {
					bad = fmt.Errorf("policy scores: row %d has current node %d outside [0,%d)", lo+i, c, n)
				}
			}
		}
	}); err != nil {
		return err
	}
	if bad != nil {
		return bad
	}
	if err := tensors.MutableFlatData(in.stepFeat, func(sf []float32) {
		clear(sf)
		for i := 0; i < rows; i++ {
			k := lo + i
			features.StepFeaturesInto(sf[i*features.StepFeatures:(i+1)*features.StepFeatures],
				b.State[k], p.scales[b.Inst[k]], b.Refine[k], b.Budget[k])
		}
	}); err != nil {
		return err
	}
	if err := tensors.MutableFlatData(in.mask, func(mask []bool) {
		copy(mask, b.Mask[lo*n:hi*n])
		for i := rows * n; i < len(mask); i++ {
			mask[i] = true
		}
	}); err != nil {
		return err
	}
	t, err := p.m.decodeTensors(p.enc, *in)
	if err != nil {
		return fmt.Errorf("policy scores: %w", err)
	}
	defer t.FinalizeAll()
	return tensors.ConstFlatData(t, func(logp []float32) {
		copy(out[lo*n:hi*n], logp[:rows*n])
	})
}

// Close releases the encoder outputs and input buffers.
func (p *Policy) Close() {
	if p.enc != nil {
		p.enc.Release()
		p.enc = nil
	}
	for k, in := range p.rows {
		for _, t := range []*tensors.Tensor{in.rowInst, in.current, in.stepFeat, in.mask} {
			_ = t.FinalizeAll()
		}
		delete(p.rows, k)
	}
	if p.nodeFeat != nil {
		_ = p.nodeFeat.FinalizeAll()
		p.nodeFeat = nil
	}
}
