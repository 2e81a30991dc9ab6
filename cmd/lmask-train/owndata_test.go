package main

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/internal/cliapp"
	"github.com/lmask/lmask/labels"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/trainer"
)

// TestOwnData: your own instances end to end at a tiny size. Two files of
// sizes 10 and 15 (the datasets writer) are labelled as one set
// (package labels, as lmask-data label --instances does; twice, the same
// bytes), imitated for a
// few steps with --imitate and trained a few REINFORCE steps with
// --train-data and a validation split: every label passes the checker,
// every step's batch holds one size and both sizes occur, the losses are
// finite, the split validates all its instances; flags against the files
// are usage errors.
func TestOwnData(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.parquet"), filepath.Join(dir, "b.parquet")
	for _, f := range []struct {
		path     string
		n, count int
	}{{a, 10, 24}, {b, 15, 16}} {
		if _, err := datasets.GenerateFile(f.path, datasets.GenConfig{Problem: lazymask.TSPTW, N: f.n, Hardness: "hard", Seed: uint64(f.n)}, f.count, datasets.WriterOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	files, err := datasets.ReadInstanceFiles([]string{a, b})
	if err != nil {
		t.Fatal(err)
	}
	label := func(set string) {
		t.Helper()
		spec := labels.FileSpec(files, 1, 16)
		spec.Search = "Random-L ×4"
		if _, err := labels.Open(set, spec); err != nil {
			t.Fatal(err)
		}
		bl := &labels.Builder{Dir: set, Spec: spec, Files: files, Starter: labels.RandomL{Samples: 4, Budget: 50, Seed: 1}, Search: labels.Search{Kicks: 2, MaxStarts: 2}}
		if n, err := bl.Grow(context.Background(), 0); err != nil || n != 3 {
			t.Fatalf("labelled %d chunks, %v; want 3", n, err)
		}
	}
	set, again := filepath.Join(dir, "labels"), filepath.Join(dir, "labels-again")
	label(set)
	label(again)
	for c := 0; c < 3; c++ {
		_, x := datasets.LabelChunkPaths(set, c)
		_, y := datasets.LabelChunkPaths(again, c)
		bx, err1 := os.ReadFile(x)
		by, err2 := os.ReadFile(y)
		if err1 != nil || err2 != nil || !bytes.Equal(bx, by) {
			t.Fatalf("chunk %d: two labelling runs differ (%v, %v)", c, err1, err2)
		}
	}
	l, err := datasets.ReadLabels(set, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Insts) != 40 {
		t.Fatalf("%d labels of 40 instances (%d skipped)", len(l.Insts), l.Skipped)
	}
	for i, in := range l.Insts {
		if r, err := lazymask.Check(in, l.Tours[i]); err != nil || !r.Feasible {
			t.Fatalf("label %d infeasible: %v", i, err)
		}
	}
	tiny := []string{"--layers", "1", "--d-model", "8", "--heads", "2", "--ffn", "16", "--backend", "go", "--no-export", "--checkpoint-every", "0"}
	sizesOf := func(out string, steps int) map[int]int {
		t.Helper()
		recs, err := trainer.ReadMetrics(out)
		if err != nil {
			t.Fatal(err)
		}
		sizes, n := map[int]int{}, 0
		for _, r := range recs {
			if r.Kind != trainer.KindTrain {
				continue
			}
			n++
			if r.Size != 10 && r.Size != 15 || math.IsNaN(r.Loss) || math.IsInf(r.Loss, 0) || !(r.Length > 0) {
				t.Fatalf("%s step %d: size %d, loss %v, length %v", out, r.Step, r.Size, r.Loss, r.Length)
			}
			sizes[r.Size]++
		}
		if n != steps || len(sizes) != 2 {
			t.Fatalf("%s: %d steps of sizes %v, want %d of both sizes", out, n, sizes, steps)
		}
		return sizes
	}
	var stdout, stderr bytes.Buffer
	im := filepath.Join(dir, "imitate")
	// 24 + 16 labels in batches of 8: an epoch is 3 + 2 batches.
	args := append([]string{"lmask-train", "--imitate", set, "--imitate-batch", "8", "--steps", "5", "--out", im}, tiny...)
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("imitate: %v\n%s", err, stderr.String())
	}
	if s := sizesOf(im, 5); s[10] != 3 || s[15] != 2 {
		t.Fatalf("an imitation epoch's batches: sizes %v, want 3 of 10 and 2 of 15", s)
	}
	rl := filepath.Join(dir, "reinforce")
	stderr.Reset()
	args = append([]string{"lmask-train", "--train-data", a + "," + b, "--val-split", "0.25", "--val-every", "0",
		"--steps", "6", "--batch", "4", "--samples", "4", "--out", rl}, tiny...)
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("train-data: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "training on 30 instances of sizes [10 15] from 2 files, 10 kept out for validation") {
		t.Errorf("log: %s", stderr.String())
	}
	sizesOf(rl, 6)
	ck, err := trainer.ReadCheckpoint(rl)
	if err != nil || ck.LastVal == nil || ck.LastVal.Instances != 10 || ck.Config.Size != 15 || ck.Config.Hardness != "" {
		t.Fatalf("checkpoint %+v, %v; want the last validation over the 10 split instances, size 15", ck, err)
	}
	args = append([]string{"lmask-train", "--imitate", filepath.Join(dir, "none"), "--out", filepath.Join(dir, "x")}, tiny...)
	if err := run(context.Background(), args, &stdout, &stderr); cliapp.ExitCode(err) != cliapp.ExitFailure || !strings.Contains(err.Error(), "none") {
		t.Errorf("a missing label set: %v, want a failure naming it", err)
	}
	for _, extra := range [][]string{{"--size", "10"}, {"--problem", "tspdl"}, {"--hardness", "hard"}, {"--val-split", "1.5"}} {
		args := append([]string{"lmask-train", "--train-data", a, "--train-data", b, "--out", filepath.Join(dir, "x")}, append(tiny, extra...)...)
		if err := run(context.Background(), args, &stdout, &stderr); cliapp.ExitCode(err) != cliapp.ExitUsage {
			t.Errorf("%v: %v, want a usage error", extra, err)
		}
	}
}
