package trainer

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// AverageCheckpoints writes to out a checkpoint whose trainable float32
// variables (the model's weights) are (1−w)·a + w·b, element by element, and
// whose other variables (optimiser moments, counters) and header are a's,
// so it exports and resumes like a. Averaging the weights of two runs from
// a common ancestor ("model soup") can land between their trade-offs. The
// two must hold the same weights (paths and shapes).
func AverageCheckpoints(aPath, bPath string, w float64, out string) error {
	if !(w >= 0 && w <= 1) {
		return fmt.Errorf("average: weight %v must be in [0, 1]", w)
	}
	return MixCheckpoints([]string{aPath, bPath}, []float64{1 - w, w}, out)
}

// MeanCheckpoints writes to out the checkpoint whose weights are the mean
// of the paths' weights (equal shares; MixCheckpoints), e.g. a run's
// snapshots.
func MeanCheckpoints(paths []string, out string) error {
	shares := make([]float64, len(paths))
	for i := range shares {
		shares[i] = 1 / float64(len(paths))
	}
	return MixCheckpoints(paths, shares, out)
}

// MixCheckpoints writes to out a checkpoint whose weights are Σ wᵢ·pathᵢ
// (the weights wᵢ ≥ 0 summing to 1) and whose other variables and header
// are the first's. With equal weights over the snapshots of one run's tail
// it is stochastic weight averaging: the mean of the iterates sits nearer
// the middle of the basin the optimiser circles in than any one of them.
func MixCheckpoints(paths []string, weights []float64, out string) error {
	if len(paths) < 2 || len(weights) != len(paths) {
		return fmt.Errorf("average: want at least two checkpoints and one weight each, got %d and %d", len(paths), len(weights))
	}
	sum := 0.0
	for i, w := range weights {
		if !(w >= 0 && w <= 1) {
			return fmt.Errorf("average: weight %v of %s must be in [0, 1]", w, paths[i])
		}
		sum += w
	}
	if math.Abs(sum-1) > 1e-9 {
		return fmt.Errorf("average: weights %v sum to %v, want 1", weights, sum)
	}
	cks := make([]*Checkpoint, len(paths))
	for i, p := range paths {
		c, err := ReadCheckpoint(p)
		if err != nil {
			return err
		}
		cks[i] = c
	}
	a := cks[0]
	byPath := make([]map[string]VarRecord, len(cks))
	for i, c := range cks {
		byPath[i] = map[string]VarRecord{}
		for _, r := range c.Vars {
			byPath[i][r.Path] = r
		}
	}
	st := a.State
	st.Vars = make([]VarRecord, 0, len(a.Vars))
	var data bytes.Buffer
	for _, r := range a.Vars {
		src := a.data[r.Offset : r.Offset+r.Bytes]
		rec := r
		rec.Offset = int64(data.Len())
		if r.Trainable && r.DType == "Float32" {
			acc := make([]float64, len(src)/4)
			for k, c := range cks {
				o, ok := byPath[k][r.Path]
				if !ok || !slices.Equal(o.Shape, r.Shape) || o.DType != r.DType {
					return fmt.Errorf("average: weight %s %v of %s has no counterpart of that shape in %s", r.Path, r.Shape, a.Path, c.Path)
				}
				b := c.data[o.Offset : o.Offset+o.Bytes]
				for i := range acc {
					acc[i] += weights[k] * float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
				}
			}
			mix := make([]byte, len(src))
			for i, x := range acc {
				binary.LittleEndian.PutUint32(mix[4*i:], math.Float32bits(float32(x)))
			}
			src = mix
		}
		data.Write(src)
		st.Vars = append(st.Vars, rec)
	}
	return writeCheckpointFile(out, st, data.Bytes())
}
