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
	a, err := ReadCheckpoint(aPath)
	if err != nil {
		return err
	}
	b, err := ReadCheckpoint(bPath)
	if err != nil {
		return err
	}
	byPath := map[string]VarRecord{}
	for _, r := range b.Vars {
		byPath[r.Path] = r
	}
	st := a.State
	st.Vars = make([]VarRecord, 0, len(a.Vars))
	var data bytes.Buffer
	for _, r := range a.Vars {
		src := a.data[r.Offset : r.Offset+r.Bytes]
		rec := r
		rec.Offset = int64(data.Len())
		if r.Trainable && r.DType == "Float32" {
			o, ok := byPath[r.Path]
			if !ok || !slices.Equal(o.Shape, r.Shape) || o.DType != r.DType {
				return fmt.Errorf("average: weight %s %v of %s has no counterpart of that shape in %s", r.Path, r.Shape, a.Path, b.Path)
			}
			mix := make([]byte, len(src))
			other := b.data[o.Offset : o.Offset+o.Bytes]
			for i := 0; i < len(src); i += 4 {
				x := math.Float32frombits(binary.LittleEndian.Uint32(src[i:]))
				y := math.Float32frombits(binary.LittleEndian.Uint32(other[i:]))
				binary.LittleEndian.PutUint32(mix[i:], math.Float32bits(float32((1-w)*float64(x)+w*float64(y))))
			}
			src = mix
		}
		data.Write(src)
		st.Vars = append(st.Vars, rec)
	}
	return writeCheckpointFile(out, st, data.Bytes())
}
