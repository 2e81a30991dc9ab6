package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// interruptRun builds lmask-infer, starts `--preset best --improve-share 50`
// on a file that takes well over five seconds to solve, sends SIGINT after
// two seconds, and returns the run's exit code, how long it took to exit after the first
// signal, its stderr, and the output and data paths.
func interruptRun(t *testing.T) (code int, took time.Duration, stderr, out, data string) {
	t.Helper()
	needRuntime(t)
	if runtime.GOOS == "windows" {
		t.Skip("sends SIGINT")
	}
	if testing.Short() {
		t.Skip("builds lmask-infer and runs it for seconds")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "lmask-infer")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	data = filepath.Join(dir, "data.parquet")
	if _, err := datasets.GenerateFile(data, datasets.GenConfig{Problem: lazymask.TSPTW, N: 50, Hardness: datasets.Medium, Seed: 9}, 400, datasets.WriterOptions{RowGroupRows: 100}); err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(dir, "sol.parquet")
	cmd := exec.Command(bin, "--model", tinyTSPTW, "--data", data, "--out", out, "--preset", "best", "--improve-share", "50")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		t.Fatalf("the run ended within 2 s (%v): the test no longer interrupts a search\n%s", err, errb.String())
	case <-time.After(2 * time.Second):
	}
	sent := time.Now()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-exited:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
		t.Fatalf("still running 10 s after SIGINT\n%s", errb.String())
	}
	took = time.Since(sent)
	var ee *exec.ExitError
	switch {
	case err == nil:
		code = 0
	case errors.As(err, &ee):
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	default:
		t.Fatal(err)
	}
	return code, took, errb.String(), out, data
}

// TestInterruptEndsRun: a first Ctrl-C ends a `--preset best` run within
// 3 s, in the middle of its search, and the output is either complete (every
// instance has a tour that the checker replays) or absent, with a message.
func TestInterruptEndsRun(t *testing.T) {
	code, took, stderr, out, data := interruptRun(t)
	t.Logf("exit %d %v after SIGINT; stderr:\n%s", code, took, stderr)
	if took > 3*time.Second {
		t.Errorf("exited %v after SIGINT, want within 3 s", took)
	}
	switch code {
	case 130:
		if _, err := os.Stat(out); err == nil {
			t.Error("interrupted run left an output")
		}
		if !strings.Contains(stderr, "interrupted: nothing written to "+out) {
			t.Errorf("no message that nothing was written:\n%s", stderr)
		}
	case 0:
		d, err := datasets.ReadInstances(data)
		if err != nil {
			t.Fatal(err)
		}
		sols, _, err := datasets.ReadSolutions(out)
		if err != nil {
			t.Fatal(err)
		}
		has := make([]bool, len(d.Instances))
		for _, s := range sols {
			if s.Tour == nil {
				continue
			}
			if _, err := lazymask.Check(d.Instances[s.Instance], s.Tour); err != nil {
				var te *lazymask.TourError
				if errors.As(err, &te) {
					t.Fatalf("instance %d: %v", s.Instance, err)
				}
			}
			has[s.Instance] = true
		}
		for i, ok := range has {
			if !ok {
				t.Fatalf("instance %d has no tour in the output", i)
			}
		}
	default:
		t.Fatalf("exit code %d after SIGINT, want 130 (nothing written) or 0 (complete)\n%s", code, stderr)
	}
}
