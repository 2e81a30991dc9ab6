package trainer

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/lmask/lmask/internal/opterr"
)

// GrowCheckpoint writes to out a checkpoint of the same model with layers
// encoder layers, a multiple of the stored count L, that computes what the
// stored one computes: old layer l becomes layer m·l (m = layers/L) and the
// m−1 layers inserted after it start as identities. An inserted layer copies
// the attention and first feed-forward weights of the layer before it, has
// zero output projections (mha/o, ffn/w2, ffn/b2), and both its norms copy
// that layer's norm2: instance norm with the same scale and offset maps the
// previous norm's output to itself (up to its ε). The optimiser moments and
// counters are left out, so the checkpoint serves a warm start
// (Options.InitFrom) only.
func GrowCheckpoint(in string, layers int, out string) error {
	a, err := ReadCheckpoint(in)
	if err != nil {
		return err
	}
	old := a.Config.Model.Layers
	if old < 1 || layers <= old || layers%old != 0 {
		return fmt.Errorf("grow %s: %w", a.Path, opterr.New("Layers", fmt.Sprint(layers), "must be a multiple of the checkpoint's %d layers, above it", old))
	}
	m := layers / old
	byPath := map[string]VarRecord{}
	for _, r := range a.Vars {
		byPath[r.Path] = r
	}
	st := a.State
	st.Config.Model.Layers = layers
	st.LastVal, st.BestVal, st.BestStep = nil, nil, 0
	st.Vars = nil
	var data bytes.Buffer
	add := func(r VarRecord, path string, src []byte) {
		r.Path, r.Offset = path, int64(data.Len())
		data.Write(src)
		st.Vars = append(st.Vars, r)
	}
	for _, r := range a.Vars {
		if !r.Trainable {
			continue
		}
		src := a.data[r.Offset : r.Offset+r.Bytes]
		l, suffix, ok := encoderLayer(r.Path)
		if !ok {
			add(r, r.Path, src)
			continue
		}
		add(r, layerPath(m*l, suffix), src)
		for j := 1; j < m; j++ {
			v := src
			switch suffix {
			case "mha/o/w", "mha/o/b", "ffn/w2", "ffn/b2":
				v = make([]byte, len(src))
			case "norm1/scale", "norm2/scale", "norm1/offset", "norm2/offset":
				n, ok := byPath[layerPath(l, "norm2"+suffix[len("norm1"):])]
				if !ok || n.Bytes != r.Bytes {
					return fmt.Errorf("grow %s: layer %d has no norm2 matching %s", a.Path, l, r.Path)
				}
				v = a.data[n.Offset : n.Offset+n.Bytes]
			}
			add(r, layerPath(m*l+j, suffix), v)
		}
	}
	return writeCheckpointFile(out, st, data.Bytes())
}

// encoderLayer splits a variable path "/enc/L/suffix" into L and suffix.
func encoderLayer(path string) (int, string, bool) {
	rest, ok := strings.CutPrefix(path, "/enc/")
	if !ok {
		return 0, "", false
	}
	num, suffix, ok := strings.Cut(rest, "/")
	l, err := strconv.Atoi(num)
	if !ok || err != nil {
		return 0, "", false
	}
	return l, suffix, true
}

func layerPath(l int, suffix string) string { return fmt.Sprintf("/enc/%d/%s", l, suffix) }
