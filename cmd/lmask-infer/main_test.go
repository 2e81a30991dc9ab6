package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/engine"
	"github.com/lmask/lmask/infer"
	"github.com/lmask/lmask/internal/cliapp"
	"github.com/lmask/lmask/lazymask"
)

const tinyTSPTW = "../../engine/testdata/tiny-tsptw"

func needRuntime(t *testing.T) {
	t.Helper()
	if err := engine.Available(); err != nil {
		t.Skipf("onnxruntime not available (set %s to libonnxruntime.so, e.g. after scripts/setup.sh): %v", engine.LibraryEnv, err)
	}
}

// fixture writes count generated TSPTW instances of 10 nodes (row groups
// of 7) and a cost-only reference of length 5 for each.
func fixture(t *testing.T, hardness string, count int) (data, ref string) {
	t.Helper()
	dir := t.TempDir()
	data, ref = filepath.Join(dir, "data.parquet"), filepath.Join(dir, "ref.parquet")
	meta, err := datasets.GenerateFile(data, datasets.GenConfig{Problem: lazymask.TSPTW, N: 10, Hardness: hardness, Seed: 3}, count, datasets.WriterOptions{RowGroupRows: 7})
	if err != nil {
		t.Fatal(err)
	}
	refs := make([]datasets.Solution, count)
	for i := range refs {
		refs[i] = datasets.Solution{Instance: int64(i), Cost: 5, CostOrig: 500, Source: "known"}
	}
	meta.Kind = datasets.KindSolutions
	if err := datasets.WriteSolutions(ref, meta, refs, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	return data, ref
}

func runCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), append([]string{"lmask-infer"}, args...), &out, &errb)
	return out.String(), errb.String(), err
}

func TestUsageErrors(t *testing.T) {
	t.Setenv("JOB_COMPLETION_INDEX", "")
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--aug", "9"}, "--aug 9"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--aug", "0"}, "--aug 0"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--lookahead", "x"}, "--lookahead"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--device", "tpu"}, "--device"},
		{[]string{"--data", "d", "--out", "o"}, "model"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--improve-share", "0.5"}, "--improve-share needs --improve"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--improve", "--improve-share", "-1"}, "--improve-share -1"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--improve", "--improve-share", "NaN"}, "--improve-share NaN"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--neural-kicks", "3"}, "--neural-kicks needs --improve"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--improve", "--neural-kicks", "-1"}, "--neural-kicks -1"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--improve", "--neural-kicks", "2", "--neural-cut", "worst"}, `unknown cut rule "worst"`},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--bogus"}, "bogus"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--aug", "two"}, "-aug"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "extra"}, "unexpected arguments"},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--shard", "3/3"}, `--shard "3/3": 3 is out of range [0,3)`},
		{[]string{"--model", "m", "--data", "d", "--out", "o", "--shard", "auto/2"}, "neither JOB_COMPLETION_INDEX nor SLURM_ARRAY_TASK_ID is set"},
	} {
		_, _, err := runCLI(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || cliapp.ExitCode(err) != cliapp.ExitUsage {
			t.Errorf("%v: err = %v (exit %d), want a usage error mentioning %q", tc.args, err, cliapp.ExitCode(err), tc.want)
		}
	}
	// A missing input is a failure, not a usage error; so is an interrupt
	// before the first row group.
	dir := t.TempDir()
	_, _, err := runCLI(t, "--model", tinyTSPTW, "--data", filepath.Join(dir, "none.parquet"), "--out", filepath.Join(dir, "o.parquet"))
	if cliapp.ExitCode(err) != cliapp.ExitFailure {
		t.Errorf("missing data file: err = %v, exit %d", err, cliapp.ExitCode(err))
	}
	var help bytes.Buffer
	if err := run(context.Background(), []string{"lmask-infer", "--help"}, &help, &help); err != nil || !strings.Contains(help.String(), "instances Parquet file (required)") {
		t.Errorf("help does not mark --data required (%v):\n%s", err, help.String())
	}
}

