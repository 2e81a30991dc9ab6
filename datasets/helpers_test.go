package datasets

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedDir returns the shared data directory (LMASK_SHARED, or ../shared
// next to the module root) or skips the test.
func sharedDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("LMASK_SHARED"); d != "" {
		if _, err := os.Stat(d); err == nil {
			return d
		}
		t.Skipf("LMASK_SHARED=%s does not exist", d)
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skip("module root not found; set LMASK_SHARED to the shared data directory")
		}
		dir = parent
	}
	shared := filepath.Join(dir, "..", "shared")
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("shared data directory %s not found; set LMASK_SHARED to run this test", shared)
	}
	return shared
}

// sharedFile returns a path under the shared directory or skips.
func sharedFile(t testing.TB, parts ...string) string {
	t.Helper()
	p := filepath.Join(append([]string{sharedDir(t)}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s not found", p)
	}
	return p
}
