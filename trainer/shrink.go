package trainer

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lmask/lmask/internal/atomicfile"
	"github.com/lmask/lmask/internal/opterr"
	"github.com/lmask/lmask/models/features"
	"github.com/lmask/lmask/models/onnx"
)

// KeepLayers returns the configuration and weights of a model whose encoder
// keeps only the layers keep of w's, in that order: stored layer keep[i]
// becomes layer i. Every other parameter (the input layers, the decoder) is
// copied. keep must name distinct layers of the model, in increasing order.
// The result is a start for a smaller network (a student trained to imitate
// the larger one), not a copy of what it computes.
func KeepLayers(cfg features.Config, w features.Weights, keep []int) (features.Config, features.Weights, error) {
	if len(keep) == 0 || len(keep) >= cfg.Layers {
		return cfg, nil, opterr.New("Keep", fmt.Sprint(keep), "must name 1 to %d of the model's %d encoder layers", cfg.Layers-1, cfg.Layers)
	}
	for i, l := range keep {
		if l < 0 || l >= cfg.Layers || i > 0 && l <= keep[i-1] {
			return cfg, nil, opterr.New("Keep", fmt.Sprint(keep), "must be distinct layers 0..%d in increasing order", cfg.Layers-1)
		}
	}
	if err := w.Check(cfg); err != nil {
		return cfg, nil, err
	}
	out := cfg
	out.Layers = len(keep)
	nw := features.Weights{}
	for _, s := range out.Specs() {
		name := s.Name
		if rest, ok := strings.CutPrefix(s.Name, "enc/"); ok {
			l, suffix, _ := encoderLayer("/enc/" + rest)
			name = features.LayerName(keep[l], suffix)
		}
		t, ok := w[name]
		if !ok {
			return cfg, nil, fmt.Errorf("keep layers: parameter %s missing", name)
		}
		nw[s.Name] = features.Tensor{Shape: slices.Clone(t.Shape), Data: slices.Clone(t.Data)}
	}
	if err := nw.Check(out); err != nil {
		return cfg, nil, err
	}
	return out, nw, nil
}

// ShrinkModel writes to the model directory out a model with only the
// encoder layers keep of the model in (an exported model directory, a
// checkpoint file or a run directory; KeepLayers), with a model card that
// names its origin. out serves lmask-train --init-from, and lmask-infer as it
// is (before any training, a truncated network decodes worse than its source).
func ShrinkModel(in string, keep []int, out string) error {
	var (
		cfg features.Config
		w   features.Weights
		err error
	)
	if isModelDir(in) {
		if cfg, w, err = onnx.ReadWeights(in); err != nil {
			return fmt.Errorf("shrink: %w", err)
		}
	} else {
		ck, err := ReadCheckpoint(in)
		if err != nil {
			return fmt.Errorf("shrink: %w", err)
		}
		cfg = ck.Config.Model
		if w, err = ck.Weights(cfg.Specs()); err != nil {
			return fmt.Errorf("shrink: %w", err)
		}
	}
	if same, _ := sameFile(in, out); same {
		return fmt.Errorf("shrink: %w", opterr.New("Out", out, "is the input"))
	}
	if isModelDir(out) {
		return fmt.Errorf("shrink: %w", opterr.New("Out", out, "already holds a model; name a new folder"))
	}
	small, sw, err := KeepLayers(cfg, w, keep)
	if err != nil {
		return fmt.Errorf("shrink %s: %w", in, err)
	}
	if err := onnx.ExportDir(out, small, sw); err != nil {
		return fmt.Errorf("shrink: %w", err)
	}
	card := fmt.Sprintf("# lmask policy: %d encoder layers kept of %s\n\n"+
		"The encoder layers %v of the %d-layer model in %s (renumbered 0..%d); the input layers and the decoder are "+
		"copied. Untrained: a warm start for imitation training, not a network to use as it is.\n",
		len(keep), filepath.Base(filepath.Clean(in)), keep, cfg.Layers, in, len(keep)-1)
	return atomicfile.WriteFile(filepath.Join(out, ModelCardFile), []byte(card))
}