// TestInterruptExitCode: a cancelled run stops with context.Canceled,
// which exits with status 130, and writes no output.
func TestInterruptExitCode(t *testing.T) {
	needRuntime(t)
	data, _ := fixture(t, datasets.Easy, 4)
	out := filepath.Join(t.TempDir(), "sol.parquet")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var o, e bytes.Buffer
	err := run(ctx, []string{"lmask-infer", "--model", tinyTSPTW, "--data", data, "--out", out, "--aug", "1"}, &o, &e)
	if cliapp.ExitCode(err) != cliapp.ExitInterrupted {
		t.Fatalf("err = %v, exit %d, want %d", err, cliapp.ExitCode(err), cliapp.ExitInterrupted)
	}
	if _, serr := os.Stat(out); serr == nil {
		t.Error("output written despite the interrupt")
	}
}

// Outputs that would overwrite an input, or whose folder is missing, are
// refused before the model is opened; nothing is written.
func TestInferRefusesBadOutputs(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data.parquet")
	if _, err := datasets.GenerateFile(data, datasets.GenConfig{Problem: lazymask.TSPTW, N: 10, Hardness: datasets.Hard, Seed: 1}, 3, datasets.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(data)
	out := filepath.Join(dir, "sol.parquet")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", data}, "--out " + data + " is the --data file"},
		{[]string{"--out", "./" + filepath.Base(data)}, "is the --data file"},
		{[]string{"--out", out, "--reference", out}, "--out " + out + " is the --reference file"},
		{[]string{"--out", out, "--metrics-json", data}, "--metrics-json " + data + " is the --data file"},
		{[]string{"--out", out, "--metrics-json", out}, "--metrics-json " + out + " is the --out file"},
		{[]string{"--out", filepath.Join(dir, "no", "sol.parquet")}, "--out: create " + filepath.Join(dir, "no", "sol.parquet") + ": folder " + filepath.Join(dir, "no") + " does not exist"},
		{[]string{"--out", out, "--metrics-json", filepath.Join(dir, "no", "m.json")}, "--metrics-json: create"},
	} {
		t.Chdir(dir)
		_, _, err := runCLI(t, append([]string{"--model", "no-such-model", "--data", data}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want one with %q", tc.args, err, tc.want)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%v: %s was written", tc.args, out)
		}
	}
	if after, _ := os.ReadFile(data); !bytes.Equal(before, after) {
		t.Error("the data file changed")
	}
}

// TestInferCLI: the command prints the table and writes the metrics JSON
// of infer.Run; --shard auto/K takes its index from the environment as a
// Kubernetes Indexed Job's pod does, and the output records the shard.
func TestInferCLI(t *testing.T) {
	needRuntime(t)
	data, ref := fixture(t, datasets.Hard, 20)
	dir := t.TempDir()
	out, mj := filepath.Join(dir, "sol.parquet"), filepath.Join(dir, "m.json")
	t.Setenv("JOB_COMPLETION_INDEX", "1")
	stdout, stderr, err := runCLI(t, "--model", tinyTSPTW, "--data", data, "--out", out, "--reference", ref,
		"--metrics-json", mj, "--aug", "2", "--budget", "20", "--shard", "auto/3")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, w := range []string{"shard             1/3: rows 7 to 13\n", "gap ", "budget R          20\n", "feasible tour by  decode ", "wall time"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("table lacks %q:\n%s", w, stdout)
		}
	}
	raw, err := os.ReadFile(mj)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if m["instances"] != 7.0 || m["rows"] != 14.0 || m["budget"] != 20.0 || m["shard"] != "1/3" || m["found_by"] == nil || m["timing"] == nil || m["gap"] == nil {
		t.Errorf("metrics %v", m)
	}
	sols, meta, err := datasets.ReadSolutions(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(sols) != 7 || sols[0].Instance != 7 || meta.Extra["lmask.shard"] != "1/3" || meta.Extra["lmask.shard_rows"] != "7:14" {
		t.Errorf("%d rows from instance %d, metadata %v", len(sols), sols[0].Instance, meta.Extra)
	}
}

