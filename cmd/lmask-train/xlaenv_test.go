package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestXLAEnvScript runs scripts/xla-env.sh against a fake site-packages
// folder: it must name the plugin file as the backend and put the NVIDIA
// library folders on LD_LIBRARY_PATH, and fail with a message where no
// plugin is installed.
func TestXLAEnvScript(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not found")
	}
	script, err := filepath.Abs("../../scripts/xla-env.sh")
	if err != nil {
		t.Fatal(err)
	}
	site := t.TempDir()
	plugin := filepath.Join(site, "jax_plugins", "xla_cuda13", "xla_cuda_plugin.so")
	libs := []string{filepath.Join(site, "nvidia", "cublas", "lib"), filepath.Join(site, "nvidia", "cuda_runtime", "lib")}
	for _, d := range append(libs, filepath.Dir(plugin)) {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(plugin, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A stand-in interpreter that prints the fake site-packages folder.
	py := filepath.Join(t.TempDir(), "python")
	if err := os.WriteFile(py, []byte("#!/bin/sh\necho "+site+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	run := func(python string) (string, error) {
		cmd := exec.Command("bash", "-c", `source "$0" && echo "$LMASK_XLA_BACKEND" && echo "$LD_LIBRARY_PATH"`, script)
		cmd.Env = append(os.Environ(), "PYTHON="+python, "LD_LIBRARY_PATH=/old")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run(py)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	last := lines[len(lines)-1]
	if want := "xla:" + plugin; lines[len(lines)-2] != want {
		t.Errorf("backend %q, want %q", lines[len(lines)-2], want)
	}
	if want := libs[0] + ":" + libs[1] + ":/old"; last != want {
		t.Errorf("LD_LIBRARY_PATH %q, want %q", last, want)
	}
	if err := os.Remove(plugin); err != nil {
		t.Fatal(err)
	}
	if out, err := run(py); err == nil || !strings.Contains(out, "no JAX CUDA plugin") {
		t.Errorf("without a plugin: %v, %s", err, out)
	}
}
