package trainer

import (
	"math"
	"testing"
	"time"

	"github.com/lmask/lmask/datasets"
	"github.com/lmask/lmask/lazymask"
)

// bestSample is the verdict of the best of an instance's samples.
func bestSample(in *lazymask.Instance, trs []lazymask.Trajectory) lazymask.Verdict {
	var best lazymask.Verdict
	for _, tr := range trs {
		if tr.Tour == nil {
			continue
		}
		if c, _ := lazymask.Check(in, tr.Tour); lazymask.Compare(c.Verdict(), best) < 0 {
			best = c.Verdict()
		}
	}
	return best
}

// randomSamples generates count TSPTW-n easy instances and decodes samples
// Random-L trajectories of each, recorded under the default config's budget.
func randomSamples(t *testing.T, n, count, samples int, genSeed, decSeed uint64) ([]*lazymask.Instance, []lazymask.Trajectory, Config) {
	t.Helper()
	gen, err := datasets.NewGenerator(datasets.GenConfig{Problem: lazymask.TSPTW, N: n, Hardness: "easy", Seed: genSeed})
	if err != nil {
		t.Fatal(err)
	}
	insts := make([]*lazymask.Instance, count)
	for i := range insts {
		insts[i], _ = gen.Next()
	}
	cfg := DefaultConfig("tsptw", n, "easy")
	trajs, err := lazymask.Decode(&lazymask.RandomL{}, insts, samples, lazymask.Config{Budget: cfg.Budget, Semantics: lazymask.Train, Seed: decSeed, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	return insts, trajs, cfg
}

func TestGuideTours_ImproveAndReplay(t *testing.T) {
	const samples = 3
	insts, trajs, cfg := randomSamples(t, 12, 4, samples, 3, 5)
	cfg.GuideKicks = 5
	guides, st, err := guideTours(insts, trajs, samples, &cfg, 77)
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := guideTours(insts, trajs, samples, &cfg, 77)
	if err != nil {
		t.Fatal(err)
	}
	for b, g := range guides {
		best := bestSample(insts[b], trajs[b*samples:(b+1)*samples])
		if g == nil {
			if best.Feasible {
				t.Fatalf("instance %d: feasible best sample but no guide", b)
			}
			continue
		}
		tour := []int{0}
		for k, s := range g {
			if !s.Mask[s.Chosen] || s.Current != tour[k] {
				t.Fatalf("instance %d step %d: %+v does not replay", b, k, s)
			}
			tour = append(tour, s.Chosen)
			if again[b][k].Chosen != s.Chosen {
				t.Fatalf("instance %d: guide tours differ between identical calls", b)
			}
		}
		res, err := lazymask.Check(insts[b], tour)
		if err != nil || !res.Feasible {
			t.Fatalf("instance %d: guide tour %v infeasible: %v", b, tour, err)
		}
		if best.Feasible && res.Cost > best.Cost+1e-9 {
			t.Errorf("instance %d: guide %.4f worse than best sample %.4f", b, res.Cost, best.Cost)
		}
	}
	if st.Found == 0 || st.Gain < 0 || !(st.Cost > 0) {
		t.Errorf("stats %+v", st)
	}

	// Interleaving: slot P of each instance holds its guide with weight β.
	adv := make([]float32, len(trajs))
	for i := range adv {
		adv[i] = float32(i)
	}
	dst := make([]float32, len(insts)*(samples+1))
	all := withGuides(trajs, guides, samples, 0.5, adv, dst)
	for b := range insts {
		for p := 0; p < samples; p++ {
			i := b*(samples+1) + p
			if dst[i] != adv[b*samples+p] || all[i].Inst != b {
				t.Fatalf("sample slot %d: adv %v inst %d", i, dst[i], all[i].Inst)
			}
		}
		g := all[b*(samples+1)+samples]
		want := float32(0.5)
		if guides[b] == nil {
			want = 0
		}
		if g.Inst != b || dst[b*(samples+1)+samples] != want || len(g.Steps) != len(guides[b]) {
			t.Fatalf("guide slot of instance %d: %+v adv %v", b, g, dst[b*(samples+1)+samples])
		}
	}
}

func TestTrain_GuidedRunResumesExactly(t *testing.T) {
	const steps = 6
	cfg := tinyConfig(t, steps)
	cfg.Guide, cfg.GuideKicks = 1, 3
	a := trainRun(t, cfg, Options{Dir: t.TempDir()})
	for _, r := range a.Metrics().Records() {
		if r.Kind != KindTrain {
			continue
		}
		if !(r.GuideShare > 0.5) || r.GuideGain < 0 || !(r.GuideCost > 0) || r.GuideCost > r.Length+1e-9 {
			t.Errorf("step %d: guide share %v gain %v cost %v (mean sample length %v)", r.Step, r.GuideShare, r.GuideGain, r.GuideCost, r.Length)
		}
		if math.IsNaN(r.Loss) {
			t.Fatalf("step %d: loss NaN", r.Step)
		}
	}
	c := halfThenResumed(t, cfg, t.TempDir())
	if c.Config().Guide != 1 || c.Config().GuideKicks != 3 {
		t.Fatalf("resumed config lost the guidance: %+v", c.Config())
	}
	wa, wc := weightsOf(t, a), weightsOf(t, c)
	for name, ta := range wa {
		for i := range ta.Data {
			if ta.Data[i] != wc[name].Data[i] {
				t.Fatalf("%s[%d]: straight %v, resumed %v", name, i, ta.Data[i], wc[name].Data[i])
			}
		}
	}
}

func TestTrainer_GraphTime(t *testing.T) {
	tr, err := New(tinyConfig(t, 3), Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.TrainStep(); err != nil { // compiles
		t.Fatal(err)
	}
	tr.ResetGraphTime()
	if tr.GraphTime() != 0 {
		t.Fatalf("graph time after reset %v", tr.GraphTime())
	}
	start := time.Now()
	rec, err := tr.TrainStep()
	if err != nil {
		t.Fatal(err)
	}
	wall := time.Since(start)
	if g := tr.GraphTime(); g <= 0 || g > wall {
		t.Errorf("graph time %v outside (0, %v]", g, wall)
	}
	if rec.RolloutSec <= 0 || rec.ReplaySec <= 0 {
		t.Errorf("record timings %+v", rec)
	}
}

// TestGuideTours_MultiStart: with several starts the guide descends from the
// instance's best distinct samples and keeps the best, so without kicks it is
// never worse than the single-start guide (whose descent it includes) and is
// better on some instance.
func TestGuideTours_MultiStart(t *testing.T) {
	const samples = 8
	insts, trajs, cfg := randomSamples(t, 20, 8, samples, 11, 9)
	cfg.GuideKicks = 0
	one, _, err := guideTours(insts, trajs, samples, &cfg, 5)
	if err != nil {
		t.Fatal(err)
	}
	cfg.GuideStarts = samples
	many, _, err := guideTours(insts, trajs, samples, &cfg, 5)
	if err != nil {
		t.Fatal(err)
	}
	length := func(b int, g []lazymask.StepRecord) float64 {
		tour := []int{0}
		for _, s := range g {
			tour = append(tour, s.Chosen)
		}
		res, err := lazymask.Check(insts[b], tour)
		if err != nil || !res.Feasible {
			t.Fatalf("instance %d: guide tour %v infeasible: %v", b, tour, err)
		}
		return res.Cost
	}
	better := 0
	for b := range insts {
		if one[b] == nil {
			continue
		}
		if many[b] == nil {
			t.Fatalf("instance %d: single-start guide but no multi-start guide", b)
		}
		c1, cm := length(b, one[b]), length(b, many[b])
		if cm > c1+1e-9 {
			t.Errorf("instance %d: multi-start guide %.4f worse than single-start %.4f", b, cm, c1)
		}
		if cm < c1-1e-9 {
			better++
		}
	}
	if better == 0 {
		t.Errorf("multi-start guide never better than the single-start one on %d instances", len(insts))
	}
}
