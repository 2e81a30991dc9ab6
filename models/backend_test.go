package models

import (
	"io"
	"os"
	"reflect"
	"testing"

	"github.com/lmask/lmask/internal/ortlib"
)

// TestNewBackendGoQuiet: the pure-Go backend gets unlimited parallelism and
// prints nothing to standard output while being made.
func TestNewBackendGoQuiet(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	b, err := NewBackend(BackendGo)
	os.Stdout = stdout
	w.Close()
	printed, _ := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finalize()
	if len(printed) > 0 {
		t.Errorf("NewBackend(go) printed %q", printed)
	}
	got := reflect.ValueOf(b).Elem().FieldByName("Workers").MethodByName("MaxParallelism").Call(nil)[0].Int()
	if got != -1 {
		t.Errorf("parallelism %d, want -1 (unlimited)", got)
	}
}

// TestNewBackendONNXFindsLibrary: without ONNXRUNTIME_SHARED_LIBRARY_PATH
// the onnx backend loads the library that lmask-infer's lookup finds (the
// checkout's third_party/onnxruntime after scripts/setup.sh).
func TestNewBackendONNXFindsLibrary(t *testing.T) {
	t.Setenv(ORTLibraryEnv, "")
	lib, err := ortlib.Find()
	if err != nil {
		t.Skipf("no onnxruntime library where the lookup looks (scripts/setup.sh installs one): %v", err)
	}
	b, err := NewBackend(BackendONNX)
	if err != nil {
		t.Fatalf("NewBackend(onnx) with %s unset and %s found: %v", ORTLibraryEnv, lib, err)
	}
	b.Finalize()
	if got := os.Getenv(ORTLibraryEnv); got != lib {
		t.Errorf("%s = %q after NewBackend, want the found %q", ORTLibraryEnv, got, lib)
	}
}
