package trainer

import (
	"encoding/json"
	"errors"
	lplot "github.com/lmask/lmask/datasets/plot"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"gonum.org/v1/plot/plotter"

	"github.com/lmask/lmask/lazymask"
	"github.com/lmask/lmask/models/features"
)

func TestCheckpoint_RoundTrip(t *testing.T) {
	dir := t.TempDir()
	store := model.NewStore()
	store.VariableWithValue("/init/depot/w", tensors.FromFlatDataAndDimensions([]float32{1, 2, 3, 4, 5, 6}, 2, 3))
	store.VariableWithValue("/global_step", int64(42)).SetTrainable(false)
	cfg := DefaultConfig("tsptw", 10, "easy")
	st := State{Config: cfg, Step: 7, InstancesSeen: 112, WallSeconds: 3.5, RNG: []byte{1, 2, 3},
		LastVal: &ValMetrics{Instances: 4, Obj: 2.5}}
	if err := SaveCheckpoint(dir, st, store); err != nil {
		t.Fatal(err)
	}
	ck, err := ReadCheckpoint(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ck.Step != 7 || ck.InstancesSeen != 112 || ck.WallSeconds != 3.5 || string(ck.RNG) != "\x01\x02\x03" ||
		ck.LastVal.Obj != 2.5 || ck.Config.Size != 10 || ck.Config.Problem != "tsptw" {
		t.Errorf("state read back: %+v", ck.State)
	}
	fresh := model.NewStore()
	fresh.VariableWithValue("/init/depot/w", tensors.FromFlatDataAndDimensions(make([]float32, 6), 2, 3))
	if err := ck.Restore(fresh); err != nil {
		t.Fatal(err)
	}
	got := tensors.MustCopyFlatData[float32](fresh.GetVariable("/init/depot/w").MustValue())
	for i, v := range []float32{1, 2, 3, 4, 5, 6} {
		if got[i] != v {
			t.Fatalf("restored w = %v", got)
		}
	}
	gs := fresh.GetVariable("/global_step")
	if gs == nil || gs.Trainable || tensors.ToScalar[int64](gs.MustValue()) != 42 {
		t.Fatalf("global step not restored as a non-trainable 42: %v", gs)
	}
	w, err := ck.Weights([]features.Spec{{Name: "init/depot/w", Shape: []int{2, 3}}})
	if err != nil || w["init/depot/w"].Data[5] != 6 {
		t.Fatalf("Weights: %v %v", w, err)
	}
	if _, err := ck.Weights([]features.Spec{{Name: "dec/query/w", Shape: []int{2, 3}}}); err == nil || !strings.Contains(err.Error(), "dec/query/w") {
		t.Errorf("missing parameter: error %v", err)
	}
	// A shape mismatch is refused with the variable's name.
	bad := model.NewStore()
	bad.VariableWithValue("/init/depot/w", tensors.FromFlatDataAndDimensions(make([]float32, 4), 2, 2))
	if err := ck.Restore(bad); err == nil || !strings.Contains(err.Error(), "/init/depot/w") {
		t.Errorf("shape mismatch: error %v", err)
	}
}

func TestCheckpoint_DamageDetected(t *testing.T) {
	dir := t.TempDir()
	store := model.NewStore()
	store.VariableWithValue("/x", tensors.FromFlatDataAndDimensions([]float32{1, 2, 3, 4}, 4))
	if err := SaveCheckpoint(dir, State{Config: DefaultConfig("tspdl", 10, "hard")}, store); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, CheckpointFile)
	raw, _ := os.ReadFile(path)
	raw[len(raw)-1] ^= 0xff
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCheckpoint(dir); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("damaged data: error %v", err)
	}
	if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadCheckpoint(dir); err == nil || !strings.Contains(err.Error(), "magic") {
		t.Errorf("not a checkpoint: error %v", err)
	}
	if _, err := ReadCheckpoint(t.TempDir()); !errors.Is(err, ErrNoCheckpoint) {
		t.Errorf("empty dir: error %v, want ErrNoCheckpoint", err)
	}
}