// TestModelByName: --model takes a shipped model's name, found in
// $LMASK_MODELS, and solves exactly as with the folder; an unknown name
// is a failure that lists the shipped names.
func TestModelByName(t *testing.T) {
	needRuntime(t)
	hub := t.TempDir()
	abs, err := filepath.Abs(tinyTSPTW)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(abs, filepath.Join(hub, "tsptw8-tiny")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LMASK_MODELS", hub)
	data, _ := fixture(t, datasets.Easy, 6)
	dir := t.TempDir()
	byName, byDir := filepath.Join(dir, "name.parquet"), filepath.Join(dir, "dir.parquet")
	if _, e, err := runCLI(t, "--model", "tsptw8-tiny", "--data", data, "--out", byName, "--aug", "2"); err != nil {
		t.Fatalf("--model by name: %v\n%s", err, e)
	}
	if _, e, err := runCLI(t, "--model", tinyTSPTW, "--data", data, "--out", byDir, "--aug", "2"); err != nil {
		t.Fatalf("--model by folder: %v\n%s", err, e)
	}
	a, _, err := datasets.ReadSolutions(byName)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := datasets.ReadSolutions(byDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 6 || len(b) != 6 {
		t.Fatalf("%d and %d rows, want 6", len(a), len(b))
	}
	for i := range a {
		if !slices.Equal(a[i].Tour, b[i].Tour) || a[i].Cost != b[i].Cost || a[i].Feasible != b[i].Feasible {
			t.Errorf("row %d: by name %v (%v), by folder %v (%v)", i, a[i].Tour, a[i].Cost, b[i].Tour, b[i].Cost)
		}
	}
	_, _, err = runCLI(t, "--model", "tsptw8-huge", "--data", data, "--out", filepath.Join(dir, "x.parquet"))
	if cliapp.ExitCode(err) != cliapp.ExitFailure || err == nil || !strings.Contains(err.Error(), "shipped: tsptw8-tiny") {
		t.Errorf("unknown model name: err = %v (exit %d), want a failure listing tsptw8-tiny", err, cliapp.ExitCode(err))
	}
}

// --preset sets the options of infer.Preset; flags given explicitly
// override only their own values.
func TestPresetFlags(t *testing.T) {
	parse := func(args ...string) (infer.Options, error) {
		app := newApp(io.Discard, io.Discard)
		var opt infer.Options
		var perr error
		app.Action = func(c *cli.Context) error {
			opt, _, perr = parseOptions(c, infer.DefaultOptions(), io.Discard)
			return nil
		}
		base := []string{"lmask-infer", "--model", tinyTSPTW, "--data", "d.parquet", "--out", filepath.Join(t.TempDir(), "o.parquet")}
		if err := app.Run(append(base, args...)); err != nil {
			return opt, err
		}
		return opt, perr
	}
	best, err := parse("--preset", "best")
	want, _ := infer.Preset(infer.PresetBest)
	if err != nil || best.Decode.Aug != want.Decode.Aug || best.Decode.Budget != want.Decode.Budget || !best.Improve || best.ImproveShare != 3.5 || best.Search.MinKicks != infer.MinKicks || !best.PaperBudget || best.BudgetPerNode != 16 {
		t.Errorf("--preset best: %+v (%v)", best, err)
	}
	o, err := parse("--preset", "best", "--aug", "4", "--improve-kicks", "30", "--budget", "500")
	if err != nil || o.Decode.Aug != 4 || o.Search.Kicks != 30 || o.ImproveShare != 3.5 || o.Decode.Budget != 500 || o.PaperBudget {
		t.Errorf("--preset best with --aug 4 --improve-kicks 30 --budget 500: %+v (%v)", o, err)
	}
	o, err = parse("--preset", "fast", "--batch", "4")
	if err != nil || o.Decode.Batch != 4 || o.Decode.Aug != 1 {
		t.Errorf("--preset fast --batch 4: batch %d aug %d (%v)", o.Decode.Batch, o.Decode.Aug, err)
	}
	if o, err = parse("--preset", "fast"); err != nil || o.Decode.Batch != infer.FastBatch {
		t.Errorf("--preset fast: batch %d (%v), want %d", o.Decode.Batch, err, infer.FastBatch)
	}
	o, err = parse("--preset", "best", "--improve=false")
	if err != nil || o.Improve || o.ImproveShare != 0 {
		t.Errorf("--preset best --improve=false: improve %v share %v (%v)", o.Improve, o.ImproveShare, err)
	}
	paper, err := parse()
	if err != nil || paper.Decode.Aug != 8 || paper.Improve || paper.ImproveShare != 0 || !paper.PaperBudget {
		t.Errorf("no preset: %+v (%v)", paper, err)
	}
	if _, err := parse("--preset", "quick"); err == nil || !strings.Contains(err.Error(), `--preset: unknown preset "quick"`) || cliapp.ExitCode(err) != cliapp.ExitUsage {
		t.Errorf("--preset quick: %v", err)
	}
}
