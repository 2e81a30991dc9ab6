package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/lmask/lmask/models/features"
	"github.com/lmask/lmask/trainer"
)

// trainTiny trains a one-layer TSPTW-6 run into out with the pure-Go backend.
func trainTiny(t *testing.T, out string, extra ...string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args := append([]string{"lmask-train", "--problem", "tsptw", "--size", "6", "--hardness", "easy", "--out", out,
		"--batch", "2", "--samples", "2", "--layers", "1", "--d-model", "8", "--heads", "2", "--ffn", "8",
		"--backend", "go", "--no-export"}, extra...)
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
}

// export into a folder that holds a model needs --force; the card is left
// as it was otherwise. Model files that are FIFOs or the checkpoint itself
// are refused before the checkpoint is read.
func TestExportRefusesToReplace(t *testing.T) {
	dir := t.TempDir()
	run1 := filepath.Join(dir, "run")
	var stdout, stderr bytes.Buffer
	trainTiny(t, run1, "--steps", "1")
	export := func(out string, extra ...string) error {
		return run(context.Background(), append([]string{"lmask-train", "export", "--checkpoint", run1, "--out", out}, extra...), &stdout, &stderr)
	}
	model := filepath.Join(dir, "model")
	if err := export(model); err != nil {
		t.Fatal(err)
	}
	card := filepath.Join(model, features.ModelCardFile)
	if err := os.WriteFile(card, []byte("shipped card"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := export(model)
	if err == nil || !strings.Contains(err.Error(), "already holds a model (encoder.onnx, decoder.onnx, config.json, MODEL_CARD.md); pass --force") {
		t.Errorf("second export: %v", err)
	}
	if b, _ := os.ReadFile(card); string(b) != "shipped card" {
		t.Errorf("card replaced without --force: %q", b)
	}
	// A folder holding only a card is a model folder too.
	cardOnly := filepath.Join(dir, "card-only")
	os.Mkdir(cardOnly, 0o755)
	os.WriteFile(filepath.Join(cardOnly, features.ModelCardFile), []byte("x"), 0o644)
	if err := export(cardOnly); err == nil || !strings.Contains(err.Error(), "already holds a model (MODEL_CARD.md)") {
		t.Errorf("export over a card: %v", err)
	}
	if err := export(model, "--force"); err != nil {
		t.Fatalf("--force: %v", err)
	}
	if b, _ := os.ReadFile(card); !strings.Contains(string(b), "TSPTW-6 easy") {
		t.Errorf("card after --force: %q", b)
	}

	fifoDir := filepath.Join(dir, "fifo-dir")
	os.Mkdir(fifoDir, 0o755)
	if err := syscall.Mkfifo(filepath.Join(fifoDir, features.DecoderFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := export(fifoDir, "--force"); err == nil || !strings.Contains(err.Error(), "is a named pipe (FIFO)") {
		t.Errorf("export over a FIFO: %v", err)
	}
	// A checkpoint file stored under a model file's name, exported into its
	// own folder.
	ckDir := filepath.Join(dir, "ck")
	os.Mkdir(ckDir, 0o755)
	raw, err := os.ReadFile(filepath.Join(run1, trainer.CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	ck := filepath.Join(ckDir, features.ConfigFile)
	os.WriteFile(ck, raw, 0o644)
	err = run(context.Background(), []string{"lmask-train", "export", "--checkpoint", ck, "--out", ckDir, "--force"}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "export: --out "+ckDir+": config.json is the --checkpoint file") {
		t.Errorf("export over its checkpoint: %v", err)
	}
	if b, _ := os.ReadFile(ck); !bytes.Equal(b, raw) {
		t.Error("checkpoint changed")
	}

	// curve may not write over the metrics it reads, nor over a FIFO.
	metrics := filepath.Join(run1, trainer.MetricsFile)
	before, _ := os.ReadFile(metrics)
	err = run(context.Background(), []string{"lmask-train", "curve", "--out", metrics, run1}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "--out "+metrics+": the metrics of run "+run1) {
		t.Errorf("curve over its metrics: %v", err)
	}
	if after, _ := os.ReadFile(metrics); !bytes.Equal(before, after) {
		t.Error("metrics changed")
	}
	err = run(context.Background(), []string{"lmask-train", "curve", "--out", filepath.Join(fifoDir, features.DecoderFile), run1}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "is a named pipe (FIFO)") {
		t.Errorf("curve over a FIFO: %v", err)
	}
}

// --snapshot-every keeps a checkpoint per period, and average takes them
// all with equal shares; --weight with more than two, or an input as --out,
// is refused without writing.
func TestAverageSnapshots(t *testing.T) {
	dir := t.TempDir()
	runDir := filepath.Join(dir, "run")
	var stdout, stderr bytes.Buffer
	trainTiny(t, runDir, "--steps", "3", "--snapshot-every", "1")
	snaps, _ := filepath.Glob(filepath.Join(runDir, trainer.SnapshotDir, "*.lmck"))
	if len(snaps) != 3 {
		t.Fatalf("snapshots %v, want 3", snaps)
	}
	out := filepath.Join(dir, "swa.lmck")
	avg := func(extra ...string) error {
		return run(context.Background(), append([]string{"lmask-train", "average"}, extra...), &stdout, &stderr)
	}
	if err := avg(append([]string{"--out", out, "--weight", "0.3"}, snaps...)...); err == nil || !strings.Contains(err.Error(), "--weight applies to two") {
		t.Errorf("--weight with three: %v", err)
	}
	if err := avg(append([]string{"--out", snaps[1]}, snaps...)...); err == nil || !strings.Contains(err.Error(), "is one of the inputs") {
		t.Errorf("--out an input: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a refused average wrote its output")
	}
	if err := avg(append([]string{"--out", out}, snaps...)...); err != nil {
		t.Fatal(err)
	}
	ck, err := trainer.ReadCheckpoint(out)
	if err != nil || ck.Step != 1 {
		t.Fatalf("average: %v, step %v; want the first snapshot's step 1", err, ck)
	}
	if !strings.Contains(stdout.String(), "the mean of the weights of 3 checkpoints") {
		t.Errorf("stdout %q", stdout.String())
	}
}