func TestMetricsLog_ResumeDropsLaterSteps(t *testing.T) {
	dir := t.TempDir()
	l, err := OpenMetricsLog(dir, -1)
	if err != nil {
		t.Fatal(err)
	}
	for s := 1; s <= 5; s++ {
		if err := l.Append(Record{Kind: KindTrain, Step: s, Reward: -float64(s), PenCost: float64(s)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Append(Record{Kind: KindVal, Step: 4, Val: &ValMetrics{Instances: 2, Obj: 3, SolInfeasible: 0.5}}); err != nil {
		t.Fatal(err)
	}
	l2, err := OpenMetricsLog(dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(l2.Records()); n != 3 {
		t.Fatalf("kept %d records, want 3", n)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, MetricsFile))
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	var last Record
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || len(lines) != 3 || last.Step != 3 || last.Reward != -3 {
		t.Fatalf("file after resume: %d lines, last %+v, %v", len(lines), last, err)
	}
	svg, err := RenderCurve(l.Records())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "training reward", "infeasibility", "validation objective"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("curve lacks %q", want)
		}
	}
	if strings.Contains(string(svg), "new stage") {
		t.Error("a single stage has a stage line")
	}
	recs, starts := JoinStages(l.Records(), l.Records())
	svg, err = RenderCurve(recs, starts...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "new stage") || !strings.Contains(string(svg), "stroke-dasharray") {
		t.Error("two stages: no dashed stage line in the legend")
	}
}

func TestCurveAxes(t *testing.T) {
	for _, tk := range (lplot.PlainTicks{}).Ticks(0, 7500) {
		if strings.Contains(tk.Label, ".") {
			t.Errorf("tick label %q for %v", tk.Label, tk.Value)
		}
	}
	// Drawn lines span the axis; of a validation series from step 0 the
	// first (untrained) point does not, once later ones follow.
	avg := plotter.XYs{{X: 1, Y: -10}, {X: 2, Y: -9.4}}
	val := plotter.XYs{{X: 0, Y: -80}, {X: 500, Y: -12}, {X: 900, Y: -9}}
	lo, hi, ok := valueRange([]curveSeries{{pts: avg, noisy: true}, {pts: val}})
	if !ok || lo != -12 || hi != -9 {
		t.Errorf("range [%v, %v], want [-12, -9]", lo, hi)
	}
	if lo, _, _ := valueRange([]curveSeries{{pts: val[:2]}}); lo != -80 {
		t.Errorf("two validations: range from %v, want both points", lo)
	}
	if _, _, ok := valueRange([]curveSeries{{}}); ok {
		t.Error("empty panel has a range")
	}
}

// TestSmooth: a centred moving average over about 5% of the points,
// narrower at the ends, that never reaches across a stage start.
func TestSmooth(t *testing.T) {
	var pts plotter.XYs
	for s := 1; s <= 400; s++ {
		y := float64(s % 2) // alternating 0, 1: the average is ½ inside
		if s > 200 {
			y += 10 // a new stage at step 200 starts 10 higher
		}
		pts = append(pts, plotter.XY{X: float64(s), Y: y})
	}
	sm := smooth(pts, []int{200})
	for i, p := range sm {
		want := 0.5
		if p.X > 200 {
			want = 10.5
		}
		if math.Abs(p.Y-want) > 0.1 || p.X != pts[i].X {
			t.Fatalf("step %v: %v, want about %v", p.X, p.Y, want)
		}
	}
	if unsplit := smooth(pts, nil); math.Abs(unsplit[199].Y-5.5) > 1 {
		t.Errorf("without the stage start the window blends both stages: %v at step 200", unsplit[199].Y)
	}
}

// TestRenderCurveImitation: a log without rewards (imitation) shows the
// label loss in the first panel.
func TestRenderCurveImitation(t *testing.T) {
	var recs []Record
	for s := 1; s <= 60; s++ {
		recs = append(recs, Record{Kind: KindTrain, Step: s, StepNLL: 2 / float64(s), Length: 5})
	}
	svg, err := RenderCurve(recs)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "imitation loss") || strings.Contains(string(svg), "training reward") {
		t.Error("imitation log: first panel is not the label loss")
	}
}

// TestRenderCurveMixedStages: an imitation stage joined with a REINFORCE
// stage draws the label loss of the imitation steps only, not their zero
// rewards.
func TestRenderCurveMixedStages(t *testing.T) {
	var im, rl []Record
	for s := 1; s <= 30; s++ {
		im = append(im, Record{Kind: KindTrain, Step: s, StepNLL: 0.5 + 1/float64(s), Length: 5})
		rl = append(rl, Record{Kind: KindTrain, Step: s, Reward: -5.5, PenCost: 5.5, Length: 5.4})
	}
	recs, starts := JoinStages(im, rl)
	ps := panels(recs)
	if ps[0].title != "imitation loss" || len(ps[0].series) != 1 || len(ps[0].series[0].pts) != 30 {
		t.Fatalf("first panel %q with %d series", ps[0].title, len(ps[0].series))
	}
	for _, p := range ps[0].series[0].pts {
		if p.Y == 0 {
			t.Fatalf("the label loss panel holds a zero at step %v", p.X)
		}
	}
	if _, err := RenderCurve(recs, starts...); err != nil {
		t.Fatal(err)
	}
}

