// Package deploy holds the container recipe, the Kubernetes Indexed Job and
// the Slurm array script; its tests run the Slurm script against a stand-in
// sbatch, the way the scheduler would, and check the manifests agree.
package deploy

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/internal/testenv"
	"github.com/lmask/lmask/lazymask"
)

// fakeSbatch runs an array job's tasks one after the other (with
// SLURM_ARRAY_TASK_ID set, output to --output with %a replaced) and a
// --wrap job at once, and prints a job ID, as sbatch --parsable does.
const fakeSbatch = `#!/usr/bin/env bash
set -euo pipefail
array= wrap= out=/dev/null
while [ $# -gt 0 ]; do
  case $1 in
    --array=*) array=${1#--array=} ;;
    --wrap) wrap=$2; shift ;;
    --output=*) out=${1#--output=} ;;
    --*) ;;
    *) break ;;
  esac
  shift
done
echo "sbatch array=$array wrap=$wrap" >> "$FAKE_LOG"
if [ -n "$wrap" ]; then bash -c "$wrap" > "$out" 2>&1; echo 101; exit; fi
for ((i = ${array%-*}; i <= ${array#*-}; i++)); do
  SLURM_ARRAY_TASK_ID=$i bash "$@" > "${out//%a/$i}" 2>&1
done
echo 100
`

// TestSlurmArrayLikeOneRun submits a file of 23 instances (row groups of 5)
// as three shards through deploy/slurm-array.sh with the built commands,
// and compares the joined file with one lmask-infer run over the file:
// the same rows, sampled tours included.
func TestSlurmArrayLikeOneRun(t *testing.T) {
	if err := engine.Available(); err != nil {
		t.Skipf("onnxruntime not available: %v", err)
	}
	root := testenv.RepoRoot(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	build := exec.Command("go", "build", "-o", bin+"/", "./cmd/lmask-infer", "./cmd/lmask-data")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	data := filepath.Join(dir, "instances.parquet")
	if _, err := datasets.GenerateFile(data, datasets.GenConfig{Problem: lazymask.TSPTW, N: 10, Hardness: datasets.Hard, Seed: 6}, 23,
		datasets.WriterOptions{RowGroupRows: 5}); err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(dir, "fake")
	os.MkdirAll(fake, 0o755)
	if err := os.WriteFile(filepath.Join(fake, "sbatch"), []byte(fakeSbatch), 0o755); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(root, "engine", "testdata", "tiny-tsptw")
	flags := []string{"--aug", "2", "--samples", "2", "--seed", "9", "--budget", "5", "--rescue-time", "0", "--all-tours"}
	outdir := filepath.Join(dir, "run")
	log := filepath.Join(dir, "sbatch.log")
	cmd := exec.Command("bash", append([]string{filepath.Join(root, "deploy", "slurm-array.sh"), data, model, outdir, "3"}, flags...)...)
	cmd.Env = append(os.Environ(), "PATH="+fake+":"+os.Getenv("PATH"), "LMASK_BIN="+bin, "FAKE_LOG="+log)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "submitted array job 100 (3 shards) and merge job 101") {
		t.Fatalf("submit: %v\n%s", err, out)
	}
	calls, _ := os.ReadFile(log)
	if !strings.Contains(string(calls), "sbatch array=0-2 wrap=\n") {
		t.Errorf("sbatch calls:\n%s", calls)
	}
	mergeLog, _ := os.ReadFile(filepath.Join(outdir, "merge.log"))
	if !strings.Contains(string(mergeLog), "joined            3 parts") || !strings.Contains(string(mergeLog), "inst_infeasible") {
		t.Fatalf("merge log:\n%s", mergeLog)
	}
	whole := filepath.Join(dir, "whole.parquet")
	one := exec.Command(filepath.Join(bin, "lmask-infer"), append([]string{"--model", model, "--data", data, "--out", whole}, flags...)...)
	if out, err := one.CombinedOutput(); err != nil {
		t.Fatalf("one run: %v\n%s", err, out)
	}
	want, _, err := datasets.ReadSolutions(whole)
	if err != nil {
		t.Fatal(err)
	}
	got, meta, err := datasets.ReadSolutions(filepath.Join(outdir, "solutions.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(want) != 23*4 || meta.Extra["lmask.shard"] != "" {
		t.Fatalf("joined %d rows, one run %d (metadata %v)", len(got), len(want), meta.Extra)
	}
	for r := range want {
		want[r].SolveTime, got[r].SolveTime = 0, 0
		if !reflect.DeepEqual(want[r], got[r]) {
			t.Fatalf("row %d: one run %+v, joined %+v", r, want[r], got[r])
		}
	}
	for i := range 3 {
		if _, err := os.Stat(filepath.Join(outdir, fmt.Sprintf("metrics-%d.json", i))); err != nil {
			t.Errorf("shard %d wrote no metrics: %v", i, err)
		}
	}
}

// TestManifests: the Indexed Job's completions equal the K of its
// --shard auto/K, and the container recipe installs onnxruntime through
// scripts/setup.sh (the pinned version and checksum).
func TestManifests(t *testing.T) {
	job, err := os.ReadFile("k8s-indexed-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	completions := regexp.MustCompile(`(?m)^  completions: (\d+)$`).FindSubmatch(job)
	shard := regexp.MustCompile(`--shard=auto/(\d+)`).FindSubmatch(job)
	if completions == nil || shard == nil || string(completions[1]) != string(shard[1]) || !strings.Contains(string(job), "completionMode: Indexed") {
		t.Errorf("the Indexed Job's completions %q and --shard auto/K %q disagree", completions, shard)
	}
	docker, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"bash scripts/setup.sh", "ORT_VERSION", "./cmd/lmask-infer", "./cmd/lmask-data"} {
		if !strings.Contains(string(docker), w) {
			t.Errorf("Dockerfile lacks %q", w)
		}
	}
}
