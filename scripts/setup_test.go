// Package scripts holds the project's shell scripts; its test runs
// setup.sh against fake npm and apt-get commands.
package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeTool is a stand-in for npm or apt-get: it appends its arguments to
// $FAKE_LOG, then hangs (FAKE_MODE=hang), fails with a network error
// (fail), or succeeds.
const fakeTool = `#!/usr/bin/env bash
echo "$(basename "$0") $*" >> "$FAKE_LOG"
case "${FAKE_MODE:-ok}" in
  hang) exec sleep 60 ;;
  fail) echo "npm ERR! code ECONNREFUSED (fake registry down)" >&2; exit 1 ;;
esac
exit 0
`

type setupRun struct {
	out     string
	err     error
	log     string
	elapsed time.Duration
}

// runSetup runs setup.sh with args in a fresh third_party folder, with fake
// npm, apt-get and python3 first on PATH. withLib puts the real onnxruntime
// library (by a symbolic link) and a `just` there first, so that only the
// optional steps run.
func runSetup(t *testing.T, withLib bool, env []string, args ...string) setupRun {
	t.Helper()
	dir := t.TempDir()
	bin, tp := filepath.Join(dir, "bin"), filepath.Join(dir, "third_party")
	os.MkdirAll(bin, 0o755)
	for _, tool := range []string{"npm", "apt-get"} {
		if err := os.WriteFile(filepath.Join(bin, tool), []byte(fakeTool), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if withLib {
		ver, err := os.ReadFile("../ORT_VERSION")
		if err != nil {
			t.Fatal(err)
		}
		name := "libonnxruntime.so." + strings.TrimSpace(string(ver))
		real, _ := filepath.Abs(filepath.Join("..", "third_party", "onnxruntime", name))
		if _, err := os.Stat(real); err != nil {
			t.Skipf("no onnxruntime library at %s (run scripts/setup.sh first)", real)
		}
		os.MkdirAll(filepath.Join(tp, "onnxruntime"), 0o755)
		os.Symlink(real, filepath.Join(tp, "onnxruntime", name))
		os.WriteFile(filepath.Join(bin, "just"), []byte("#!/bin/sh\n"), 0o755)
	}
	log := filepath.Join(dir, "calls.log")
	cmd := exec.Command("bash", append([]string{"setup.sh"}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "LMASK_THIRD_PARTY="+tp, "FAKE_LOG="+log, "LMASK_SETUP_TIMEOUT=2")
	cmd.Env = append(cmd.Env, env...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	calls, _ := os.ReadFile(log)
	return setupRun{out: string(out), err: err, log: string(calls), elapsed: time.Since(start)}
}

// An unreachable registry ends the setup within its time limit, with a
// non-zero status and a message; npm's own errors are shown.
func TestSetupFailsLoudly(t *testing.T) {
	if _, err := exec.LookPath("timeout"); err != nil {
		t.Skip("no timeout command")
	}
	r := runSetup(t, false, []string{"FAKE_MODE=hang"})
	if r.err == nil || !strings.Contains(r.out, "npm pack onnxruntime-node@") || !strings.Contains(r.out, "timed out after 2 s") {
		t.Errorf("hanging npm: err %v, output:\n%s", r.err, r.out)
	}
	if r.elapsed > 30*time.Second {
		t.Errorf("hanging npm held the setup for %v", r.elapsed)
	}
	r = runSetup(t, false, []string{"FAKE_MODE=fail"})
	if r.err == nil || !strings.Contains(r.out, "npm ERR! code ECONNREFUSED") || !strings.Contains(r.out, "failed (exit status 1") {
		t.Errorf("failing npm: err %v, output:\n%s", r.err, r.out)
	}
	r = runSetup(t, false, nil, "--bogus")
	if r.err == nil || !strings.Contains(r.out, "unknown option --bogus") {
		t.Errorf("unknown option: err %v, output:\n%s", r.err, r.out)
	}
}

// The interoperability tools are optional: LMASK_SKIP_INTEROP=1 and
// --no-test-tools leave them out without a network call, and a failed
// install warns and goes on.
func TestSetupInteropOptional(t *testing.T) {
	if _, err := exec.LookPath("timeout"); err != nil {
		t.Skip("no timeout command")
	}
	r := runSetup(t, true, []string{"LMASK_SKIP_INTEROP=1"}, "--test-tools")
	if r.err != nil || r.log != "" || !strings.Contains(r.out, "LMASK_SKIP_INTEROP=1: not installing") {
		t.Errorf("skip: err %v, calls %q, output:\n%s", r.err, r.log, r.out)
	}
	r = runSetup(t, true, nil, "--test-tools", "--no-test-tools")
	if r.err != nil || r.log != "" {
		t.Errorf("--no-test-tools: err %v, calls %q, output:\n%s", r.err, r.log, r.out)
	}
	r = runSetup(t, true, []string{"FAKE_MODE=fail"}, "--test-tools")
	if r.err != nil || !strings.Contains(r.out, "npm ERR! code ECONNREFUSED") ||
		!strings.Contains(r.out, "warning: DuckDB missing") || !strings.Contains(r.out, "warning: onnxruntime-node missing") {
		t.Errorf("failing optional install: err %v, output:\n%s", r.err, r.out)
	}
	if !strings.Contains(r.log, "npm install") || !strings.Contains(r.log, "--fetch-timeout=") {
		t.Errorf("npm calls without network limits: %q", r.log)
	}
}

// The summary names each interoperability test and, for a skipped one,
// the reason its test gave.
func TestInteropSummary(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test itself")
	}
	cmd := exec.Command("bash", "interop-summary.sh")
	cmd.Env = append(os.Environ(), "LMASK_NODE_MODULES=/no/such/dir", "LMASK_ORT_NODE_MODULES=/no/such/dir", "LMASK_SKIP_INTEROP=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		"skipped  TestDuckDBReadsFiles: @duckdb/node-api not installed under /no/such/dir",
		"skipped  TestNodeRuntimeMatchesReference: onnxruntime-node is not installed at /no/such/dir/onnxruntime-node",
		"TestONNXCheckerAccepts",
		"LMASK_SKIP_INTEROP=1: the setup did not install their tools",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}