// TestRenderComparison draws two panels of two runs each, the x axis in
// tours seen; a run without validations is an error.
func TestRenderComparison(t *testing.T) {
	run := func(obj float64) []Record {
		var r []Record
		for s := 0; s <= 100; s += 25 {
			r = append(r, Record{Kind: KindVal, Step: s, Val: &ValMetrics{Instances: 8, Obj: obj - float64(s)/100}})
		}
		return r
	}
	g := []CompareGroup{{Title: "TSPTW-50 easy", ToursPerStep: 128, Runs: []CompareRun{{"pomo", run(8)}, {"keys", run(7.8)}}},
		{Title: "TSPDL-50 hard", ToursPerStep: 128, Runs: []CompareRun{{"pomo", run(14)}, {"keys", run(13.5)}}}}
	svg, err := RenderComparison(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"TSPTW-50 easy", "TSPDL-50 hard", "label tours seen", "keys", ">12000<"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("picture lacks %q", want)
		}
	}
	g[1].Runs[1].Recs = []Record{{Kind: KindTrain, Step: 1}}
	if _, err := RenderComparison(g); err == nil || !strings.Contains(err.Error(), "keys") {
		t.Fatalf("err = %v, want one naming the run without validations", err)
	}
}

func TestReplayBatch_Fill(t *testing.T) {
	inst := &lazymask.Instance{Problem: lazymask.TSPTW, N: 3, Scale: 1, X: []float64{0, 0, 1}, Y: []float64{0, 1, 1},
		Early: []float64{0, 0, 0}, Late: []float64{4, 2, 3}, Service: make([]float64, 3)}
	trajs, err := lazymask.Decode(lazymask.Uniform{}, []*lazymask.Instance{inst}, 2,
		lazymask.Config{Budget: 15, Semantics: lazymask.Train, Greedy: true, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	rb := NewReplayBatch(1, 2, 3)
	if err := rb.Fill([]*lazymask.Instance{inst}, trajs); err != nil {
		t.Fatal(err)
	}
	// Greedy uniform picks the lowest index: 0→1→2 for both samples.
	for i, want := range []int64{0, 1, 0, 1} {
		if rb.Current[i] != want {
			t.Errorf("current[%d] = %d, want %d", i, rb.Current[i], want)
		}
	}
	for i, want := range []int64{1, 2, 1, 2} {
		if rb.Chosen[i] != want || rb.Valid[i] != 1 {
			t.Errorf("chosen[%d] = %d (valid %g), want %d", i, rb.Chosen[i], rb.Valid[i], want)
		}
	}
	// Step 1 starts at node 1 at time 1: t/l0 = 0.25, refinement 0, budget not reached.
	row := rb.StepFeat[features.StepFeatures : 2*features.StepFeatures]
	if row[0] != 0.25 || row[1] != 1 || row[6] != 1 || row[7] != 0 {
		t.Errorf("step features %v", row)
	}
	if rb.Mask[3+0] || !rb.Mask[3+2] || rb.Mask[3+1] {
		t.Errorf("mask of step 1 = %v, want only node 2", rb.Mask[3:6])
	}
	if nf := rb.NodeFeat[4:8]; nf[2] != 0 || nf[3] != 0.5 {
		t.Errorf("node 1 features %v, want (0,1,0,0.5)", nf)
	}
	if err := rb.Fill([]*lazymask.Instance{inst}, trajs[:1]); err == nil {
		t.Error("1 trajectory for 1×2 batch: no error")
	}
}

func TestJoinStages(t *testing.T) {
	a := []Record{{Kind: KindVal, Step: 0}, {Kind: KindTrain, Step: 1}, {Kind: KindTrain, Step: 2}, {Kind: KindVal, Step: 2}}
	b := []Record{{Kind: KindVal, Step: 0}, {Kind: KindTrain, Step: 1}, {Kind: KindTrain, Step: 3}}
	got, starts := JoinStages(a, b)
	if len(starts) != 1 || starts[0] != 2 {
		t.Errorf("stage starts %v, want [2]", starts)
	}
	want := []int{0, 1, 2, 2, 2, 3, 5}
	if len(got) != len(want) {
		t.Fatalf("%d records, want %d", len(got), len(want))
	}
	for i, r := range got {
		if r.Step != want[i] {
			t.Errorf("record %d: step %d, want %d", i, r.Step, want[i])
		}
	}
	if a[1].Step != 1 || b[2].Step != 3 {
		t.Error("JoinStages changed its input")
	}
}
