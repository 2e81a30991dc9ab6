package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// interruptBuild builds lmask-infer and writes a data file once for the
// interrupt tests: 400 TSPTW-50 instances, which `--preset best
// --improve-share 50` takes well over five seconds to solve.
var interruptBuild struct {
	once           sync.Once
	dir, bin, data string
	err            error
}

// TestMain removes the interrupt tests' build.
func TestMain(m *testing.M) {
	code := m.Run()
	if d := interruptBuild.dir; d != "" {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

func interruptFixture(t *testing.T) (bin, data string) {
	t.Helper()
	needRuntime(t)
	if runtime.GOOS == "windows" {
		t.Skip("sends SIGINT")
	}
	if testing.Short() {
		t.Skip("builds lmask-infer and runs it for seconds")
	}
	b := &interruptBuild
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "lmask-interrupt")
		if err != nil {
			b.err = err
			return
		}
		b.dir, b.bin, b.data = dir, filepath.Join(dir, "lmask-infer"), filepath.Join(dir, "data.parquet")
		if out, err := exec.Command("go", "build", "-o", b.bin, ".").CombinedOutput(); err != nil {
			b.err = errors.New("go build: " + err.Error() + "\n" + string(out))
			return
		}
		_, b.err = datasets.GenerateFile(b.data, datasets.GenConfig{Problem: lazymask.TSPTW, N: 50, Hardness: datasets.Medium, Seed: 9}, 400, datasets.WriterOptions{RowGroupRows: 100})
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.bin, b.data
}

// interruptRun starts `lmask-infer --preset best --improve-share 50`, sends
// SIGINT after two seconds (and, with second, another as soon as the run
// says it is stopping), and returns how it ended: its exit code (128 + the
// signal where a signal ended it), the time from the first signal to its
// end, its stderr and its output path.
func interruptRun(t *testing.T, second bool) (code int, took time.Duration, stderr, out string) {
	t.Helper()
	bin, data := interruptFixture(t)
	out = filepath.Join(t.TempDir(), "sol.parquet")
	cmd := exec.Command(bin, "--model", tinyTSPTW, "--data", data, "--out", out, "--preset", "best", "--improve-share", "50")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	stopping := make(chan struct{})
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pipe)
		signalled := false
		for sc.Scan() {
			errb.WriteString(sc.Text() + "\n")
			if !signalled && strings.Contains(sc.Text(), "stopping") {
				signalled = true
				close(stopping)
			}
		}
		_, _ = io.Copy(io.Discard, pipe)
	}()
	exited := make(chan error, 1)
	go func() {
		<-read // Wait closes the pipe: read it to its end first
		exited <- cmd.Wait()
	}()
	select {
	case err := <-exited:
		t.Fatalf("the run ended within 2 s (%v): the test no longer interrupts a search\n%s", err, errb.String())
	case <-time.After(2 * time.Second):
	}
	sent := time.Now()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if second {
		select {
		case <-stopping:
			_ = cmd.Process.Signal(os.Interrupt)
		case <-time.After(5 * time.Second):
		}
	}
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
	case errors.As(err, &ee):
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
	default:
		t.Fatal(err)
	}
	return code, took, errb.String(), out
}

// TestInterruptEndsRun: a first Ctrl-C ends a `--preset best` run within
// 3 s, in the middle of its search, and the output is either complete
// (every instance has a tour that the checker replays) or absent, with a
// message.
func TestInterruptEndsRun(t *testing.T) {
	code, took, stderr, out := interruptRun(t, false)
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
		_, data := interruptFixture(t)
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
			var te *lazymask.TourError
			if _, err := lazymask.Check(d.Instances[s.Instance], s.Tour); errors.As(err, &te) {
				t.Fatalf("instance %d: %v", s.Instance, err)
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

// TestSecondInterruptAborts: a second Ctrl-C, once the run says it is
// stopping, ends the process by the signal itself (not by its own exit),
// and no output is left.
func TestSecondInterruptAborts(t *testing.T) {
	code, took, stderr, out := interruptRun(t, true)
	t.Logf("exit %d %v after the first SIGINT; stderr:\n%s", code, took, stderr)
	if code != 128+int(syscall.SIGINT) {
		t.Errorf("exit code %d, want %d (ended by the second SIGINT)", code, 128+int(syscall.SIGINT))
	}
	if strings.Contains(stderr, "nothing written") {
		t.Error("the run stopped by itself after the second SIGINT, not at once")
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("aborted run left an output")
	}
}
