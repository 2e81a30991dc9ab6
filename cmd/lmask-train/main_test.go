package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/internal/cliapp"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
	"github.com/lmask/lmask/trainer"
)

func TestRun_TrainResumeExport(t *testing.T) {
	dir := t.TempDir()
	val := filepath.Join(dir, "val.parquet")
	if _, err := datasets.GenerateFile(val, datasets.GenConfig{Problem: lazymask.TSPDL, N: 8, Hardness: "hard", Seed: 5}, 8, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	base := []string{"lmask-train", "--problem", "tspdl", "--size", "8", "--hardness", "hard", "--out", out,
		"--batch", "4", "--samples", "4", "--layers", "1", "--d-model", "8", "--heads", "2", "--ffn", "16",
		"--backend", "go", "--val", val, "--val-every", "2", "--checkpoint-every", "2", "--milestones", "3"}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), append(base, "--steps", "4", "--no-export"), &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "steps 4/4") {
		t.Errorf("stdout: %s", stdout.String())
	}
	// Training again into the same directory without --resume is refused.
	if err := run(context.Background(), append(base, "--steps", "4"), &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "--resume") {
		t.Errorf("second run without --resume: %v", err)
	}
	stdout.Reset()
	if err := run(context.Background(), append(base, "--steps", "6", "--resume"), &stdout, &stderr); err != nil {
		t.Fatalf("resume: %v\n%s", err, stderr.String())
	}
	ck, err := trainer.ReadCheckpoint(out)
	if err != nil || ck.Step != 6 || ck.Config.Milestones[0] != 3 || ck.Config.Model.DModel != 8 {
		t.Fatalf("checkpoint after resume: %+v %v", ck, err)
	}
	mc, err := features.ReadConfig(filepath.Join(out, ModelDir))
	if err != nil || mc.Problem != "tspdl" || mc.TrainSize != 8 || mc.DModel != 8 || !mc.RIE {
		t.Fatalf("auto-exported config %+v %v", mc, err)
	}
	// The automatic export takes the best-validated weights.
	bk, err := trainer.ReadCheckpoint(filepath.Join(out, trainer.BestFile))
	if err != nil || bk.BestVal == nil || bk.Step != bk.BestStep {
		t.Fatalf("best checkpoint %+v %v", bk, err)
	}
	auto, _ := os.ReadFile(filepath.Join(out, ModelDir, trainer.ModelCardFile))
	if want := fmt.Sprintf("| steps | %d of ", bk.Step); !strings.Contains(string(auto), want) {
		t.Errorf("auto-exported card lacks %q:\n%s", want, auto)
	}
	if bk.Step != 6 && !strings.Contains(stdout.String(), fmt.Sprintf("weights of step %d, the best validation", bk.Step)) {
		t.Errorf("stdout does not name the best step %d: %s", bk.Step, stdout.String())
	}
	exp := filepath.Join(dir, "exported")
	stdout.Reset()
	if err := run(context.Background(), []string{"lmask-train", "export", "--checkpoint", out, "--out", exp}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{features.EncoderFile, features.DecoderFile, features.ConfigFile, trainer.ModelCardFile} {
		if _, err := os.Stat(filepath.Join(exp, f)); err != nil {
			t.Error(err)
		}
	}
	card, _ := os.ReadFile(filepath.Join(exp, trainer.ModelCardFile))
	if !strings.Contains(string(card), "TSPDL-8 hard") || !strings.Contains(string(card), "| steps | 6 of 6 |") ||
		!strings.Contains(string(card), "solution infeasibility") {
		t.Errorf("model card:\n%s", card)
	}

	// A warm start from that run, stopped at once by --time-limit: the
	// checkpoint holds step 0 and records where its weights came from.
	warm := filepath.Join(dir, "warm")
	stdout.Reset()
	args := append(slices.Clone(base), "--out", warm, "--init-from", out, "--steps", "5", "--time-limit", "1ns")
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("init-from: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "interrupted") {
		t.Errorf("time-limited run did not report an interruption: %s", stdout.String())
	}
	wk, err := trainer.ReadCheckpoint(warm)
	if err != nil || wk.Step != 0 || wk.Config.Warm == nil || wk.Config.Warm.Step != 6 || wk.InstancesSeen != ck.InstancesSeen {
		t.Fatalf("warm checkpoint %+v %v", wk, err)
	}
	// Without size flags a warm start takes the source's sizes (here those of
	// the exported model, 1 layer of width 8, against the defaults 6 and 128);
	// a size flag that disagrees is refused.
	bare := []string{"lmask-train", "--problem", "tspdl", "--size", "8", "--hardness", "hard", "--batch", "4", "--samples", "4",
		"--backend", "go", "--init-from", filepath.Join(out, ModelDir), "--steps", "5", "--time-limit", "1ns"}
	adopt := filepath.Join(dir, "adopt")
	if err := run(context.Background(), append(slices.Clone(bare), "--out", adopt), &stdout, &stderr); err != nil {
		t.Fatalf("init-from without size flags: %v\n%s", err, stderr.String())
	}
	if ak, err := trainer.ReadCheckpoint(adopt); err != nil || ak.Config.Model.Layers != 1 || ak.Config.Model.DModel != 8 ||
		ak.Config.Model.Heads != 2 || ak.Config.Model.FFN != 16 || ak.Config.Warm == nil || !ak.Config.Warm.Model {
		t.Fatalf("adopted sizes: %+v %v", ak, err)
	}
	err = run(context.Background(), append(slices.Clone(bare), "--out", filepath.Join(dir, "clash"), "--layers", "2"), &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "differ") {
		t.Errorf("init-from with --layers 2 against a 1-layer model: %v", err)
	}
	// The curve of both stages, joined: the resumed run's 6 steps, then the
	// warm start's (none).
	svg := filepath.Join(dir, "stages.svg")
	stdout.Reset()
	if err := run(context.Background(), []string{"lmask-train", "curve", "--out", svg, out, warm}, &stdout, &stderr); err != nil {
		t.Fatalf("curve: %v", err)
	}
	if pic, err := os.ReadFile(svg); err != nil || !strings.Contains(string(pic), "<svg") || !strings.Contains(stdout.String(), "2 stages, 6 steps") {
		t.Errorf("curve: %v, stdout %q", err, stdout.String())
	}
	missing := filepath.Join(dir, "no-such-run")
	if err := run(context.Background(), []string{"lmask-train", "curve", "--out", filepath.Join(dir, "x.svg"), out, missing}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("curve of a missing run: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.svg")); err == nil {
		t.Error("failed curve command left a file behind")
	}
	neg := append(slices.Clone(base), "--out", filepath.Join(dir, "neg"), "--time-limit", "-1s")
	if err := run(context.Background(), neg, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "time-limit") {
		t.Errorf("negative --time-limit: %v", err)
	}
}

