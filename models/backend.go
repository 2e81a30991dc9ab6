package models

import (
	"fmt"
	"os"
	"strings"

	"github.com/gomlx/compute"
	_ "github.com/gomlx/compute-onnx" // registers the "onnx" backend
	_ "github.com/gomlx/compute/gobackend"
)

// ORTLibraryEnv names the environment variable that must point at the
// onnxruntime shared library for the "onnx" backend.
const ORTLibraryEnv = "ONNXRUNTIME_SHARED_LIBRARY_PATH"

// Backend specifications accepted by New.
const (
	// BackendONNX runs graphs on ONNX Runtime (CPU); the default.
	BackendONNX = "onnx"
	// BackendGo runs graphs on the pure-Go backend with parallelism −1
	// (its default worker pool can deadlock).
	BackendGo = "go"
	// BackendXLAPrefix precedes the path of a PJRT plugin, e.g.
	// "xla:/opt/pjrt/pjrt_c_api_cuda_plugin.so"; only in builds with the
	// xla tag.
	BackendXLAPrefix = "xla:"
)

// xlaBackend is set by the xla-tagged build.
var xlaBackend func(pluginPath string) (compute.Backend, error)

// NewBackend creates the compute backend named by spec: "" or "onnx"
// (ONNX Runtime CPU; also "onnx:cuda" etc.), "go", or "xla:/path/plugin.so".
// It never downloads anything: the onnx backend requires
// ONNXRUNTIME_SHARED_LIBRARY_PATH to name an existing file.
func NewBackend(spec string) (compute.Backend, error) {
	switch {
	case spec == "" || spec == BackendONNX || strings.HasPrefix(spec, BackendONNX+":"):
		lib := os.Getenv(ORTLibraryEnv)
		if lib == "" {
			return nil, fmt.Errorf("backend onnx: %s is not set (point it at libonnxruntime.so)", ORTLibraryEnv)
		}
		if _, err := os.Stat(lib); err != nil {
			return nil, fmt.Errorf("backend onnx: %s: %w", ORTLibraryEnv, err)
		}
		cfg := "onnx:cpu"
		if strings.HasPrefix(spec, BackendONNX+":") {
			cfg = spec
		}
		b, err := compute.NewWithConfig(cfg)
		if err != nil {
			return nil, fmt.Errorf("backend %s: %w", cfg, err)
		}
		return b, nil
	case spec == BackendGo:
		b, err := compute.NewWithConfig("go:parallelism=-1")
		if err != nil {
			return nil, fmt.Errorf("backend go: %w", err)
		}
		return b, nil
	case strings.HasPrefix(spec, BackendXLAPrefix):
		if xlaBackend == nil {
			return nil, fmt.Errorf("backend %q: this binary was built without the xla build tag", spec)
		}
		return xlaBackend(strings.TrimPrefix(spec, BackendXLAPrefix))
	}
	return nil, fmt.Errorf("unknown backend %q (want onnx, go or xla:/path/to/pjrt_plugin.so)", spec)
}
