// Package ortlib finds the onnxruntime shared library, the one lookup both
// runtimes use: the inference engine (onnxruntime_go) and the training
// backend (GoMLX's onnx backend). It imports only the standard library.
package ortlib

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Env is the environment variable that names the onnxruntime shared
// library explicitly. It takes precedence over every documented location.
const Env = "ONNXRUNTIME_SHARED_LIBRARY_PATH"

// System describes where the running program is, as far as finding the
// onnxruntime library is concerned. Candidates is a pure function of
// it, so the search order can be tested for any platform.
type System struct {
	ExeDir   string // folder of the running executable ("" if unknown)
	RepoRoot string // root of the lmask checkout ("" if not inside one)
	GOOS     string
	GOARCH   string
}

// LibraryName returns the file name of the onnxruntime shared library on
// goos: libonnxruntime.so, libonnxruntime.dylib or onnxruntime.dll.
func LibraryName(goos string) string {
	switch goos {
	case "darwin":
		return "libonnxruntime.dylib"
	case "windows":
		return "onnxruntime.dll"
	}
	return "libonnxruntime.so"
}

// Candidates returns, in search order, the documented locations of
// the onnxruntime shared library: the checkout's third_party/onnxruntime
// (where scripts/setup.sh installs it), the executable's folder and its
// ../lib, then the system library folders of the platform.
func Candidates(s System) []string {
	name := LibraryName(s.GOOS)
	var out []string
	add := func(dir string) {
		if dir == "" {
			return
		}
		p := filepath.Join(dir, name)
		for _, q := range out {
			if q == p {
				return
			}
		}
		out = append(out, p)
	}
	if s.RepoRoot != "" {
		add(filepath.Join(s.RepoRoot, "third_party", "onnxruntime"))
	}
	if s.ExeDir != "" {
		add(s.ExeDir)
		add(filepath.Join(s.ExeDir, "..", "lib"))
	}
	switch s.GOOS {
	case "linux":
		add("/usr/local/lib")
		if triple := multiarch(s.GOARCH); triple != "" {
			add(filepath.Join("/usr/lib", triple))
		}
		add("/usr/lib")
	case "darwin":
		add("/usr/local/lib")
		add("/opt/homebrew/lib")
	case "windows":
		// The executable's folder is the documented place on Windows.
	default:
		add("/usr/local/lib")
		add("/usr/lib")
	}
	return out
}

// multiarch returns Debian's multiarch folder name for goarch on Linux.
func multiarch(goarch string) string {
	switch goarch {
	case "amd64":
		return "x86_64-linux-gnu"
	case "arm64":
		return "aarch64-linux-gnu"
	}
	return ""
}

// CurrentSystem describes the running program: its executable's folder,
// the lmask checkout that contains the working directory or the executable
// (found by walking up to a go.mod of module github.com/lmask/lmask), and
// the platform.
func CurrentSystem() System {
	s := System{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH}
	if exe, err := os.Executable(); err == nil {
		s.ExeDir = filepath.Dir(exe)
	}
	if wd, err := os.Getwd(); err == nil {
		s.RepoRoot = findRepoRoot(wd)
	}
	if s.RepoRoot == "" && s.ExeDir != "" {
		s.RepoRoot = findRepoRoot(s.ExeDir)
	}
	return s
}

// findRepoRoot walks up from dir to the folder whose go.mod declares this
// module; it returns "" when there is none.
func findRepoRoot(dir string) string {
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(b), "module github.com/lmask/lmask\n") {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// NotFoundError says that no onnxruntime library was found; it lists
// every path that was tried.
type NotFoundError struct {
	Tried []string
}

// Error lists the environment variable and every path that was tried.
func (e *NotFoundError) Error() string {
	return fmt.Sprintf("onnxruntime shared library not found; tried %s=%q and %s; run scripts/setup.sh (or `just setup`) to install it, or set %s",
		Env, os.Getenv(Env), strings.Join(e.Tried, ", "), Env)
}

// Find returns the onnxruntime shared library to load: the path in
// ONNXRUNTIME_SHARED_LIBRARY_PATH if set, else the first existing path of
// Candidates(CurrentSystem()).
func Find() (string, error) {
	return findLibrary(os.Getenv(Env), Candidates(CurrentSystem()), fileExists)
}

func findLibrary(env string, candidates []string, exists func(string) bool) (string, error) {
	if env != "" {
		if !exists(env) {
			return "", fmt.Errorf("%s=%q: no such file; run scripts/setup.sh (or `just setup`) or fix the variable", Env, env)
		}
		return env, nil
	}
	for _, p := range candidates {
		if exists(p) {
			return p, nil
		}
	}
	return "", &NotFoundError{Tried: candidates}
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