func TestRun_BadFlags(t *testing.T) {
	var stdout, stderr bytes.Buffer
	cases := [][]string{
		{"lmask-train", "--size", "10", "--out", t.TempDir()},
		{"lmask-train", "--problem", "vrp", "--out", t.TempDir()},
		{"lmask-train", "--problem", "tsptw", "--samples", "1", "--out", t.TempDir()},
		{"lmask-train", "--problem", "tsptw", "--milestones", "x", "--out", t.TempDir()},
		{"lmask-train", "export", "--checkpoint", t.TempDir(), "--out", t.TempDir()},
	}
	for _, args := range cases {
		if err := run(context.Background(), args, &stdout, &stderr); err == nil {
			t.Errorf("%v: no error", args)
		}
	}
}

// TestExitCodes: usage errors exit 2, an interrupted run 130 after its
// checkpoint, a run stopped by --time-limit 0.
func TestExitCodes(t *testing.T) {
	var stdout, stderr bytes.Buffer
	for _, args := range [][]string{
		{"lmask-train", "--size", "10", "--out", t.TempDir()},
		{"lmask-train", "--problem", "tsptw", "--bogus"},
		{"lmask-train", "--problem", "tsptw", "--samples", "1", "--out", t.TempDir()},
		{"lmask-train", "--problem", "tsptw", "--milestones", "x", "--out", t.TempDir()},
		{"lmask-train", "--problem", "tsptw", "--size", "many"},
		{"lmask-train", "--problem", "tsptw"},
		{"lmask-train", "export", "--checkpoint", t.TempDir()},
	} {
		err := run(context.Background(), args, &stdout, &stderr)
		if got := cliapp.ExitCode(err); got != cliapp.ExitUsage {
			t.Errorf("%v: err %v, exit %d, want %d", args[1:], err, got, cliapp.ExitUsage)
		}
	}
	if err := run(context.Background(), []string{"lmask-train", "export", "--checkpoint", t.TempDir(), "--out", t.TempDir()}, &stdout, &stderr); cliapp.ExitCode(err) != cliapp.ExitFailure {
		t.Errorf("export of an empty folder: err %v, exit %d", err, cliapp.ExitCode(err))
	}
	out := filepath.Join(t.TempDir(), "run")
	tiny := []string{"lmask-train", "--problem", "tsptw", "--size", "8", "--hardness", "easy", "--out", out, "--batch", "2", "--samples", "2",
		"--layers", "1", "--d-model", "8", "--heads", "2", "--ffn", "16", "--backend", "go", "--steps", "50", "--no-export"}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := run(ctx, tiny, &stdout, &stderr)
	if cliapp.ExitCode(err) != cliapp.ExitInterrupted {
		t.Fatalf("interrupted run: err %v, exit %d\n%s", err, cliapp.ExitCode(err), stderr.String())
	}
	if _, err := trainer.ReadCheckpoint(out); err != nil {
		t.Errorf("no checkpoint after the interrupt: %v", err)
	}
	err = run(context.Background(), append(tiny, "--resume", "--time-limit", "1ns"), &stdout, &stderr)
	if err != nil {
		t.Errorf("run stopped by --time-limit: %v", err)
	}
	var help bytes.Buffer
	if err := run(context.Background(), []string{"lmask-train", "--help"}, &help, &help); err != nil || !strings.Contains(help.String(), "tsptw or tspdl (required unless --train-data or --imitate gives it)") {
		t.Errorf("help does not mark --problem required (%v)", err)
	}
}

