package models

import (
	"fmt"
	"os"
	"reflect"
	"strings"

	"github.com/gomlx/compute"
	onnxbackend "github.com/gomlx/compute-onnx" // registers the "onnx" backend
	_ "github.com/gomlx/compute/gobackend"

	"github.com/lmask/lmask/internal/ortlib"
)

// ORTLibraryEnv names the environment variable that names the onnxruntime
// shared library explicitly (ortlib.Env); without it the "onnx" backend
// looks where lmask-infer looks (the checkout's third_party/onnxruntime, the
// executable's folder, the system library folders).
const ORTLibraryEnv = ortlib.Env

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

func init() {
	// The onnx backend downloads an onnxruntime release when it finds no
	// library; lmask never downloads anything at run time.
	onnxbackend.EnableAutoInstall(false)
}

// NewBackend creates the compute backend named by spec: "" or "onnx"
// (ONNX Runtime CPU; also "onnx:cuda" etc.), "go", or "xla:/path/plugin.so".
// It never downloads anything: the onnx backend loads the library
// ortlib.Find finds, or fails naming every path it tried.
func NewBackend(spec string) (compute.Backend, error) {
	switch {
	case spec == "" || spec == BackendONNX || strings.HasPrefix(spec, BackendONNX+":"):
		lib, err := ortlib.Find()
		if err != nil {
			return nil, fmt.Errorf("backend onnx: %w", err)
		}
		// The onnx backend reads the library's path from the variable
		// only; point it at what the lookup found.
		if err := os.Setenv(ORTLibraryEnv, lib); err != nil {
			return nil, fmt.Errorf("backend onnx: %w", err)
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
		b, err := compute.NewWithConfig("go")
		if err != nil {
			return nil, fmt.Errorf("backend go: %w", err)
		}
		if err := unlimitedParallelism(b); err != nil {
			b.Finalize()
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

// unlimitedParallelism sets the Go backend's worker pool to unlimited
// parallelism, as its config option "parallelism=-1" does, without the
// line that option prints to standard output.
func unlimitedParallelism(b compute.Backend) error {
	v := reflect.ValueOf(b)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return fmt.Errorf("%T: no worker pool to configure", b)
	}
	set := v.FieldByName("Workers")
	if set.IsValid() {
		set = set.MethodByName("SetMaxParallelism")
	}
	if !set.IsValid() || set.Type().NumIn() != 1 || set.Type().In(0).Kind() != reflect.Int {
		return fmt.Errorf("%T: no Workers.SetMaxParallelism(int) to configure", b)
	}
	set.Call([]reflect.Value{reflect.ValueOf(-1)})
	return nil
}
