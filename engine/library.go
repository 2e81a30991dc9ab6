package engine

import (
	"errors"
	"fmt"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/lmask/lmask/internal/ortlib"
)

// LibraryEnv is the environment variable that names the onnxruntime shared
// library explicitly (ortlib.Env). It takes precedence over every
// documented location.
const LibraryEnv = ortlib.Env

// FindLibrary returns the onnxruntime shared library to load (ortlib.Find):
// the path in ONNXRUNTIME_SHARED_LIBRARY_PATH if set, else the first
// existing documented location (the checkout's third_party/onnxruntime,
// the executable's folder and its ../lib, the system library folders).
func FindLibrary() (string, error) { return ortlib.Find() }

// runtimeState is the process-global onnxruntime environment, initialised
// once.
var runtimeState struct {
	once sync.Once
	path string
	err  error
}

// InitRuntime loads the onnxruntime library and creates the process-global
// environment. It runs once per process; later calls return the first
// outcome. library overrides the search when non-empty.
func InitRuntime(library string) error {
	runtimeState.once.Do(func() {
		path := library
		if path == "" {
			p, err := FindLibrary()
			if err != nil {
				runtimeState.err = err
				return
			}
			path = p
		}
		ort.SetSharedLibraryPath(path)
		if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
			runtimeState.err = fmt.Errorf("load onnxruntime from %s: %w", path, err)
			return
		}
		runtimeState.path = path
	})
	return runtimeState.err
}

// RuntimeLibrary returns the path of the loaded onnxruntime library ("" if
// the runtime is not initialised).
func RuntimeLibrary() string { return runtimeState.path }

// ErrNoRuntime is returned (wrapped) by Available when the onnxruntime
// library cannot be loaded.
var ErrNoRuntime = errors.New("onnxruntime unavailable")

// Available reports whether the onnxruntime library can be loaded; tests
// use it to skip with a message naming ONNXRUNTIME_SHARED_LIBRARY_PATH.
func Available() error {
	if err := InitRuntime(""); err != nil {
		return fmt.Errorf("%w: %w", ErrNoRuntime, err)
	}
	return nil
}
