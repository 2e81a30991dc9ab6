package scripts

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestToolchainPinned: the entry points (./just, the Justfile, .ci/run)
// select exactly the toolchain go.mod pins, so the README's commands build
// with it on a machine whose Go is older.
func TestToolchainPinned(t *testing.T) {
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join("..", p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	m := regexp.MustCompile(`(?m)^toolchain (go[0-9.]+)$`).FindStringSubmatch(read("go.mod"))
	if m == nil {
		t.Fatal("go.mod has no toolchain line")
	}
	for file, pattern := range map[string]string{
		"just":     `(?m)^export GOTOOLCHAIN=(\S+)`,
		".ci/run":  `(?m)^export GOTOOLCHAIN=(\S+)`,
		"Justfile": `(?m)^export GOTOOLCHAIN := "([^"]+)"`,
	} {
		got := regexp.MustCompile(pattern).FindStringSubmatch(read(file))
		if got == nil {
			t.Errorf("%s sets no GOTOOLCHAIN", file)
		} else if got[1] != m[1] {
			t.Errorf("%s sets GOTOOLCHAIN=%s, go.mod pins %s", file, got[1], m[1])
		}
	}
}
