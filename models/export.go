package models

import (
	"fmt"

	"github.com/lmask/lmask/models/onnx"
)

// Export writes the model's current weights as a model directory
// (encoder.onnx, decoder.onnx, config.json) into dir, using
// models/onnx.ExportDir.
func (m *Model) Export(dir string) error {
	w, err := m.Weights()
	if err != nil {
		return fmt.Errorf("export %s: %w", dir, err)
	}
	if err := onnx.ExportDir(dir, m.cfg, w); err != nil {
		return fmt.Errorf("export %s: %w", dir, err)
	}
	return nil
}
