package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
)

// Outputs that are not regular files, or that are a file of --model (also
// through a symbolic link to the model folder), are refused before any
// work; the model and the special files stay as they were.
func TestInferRefusesModelAndSpecialOutputs(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.parquet")
	if _, err := datasets.GenerateFile(data, datasets.GenConfig{Problem: lazymask.TSPTW, N: 10, Hardness: datasets.Hard, Seed: 1}, 3, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(dir, "model")
	os.Mkdir(model, 0o755)
	for _, f := range features.ModelFiles {
		if err := os.WriteFile(filepath.Join(model, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("model", filepath.Join(dir, "alias")); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "sol.parquet")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--out", filepath.Join(model, features.EncoderFile)}, "is --model's encoder.onnx"},
		{[]string{"--out", filepath.Join(dir, "alias", features.DecoderFile)}, "is --model's decoder.onnx"},
		{[]string{"--out", out, "--metrics-json", filepath.Join(model, features.ConfigFile)}, "--metrics-json " + filepath.Join(model, features.ConfigFile) + " is --model's config.json"},
		{[]string{"--out", filepath.Join(model, features.ModelCardFile)}, "is --model's MODEL_CARD.md"},
		{[]string{"--out", fifo}, "is a named pipe (FIFO), not a regular file"},
		{[]string{"--out", model}, "is a folder, not a regular file"},
		{[]string{"--out", out, "--metrics-json", fifo}, "--metrics-json: create " + fifo},
	}
	if st, err := os.Stat("/dev/null"); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"--out", "/dev/null"}, "/dev/null is a character device"})
	}
	for _, tc := range cases {
		_, _, err := runCLI(t, append([]string{"--model", model, "--data", data}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want one with %q", tc.args, err, tc.want)
		}
	}
	for _, f := range features.ModelFiles {
		if b, _ := os.ReadFile(filepath.Join(model, f)); !bytes.Equal(b, []byte(f)) {
			t.Errorf("%s changed", f)
		}
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO changed: %v %v", st, err)
	}
	if st, err := os.Stat("/dev/null"); err == nil && st.Mode().IsRegular() {
		t.Errorf("/dev/null became a regular file")
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("%s was written", out)
	}
}
