package datasets

import (
	"testing"

	"github.com/lmask/lmask/internal/testenv"
)

// sharedDir returns the shared data directory or skips the test.
func sharedDir(t testing.TB) string { t.Helper(); return testenv.Shared(t) }

// sharedFile returns a path under the shared directory or skips.
func sharedFile(t testing.TB, parts ...string) string {
	t.Helper()
	return testenv.SharedFile(t, parts...)
}
