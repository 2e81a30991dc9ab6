package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// mainArgsEnv makes the test binary run main with these arguments
// (separated by \x1f) instead of the tests, so that exit statuses and the
// split of stdout and stderr can be checked.
const mainArgsEnv = "LMASK_TRAIN_TEST_MAIN_ARGS"

func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(mainArgsEnv); ok {
		os.Args = append([]string{"lmask-train"}, strings.Split(args, "\x1f")...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runMain runs main in a child process and returns its stdout, stderr and
// exit status.
func runMain(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), mainArgsEnv+"="+strings.Join(args, "\x1f"))
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// tinyTrain is a small, fast training command line writing to out.
func tinyTrain(out string, extra ...string) []string {
	return append([]string{"lmask-train", "--problem", "tsptw", "--size", "6", "--hardness", "easy", "--out", out,
		"--steps", "1", "--batch", "2", "--samples", "2", "--layers", "1", "--d-model", "8", "--heads", "2", "--ffn", "8",
		"--backend", "go", "--no-export"}, extra...)
}

// wantErr checks that err names every one of parts.
func wantErr(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not name %q", what, err, p)
		}
	}
}

// assertEmpty fails when dir holds anything.
func assertEmpty(t *testing.T, what, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("%s: left %s behind in %s", what, e.Name(), dir)
	}
}

// A bad configuration is refused before the run directory is made: nothing
// is written.
func TestRun_BadConfigWritesNothing(t *testing.T) {
	dir := t.TempDir()
	val := filepath.Join(dir, "val.parquet")
	if _, err := datasets.GenerateFile(val, datasets.GenConfig{Problem: lazymask.TSPDL, N: 6, Hardness: "hard", Seed: 5}, 4, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	val7 := filepath.Join(dir, "val7.parquet")
	if _, err := datasets.GenerateFile(val7, datasets.GenConfig{Problem: lazymask.TSPTW, N: 7, Hardness: "easy", Seed: 5}, 4, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	junk := filepath.Join(dir, "junk.parquet")
	if err := os.WriteFile(junk, []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.parquet")
	before, _ := os.ReadDir(dir)
	out := filepath.Join(dir, "run")
	cases := []struct {
		name  string
		extra []string
		parts []string
	}{
		{"bogus hardness", []string{"--hardness", "bogus"}, []string{`--hardness "bogus": `}},
		{"missing val", []string{"--val", missing}, []string{"--val", missing}},
		{"junk val", []string{"--val", junk}, []string{"--val", junk}},
		{"val of another problem", []string{"--val", val}, []string{"--val", val, "tspdl"}},
		{"val of another size", []string{"--val", val7}, []string{"--val", val7, "7 nodes"}},
		{"missing val-ref", []string{"--val", val7, "--size", "7", "--val-ref", missing}, []string{"--val-ref", missing}},
		{"size", []string{"--size", "2"}, []string{"--size 2"}},
		{"batch", []string{"--batch", "0"}, []string{"--batch 0"}},
		{"samples", []string{"--samples", "1"}, []string{"--samples 1"}},
		// Detected only when trainer.New builds the model, which it does
		// before making the directory.
		{"unknown backend", []string{"--backend", "foo"}, []string{`"foo"`}},
	}
	for _, tc := range cases {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tinyTrain(out, tc.extra...), &stdout, &stderr)
		wantErr(t, tc.name, err, tc.parts...)
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: run directory %s exists (%v)", tc.name, out, err)
			os.RemoveAll(out)
		}
	}
	after, _ := os.ReadDir(dir)
	if len(after) != len(before) {
		t.Errorf("files in %s: %d before, %d after", dir, len(before), len(after))
	}
}

// A run directory below a file, or a file as the run directory, is refused
// before anything is written.
func TestRun_OutUnderFile(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr bytes.Buffer
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := run(context.Background(), tinyTrain(filepath.Join(file, "run")), &stdout, &stderr)
	wantErr(t, "parent is a file", err, "--out", file, "not a directory")
	err = run(context.Background(), tinyTrain(file), &stdout, &stderr)
	wantErr(t, "out is a file", err, "--out", file, "not a directory")
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%s holds %d entries, want only %s", dir, len(ents), file)
	}
}

// tinyBench is a small bench command line.
func tinyBench(extra ...string) []string {
	return append([]string{"bench", "--problem", "tsptw", "--size", "6", "--batch", "2", "--samples", "2", "--steps", "1",
		"--layers", "1", "--d-model", "8", "--heads", "2", "--ffn", "8"}, extra...)
}

