package models

import (
	"fmt"

	"github.com/gomlx/gomlx/core/tensors"

	"github.com/lmask/lmask/models/features"
)

// ReplayBatch holds B instances × P rollouts × T steps of recorded
// decisions for ReplayLogLik, row-major with the shapes of its fields.
type ReplayBatch struct {
	B, P, T, N int

	NodeFeat []float32 // [B,N,4]
	Current  []int64   // [B,P,T] node each step starts from
	StepFeat []float32 // [B,P,T,8]
	Mask     []bool    // [B,P,T,N] true = node was allowed
	Chosen   []int64   // [B,P,T] node drawn at the step
	Valid    []float32 // [B,P,T] 1 = step counts, 0 = padding
	// K and CandFeat: the candidate features [B,P,T,N,K] of a decoder that
	// reads them (WithCand); K = 0 and no tensor otherwise.
	K        int
	CandFeat []float32
}

// WithCand gives the batch a zeroed candidate-feature buffer of width k
// (features.Config.CandWidth; 0 leaves it without) and returns it.
func (r *ReplayBatch) WithCand(k int) *ReplayBatch {
	r.K = k
	r.CandFeat = nil
	if k > 0 {
		r.CandFeat = make([]float32, r.B*r.P*r.T*r.N*k)
	}
	return r
}

// NewReplayBatch allocates a zeroed batch of the given sizes.
func NewReplayBatch(b, p, t, n int) *ReplayBatch {
	s := b * p * t
	return &ReplayBatch{B: b, P: p, T: t, N: n,
		NodeFeat: make([]float32, b*n*features.NodeFeatures),
		Current:  make([]int64, s),
		StepFeat: make([]float32, s*features.StepFeatures),
		Mask:     make([]bool, s*n),
		Chosen:   make([]int64, s),
		Valid:    make([]float32, s),
	}
}

// Validate checks sizes and index ranges, and that every valid step chose
// an allowed node.
func (r *ReplayBatch) Validate() error {
	if r.B <= 0 || r.P <= 0 || r.T <= 0 || r.N < 2 {
		return fmt.Errorf("replay batch: sizes B=%d P=%d T=%d N=%d must be positive (N ≥ 2)", r.B, r.P, r.T, r.N)
	}
	s := r.B * r.P * r.T
	for _, f := range []struct {
		name      string
		got, want int
	}{
		{"node_feat", len(r.NodeFeat), r.B * r.N * features.NodeFeatures},
		{"current", len(r.Current), s},
		{"step_feat", len(r.StepFeat), s * features.StepFeatures},
		{"mask", len(r.Mask), s * r.N},
		{"chosen", len(r.Chosen), s},
		{"valid", len(r.Valid), s},
		{"cand_feat", len(r.CandFeat), s * r.N * r.K},
	} {
		if f.got != f.want {
			return fmt.Errorf("replay batch: %s has %d values, want %d", f.name, f.got, f.want)
		}
	}
	for i := 0; i < s; i++ {
		if r.Current[i] < 0 || r.Current[i] >= int64(r.N) || r.Chosen[i] < 0 || r.Chosen[i] >= int64(r.N) {
			return fmt.Errorf("replay batch: step %d: current %d / chosen %d out of range N=%d", i, r.Current[i], r.Chosen[i], r.N)
		}
		if r.Valid[i] != 0 && !r.Mask[i*r.N+int(r.Chosen[i])] {
			return fmt.Errorf("replay batch: step %d: chosen node %d is masked", i, r.Chosen[i])
		}
	}
	return nil
}

// Tensors returns the graph inputs of ReplayLogLik in order: six, and the
// candidate features as a seventh where the batch has them.
func (r *ReplayBatch) Tensors() []any {
	t := []any{
		tensors.FromFlatDataAndDimensions(r.NodeFeat, r.B, r.N, features.NodeFeatures),
		tensors.FromFlatDataAndDimensions(r.Current, r.B, r.P, r.T),
		tensors.FromFlatDataAndDimensions(r.StepFeat, r.B, r.P, r.T, features.StepFeatures),
		tensors.FromFlatDataAndDimensions(r.Mask, r.B, r.P, r.T, r.N),
		tensors.FromFlatDataAndDimensions(r.Chosen, r.B, r.P, r.T),
		tensors.FromFlatDataAndDimensions(r.Valid, r.B, r.P, r.T),
	}
	if r.K > 0 {
		t = append(t, tensors.FromFlatDataAndDimensions(r.CandFeat, r.B, r.P, r.T, r.N, r.K))
	}
	return t
}

// ReleaseInputs frees the backend memory of graph inputs made for one call
// (Tensors): a tensor's backend copy is otherwise freed only when the Go
// collector finalizes it, which a small Go heap may put off for hundreds of
// training steps while the backend memory grows.
func ReleaseInputs(in []any) {
	for _, v := range in {
		if t, ok := v.(*tensors.Tensor); ok {
			_ = t.FinalizeAll()
		}
	}
}

// ReplayInputs is the number of ReplayLogLik inputs for a model of config
// c: six, seven with candidate features.
func ReplayInputs(c features.Config) int {
	if c.CandWidth() > 0 {
		return 7
	}
	return 6
}

// Replay evaluates ReplayLogLik (no gradient) and returns loglik and
// entropy [B,P] row-major.
func (m *Model) Replay(r *ReplayBatch) (loglik, entropy []float32, err error) {
	if err := r.Validate(); err != nil {
		return nil, nil, err
	}
	if r.K != m.cfg.CandWidth() {
		return nil, nil, fmt.Errorf("replay batch: %d candidate features, the model reads %d", r.K, m.cfg.CandWidth())
	}
	in := r.Tensors()
	out, err := m.callExec(m.replayExec, "replay", in...)
	ReleaseInputs(in)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		for _, t := range out {
			_ = t.FinalizeAll()
		}
	}()
	if loglik, err = tensors.CopyFlatData[float32](out[0]); err != nil {
		return nil, nil, err
	}
	if entropy, err = tensors.CopyFlatData[float32](out[1]); err != nil {
		return nil, nil, err
	}
	return loglik, entropy, nil
}
