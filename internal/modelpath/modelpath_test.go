package modelpath

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fakeModel(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(p, "config.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestResolve(t *testing.T) {
	hub := t.TempDir()
	want := fakeModel(t, hub, "tsptw100-hard")
	fakeModel(t, hub, "tspdl50-medium")
	if err := os.MkdirAll(filepath.Join(hub, "notes"), 0o755); err != nil { // no config.json: not a model
		t.Fatal(err)
	}
	t.Setenv(EnvDir, hub)

	got, err := Resolve("tsptw100-hard")
	if err != nil || got != want {
		t.Fatalf("Resolve(name) = %q, %v; want %q", got, err, want)
	}
	// A path is taken as it is, existing or not (the caller reports a missing folder).
	for _, arg := range []string{want, "some/where/model", ""} {
		if got, err := Resolve(arg); err != nil || got != arg {
			t.Errorf("Resolve(%q) = %q, %v; want it unchanged", arg, got, err)
		}
	}
	// A folder in the working directory wins over a shipped name.
	t.Chdir(t.TempDir())
	local := fakeModel(t, ".", "tspdl50-medium")
	if got, err := Resolve("tspdl50-medium"); err != nil || got != "tspdl50-medium" {
		t.Errorf("Resolve with a local folder = %q, %v; want the local %q", got, err, local)
	}

	_, err = Resolve("tsptw100-easy")
	if err == nil {
		t.Fatal("an unknown name resolved")
	}
	for _, s := range []string{`"tsptw100-easy"`, hub, "shipped: tspdl50-medium, tsptw100-hard"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %s", err, s)
		}
	}
}