// A backend that cannot run fails the command: non-zero exit, the error on
// stderr, no table row for it on stdout.
func TestBench_UnknownBackendFails(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	stdout, stderr, code := runMain(t, tinyBench("--backends", "foo,xla:/x.so")...)
	if code == 0 {
		t.Errorf("exit status 0\nstdout: %s\nstderr: %s", stdout, stderr)
	}
	for _, want := range []string{"--backends foo", `unknown backend "foo"`, "--backends xla:/x.so"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q: %s", want, stderr)
		}
	}
	if strings.Contains(stdout, "foo") || strings.Contains(stdout, "error") {
		t.Errorf("stdout shows the failure: %s", stdout)
	}
	assertEmpty(t, "bench", tmp)

	var o, e bytes.Buffer
	err := run(context.Background(), append([]string{"lmask-train"}, tinyBench("--backends", "foo")...), &o, &e)
	wantErr(t, "bench --backends foo", err, "--backends foo", `"foo"`)
}

// Nonsensical bench values are refused when the flags are parsed, before
// any backend runs.
func TestBench_BadValues(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cases := []struct {
		extra []string
		parts []string
	}{
		{[]string{"--steps", "0"}, []string{"--steps 0"}},
		{[]string{"--steps", "-3"}, []string{"--steps -3"}},
		{[]string{"--batch", "0"}, []string{"--batch 0"}},
		{[]string{"--samples", "0"}, []string{"--samples 0"}},
		{[]string{"--samples", "1"}, []string{"--samples 1"}},
		{[]string{"--size", "2"}, []string{"--size 2"}},
		{[]string{"--budget", "-1"}, []string{"--budget -1"}},
		{[]string{"--hardness", "bogus"}, []string{"--hardness", `"bogus"`}},
		{[]string{"--host-workers", "0"}, []string{"--host-workers 0"}},
		{[]string{"--pipelines", "0"}, []string{"--pipelines 0"}},
		{[]string{"--cand", "bogus"}, []string{"--cand", `"bogus"`}},
		{[]string{"--decoder", "bogus"}, []string{"--decoder", `"bogus"`}},
	}
	for _, tc := range cases {
		// An unknown backend fails fast: a check that only the backend
		// failure caught would still show up as a wrong error text.
		args := append([]string{"lmask-train"}, tinyBench(append(slices.Clone(tc.extra), "--backends", "foo")...)...)
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		wantErr(t, strings.Join(tc.extra, " "), err, tc.parts...)
		if err != nil && strings.Contains(err.Error(), "foo") {
			t.Errorf("%v: refused only for the backend: %v", tc.extra, err)
		}
		if stdout.Len() > 0 {
			t.Errorf("%v: stdout %q", tc.extra, stdout.String())
		}
	}
	assertEmpty(t, "bench", tmp)
}

// Each flag of the help shows one default.
func TestHelp_OneDefaultPerFlag(t *testing.T) {
	for _, args := range [][]string{{"lmask-train", "--help"}, {"lmask-train", "bench", "--help"}} {
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), args, &stdout, &stderr); err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(stdout.String(), "\n") {
			if strings.Count(line, "(default") > 1 {
				t.Errorf("%v: two defaults: %s", args, line)
			}
		}
		if args[1] == "--help" {
			for _, want := range []string{"(default: 3e-4; 1e-4 for N > 50)", "(default: N (--size))", "(default: 90% and 95% of --steps)"} {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("help lacks %q", want)
				}
			}
		}
	}
}

// The bench measures the format-2 decoders too: a tiny --cand both model
// runs REINFORCE on the pure-Go backend and prints its row.
func TestBench_Format2(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	stdout, stderr, code := runMain(t, tinyBench("--backends", "go", "--decoder", "reld", "--cand", "both", "--imitate-batch", "0")...)
	if code != 0 {
		t.Fatalf("exit status %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "decoder reld cand both") {
		t.Errorf("the table does not name the format-2 decoder: %s", stdout)
	}
	var row string
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(l, "go ") {
			row = l
		}
	}
	f := strings.Fields(row)
	if len(f) < 2 {
		t.Fatalf("no row for the go backend: %s", stdout)
	}
	if v, err := strconv.ParseFloat(f[1], 64); err != nil || v <= 0 {
		t.Errorf("instances/s %q is not a positive number: %s", f[1], stdout)
	}
	assertEmpty(t, "bench", tmp)
}
