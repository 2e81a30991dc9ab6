package trainer

import (
	"fmt"

	"github.com/gomlx/gomlx/core/tensors"

	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models"
	"github.com/lmask/lmask/models/features"
)

// ReplayBatch is the models package's replay input (B instances × P
// samples × T = N−1 steps, padded to static shapes so the graph compiles
// once per run) plus the advantages [B,P] of the trajectories.
type ReplayBatch struct {
	*models.ReplayBatch
	Advantage []float32 // [B,P]
}

// NewReplayBatch allocates the buffers for b instances of n nodes and p
// samples each, with T = n−1 steps.
func NewReplayBatch(b, p, n int) *ReplayBatch {
	return &ReplayBatch{ReplayBatch: models.NewReplayBatch(b, p, n-1, n), Advantage: make([]float32, b*p)}
}

// withCand gives the batch the candidate-feature buffer a model of config
// mc reads (none for a decoder without them).
func (rb *ReplayBatch) withCand(mc features.Config) *ReplayBatch {
	rb.ReplayBatch.WithCand(mc.CandWidth())
	return rb
}

// Fill packs the instances and their recorded trajectories (instance-major:
// trajectory b·P+p is sample p of instance b, each with Steps recorded)
// into the buffers. Steps beyond a trajectory's kept steps are padding
// (valid 0, empty mask). Advantages are filled separately.
func (rb *ReplayBatch) Fill(insts []*lazymask.Instance, trajs []lazymask.Trajectory) error {
	if len(insts) != rb.B {
		return fmt.Errorf("replay batch: %d instances, batch holds %d", len(insts), rb.B)
	}
	if len(trajs) != rb.B*rb.P {
		return fmt.Errorf("replay batch: %d trajectories, batch holds %d×%d", len(trajs), rb.B, rb.P)
	}
	n, t := rb.N, rb.T
	for b, in := range insts {
		if in.N != n {
			return fmt.Errorf("replay batch: instance %d (%q) has %d nodes, batch has %d", b, in.Name, in.N, n)
		}
		features.NodeFeaturesInto(rb.NodeFeat[b*n*features.NodeFeatures:], in)
	}
	clear(rb.Mask)
	clear(rb.StepFeat)
	clear(rb.CandFeat)
	for i := range trajs {
		tr := &trajs[i]
		if tr.Inst != i/rb.P {
			return fmt.Errorf("replay batch: trajectory %d belongs to instance %d, want %d", i, tr.Inst, i/rb.P)
		}
		if len(tr.Steps) > t {
			return fmt.Errorf("replay batch: trajectory %d has %d steps, at most %d fit", i, len(tr.Steps), t)
		}
		scale := features.StateScale(insts[tr.Inst])
		sigma := features.CandScale(insts[tr.Inst])
		for k := 0; k < t; k++ {
			row := i*t + k
			if k >= len(tr.Steps) {
				rb.Current[row], rb.Chosen[row], rb.Valid[row] = 0, 0, 0
				continue
			}
			s := &tr.Steps[k]
			if len(s.Mask) != n || s.Chosen < 0 || s.Chosen >= n || !s.Mask[s.Chosen] {
				return fmt.Errorf("replay batch: trajectory %d step %d: chosen node %d is not allowed by its recorded mask", i, k, s.Chosen)
			}
			rb.Current[row], rb.Chosen[row], rb.Valid[row] = int64(s.Current), int64(s.Chosen), 1
			features.StepFeaturesInto(rb.StepFeat[row*features.StepFeatures:(row+1)*features.StepFeatures],
				s.State, scale, s.Refine, s.Budget)
			copy(rb.Mask[row*n:(row+1)*n], s.Mask)
			if k := rb.K; k > 0 {
				features.CandFeaturesInto(rb.CandFeat[row*n*k:(row+1)*n*k], insts[tr.Inst], sigma, s.Current, s.State, s.Mask)
			}
		}
	}
	return nil
}

// Tensors returns the graph inputs in the order of the train-step
// executable: the replay inputs (models.ReplayInputs), then the advantages.
func (rb *ReplayBatch) Tensors() []any {
	return append(rb.ReplayBatch.Tensors(), tensors.FromFlatDataAndDimensions(rb.Advantage, rb.B, rb.P))
}