// TestRun_RefusesSpecialRunFiles: a folder where the run writes its
// checkpoint or metrics stops the run before any training (a FIFO is
// refused by the same check; a folder cannot block the test on failure).
func TestRun_RefusesSpecialRunFiles(t *testing.T) {
	for _, name := range []string{"checkpoint.lmck", "metrics.jsonl"} {
		out := t.TempDir()
		if err := os.Mkdir(filepath.Join(out, name), 0o755); err != nil {
			t.Fatal(err)
		}
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), []string{"lmask-train", "--problem", "tsptw", "--size", "10", "--steps", "1",
			"--layers", "1", "--d-model", "16", "--heads", "2", "--ffn", "16", "--backend", "go", "--out", out}, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s as a folder: err %v, want a refusal naming it", name, err)
		}
		ents, _ := os.ReadDir(out)
		if len(ents) != 1 {
			t.Errorf("%s as a folder: the run wrote %d files beside it before failing", name, len(ents)-1)
		}
	}
}

// TestRun_Quantize writes an int8 copy of the tiny test model: the copy has
// the four files and a card that says what was quantised, the input is
// unchanged, a second run without --force and a run onto the input fail
// with the flag spelled, and a missing model names its file.
func TestRun_Quantize(t *testing.T) {
	src := filepath.Join("..", "..", "engine", "testdata", "tiny-tsptw")
	before, err := os.ReadFile(filepath.Join(src, "encoder.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "int8")
	var stdout, stderr bytes.Buffer
	args := []string{"lmask-train", "quantize", "--model", src, "--out", out}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "encoder.onnx: 9 weight products in int8") || !strings.Contains(stdout.String(), "decoder.onnx: copied as float32") {
		t.Fatalf("output:\n%s", stdout.String())
	}
	for _, f := range []string{"encoder.onnx", "decoder.onnx", "config.json", "MODEL_CARD.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Fatal(err)
		}
	}
	card, _ := os.ReadFile(filepath.Join(out, "MODEL_CARD.md"))
	if !strings.Contains(string(card), "DynamicQuantizeMatMul") || !strings.Contains(string(card), "| encoder.onnx | 9 |") {
		t.Fatalf("card:\n%s", card)
	}
	if after, _ := os.ReadFile(filepath.Join(src, "encoder.onnx")); !bytes.Equal(before, after) {
		t.Fatal("the input model changed")
	}
	if err := run(context.Background(), args, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("second run: %v", err)
	}
	onto := []string{"lmask-train", "quantize", "--model", src, "--out", src, "--force"}
	if err := run(context.Background(), onto, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "--out") {
		t.Fatalf("onto the input: %v", err)
	}
	missing := filepath.Join(t.TempDir(), "none")
	err = run(context.Background(), []string{"lmask-train", "quantize", "--model", missing, "--out", filepath.Join(t.TempDir(), "q")}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(missing, "config.json")) {
		t.Fatalf("missing model: %v", err)
	}
}

// TestRun_Shrink: shrink writes a model directory with the kept layers and
// refuses a list the model does not have.
func TestRun_Shrink(t *testing.T) {
	src := filepath.Join("..", "..", "engine", "testdata", "tiny-tsptw")
	out := filepath.Join(t.TempDir(), "small")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"lmask-train", "shrink", "--keep", "1", "--out", out, src}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout.String(), "encoder layers [1]") {
		t.Fatalf("output:\n%s", stdout.String())
	}
	cfg, err := features.ReadConfig(out)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Layers != 1 {
		t.Fatalf("shrunk model has %d layers, want 1", cfg.Layers)
	}
	bad := []string{"lmask-train", "shrink", "--keep", "0,7", "--out", filepath.Join(t.TempDir(), "x"), src}
	if err := run(context.Background(), bad, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "Keep") {
		t.Fatalf("keep 0,7: %v", err)
	}
}
