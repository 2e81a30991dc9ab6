package trainer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/core/tensors"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models"
	"github.com/lmask/lmask/models/features"
)

// testBackend prefers the onnx backend when the ORT library is present and
// falls back to the pure-Go backend.
func testBackend(t testing.TB) string {
	if lib := os.Getenv(models.ORTLibraryEnv); lib != "" {
		if _, err := os.Stat(lib); err == nil {
			return models.BackendONNX
		}
	}
	t.Logf("%s not set: using the pure-Go backend", models.ORTLibraryEnv)
	return models.BackendGo
}

// tinyConfig is a TSPTW-10 easy run with a tiny model.
func tinyConfig(t testing.TB, steps int) Config {
	c := DefaultConfig("tsptw", 10, "easy")
	c.Steps, c.Batch, c.Samples = steps, 8, 10
	c.Model.Layers, c.Model.DModel, c.Model.Heads, c.Model.FFN = 1, 16, 2, 32
	c.LR, c.Milestones = 1e-3, nil
	c.CheckpointEvery, c.ValEvery = 0, 0
	c.Backend = testBackend(t)
	c.Seed = 7
	return c
}

// writeValSet generates count TSPTW-10 easy instances into dir.
func writeValSet(t testing.TB, dir string, count int) string {
	t.Helper()
	path := filepath.Join(dir, "val.parquet")
	_, err := datasets.GenerateFile(path, datasets.GenConfig{Problem: lazymask.TSPTW, N: 10, Hardness: "easy", Seed: 99}, count, datasets.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTrain_TinyModelLearns(t *testing.T) {
	steps := 240
	if testing.Short() {
		steps = 80
	}
	dir := t.TempDir()
	cfg := tinyConfig(t, steps)
	cfg.ValFile, cfg.ValEvery, cfg.CheckpointEvery = writeValSet(t, dir, 32), steps/4, steps/2
	tr, err := New(cfg, Options{Dir: filepath.Join(dir, "run")})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := tr.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.Step != steps || sum.Interrupted || sum.InstancesSeen != int64(steps*cfg.Batch) {
		t.Fatalf("summary %+v", sum)
	}
	var vals []ValMetrics
	var first, last []float64
	for _, r := range tr.Metrics().Records() {
		switch {
		case r.Kind == KindVal:
			vals = append(vals, *r.Val)
		case r.Step <= 20:
			first = append(first, r.PenCost)
		case r.Step > steps-20:
			last = append(last, r.PenCost)
		}
	}
	if len(vals) != 5 {
		t.Fatalf("%d validation passes, want 5 (start + every %d steps)", len(vals), cfg.ValEvery)
	}
	v0, vn := vals[0], vals[len(vals)-1]
	t.Logf("validation obj %.4f → %.4f, sol. infeasible %.4f → %.4f; training Ψ %.3f → %.3f",
		v0.Obj, vn.Obj, v0.SolInfeasible, vn.SolInfeasible, mean(first), mean(last))
	if !(vn.Obj < v0.Obj-0.05) {
		t.Errorf("validation objective did not fall: %.4f → %.4f", v0.Obj, vn.Obj)
	}
	if vn.SolInfeasible > v0.SolInfeasible || vn.InstInfeasible > v0.InstInfeasible {
		t.Errorf("validation infeasibility rose: sol %.4f → %.4f, inst %.4f → %.4f",
			v0.SolInfeasible, vn.SolInfeasible, v0.InstInfeasible, vn.InstInfeasible)
	}
	if !(mean(last) < mean(first)) {
		t.Errorf("training penalised cost did not fall: %.3f → %.3f", mean(first), mean(last))
	}
	for _, f := range []string{CheckpointFile, MetricsFile, CurveFile, BestFile} {
		if _, err := os.Stat(filepath.Join(dir, "run", f)); err != nil {
			t.Error(err)
		}
	}
	// best.lmck holds the weights of the best validation pass.
	best, bestAt := vals[0], 0
	for i, v := range vals[1:] {
		if v.Better(best) {
			best, bestAt = v, (i+1)*cfg.ValEvery
		}
	}
	ck, err := ReadCheckpoint(filepath.Join(dir, "run", BestFile))
	if err != nil {
		t.Fatal(err)
	}
	if ck.Step != bestAt || ck.BestStep != bestAt || ck.BestVal == nil || ck.BestVal.Obj != best.Obj {
		t.Fatalf("best.lmck: step %d, best step %d, best %+v; want step %d, %+v", ck.Step, ck.BestStep, ck.BestVal, bestAt, best)
	}
	re, err := New(cfg, Options{Dir: filepath.Join(dir, "again"), InitFrom: ck.Path})
	if err != nil {
		t.Fatal(err)
	}
	got, err := re.Validate()
	if err != nil {
		t.Fatal(err)
	}
	if got.Obj != best.Obj || got.InstInfeasible != best.InstInfeasible || got.SolInfeasible != best.SolInfeasible {
		t.Errorf("best.lmck weights validate to %+v, recorded %+v", got, best)
	}
}

func TestValMetrics_Better(t *testing.T) {
	a := ValMetrics{InstInfeasible: 0.01, Obj: 5, Gap: 0.02, HasGap: true}
	for _, c := range []struct {
		name string
		v    ValMetrics
		want bool
	}{
		{"fewer infeasible instances, longer", ValMetrics{InstInfeasible: 0, Obj: 9, Gap: 0.5, HasGap: true}, true},
		{"more infeasible instances, shorter", ValMetrics{InstInfeasible: 0.02, Obj: 1, Gap: 0, HasGap: true}, false},
		{"same infeasibility, lower gap", ValMetrics{InstInfeasible: 0.01, Obj: 6, Gap: 0.01, HasGap: true}, true},
		{"same infeasibility, higher gap", ValMetrics{InstInfeasible: 0.01, Obj: 4, Gap: 0.03, HasGap: true}, false},
		{"no gap: shorter", ValMetrics{InstInfeasible: 0.01, Obj: 4.9}, true},
		{"tie", a, false},
	} {
		if got := c.v.Better(a); got != c.want {
			t.Errorf("%s: Better = %v, want %v", c.name, got, c.want)
		}
	}
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// weightsOf returns the model's parameters.
func weightsOf(t testing.TB, tr *Trainer) features.Weights {
	t.Helper()
	w, err := tr.Model().Weights()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// trainRun creates a trainer with cfg and opt and runs it to its end (or
// its StopAt).
func trainRun(t *testing.T, cfg Config, opt Options) *Trainer {
	t.Helper()
	tr, err := New(cfg, opt)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return tr
}

// halfThenResumed runs cfg to half its steps in dir, then finishes it in a
// fresh trainer that resumes from the checkpoint alone; it returns the
// resumed trainer.
func halfThenResumed(t *testing.T, cfg Config, dir string) *Trainer {
	t.Helper()
	trainRun(t, cfg, Options{Dir: dir, StopAt: cfg.Steps / 2})
	c, err := New(Config{}, Options{Dir: dir, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.Step() != cfg.Steps/2 || c.Config().Steps != cfg.Steps {
		t.Fatalf("resumed at step %d of %d", c.Step(), c.Config().Steps)
	}
	if _, err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestTrain_ResumeEqualsStraightRun(t *testing.T) {
	const steps = 12
	cfg := tinyConfig(t, steps)
	cfg.Milestones = []int{8} // the schedule must continue across the resume
	a := trainRun(t, cfg, Options{Dir: t.TempDir()})
	c := halfThenResumed(t, cfg, t.TempDir())
	wa, wc := weightsOf(t, a), weightsOf(t, c)
	w0 := features.RandomWeights(cfg.Model, cfg.Seed)
	moved := false
	for name, ta := range wa {
		tc := wc[name]
		for i := range ta.Data {
			if ta.Data[i] != tc.Data[i] {
				t.Fatalf("%s[%d]: straight %v, resumed %v", name, i, ta.Data[i], tc.Data[i])
			}
			if ta.Data[i] != w0[name].Data[i] {
				moved = true
			}
		}
	}
	if !moved {
		t.Fatal("training did not change any weight")
	}
	// The metrics logs agree too (timings aside).
	ra, rc := a.Metrics().Records(), c.Metrics().Records()
	if len(ra) != len(rc) {
		t.Fatalf("metrics: %d records straight, %d resumed", len(ra), len(rc))
	}
	for i := range ra {
		if ra[i].Loss != rc[i].Loss || ra[i].PenCost != rc[i].PenCost || ra[i].LR != rc[i].LR {
			t.Errorf("record %d: straight %+v, resumed %+v", i, ra[i], rc[i])
		}
	}
	if ra[steps-1].LR != cfg.LR*0.1 {
		t.Errorf("lr at the last step %g, want %g", ra[steps-1].LR, cfg.LR*0.1)
	}
}

func TestTrain_NonFiniteStopsAndKeepsCheckpoint(t *testing.T) {
	cfg := tinyConfig(t, 10)
	cfg.CheckpointEvery = 2
	dir := t.TempDir()
	tr, err := New(cfg, Options{Dir: dir, StopAt: 2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(dir, CheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	// Poison one weight: the next loss is NaN.
	v := tr.Model().Store().GetVariable(models.VariablePath(features.WQueryB))
	vals := tensors.MustCopyFlatData[float32](v.MustValue())
	vals[0] = float32(math.NaN())
	if err := v.SetValue(tensors.FromFlatDataAndDimensions(vals, len(vals))); err != nil {
		t.Fatal(err)
	}
	tr.opt.StopAt = 0
	_, err = tr.Run(context.Background())
	if !errors.Is(err, ErrNonFinite) || !strings.Contains(err.Error(), "step 3") || !strings.Contains(err.Error(), "last good checkpoint") {
		t.Fatalf("error %v, want a non-finite loss at step 3", err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, CheckpointFile))
	if string(before) != string(after) {
		t.Fatal("the checkpoint changed after the non-finite step")
	}
	ck, err := ReadCheckpoint(dir)
	if err != nil || ck.Step != 2 {
		t.Fatalf("kept checkpoint: step %v, %v", ck, err)
	}
}

func TestTrain_CancelWritesCheckpoint(t *testing.T) {
	cfg := tinyConfig(t, 50)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	tr, err := New(cfg, Options{Dir: dir, OnStep: func(r Record) {
		if r.Step == 3 {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := tr.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ck, err := ReadCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Interrupted || sum.Step != 3 || ck.Step != 3 || ck.InstancesSeen != 24 {
		t.Fatalf("summary %+v, checkpoint step %d seen %d", sum, ck.Step, ck.InstancesSeen)
	}
}

func TestExport_ConfigAndCard(t *testing.T) {
	cfg := tinyConfig(t, 3)
	cfg.Model.RIE = false
	dir := t.TempDir()
	tr, err := New(cfg, Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "model")
	mc, err := ExportCheckpoint(dir, out, models.BackendGo)
	if err != nil {
		t.Fatal(err)
	}
	want := features.Config{Format: features.FormatPOMO, Problem: "tsptw", DModel: 16, Heads: 2, Layers: 1, FFN: 32,
		RIE: false, TrainSize: 10, Hardness: "easy"}
	if mc != want {
		t.Errorf("exported config %+v, want %+v", mc, want)
	}
	got, err := features.ReadConfig(out)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("config.json %+v, want %+v", got, want)
	}
	raw, _ := os.ReadFile(filepath.Join(out, features.ConfigFile))
	var kv map[string]any
	if err := json.Unmarshal(raw, &kv); err != nil || kv["train_size"] != float64(10) || kv["rie"] != false {
		t.Errorf("config.json %s", raw)
	}
	for _, f := range []string{features.EncoderFile, features.DecoderFile} {
		if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	card, err := os.ReadFile(filepath.Join(out, ModelCardFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"TSPTW-10 easy", "| steps | 3 of 3 |", "| instances seen | 24 |", "hardware", "No validation set"} {
		if !strings.Contains(string(card), s) {
			t.Errorf("model card lacks %q:\n%s", s, card)
		}
	}
	// The exported weights are the checkpoint's.
	w1 := weightsOf(t, tr)
	ck, _ := ReadCheckpoint(dir)
	w2, err := ck.Weights(cfg.Model.Specs())
	if err != nil {
		t.Fatal(err)
	}
	for name, a := range w1 {
		for i := range a.Data {
			if a.Data[i] != w2[name].Data[i] {
				t.Fatalf("%s[%d] differs between model and checkpoint", name, i)
			}
		}
	}
}

func TestTrain_InitFromTakesWeightsOnly(t *testing.T) {
	src := tinyConfig(t, 4)
	dirA, dirB := t.TempDir(), t.TempDir()
	wa := weightsOf(t, trainRun(t, src, Options{Dir: dirA}))

	// Another hardness and seed, same architecture: weights come over,
	// nothing else does.
	cfg := tinyConfig(t, 6)
	cfg.Hardness, cfg.Seed = "medium", 11
	b, err := New(cfg, Options{Dir: dirB, InitFrom: dirA})
	if err != nil {
		t.Fatal(err)
	}
	if b.Step() != 0 {
		t.Fatalf("warm run starts at step %d, want 0", b.Step())
	}
	wb := weightsOf(t, b)
	for name, ta := range wa {
		for i := range ta.Data {
			if ta.Data[i] != wb[name].Data[i] {
				t.Fatalf("%s[%d]: checkpoint %v, warm start %v", name, i, ta.Data[i], wb[name].Data[i])
			}
		}
	}
	w := b.Config().Warm
	if w == nil || w.Step != 4 || w.Hardness != "easy" || w.InstancesSeen != int64(4*src.Batch) {
		t.Fatalf("warm-start record %+v", w)
	}
	sum, err := b.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if sum.InstancesSeen != int64(10*src.Batch) {
		t.Errorf("instances seen %d, want %d (4 inherited + 6 new steps of %d)", sum.InstancesSeen, 10*src.Batch, src.Batch)
	}
	// The learning-rate schedule is the new run's own.
	if r := b.Metrics().Records(); r[0].LR != cfg.LR {
		t.Errorf("first lr %g, want %g", r[0].LR, cfg.LR)
	}
	if card := string(ModelCard(State{Config: b.Config(), Step: sum.Step, InstancesSeen: sum.InstancesSeen})); !strings.Contains(card, "warm start") {
		t.Errorf("model card does not mention the warm start:\n%s", card)
	}

	// Other sizes are refused, and so is combining with resume.
	bad := tinyConfig(t, 2)
	bad.Model.DModel = 32
	if _, err := New(bad, Options{Dir: t.TempDir(), InitFrom: dirA}); err == nil || !strings.Contains(err.Error(), "model sizes") {
		t.Errorf("mismatched sizes: err %v", err)
	}
	if _, err := New(cfg, Options{Dir: dirB, Resume: true, InitFrom: dirA}); err == nil {
		t.Error("resume with init-from accepted")
	}
}

// TestTrain_InitFromModelDirectory: a run starts from the weights of an
// exported model directory (a shipped model), read back from its ONNX
// files, and refuses one of other sizes.
func TestTrain_InitFromModelDirectory(t *testing.T) {
	src := tinyConfig(t, 3)
	run := t.TempDir()
	a := trainRun(t, src, Options{Dir: run})
	model := filepath.Join(t.TempDir(), "model")
	if err := a.Export(model); err != nil {
		t.Fatal(err)
	}
	wa := weightsOf(t, a)
	b, err := New(tinyConfig(t, 2), Options{Dir: t.TempDir(), InitFrom: model})
	if err != nil {
		t.Fatal(err)
	}
	wb := weightsOf(t, b)
	for name, ta := range wa {
		for i := range ta.Data {
			if d := math.Abs(float64(ta.Data[i] - wb[name].Data[i])); d > 1e-6*math.Max(1, math.Abs(float64(ta.Data[i]))) {
				t.Fatalf("%s[%d]: exported %v, read back %v", name, i, ta.Data[i], wb[name].Data[i])
			}
		}
	}
	if w := b.Config().Warm; w == nil || !w.Model || w.Checkpoint != model {
		t.Fatalf("warm-start record %+v", w)
	}
	if card := string(ModelCard(State{Config: b.Config()})); !strings.Contains(card, "weights of the model model") {
		t.Errorf("model card does not name the model directory:\n%s", card)
	}
	bad := tinyConfig(t, 2)
	bad.Model.DModel = 32
	if _, err := New(bad, Options{Dir: t.TempDir(), InitFrom: model}); err == nil || !strings.Contains(err.Error(), "model sizes") {
		t.Errorf("mismatched sizes: err %v", err)
	}
}

// TestTrain_InitFromFormat1IntoFormat2: a format-1 checkpoint starts a
// format-2 run with candidate features: every format-1 weight comes over,
// and the new blocks start where they add nothing, so the first greedy
// tours are the format-1 model's (ReLD's residual q changes the glimpse,
// so a ReLD run only trains on from them); a format-2 source refuses a
// run that would drop its blocks.
func TestTrain_InitFromFormat1IntoFormat2(t *testing.T) {
	src := tinyConfig(t, 3)
	dirA := t.TempDir()
	a := trainRun(t, src, Options{Dir: dirA})
	wa := weightsOf(t, a)
	cfg := tinyConfig(t, 2)
	cfg.Model = cfg.Model.WithDecoder(false, features.CandBoth)
	dirB := t.TempDir()
	b, err := New(cfg, Options{Dir: dirB, InitFrom: dirA})
	if err != nil {
		t.Fatal(err)
	}
	wb := weightsOf(t, b)
	for name, ta := range wa {
		for i := range ta.Data {
			if ta.Data[i] != wb[name].Data[i] {
				t.Fatalf("%s[%d]: source %v, warm start %v", name, i, ta.Data[i], wb[name].Data[i])
			}
		}
	}
	insts := generate(t, lazymask.TSPTW, cfg.Size, cfg.Hardness, 6, 91)
	dc := lazymask.Config{Budget: 20, Greedy: true}
	ta, err := lazymask.Decode(a.Model().Policy(), insts, 1, dc)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := lazymask.Decode(b.Model().Policy(), insts, 1, dc)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ta {
		if fmt.Sprint(ta[i].Tour) != fmt.Sprint(tb[i].Tour) {
			t.Fatalf("instance %d: format 1 decodes %v, the warm format-2 model %v", i, ta[i].Tour, tb[i].Tour)
		}
	}
	if _, err := b.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	reld := tinyConfig(t, 2)
	reld.Model = reld.Model.WithDecoder(true, features.CandBoth)
	r := trainRun(t, reld, Options{Dir: t.TempDir(), InitFrom: dirB})
	card := string(ModelCard(State{Config: r.Config()}))
	if want := "ReLD (glimpse residual and FFN), 5 per-candidate features entering as both, model format 2"; !strings.Contains(card, want) {
		t.Errorf("model card lacks %q:\n%s", want, card)
	}
	back := tinyConfig(t, 2)
	if _, err := New(back, Options{Dir: t.TempDir(), InitFrom: dirB}); err == nil || !strings.Contains(err.Error(), "would drop") {
		t.Fatalf("format 2 into format 1: err %v, want a refusal", err)
	}
}

// TestTrain_HostWorkersSameRun: rollouts advanced on several goroutines
// train exactly the weights of a one-goroutine run.
func TestTrain_HostWorkersSameRun(t *testing.T) {
	cfg := tinyConfig(t, 4)
	cfg.Batch, cfg.Samples = 8, 12 // 96 rows: the parallel path takes them (≥ 16 a worker)
	a := trainRun(t, cfg, Options{Dir: t.TempDir()})
	b := trainRun(t, cfg, Options{Dir: t.TempDir(), HostWorkers: 4})
	wa, wb := weightsOf(t, a), weightsOf(t, b)
	for name, ta := range wa {
		for i := range ta.Data {
			if ta.Data[i] != wb[name].Data[i] {
				t.Fatalf("%s[%d]: one goroutine %v, four %v", name, i, ta.Data[i], wb[name].Data[i])
			}
		}
	}
	ra, rb := a.Metrics().Records(), b.Metrics().Records()
	for i := range ra {
		if ra[i].Loss != rb[i].Loss || ra[i].PenCost != rb[i].PenCost {
			t.Errorf("step %d: one goroutine loss %v, four %v", i+1, ra[i].Loss, rb[i].Loss)
		}
	}
}

// TestTrain_PipelinesSameRun: rollouts split into instance groups decoded
// side by side (double-buffered) sample the same trajectories, so a short
// run reaches the same losses and weights up to float rounding.
func TestTrain_PipelinesSameRun(t *testing.T) {
	cfg := tinyConfig(t, 4)
	cfg.Batch, cfg.Samples = 8, 12
	a := trainRun(t, cfg, Options{Dir: t.TempDir()})
	b, err := New(cfg, Options{Dir: t.TempDir(), Pipelines: 3, HostWorkers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.pipes) != 3 {
		t.Fatalf("%d pipeline policies, want 3", len(b.pipes))
	}
	begins := make([]int, len(b.pipes))
	for i, p := range b.pipes {
		b.pipes[i] = &countingPolicy{Policy: p, begins: &begins[i]}
	}
	if _, err := b.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for i, n := range begins {
		if n != cfg.Steps {
			t.Fatalf("pipeline %d began %d decodes in %d steps", i, n, cfg.Steps)
		}
	}
	ra, rb := a.Metrics().Records(), b.Metrics().Records()
	if len(ra) != len(rb) || len(ra) == 0 {
		t.Fatalf("%d and %d records", len(ra), len(rb))
	}
	for i := range ra {
		if ra[i].PenCost != rb[i].PenCost || ra[i].Backtracks != rb[i].Backtracks || ra[i].Infeasible != rb[i].Infeasible {
			t.Errorf("step %d: rollouts differ: cost %v/%v, backtracks %v/%v", i+1, ra[i].PenCost, rb[i].PenCost, ra[i].Backtracks, rb[i].Backtracks)
		}
		if math.Abs(ra[i].Loss-rb[i].Loss) > 1e-5*(1+math.Abs(ra[i].Loss)) {
			t.Errorf("step %d: loss %v whole, %v split", i+1, ra[i].Loss, rb[i].Loss)
		}
	}
	wa, wb := weightsOf(t, a), weightsOf(t, b)
	for name, ta := range wa {
		for i := range ta.Data {
			if d := math.Abs(float64(ta.Data[i] - wb[name].Data[i])); d > 1e-5 {
				t.Fatalf("%s[%d]: whole %v, split %v", name, i, ta.Data[i], wb[name].Data[i])
			}
		}
	}
}

// countingPolicy counts the decodes a policy begins.
type countingPolicy struct {
	lazymask.Policy
	begins *int
}

func (p *countingPolicy) Begin(insts []*lazymask.Instance) error {
	*p.begins++
	return p.Policy.Begin(insts)
}
