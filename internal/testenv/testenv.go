// Package testenv locates, for tests, the repository root and the shared data
// folder (the paper's test sets and the benchmark libraries), which lives
// outside the repository: $LMASK_SHARED, or ../shared beside the module root.
// Tests that need the shared data skip, saying why, where it is absent.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// SharedEnv is the environment variable that overrides the shared folder.
const SharedEnv = "LMASK_SHARED"

// RepoRoot walks up from the working directory to the folder of go.mod.
func RepoRoot(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// Shared returns the shared data folder, or skips tb with a message naming
// the folder it looked for and the variable that sets it.
func Shared(tb testing.TB) string {
	tb.Helper()
	d := os.Getenv(SharedEnv)
	if d == "" {
		d = filepath.Join(RepoRoot(tb), "..", "shared")
	}
	if _, err := os.Stat(d); err != nil {
		tb.Skipf("shared data folder %s not found (set %s to run this test)", d, SharedEnv)
	}
	return d
}

// SharedFile returns a path under the shared folder, or skips tb when it is
// missing.
func SharedFile(tb testing.TB, parts ...string) string {
	tb.Helper()
	p := filepath.Join(append([]string{Shared(tb)}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("%s not found (set %s to the shared data folder)", p, SharedEnv)
	}
	return p
}
